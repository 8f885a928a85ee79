from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.deployment_lessons_output import DeploymentLessonsOutput
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    deployment_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/deployments/{deployment_id}/lessons/".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DeploymentLessonsOutput | ErrorBody | None:
    if response.status_code == 200:
        response_200 = DeploymentLessonsOutput.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[DeploymentLessonsOutput | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[DeploymentLessonsOutput | ErrorBody]:
    """The deployment's active lessons and every revision, newest first

     Lessons are what reflection distilled from the deployment's closed trades; the active ones are in
    the agent's system prompt (`get_context`). This lists them and every earlier revision, newest first.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeploymentLessonsOutput | ErrorBody]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
) -> DeploymentLessonsOutput | ErrorBody | None:
    """The deployment's active lessons and every revision, newest first

     Lessons are what reflection distilled from the deployment's closed trades; the active ones are in
    the agent's system prompt (`get_context`). This lists them and every earlier revision, newest first.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeploymentLessonsOutput | ErrorBody
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[DeploymentLessonsOutput | ErrorBody]:
    """The deployment's active lessons and every revision, newest first

     Lessons are what reflection distilled from the deployment's closed trades; the active ones are in
    the agent's system prompt (`get_context`). This lists them and every earlier revision, newest first.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DeploymentLessonsOutput | ErrorBody]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
) -> DeploymentLessonsOutput | ErrorBody | None:
    """The deployment's active lessons and every revision, newest first

     Lessons are what reflection distilled from the deployment's closed trades; the active ones are in
    the agent's system prompt (`get_context`). This lists them and every earlier revision, newest first.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DeploymentLessonsOutput | ErrorBody
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.context_output import ContextOutput
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    deployment_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/deployments/{deployment_id}/context/".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ContextOutput | ErrorBody | None:
    if response.status_code == 200:
        response_200 = ContextOutput.from_dict(response.json())

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
) -> Response[ContextOutput | ErrorBody]:
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
) -> Response[ContextOutput | ErrorBody]:
    """The agent's memory block and system prompt for its next tick (null sections are suppressed)

     Call it after `post_tick`, before asking the agent for its next action: put `system_prompt.text` in
    the system prompt and `text` in the user message, next to the market data. It reflects every tick
    posted so far (reading it applies any tick not yet in the ledger). A runner token of this deployment
    may call it.

    A section whose read fails (a database error or its statement timeout) never fails the request: it
    is null and named in `degraded`, and the rest of the context is served.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContextOutput | ErrorBody]
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
) -> ContextOutput | ErrorBody | None:
    """The agent's memory block and system prompt for its next tick (null sections are suppressed)

     Call it after `post_tick`, before asking the agent for its next action: put `system_prompt.text` in
    the system prompt and `text` in the user message, next to the market data. It reflects every tick
    posted so far (reading it applies any tick not yet in the ledger). A runner token of this deployment
    may call it.

    A section whose read fails (a database error or its statement timeout) never fails the request: it
    is null and named in `degraded`, and the rest of the context is served.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContextOutput | ErrorBody
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[ContextOutput | ErrorBody]:
    """The agent's memory block and system prompt for its next tick (null sections are suppressed)

     Call it after `post_tick`, before asking the agent for its next action: put `system_prompt.text` in
    the system prompt and `text` in the user message, next to the market data. It reflects every tick
    posted so far (reading it applies any tick not yet in the ledger). A runner token of this deployment
    may call it.

    A section whose read fails (a database error or its statement timeout) never fails the request: it
    is null and named in `degraded`, and the rest of the context is served.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ContextOutput | ErrorBody]
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
) -> ContextOutput | ErrorBody | None:
    """The agent's memory block and system prompt for its next tick (null sections are suppressed)

     Call it after `post_tick`, before asking the agent for its next action: put `system_prompt.text` in
    the system prompt and `text` in the user message, next to the market data. It reflects every tick
    posted so far (reading it applies any tick not yet in the ledger). A runner token of this deployment
    may call it.

    A section whose read fails (a database error or its statement timeout) never fails the request: it
    is null and named in `degraded`, and the rest of the context is served.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ContextOutput | ErrorBody
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
        )
    ).parsed

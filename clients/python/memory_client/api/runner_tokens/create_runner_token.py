from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.runner_token_created import RunnerTokenCreated
from ...models.runner_token_input_request import RunnerTokenInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    deployment_id: int,
    *,
    body: RunnerTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/deployments/{deployment_id}/runner-tokens/".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RunnerTokenCreated | None:
    if response.status_code == 201:
        response_201 = RunnerTokenCreated.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())

        return response_415

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | RunnerTokenCreated]:
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
    body: RunnerTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | RunnerTokenCreated]:
    """Create a runner token for this deployment: ticks, fills, its context and trades only. The key is in
    this response only

     A key (`rt_…`) for the machine that runs the agent: it may post ticks and fills and read this
    deployment's context, ticks and trades, nothing else. Keep `key` now; it is never shown again.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (RunnerTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunnerTokenCreated]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    body: RunnerTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | RunnerTokenCreated | None:
    """Create a runner token for this deployment: ticks, fills, its context and trades only. The key is in
    this response only

     A key (`rt_…`) for the machine that runs the agent: it may post ticks and fills and read this
    deployment's context, ticks and trades, nothing else. Keep `key` now; it is never shown again.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (RunnerTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunnerTokenCreated
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    body: RunnerTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | RunnerTokenCreated]:
    """Create a runner token for this deployment: ticks, fills, its context and trades only. The key is in
    this response only

     A key (`rt_…`) for the machine that runs the agent: it may post ticks and fills and read this
    deployment's context, ticks and trades, nothing else. Keep `key` now; it is never shown again.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (RunnerTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RunnerTokenCreated]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    body: RunnerTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | RunnerTokenCreated | None:
    """Create a runner token for this deployment: ticks, fills, its context and trades only. The key is in
    this response only

     A key (`rt_…`) for the machine that runs the agent: it may post ticks and fills and read this
    deployment's context, ticks and trades, nothing else. Keep `key` now; it is never shown again.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (RunnerTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RunnerTokenCreated
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.account_token_created import AccountTokenCreated
from ...models.account_token_input_request import AccountTokenInputRequest
from ...models.error_body import ErrorBody
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: AccountTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/auth/tokens/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AccountTokenCreated | ErrorBody | None:
    if response.status_code == 201:
        response_201 = AccountTokenCreated.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

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
) -> Response[AccountTokenCreated | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: AccountTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[AccountTokenCreated | ErrorBody]:
    """Create a named account token, optionally expiring. The key is in this response only

     A new account token reaching your whole account; keep `key` now, it is never shown again. For a
    runner, prefer a runner token (`create_runner_token`): it reaches one deployment's runner endpoints
    only.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (AccountTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountTokenCreated | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: AccountTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> AccountTokenCreated | ErrorBody | None:
    """Create a named account token, optionally expiring. The key is in this response only

     A new account token reaching your whole account; keep `key` now, it is never shown again. For a
    runner, prefer a runner token (`create_runner_token`): it reaches one deployment's runner endpoints
    only.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (AccountTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountTokenCreated | ErrorBody
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: AccountTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[AccountTokenCreated | ErrorBody]:
    """Create a named account token, optionally expiring. The key is in this response only

     A new account token reaching your whole account; keep `key` now, it is never shown again. For a
    runner, prefer a runner token (`create_runner_token`): it reaches one deployment's runner endpoints
    only.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (AccountTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AccountTokenCreated | ErrorBody]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: AccountTokenInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> AccountTokenCreated | ErrorBody | None:
    """Create a named account token, optionally expiring. The key is in this response only

     A new account token reaching your whole account; keep `key` now, it is never shown again. For a
    runner, prefer a runner token (`create_runner_token`): it reaches one deployment's runner endpoints
    only.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (AccountTokenInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AccountTokenCreated | ErrorBody
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...types import Response


def _get_kwargs(
    deployment_id: int,
    token_id: int,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/api/v1/deployments/{deployment_id}/runner-tokens/{token_id}/".format(
            deployment_id=quote(str(deployment_id), safe=""),
            token_id=quote(str(token_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | ErrorBody | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | ErrorBody]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    deployment_id: int,
    token_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorBody]:
    """Revoke a runner token: its key stops working at once; the row stays listed

     The runner's requests with this key are refused (401) from now on; the deployment goes on. Revoking
    it again changes nothing.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        token_id (int): The token's id (`id` from its creation or its list).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        token_id=token_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: int,
    token_id: int,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorBody | None:
    """Revoke a runner token: its key stops working at once; the row stays listed

     The runner's requests with this key are refused (401) from now on; the deployment goes on. Revoking
    it again changes nothing.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        token_id (int): The token's id (`id` from its creation or its list).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return sync_detailed(
        deployment_id=deployment_id,
        token_id=token_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    token_id: int,
    *,
    client: AuthenticatedClient,
) -> Response[Any | ErrorBody]:
    """Revoke a runner token: its key stops working at once; the row stays listed

     The runner's requests with this key are refused (401) from now on; the deployment goes on. Revoking
    it again changes nothing.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        token_id (int): The token's id (`id` from its creation or its list).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorBody]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        token_id=token_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: int,
    token_id: int,
    *,
    client: AuthenticatedClient,
) -> Any | ErrorBody | None:
    """Revoke a runner token: its key stops working at once; the row stays listed

     The runner's requests with this key are refused (401) from now on; the deployment goes on. Revoking
    it again changes nothing.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        token_id (int): The token's id (`id` from its creation or its list).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorBody
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            token_id=token_id,
            client=client,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.paginated_runner_token_output_list import PaginatedRunnerTokenOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    deployment_id: int,
    *,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/deployments/{deployment_id}/runner-tokens/".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedRunnerTokenOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedRunnerTokenOutputList.from_dict(response.json())

        return response_200

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | PaginatedRunnerTokenOutputList]:
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
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedRunnerTokenOutputList]:
    """The deployment's runner tokens, newest first, revoked ones included (never their keys)

     The deployment's runner tokens, newest first, with when each was last used; revoked ones stay
    listed. An account token or session only: a runner token gets a 403.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): Number of results to return per page.
        offset (int | Unset): The initial index from which to return the results.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedRunnerTokenOutputList]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        limit=limit,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedRunnerTokenOutputList | None:
    """The deployment's runner tokens, newest first, revoked ones included (never their keys)

     The deployment's runner tokens, newest first, with when each was last used; revoked ones stay
    listed. An account token or session only: a runner token gets a 403.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): Number of results to return per page.
        offset (int | Unset): The initial index from which to return the results.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedRunnerTokenOutputList
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedRunnerTokenOutputList]:
    """The deployment's runner tokens, newest first, revoked ones included (never their keys)

     The deployment's runner tokens, newest first, with when each was last used; revoked ones stay
    listed. An account token or session only: a runner token gets a 403.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): Number of results to return per page.
        offset (int | Unset): The initial index from which to return the results.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedRunnerTokenOutputList]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedRunnerTokenOutputList | None:
    """The deployment's runner tokens, newest first, revoked ones included (never their keys)

     The deployment's runner tokens, newest first, with when each was last used; revoked ones stay
    listed. An account token or session only: a runner token gets a 403.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): Number of results to return per page.
        offset (int | Unset): The initial index from which to return the results.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedRunnerTokenOutputList
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            limit=limit,
            offset=offset,
        )
    ).parsed

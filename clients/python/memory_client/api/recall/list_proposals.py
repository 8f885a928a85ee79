from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_proposals_status import ListProposalsStatus
from ...models.paginated_proposal_output_list import PaginatedProposalOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    status: ListProposalsStatus | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["offset"] = offset

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/recall/proposals/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedProposalOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedProposalOutputList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

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
) -> Response[ErrorBody | PaginatedProposalOutputList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    status: ListProposalsStatus | Unset = UNSET,
) -> Response[ErrorBody | PaginatedProposalOutputList]:
    """Edit proposals on your documents, newest first

     Edit proposals on your documents and what became of them, newest first.

    Args:
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        status (ListProposalsStatus | Unset): Only proposals in this state.

            * `pending` - pending
            * `approved` - approved
            * `rejected` - rejected

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedProposalOutputList]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    status: ListProposalsStatus | Unset = UNSET,
) -> ErrorBody | PaginatedProposalOutputList | None:
    """Edit proposals on your documents, newest first

     Edit proposals on your documents and what became of them, newest first.

    Args:
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        status (ListProposalsStatus | Unset): Only proposals in this state.

            * `pending` - pending
            * `approved` - approved
            * `rejected` - rejected

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedProposalOutputList
    """

    return sync_detailed(
        client=client,
        limit=limit,
        offset=offset,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    status: ListProposalsStatus | Unset = UNSET,
) -> Response[ErrorBody | PaginatedProposalOutputList]:
    """Edit proposals on your documents, newest first

     Edit proposals on your documents and what became of them, newest first.

    Args:
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        status (ListProposalsStatus | Unset): Only proposals in this state.

            * `pending` - pending
            * `approved` - approved
            * `rejected` - rejected

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedProposalOutputList]
    """

    kwargs = _get_kwargs(
        limit=limit,
        offset=offset,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    status: ListProposalsStatus | Unset = UNSET,
) -> ErrorBody | PaginatedProposalOutputList | None:
    """Edit proposals on your documents, newest first

     Edit proposals on your documents and what became of them, newest first.

    Args:
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        status (ListProposalsStatus | Unset): Only proposals in this state.

            * `pending` - pending
            * `approved` - approved
            * `rejected` - rejected

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedProposalOutputList
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            offset=offset,
            status=status,
        )
    ).parsed

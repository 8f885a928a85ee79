from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.paginated_journal_output_list import PaginatedJournalOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    deployment_id: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["deployment_id"] = deployment_id

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/recall/journal/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedJournalOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedJournalOutputList.from_dict(response.json())

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
) -> Response[ErrorBody | PaginatedJournalOutputList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    deployment_id: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedJournalOutputList]:
    """Your agents' journal entries, learnings and notes, newest first

     What your agents appended with `append_journal`, newest first, with the run and tick each came from;
    `deployment_id` narrows it to one deployment.

    Args:
        deployment_id (int | Unset): Only this deployment's entries.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedJournalOutputList]
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
    *,
    client: AuthenticatedClient,
    deployment_id: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedJournalOutputList | None:
    """Your agents' journal entries, learnings and notes, newest first

     What your agents appended with `append_journal`, newest first, with the run and tick each came from;
    `deployment_id` narrows it to one deployment.

    Args:
        deployment_id (int | Unset): Only this deployment's entries.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedJournalOutputList
    """

    return sync_detailed(
        client=client,
        deployment_id=deployment_id,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    deployment_id: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedJournalOutputList]:
    """Your agents' journal entries, learnings and notes, newest first

     What your agents appended with `append_journal`, newest first, with the run and tick each came from;
    `deployment_id` narrows it to one deployment.

    Args:
        deployment_id (int | Unset): Only this deployment's entries.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedJournalOutputList]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    deployment_id: int | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedJournalOutputList | None:
    """Your agents' journal entries, learnings and notes, newest first

     What your agents appended with `append_journal`, newest first, with the run and tick each came from;
    `deployment_id` narrows it to one deployment.

    Args:
        deployment_id (int | Unset): Only this deployment's entries.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedJournalOutputList
    """

    return (
        await asyncio_detailed(
            client=client,
            deployment_id=deployment_id,
            limit=limit,
            offset=offset,
        )
    ).parsed

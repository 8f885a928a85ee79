from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_facts_archived import ListFactsArchived
from ...models.paginated_fact_output_list import PaginatedFactOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    archived: ListFactsArchived | Unset = "false",
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    topic: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_archived: str | Unset = UNSET
    if not isinstance(archived, Unset):
        json_archived = archived

    params["archived"] = json_archived

    params["limit"] = limit

    params["offset"] = offset

    params["topic"] = topic

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/facts/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedFactOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedFactOutputList.from_dict(response.json())

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
) -> Response[ErrorBody | PaginatedFactOutputList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    archived: ListFactsArchived | Unset = "false",
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    topic: str | Unset = UNSET,
) -> Response[ErrorBody | PaginatedFactOutputList]:
    """Your facts, most recently referenced first (archived ones with ?archived=true or all)

     What the coach knows about you (facts from chats and ones you added), most recently referenced
    first.

    Args:
        archived (ListFactsArchived | Unset): `false` (default): facts in use; `true`: archived
            ones; `all`: both.

            * `false` - false
            * `true` - true
            * `all` - all Default: 'false'.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        topic (str | Unset): Only facts with this topic.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedFactOutputList]
    """

    kwargs = _get_kwargs(
        archived=archived,
        limit=limit,
        offset=offset,
        topic=topic,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    archived: ListFactsArchived | Unset = "false",
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    topic: str | Unset = UNSET,
) -> ErrorBody | PaginatedFactOutputList | None:
    """Your facts, most recently referenced first (archived ones with ?archived=true or all)

     What the coach knows about you (facts from chats and ones you added), most recently referenced
    first.

    Args:
        archived (ListFactsArchived | Unset): `false` (default): facts in use; `true`: archived
            ones; `all`: both.

            * `false` - false
            * `true` - true
            * `all` - all Default: 'false'.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        topic (str | Unset): Only facts with this topic.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedFactOutputList
    """

    return sync_detailed(
        client=client,
        archived=archived,
        limit=limit,
        offset=offset,
        topic=topic,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    archived: ListFactsArchived | Unset = "false",
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    topic: str | Unset = UNSET,
) -> Response[ErrorBody | PaginatedFactOutputList]:
    """Your facts, most recently referenced first (archived ones with ?archived=true or all)

     What the coach knows about you (facts from chats and ones you added), most recently referenced
    first.

    Args:
        archived (ListFactsArchived | Unset): `false` (default): facts in use; `true`: archived
            ones; `all`: both.

            * `false` - false
            * `true` - true
            * `all` - all Default: 'false'.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        topic (str | Unset): Only facts with this topic.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedFactOutputList]
    """

    kwargs = _get_kwargs(
        archived=archived,
        limit=limit,
        offset=offset,
        topic=topic,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    archived: ListFactsArchived | Unset = "false",
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    topic: str | Unset = UNSET,
) -> ErrorBody | PaginatedFactOutputList | None:
    """Your facts, most recently referenced first (archived ones with ?archived=true or all)

     What the coach knows about you (facts from chats and ones you added), most recently referenced
    first.

    Args:
        archived (ListFactsArchived | Unset): `false` (default): facts in use; `true`: archived
            ones; `all`: both.

            * `false` - false
            * `true` - true
            * `all` - all Default: 'false'.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        topic (str | Unset): Only facts with this topic.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedFactOutputList
    """

    return (
        await asyncio_detailed(
            client=client,
            archived=archived,
            limit=limit,
            offset=offset,
            topic=topic,
        )
    ).parsed

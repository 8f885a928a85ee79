from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.get_market_memory_date_format import GetMarketMemoryDateFormat
from ...models.memory_output import MemoryOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    market_id: int,
    *,
    agents: str,
    date_format: GetMarketMemoryDateFormat | Unset = "human",
    include_metadata: bool | Unset = False,
    limit: int | Unset = 3,
    max_length: int | Unset = 1000,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["agents"] = agents

    json_date_format: str | Unset = UNSET
    if not isinstance(date_format, Unset):
        json_date_format = date_format

    params["date_format"] = json_date_format

    params["include_metadata"] = include_metadata

    params["limit"] = limit

    params["max_length"] = max_length

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/markets/{market_id}/memory/".format(
            market_id=quote(str(market_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | MemoryOutput | None:
    if response.status_code == 200:
        response_200 = MemoryOutput.from_dict(response.json())

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
) -> Response[ErrorBody | MemoryOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agents: str,
    date_format: GetMarketMemoryDateFormat | Unset = "human",
    include_metadata: bool | Unset = False,
    limit: int | Unset = 3,
    max_length: int | Unset = 1000,
) -> Response[ErrorBody | MemoryOutput]:
    """Each named agent's own latest signals on the market, formatted for its prompt

     One database round trip for all agents. Database trouble never fails the request: the market lookup
    or the signals query failing (an error or the query timeout) gives every agent empty memory, an
    agent's formatting failing gives that agent empty memory; `degraded` is true and `degraded_steps`
    names the steps (the retrieval is audited whenever the market was found).

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agents (str): Comma-separated agent names.
        date_format (GetMarketMemoryDateFormat | Unset): Dates in `text`: `human` (`Jun 4, 2026,
            09:05 AM UTC`), `iso` or `relative` (`3 hours ago`).

            * `human` - human
            * `iso` - iso
            * `relative` - relative Default: 'human'.
        include_metadata (bool | Unset): Show each signal's metadata in `text`. Default: False.
        limit (int | Unset): Each agent's latest signals, at most this many (1-5, default 3).
            Default: 3.
        max_length (int | Unset): Each agent's `text` in at most this many characters (100-20,000,
            default 1000). Default: 1000.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MemoryOutput]
    """

    kwargs = _get_kwargs(
        market_id=market_id,
        agents=agents,
        date_format=date_format,
        include_metadata=include_metadata,
        limit=limit,
        max_length=max_length,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agents: str,
    date_format: GetMarketMemoryDateFormat | Unset = "human",
    include_metadata: bool | Unset = False,
    limit: int | Unset = 3,
    max_length: int | Unset = 1000,
) -> ErrorBody | MemoryOutput | None:
    """Each named agent's own latest signals on the market, formatted for its prompt

     One database round trip for all agents. Database trouble never fails the request: the market lookup
    or the signals query failing (an error or the query timeout) gives every agent empty memory, an
    agent's formatting failing gives that agent empty memory; `degraded` is true and `degraded_steps`
    names the steps (the retrieval is audited whenever the market was found).

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agents (str): Comma-separated agent names.
        date_format (GetMarketMemoryDateFormat | Unset): Dates in `text`: `human` (`Jun 4, 2026,
            09:05 AM UTC`), `iso` or `relative` (`3 hours ago`).

            * `human` - human
            * `iso` - iso
            * `relative` - relative Default: 'human'.
        include_metadata (bool | Unset): Show each signal's metadata in `text`. Default: False.
        limit (int | Unset): Each agent's latest signals, at most this many (1-5, default 3).
            Default: 3.
        max_length (int | Unset): Each agent's `text` in at most this many characters (100-20,000,
            default 1000). Default: 1000.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MemoryOutput
    """

    return sync_detailed(
        market_id=market_id,
        client=client,
        agents=agents,
        date_format=date_format,
        include_metadata=include_metadata,
        limit=limit,
        max_length=max_length,
    ).parsed


async def asyncio_detailed(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agents: str,
    date_format: GetMarketMemoryDateFormat | Unset = "human",
    include_metadata: bool | Unset = False,
    limit: int | Unset = 3,
    max_length: int | Unset = 1000,
) -> Response[ErrorBody | MemoryOutput]:
    """Each named agent's own latest signals on the market, formatted for its prompt

     One database round trip for all agents. Database trouble never fails the request: the market lookup
    or the signals query failing (an error or the query timeout) gives every agent empty memory, an
    agent's formatting failing gives that agent empty memory; `degraded` is true and `degraded_steps`
    names the steps (the retrieval is audited whenever the market was found).

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agents (str): Comma-separated agent names.
        date_format (GetMarketMemoryDateFormat | Unset): Dates in `text`: `human` (`Jun 4, 2026,
            09:05 AM UTC`), `iso` or `relative` (`3 hours ago`).

            * `human` - human
            * `iso` - iso
            * `relative` - relative Default: 'human'.
        include_metadata (bool | Unset): Show each signal's metadata in `text`. Default: False.
        limit (int | Unset): Each agent's latest signals, at most this many (1-5, default 3).
            Default: 3.
        max_length (int | Unset): Each agent's `text` in at most this many characters (100-20,000,
            default 1000). Default: 1000.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | MemoryOutput]
    """

    kwargs = _get_kwargs(
        market_id=market_id,
        agents=agents,
        date_format=date_format,
        include_metadata=include_metadata,
        limit=limit,
        max_length=max_length,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agents: str,
    date_format: GetMarketMemoryDateFormat | Unset = "human",
    include_metadata: bool | Unset = False,
    limit: int | Unset = 3,
    max_length: int | Unset = 1000,
) -> ErrorBody | MemoryOutput | None:
    """Each named agent's own latest signals on the market, formatted for its prompt

     One database round trip for all agents. Database trouble never fails the request: the market lookup
    or the signals query failing (an error or the query timeout) gives every agent empty memory, an
    agent's formatting failing gives that agent empty memory; `degraded` is true and `degraded_steps`
    names the steps (the retrieval is audited whenever the market was found).

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agents (str): Comma-separated agent names.
        date_format (GetMarketMemoryDateFormat | Unset): Dates in `text`: `human` (`Jun 4, 2026,
            09:05 AM UTC`), `iso` or `relative` (`3 hours ago`).

            * `human` - human
            * `iso` - iso
            * `relative` - relative Default: 'human'.
        include_metadata (bool | Unset): Show each signal's metadata in `text`. Default: False.
        limit (int | Unset): Each agent's latest signals, at most this many (1-5, default 3).
            Default: 3.
        max_length (int | Unset): Each agent's `text` in at most this many characters (100-20,000,
            default 1000). Default: 1000.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | MemoryOutput
    """

    return (
        await asyncio_detailed(
            market_id=market_id,
            client=client,
            agents=agents,
            date_format=date_format,
            include_metadata=include_metadata,
            limit=limit,
            max_length=max_length,
        )
    ).parsed

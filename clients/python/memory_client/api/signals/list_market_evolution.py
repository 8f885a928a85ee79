from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.paginated_evolution_event_output_list import PaginatedEvolutionEventOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    market_id: int,
    *,
    agent: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["agent"] = agent

    params["limit"] = limit

    params["offset"] = offset

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/markets/{market_id}/evolution/".format(
            market_id=quote(str(market_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedEvolutionEventOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedEvolutionEventOutputList.from_dict(response.json())

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
) -> Response[ErrorBody | PaginatedEvolutionEventOutputList]:
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
    agent: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedEvolutionEventOutputList]:
    """The evolution events detected on the market, newest first (optionally one agent's)

     How the agents' views of the market changed, signal to signal (direction changes, probability
    shifts, confidence changes, reasoning evolution), newest first.

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agent (str | Unset): Only this agent's events.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedEvolutionEventOutputList]
    """

    kwargs = _get_kwargs(
        market_id=market_id,
        agent=agent,
        limit=limit,
        offset=offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agent: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedEvolutionEventOutputList | None:
    """The evolution events detected on the market, newest first (optionally one agent's)

     How the agents' views of the market changed, signal to signal (direction changes, probability
    shifts, confidence changes, reasoning evolution), newest first.

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agent (str | Unset): Only this agent's events.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedEvolutionEventOutputList
    """

    return sync_detailed(
        market_id=market_id,
        client=client,
        agent=agent,
        limit=limit,
        offset=offset,
    ).parsed


async def asyncio_detailed(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agent: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> Response[ErrorBody | PaginatedEvolutionEventOutputList]:
    """The evolution events detected on the market, newest first (optionally one agent's)

     How the agents' views of the market changed, signal to signal (direction changes, probability
    shifts, confidence changes, reasoning evolution), newest first.

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agent (str | Unset): Only this agent's events.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedEvolutionEventOutputList]
    """

    kwargs = _get_kwargs(
        market_id=market_id,
        agent=agent,
        limit=limit,
        offset=offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    market_id: int,
    *,
    client: AuthenticatedClient,
    agent: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
) -> ErrorBody | PaginatedEvolutionEventOutputList | None:
    """The evolution events detected on the market, newest first (optionally one agent's)

     How the agents' views of the market changed, signal to signal (direction changes, probability
    shifts, confidence changes, reasoning evolution), newest first.

    Args:
        market_id (int): The market's id (`id` from `list_markets` or a stored signal).
        agent (str | Unset): Only this agent's events.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedEvolutionEventOutputList
    """

    return (
        await asyncio_detailed(
            market_id=market_id,
            client=client,
            agent=agent,
            limit=limit,
            offset=offset,
        )
    ).parsed

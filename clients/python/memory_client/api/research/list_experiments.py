from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_experiments_verdict import ListExperimentsVerdict
from ...models.paginated_experiment_output_list import PaginatedExperimentOutputList
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    indicator: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    symbol: str | Unset = UNSET,
    timeframe: str | Unset = UNSET,
    verdict: ListExperimentsVerdict | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["indicator"] = indicator

    params["limit"] = limit

    params["offset"] = offset

    params["symbol"] = symbol

    params["timeframe"] = timeframe

    json_verdict: str | Unset = UNSET
    if not isinstance(verdict, Unset):
        json_verdict = verdict

    params["verdict"] = json_verdict

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/research/experiments/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | PaginatedExperimentOutputList | None:
    if response.status_code == 200:
        response_200 = PaginatedExperimentOutputList.from_dict(response.json())

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
) -> Response[ErrorBody | PaginatedExperimentOutputList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    indicator: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    symbol: str | Unset = UNSET,
    timeframe: str | Unset = UNSET,
    verdict: ListExperimentsVerdict | Unset = UNSET,
) -> Response[ErrorBody | PaginatedExperimentOutputList]:
    """Your experiments, newest first, filterable by indicator, timeframe, symbol and verdict

     Your recorded experiments, newest first, filtered by the query's fields.

    Args:
        indicator (str | Unset): Only experiments using this indicator.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        symbol (str | Unset): Only this symbol.
        timeframe (str | Unset): Only this timeframe, e.g. `1h`.
        verdict (ListExperimentsVerdict | Unset): Only this verdict.

            * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedExperimentOutputList]
    """

    kwargs = _get_kwargs(
        indicator=indicator,
        limit=limit,
        offset=offset,
        symbol=symbol,
        timeframe=timeframe,
        verdict=verdict,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    indicator: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    symbol: str | Unset = UNSET,
    timeframe: str | Unset = UNSET,
    verdict: ListExperimentsVerdict | Unset = UNSET,
) -> ErrorBody | PaginatedExperimentOutputList | None:
    """Your experiments, newest first, filterable by indicator, timeframe, symbol and verdict

     Your recorded experiments, newest first, filtered by the query's fields.

    Args:
        indicator (str | Unset): Only experiments using this indicator.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        symbol (str | Unset): Only this symbol.
        timeframe (str | Unset): Only this timeframe, e.g. `1h`.
        verdict (ListExperimentsVerdict | Unset): Only this verdict.

            * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedExperimentOutputList
    """

    return sync_detailed(
        client=client,
        indicator=indicator,
        limit=limit,
        offset=offset,
        symbol=symbol,
        timeframe=timeframe,
        verdict=verdict,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    indicator: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    symbol: str | Unset = UNSET,
    timeframe: str | Unset = UNSET,
    verdict: ListExperimentsVerdict | Unset = UNSET,
) -> Response[ErrorBody | PaginatedExperimentOutputList]:
    """Your experiments, newest first, filterable by indicator, timeframe, symbol and verdict

     Your recorded experiments, newest first, filtered by the query's fields.

    Args:
        indicator (str | Unset): Only experiments using this indicator.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        symbol (str | Unset): Only this symbol.
        timeframe (str | Unset): Only this timeframe, e.g. `1h`.
        verdict (ListExperimentsVerdict | Unset): Only this verdict.

            * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | PaginatedExperimentOutputList]
    """

    kwargs = _get_kwargs(
        indicator=indicator,
        limit=limit,
        offset=offset,
        symbol=symbol,
        timeframe=timeframe,
        verdict=verdict,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    indicator: str | Unset = UNSET,
    limit: int | Unset = UNSET,
    offset: int | Unset = UNSET,
    symbol: str | Unset = UNSET,
    timeframe: str | Unset = UNSET,
    verdict: ListExperimentsVerdict | Unset = UNSET,
) -> ErrorBody | PaginatedExperimentOutputList | None:
    """Your experiments, newest first, filterable by indicator, timeframe, symbol and verdict

     Your recorded experiments, newest first, filtered by the query's fields.

    Args:
        indicator (str | Unset): Only experiments using this indicator.
        limit (int | Unset): Items per page (1-500; default 100).
        offset (int | Unset): How many items to skip (default 0).
        symbol (str | Unset): Only this symbol.
        timeframe (str | Unset): Only this timeframe, e.g. `1h`.
        verdict (ListExperimentsVerdict | Unset): Only this verdict.

            * `strong_signal` - strong_signal
            * `weak_signal` - weak_signal
            * `no_signal` - no_signal
            * `overfit` - overfit

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | PaginatedExperimentOutputList
    """

    return (
        await asyncio_detailed(
            client=client,
            indicator=indicator,
            limit=limit,
            offset=offset,
            symbol=symbol,
            timeframe=timeframe,
            verdict=verdict,
        )
    ).parsed

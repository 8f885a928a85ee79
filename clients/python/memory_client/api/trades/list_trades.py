from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.list_trades_status import ListTradesStatus
from ...models.trade_output import TradeOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    deployment_id: int,
    *,
    limit: int | Unset = 50,
    status: ListTradesStatus | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/deployments/{deployment_id}/trades/".format(
            deployment_id=quote(str(deployment_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | list[TradeOutput] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = TradeOutput.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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
) -> Response[ErrorBody | list[TradeOutput]]:
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
    limit: int | Unset = 50,
    status: ListTradesStatus | Unset = UNSET,
) -> Response[ErrorBody | list[TradeOutput]]:
    """The deployment's trades, newest entry first

     The deployment's trades from the ledger, newest entry first: open ones with their running figures,
    closed ones with exit, PnL, fees and MFE/MAE. Money is in USD as decimal strings. A runner token of
    this deployment may call it.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): At most this many trades (1-500, default 50). Default: 50.
        status (ListTradesStatus | Unset): Only `open` or only `closed` trades; omitted: both.

            * `open` - open
            * `closed` - closed

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[TradeOutput]]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        limit=limit,
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    status: ListTradesStatus | Unset = UNSET,
) -> ErrorBody | list[TradeOutput] | None:
    """The deployment's trades, newest entry first

     The deployment's trades from the ledger, newest entry first: open ones with their running figures,
    closed ones with exit, PnL, fees and MFE/MAE. Money is in USD as decimal strings. A runner token of
    this deployment may call it.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): At most this many trades (1-500, default 50). Default: 50.
        status (ListTradesStatus | Unset): Only `open` or only `closed` trades; omitted: both.

            * `open` - open
            * `closed` - closed

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[TradeOutput]
    """

    return sync_detailed(
        deployment_id=deployment_id,
        client=client,
        limit=limit,
        status=status,
    ).parsed


async def asyncio_detailed(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    status: ListTradesStatus | Unset = UNSET,
) -> Response[ErrorBody | list[TradeOutput]]:
    """The deployment's trades, newest entry first

     The deployment's trades from the ledger, newest entry first: open ones with their running figures,
    closed ones with exit, PnL, fees and MFE/MAE. Money is in USD as decimal strings. A runner token of
    this deployment may call it.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): At most this many trades (1-500, default 50). Default: 50.
        status (ListTradesStatus | Unset): Only `open` or only `closed` trades; omitted: both.

            * `open` - open
            * `closed` - closed

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | list[TradeOutput]]
    """

    kwargs = _get_kwargs(
        deployment_id=deployment_id,
        limit=limit,
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    deployment_id: int,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    status: ListTradesStatus | Unset = UNSET,
) -> ErrorBody | list[TradeOutput] | None:
    """The deployment's trades, newest entry first

     The deployment's trades from the ledger, newest entry first: open ones with their running figures,
    closed ones with exit, PnL, fees and MFE/MAE. Money is in USD as decimal strings. A runner token of
    this deployment may call it.

    Args:
        deployment_id (int): The deployment's id (`id` from `POST /api/v1/deployments/` or
            `list_deployments`).
        limit (int | Unset): At most this many trades (1-500, default 50). Default: 50.
        status (ListTradesStatus | Unset): Only `open` or only `closed` trades; omitted: both.

            * `open` - open
            * `closed` - closed

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | list[TradeOutput]
    """

    return (
        await asyncio_detailed(
            deployment_id=deployment_id,
            client=client,
            limit=limit,
            status=status,
        )
    ).parsed

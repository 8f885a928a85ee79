from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.research_context_output import ResearchContextOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    n: int | Unset = 15,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["n"] = n

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/research/context/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ResearchContextOutput | None:
    if response.status_code == 200:
        response_200 = ResearchContextOutput.from_dict(response.json())

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
) -> Response[ErrorBody | ResearchContextOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    n: int | Unset = 15,
) -> Response[ErrorBody | ResearchContextOutput]:
    """The research agent's context: how to use the history, then '## Experiment History', '## Open
    Hypotheses' and '## Available Resources' (capabilities implemented at its request)

     The research agent's memory block: put `text` in its prompt before it designs the next experiment.

    Args:
        n (int | Unset): At most this many experiments in the history (1-50, default 15). Default:
            15.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ResearchContextOutput]
    """

    kwargs = _get_kwargs(
        n=n,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    n: int | Unset = 15,
) -> ErrorBody | ResearchContextOutput | None:
    """The research agent's context: how to use the history, then '## Experiment History', '## Open
    Hypotheses' and '## Available Resources' (capabilities implemented at its request)

     The research agent's memory block: put `text` in its prompt before it designs the next experiment.

    Args:
        n (int | Unset): At most this many experiments in the history (1-50, default 15). Default:
            15.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ResearchContextOutput
    """

    return sync_detailed(
        client=client,
        n=n,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    n: int | Unset = 15,
) -> Response[ErrorBody | ResearchContextOutput]:
    """The research agent's context: how to use the history, then '## Experiment History', '## Open
    Hypotheses' and '## Available Resources' (capabilities implemented at its request)

     The research agent's memory block: put `text` in its prompt before it designs the next experiment.

    Args:
        n (int | Unset): At most this many experiments in the history (1-50, default 15). Default:
            15.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ResearchContextOutput]
    """

    kwargs = _get_kwargs(
        n=n,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    n: int | Unset = 15,
) -> ErrorBody | ResearchContextOutput | None:
    """The research agent's context: how to use the history, then '## Experiment History', '## Open
    Hypotheses' and '## Available Resources' (capabilities implemented at its request)

     The research agent's memory block: put `text` in its prompt before it designs the next experiment.

    Args:
        n (int | Unset): At most this many experiments in the history (1-50, default 15). Default:
            15.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ResearchContextOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            n=n,
        )
    ).parsed

from http import HTTPStatus
from io import BytesIO
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...types import File, Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/me/export/",
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[ErrorBody | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | File]:
    """Download all your data as a zip (JSON, CSV, YAML, Markdown)

     Everything this service keeps for your account, as one zip readable without it: every row you own
    table by table (`data/<table>.jsonl`), your trades and facts as CSV, every lessons revision as
    Markdown, your research memory in the seed's YAML layout and your recall documents as files. Another
    trader's rows and global documents are never in it. Token keys are not (only their hashes are kept),
    nor search vectors.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | File]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | File | None:
    """Download all your data as a zip (JSON, CSV, YAML, Markdown)

     Everything this service keeps for your account, as one zip readable without it: every row you own
    table by table (`data/<table>.jsonl`), your trades and facts as CSV, every lessons revision as
    Markdown, your research memory in the seed's YAML layout and your recall documents as files. Another
    trader's rows and global documents are never in it. Token keys are not (only their hashes are kept),
    nor search vectors.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | File
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | File]:
    """Download all your data as a zip (JSON, CSV, YAML, Markdown)

     Everything this service keeps for your account, as one zip readable without it: every row you own
    table by table (`data/<table>.jsonl`), your trades and facts as CSV, every lessons revision as
    Markdown, your research memory in the seed's YAML layout and your recall documents as files. Another
    trader's rows and global documents are never in it. Token keys are not (only their hashes are kept),
    nor search vectors.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | File]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorBody | File | None:
    """Download all your data as a zip (JSON, CSV, YAML, Markdown)

     Everything this service keeps for your account, as one zip readable without it: every row you own
    table by table (`data/<table>.jsonl`), your trades and facts as CSV, every lessons revision as
    Markdown, your research memory in the seed's YAML layout and your recall documents as files. Another
    trader's rows and global documents are never in it. Token keys are not (only their hashes are kept),
    nor search vectors.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | File
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed

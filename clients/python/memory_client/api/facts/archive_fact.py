from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fact_archive_input_request import FactArchiveInputRequest
from ...models.fact_output import FactOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    fact_id: UUID,
    *,
    body: FactArchiveInputRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/facts/{fact_id}/archive/".format(
            fact_id=quote(str(fact_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> ErrorBody | FactOutput | None:
    if response.status_code == 200:
        response_200 = FactOutput.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorBody.from_dict(response.json())

        return response_409

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | FactOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: FactArchiveInputRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | FactOutput]:
    """Archive a fact: it leaves the coach's prompt and stays visible under Archived

     The coach stops using the fact; it stays listed (with `?archived=true`) and can be un-archived.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (FactArchiveInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FactOutput]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: FactArchiveInputRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | FactOutput | None:
    """Archive a fact: it leaves the coach's prompt and stays visible under Archived

     The coach stops using the fact; it stays listed (with `?archived=true`) and can be un-archived.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (FactArchiveInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FactOutput
    """

    return sync_detailed(
        fact_id=fact_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: FactArchiveInputRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | FactOutput]:
    """Archive a fact: it leaves the coach's prompt and stays visible under Archived

     The coach stops using the fact; it stays listed (with `?archived=true`) and can be un-archived.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (FactArchiveInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FactOutput]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: FactArchiveInputRequest | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | FactOutput | None:
    """Archive a fact: it leaves the coach's prompt and stays visible under Archived

     The coach stops using the fact; it stays listed (with `?archived=true`) and can be un-archived.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (FactArchiveInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | FactOutput
    """

    return (
        await asyncio_detailed(
            fact_id=fact_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

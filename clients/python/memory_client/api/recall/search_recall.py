from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.search_input_request import SearchInputRequest
from ...models.search_output import SearchOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: SearchInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/recall/search/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SearchOutput | None:
    if response.status_code == 200:
        response_200 = SearchOutput.from_dict(response.json())

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
) -> Response[ErrorBody | SearchOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | SearchOutput]:
    """Hybrid keyword + vector search over your documents and the global ones, with citations

     Each result is a citation: path, startLine, endLine, score (0..1), snippet and source (`fts`,
    `vector` or `hybrid`: which side found it). `backend` is the active slot (`hybrid`, or `fts` when
    embeddings are off). Scores fuse 0.3·keyword + 0.7·cosine (RECALL_FTS_WEIGHT, RECALL_VECTOR_WEIGHT).
    With `snapshot_id` the citations are attached to that decision snapshot (the trade journal shows
    them).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SearchInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SearchOutput]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SearchInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | SearchOutput | None:
    """Hybrid keyword + vector search over your documents and the global ones, with citations

     Each result is a citation: path, startLine, endLine, score (0..1), snippet and source (`fts`,
    `vector` or `hybrid`: which side found it). `backend` is the active slot (`hybrid`, or `fts` when
    embeddings are off). Scores fuse 0.3·keyword + 0.7·cosine (RECALL_FTS_WEIGHT, RECALL_VECTOR_WEIGHT).
    With `snapshot_id` the citations are attached to that decision snapshot (the trade journal shows
    them).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SearchInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SearchOutput
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SearchInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | SearchOutput]:
    """Hybrid keyword + vector search over your documents and the global ones, with citations

     Each result is a citation: path, startLine, endLine, score (0..1), snippet and source (`fts`,
    `vector` or `hybrid`: which side found it). `backend` is the active slot (`hybrid`, or `fts` when
    embeddings are off). Scores fuse 0.3·keyword + 0.7·cosine (RECALL_FTS_WEIGHT, RECALL_VECTOR_WEIGHT).
    With `snapshot_id` the citations are attached to that decision snapshot (the trade journal shows
    them).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SearchInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SearchOutput]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SearchInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | SearchOutput | None:
    """Hybrid keyword + vector search over your documents and the global ones, with citations

     Each result is a citation: path, startLine, endLine, score (0..1), snippet and source (`fts`,
    `vector` or `hybrid`: which side found it). `backend` is the active slot (`hybrid`, or `fts` when
    embeddings are off). Scores fuse 0.3·keyword + 0.7·cosine (RECALL_FTS_WEIGHT, RECALL_VECTOR_WEIGHT).
    With `snapshot_id` the citations are attached to that decision snapshot (the trade journal shows
    them).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SearchInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SearchOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.document_input_request import DocumentInputRequest
from ...models.document_written import DocumentWritten
from ...models.error_body import ErrorBody
from ...models.manual_conflict_output import ManualConflictOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DocumentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/recall/documents/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DocumentWritten | ErrorBody | ManualConflictOutput | None:
    if response.status_code == 200:
        response_200 = DocumentWritten.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = DocumentWritten.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorBody.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorBody.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorBody.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorBody.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ManualConflictOutput.from_dict(response.json())

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
) -> Response[DocumentWritten | ErrorBody | ManualConflictOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DocumentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[DocumentWritten | ErrorBody | ManualConflictOutput]:
    """Index a document (same path again = a new version; only changed chunks are re-embedded)

     Chunks by markdown headings, then windows of 400–800 tokens, each with its exact line range. Returns
    201 when the content is new or changed, 200 when it was already indexed as sent. Embedding runs in a
    worker: `GET /api/v1/recall/health/` shows the chunks still pending. `deployment_id` scopes the
    document to one deployment's searches; without it every search of yours reads it. SOUL.md and
    TRADING_MANUAL.md may be created here but not changed (403): an agent proposes an edit (`POST
    /api/v1/recall/proposals/`) and the trader approves it. Files under `journal/` and `memory/` are
    append-only (seed §5): this endpoint neither creates nor overwrites them (400 on `path`); append
    with `POST /api/v1/recall/journal/`, which attributes each entry to a run. There is one manual
    (`TRADING_MANUAL.md`, in any folder) per deployment scope: one for all your deployments (no
    `deployment_id`), or one per deployment; a second where a deployment would read two is a 409.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (DocumentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DocumentWritten | ErrorBody | ManualConflictOutput]
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
    body: DocumentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> DocumentWritten | ErrorBody | ManualConflictOutput | None:
    """Index a document (same path again = a new version; only changed chunks are re-embedded)

     Chunks by markdown headings, then windows of 400–800 tokens, each with its exact line range. Returns
    201 when the content is new or changed, 200 when it was already indexed as sent. Embedding runs in a
    worker: `GET /api/v1/recall/health/` shows the chunks still pending. `deployment_id` scopes the
    document to one deployment's searches; without it every search of yours reads it. SOUL.md and
    TRADING_MANUAL.md may be created here but not changed (403): an agent proposes an edit (`POST
    /api/v1/recall/proposals/`) and the trader approves it. Files under `journal/` and `memory/` are
    append-only (seed §5): this endpoint neither creates nor overwrites them (400 on `path`); append
    with `POST /api/v1/recall/journal/`, which attributes each entry to a run. There is one manual
    (`TRADING_MANUAL.md`, in any folder) per deployment scope: one for all your deployments (no
    `deployment_id`), or one per deployment; a second where a deployment would read two is a 409.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (DocumentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DocumentWritten | ErrorBody | ManualConflictOutput
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DocumentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[DocumentWritten | ErrorBody | ManualConflictOutput]:
    """Index a document (same path again = a new version; only changed chunks are re-embedded)

     Chunks by markdown headings, then windows of 400–800 tokens, each with its exact line range. Returns
    201 when the content is new or changed, 200 when it was already indexed as sent. Embedding runs in a
    worker: `GET /api/v1/recall/health/` shows the chunks still pending. `deployment_id` scopes the
    document to one deployment's searches; without it every search of yours reads it. SOUL.md and
    TRADING_MANUAL.md may be created here but not changed (403): an agent proposes an edit (`POST
    /api/v1/recall/proposals/`) and the trader approves it. Files under `journal/` and `memory/` are
    append-only (seed §5): this endpoint neither creates nor overwrites them (400 on `path`); append
    with `POST /api/v1/recall/journal/`, which attributes each entry to a run. There is one manual
    (`TRADING_MANUAL.md`, in any folder) per deployment scope: one for all your deployments (no
    `deployment_id`), or one per deployment; a second where a deployment would read two is a 409.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (DocumentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DocumentWritten | ErrorBody | ManualConflictOutput]
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
    body: DocumentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> DocumentWritten | ErrorBody | ManualConflictOutput | None:
    """Index a document (same path again = a new version; only changed chunks are re-embedded)

     Chunks by markdown headings, then windows of 400–800 tokens, each with its exact line range. Returns
    201 when the content is new or changed, 200 when it was already indexed as sent. Embedding runs in a
    worker: `GET /api/v1/recall/health/` shows the chunks still pending. `deployment_id` scopes the
    document to one deployment's searches; without it every search of yours reads it. SOUL.md and
    TRADING_MANUAL.md may be created here but not changed (403): an agent proposes an edit (`POST
    /api/v1/recall/proposals/`) and the trader approves it. Files under `journal/` and `memory/` are
    append-only (seed §5): this endpoint neither creates nor overwrites them (400 on `path`); append
    with `POST /api/v1/recall/journal/`, which attributes each entry to a run. There is one manual
    (`TRADING_MANUAL.md`, in any folder) per deployment scope: one for all your deployments (no
    `deployment_id`), or one per deployment; a second where a deployment would read two is a 409.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (DocumentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DocumentWritten | ErrorBody | ManualConflictOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

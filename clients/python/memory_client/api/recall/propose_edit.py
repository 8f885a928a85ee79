from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.proposal_input_request import ProposalInputRequest
from ...models.proposal_output import ProposalOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ProposalInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/recall/proposals/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ProposalOutput | None:
    if response.status_code == 201:
        response_201 = ProposalOutput.from_dict(response.json())

        return response_201

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
) -> Response[ErrorBody | ProposalOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ProposalInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | ProposalOutput]:
    """Propose an edit to one of your documents (the manual); it waits for the trader's approval

     The proposal records the document's content hash: the trader approves or rejects it on the /recall/
    page, and an approval of a document that changed since is refused.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ProposalInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ProposalOutput]
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
    body: ProposalInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | ProposalOutput | None:
    """Propose an edit to one of your documents (the manual); it waits for the trader's approval

     The proposal records the document's content hash: the trader approves or rejects it on the /recall/
    page, and an approval of a document that changed since is refused.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ProposalInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ProposalOutput
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ProposalInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | ProposalOutput]:
    """Propose an edit to one of your documents (the manual); it waits for the trader's approval

     The proposal records the document's content hash: the trader approves or rejects it on the /recall/
    page, and an approval of a document that changed since is refused.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ProposalInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ProposalOutput]
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
    body: ProposalInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | ProposalOutput | None:
    """Propose an edit to one of your documents (the manual); it waits for the trader's approval

     The proposal records the document's content hash: the trader approves or rejects it on the /recall/
    page, and an approval of a document that changed since is refused.

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ProposalInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ProposalOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

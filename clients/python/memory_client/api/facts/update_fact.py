from http import HTTPStatus
from typing import Any
from urllib.parse import quote
from uuid import UUID

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.fact_output import FactOutput
from ...models.patched_fact_update_input_request import PatchedFactUpdateInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    fact_id: UUID,
    *,
    body: PatchedFactUpdateInputRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/facts/{fact_id}/".format(
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
    body: PatchedFactUpdateInputRequest | Unset = UNSET,
) -> Response[ErrorBody | FactOutput]:
    """Edit a fact's text, topic or confidence (promote inferred → asserted, or demote)

     Change a fact's text, topic or confidence; fields not sent stay.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        body (PatchedFactUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FactOutput]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchedFactUpdateInputRequest | Unset = UNSET,
) -> ErrorBody | FactOutput | None:
    """Edit a fact's text, topic or confidence (promote inferred → asserted, or demote)

     Change a fact's text, topic or confidence; fields not sent stay.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        body (PatchedFactUpdateInputRequest | Unset):

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
    ).parsed


async def asyncio_detailed(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchedFactUpdateInputRequest | Unset = UNSET,
) -> Response[ErrorBody | FactOutput]:
    """Edit a fact's text, topic or confidence (promote inferred → asserted, or demote)

     Change a fact's text, topic or confidence; fields not sent stay.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        body (PatchedFactUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | FactOutput]
    """

    kwargs = _get_kwargs(
        fact_id=fact_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    fact_id: UUID,
    *,
    client: AuthenticatedClient,
    body: PatchedFactUpdateInputRequest | Unset = UNSET,
) -> ErrorBody | FactOutput | None:
    """Edit a fact's text, topic or confidence (promote inferred → asserted, or demote)

     Change a fact's text, topic or confidence; fields not sent stay.

    Args:
        fact_id (UUID): The fact's id (`id` from `list_facts`).
        body (PatchedFactUpdateInputRequest | Unset):

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
        )
    ).parsed

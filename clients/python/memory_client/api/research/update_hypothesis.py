from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.hypothesis_output import HypothesisOutput
from ...models.patched_hypothesis_update_input_request import PatchedHypothesisUpdateInputRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    hypothesis_id: str,
    *,
    body: PatchedHypothesisUpdateInputRequest | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/api/v1/research/hypotheses/{hypothesis_id}/".format(
            hypothesis_id=quote(str(hypothesis_id), safe=""),
        ),
    }

    if not isinstance(body, Unset):
        _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | HypothesisOutput | None:
    if response.status_code == 200:
        response_200 = HypothesisOutput.from_dict(response.json())

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
) -> Response[ErrorBody | HypothesisOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    hypothesis_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchedHypothesisUpdateInputRequest | Unset = UNSET,
) -> Response[ErrorBody | HypothesisOutput]:
    """Set a hypothesis's status (e.g. testing while an experiment runs)

     Set a hypothesis's status: untested, testing, validated, refuted or inconclusive.

    Args:
        hypothesis_id (str): The hypothesis's id, e.g. `H1` (from `list_hypotheses` or an
            experiment's assessment).
        body (PatchedHypothesisUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HypothesisOutput]
    """

    kwargs = _get_kwargs(
        hypothesis_id=hypothesis_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    hypothesis_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchedHypothesisUpdateInputRequest | Unset = UNSET,
) -> ErrorBody | HypothesisOutput | None:
    """Set a hypothesis's status (e.g. testing while an experiment runs)

     Set a hypothesis's status: untested, testing, validated, refuted or inconclusive.

    Args:
        hypothesis_id (str): The hypothesis's id, e.g. `H1` (from `list_hypotheses` or an
            experiment's assessment).
        body (PatchedHypothesisUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HypothesisOutput
    """

    return sync_detailed(
        hypothesis_id=hypothesis_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    hypothesis_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchedHypothesisUpdateInputRequest | Unset = UNSET,
) -> Response[ErrorBody | HypothesisOutput]:
    """Set a hypothesis's status (e.g. testing while an experiment runs)

     Set a hypothesis's status: untested, testing, validated, refuted or inconclusive.

    Args:
        hypothesis_id (str): The hypothesis's id, e.g. `H1` (from `list_hypotheses` or an
            experiment's assessment).
        body (PatchedHypothesisUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | HypothesisOutput]
    """

    kwargs = _get_kwargs(
        hypothesis_id=hypothesis_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    hypothesis_id: str,
    *,
    client: AuthenticatedClient,
    body: PatchedHypothesisUpdateInputRequest | Unset = UNSET,
) -> ErrorBody | HypothesisOutput | None:
    """Set a hypothesis's status (e.g. testing while an experiment runs)

     Set a hypothesis's status: untested, testing, validated, refuted or inconclusive.

    Args:
        hypothesis_id (str): The hypothesis's id, e.g. `H1` (from `list_hypotheses` or an
            experiment's assessment).
        body (PatchedHypothesisUpdateInputRequest | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | HypothesisOutput
    """

    return (
        await asyncio_detailed(
            hypothesis_id=hypothesis_id,
            client=client,
            body=body,
        )
    ).parsed

from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.experiment_input_request import ExperimentInputRequest
from ...models.recorded_output import RecordedOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: ExperimentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/research/experiments/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | RecordedOutput | None:
    if response.status_code == 201:
        response_201 = RecordedOutput.from_dict(response.json())

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
) -> Response[ErrorBody | RecordedOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: ExperimentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | RecordedOutput]:
    """Record an experiment (assessment as an object or the seed's markdown)

     Hypotheses and capability requests in the assessment are registered (H_###, req_###); hypotheses
    named in tests_hypotheses get this experiment in tested_by and a status from its verdict
    (strong_signal → validated, no_signal → refuted, weak_signal or overfit → inconclusive).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ExperimentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RecordedOutput]
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
    body: ExperimentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | RecordedOutput | None:
    """Record an experiment (assessment as an object or the seed's markdown)

     Hypotheses and capability requests in the assessment are registered (H_###, req_###); hypotheses
    named in tests_hypotheses get this experiment in tested_by and a status from its verdict
    (strong_signal → validated, no_signal → refuted, weak_signal or overfit → inconclusive).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ExperimentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RecordedOutput
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: ExperimentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | RecordedOutput]:
    """Record an experiment (assessment as an object or the seed's markdown)

     Hypotheses and capability requests in the assessment are registered (H_###, req_###); hypotheses
    named in tests_hypotheses get this experiment in tested_by and a status from its verdict
    (strong_signal → validated, no_signal → refuted, weak_signal or overfit → inconclusive).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ExperimentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | RecordedOutput]
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
    body: ExperimentInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | RecordedOutput | None:
    """Record an experiment (assessment as an object or the seed's markdown)

     Hypotheses and capability requests in the assessment are registered (H_###, req_###); hypotheses
    named in tests_hypotheses get this experiment in tested_by and a status from its verdict
    (strong_signal → validated, no_signal → refuted, weak_signal or overfit → inconclusive).

    Args:
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (ExperimentInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | RecordedOutput
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

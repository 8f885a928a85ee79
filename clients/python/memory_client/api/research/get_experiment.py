from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.experiment_output import ExperimentOutput
from ...types import Response


def _get_kwargs(
    experiment_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/research/experiments/{experiment_id}/".format(
            experiment_id=quote(str(experiment_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | ExperimentOutput | None:
    if response.status_code == 200:
        response_200 = ExperimentOutput.from_dict(response.json())

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
) -> Response[ErrorBody | ExperimentOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    experiment_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | ExperimentOutput]:
    """One of your experiments

     One experiment: its context, results and assessment.

    Args:
        experiment_id (str): The experiment's id (`id` from `record_experiment` or
            `list_experiments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ExperimentOutput]
    """

    kwargs = _get_kwargs(
        experiment_id=experiment_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    experiment_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | ExperimentOutput | None:
    """One of your experiments

     One experiment: its context, results and assessment.

    Args:
        experiment_id (str): The experiment's id (`id` from `record_experiment` or
            `list_experiments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ExperimentOutput
    """

    return sync_detailed(
        experiment_id=experiment_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    experiment_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorBody | ExperimentOutput]:
    """One of your experiments

     One experiment: its context, results and assessment.

    Args:
        experiment_id (str): The experiment's id (`id` from `record_experiment` or
            `list_experiments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | ExperimentOutput]
    """

    kwargs = _get_kwargs(
        experiment_id=experiment_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    experiment_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorBody | ExperimentOutput | None:
    """One of your experiments

     One experiment: its context, results and assessment.

    Args:
        experiment_id (str): The experiment's id (`id` from `record_experiment` or
            `list_experiments`).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | ExperimentOutput
    """

    return (
        await asyncio_detailed(
            experiment_id=experiment_id,
            client=client,
        )
    ).parsed

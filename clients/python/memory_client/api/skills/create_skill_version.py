from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.skill_version_input_request import SkillVersionInputRequest
from ...models.skill_version_output import SkillVersionOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    skill_id: int,
    *,
    body: SkillVersionInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/api/v1/skills/{skill_id}/versions/".format(
            skill_id=quote(str(skill_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | SkillVersionOutput | None:
    if response.status_code == 201:
        response_201 = SkillVersionOutput.from_dict(response.json())

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

    if response.status_code == 413:
        response_413 = ErrorBody.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorBody.from_dict(response.json())

        return response_415

    if response.status_code == 429:
        response_429 = ErrorBody.from_dict(response.json())

        return response_429

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorBody | SkillVersionOutput]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    body: SkillVersionInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | SkillVersionOutput]:
    """Add the next version (latest + 1) to one of your skills

     Adds version latest + 1 with the settings sent (defaults for those omitted, not the previous
    version's). Running deployments keep their version; deploy the new one to use it.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SkillVersionInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SkillVersionOutput]
    """

    kwargs = _get_kwargs(
        skill_id=skill_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    body: SkillVersionInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | SkillVersionOutput | None:
    """Add the next version (latest + 1) to one of your skills

     Adds version latest + 1 with the settings sent (defaults for those omitted, not the previous
    version's). Running deployments keep their version; deploy the new one to use it.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SkillVersionInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SkillVersionOutput
    """

    return sync_detailed(
        skill_id=skill_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    body: SkillVersionInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[ErrorBody | SkillVersionOutput]:
    """Add the next version (latest + 1) to one of your skills

     Adds version latest + 1 with the settings sent (defaults for those omitted, not the previous
    version's). Running deployments keep their version; deploy the new one to use it.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SkillVersionInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | SkillVersionOutput]
    """

    kwargs = _get_kwargs(
        skill_id=skill_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    body: SkillVersionInputRequest,
    idempotency_key: str | Unset = UNSET,
) -> ErrorBody | SkillVersionOutput | None:
    """Add the next version (latest + 1) to one of your skills

     Adds version latest + 1 with the settings sent (defaults for those omitted, not the previous
    version's). Running deployments keep their version; deploy the new one to use it.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        idempotency_key (str | Unset): Send the same key again to retry this request safely: the
            first 2xx answer is replayed (with `Idempotent-Replayed: true`) instead of running it
            twice; the same key with another body or path is a 409, and so is a retry while the first
            request is still running. Keys are yours for 24 hours; a request that failed releases its
            key.
        body (SkillVersionInputRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | SkillVersionOutput
    """

    return (
        await asyncio_detailed(
            skill_id=skill_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed

from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_body import ErrorBody
from ...models.lessons_ab_output import LessonsABOutput
from ...types import UNSET, Response, Unset


def _get_kwargs(
    skill_id: int,
    *,
    version: int | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["version"] = version

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/api/v1/skills/{skill_id}/lessons-ab/".format(
            skill_id=quote(str(skill_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorBody | LessonsABOutput | None:
    if response.status_code == 200:
        response_200 = LessonsABOutput.from_dict(response.json())

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
) -> Response[ErrorBody | LessonsABOutput]:
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
    version: int | Unset = UNSET,
) -> Response[ErrorBody | LessonsABOutput]:
    """Closed-trade outcomes per lessons revision, and with no lessons (A/B telemetry)

     Whether lessons help: the skill's closed trades grouped by the lessons the agent saw when it opened
    them (and with none), with win rate and PnL per group and their intervals.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        version (int | Unset): Only this skill version (default: all versions).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LessonsABOutput]
    """

    kwargs = _get_kwargs(
        skill_id=skill_id,
        version=version,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    version: int | Unset = UNSET,
) -> ErrorBody | LessonsABOutput | None:
    """Closed-trade outcomes per lessons revision, and with no lessons (A/B telemetry)

     Whether lessons help: the skill's closed trades grouped by the lessons the agent saw when it opened
    them (and with none), with win rate and PnL per group and their intervals.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        version (int | Unset): Only this skill version (default: all versions).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LessonsABOutput
    """

    return sync_detailed(
        skill_id=skill_id,
        client=client,
        version=version,
    ).parsed


async def asyncio_detailed(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    version: int | Unset = UNSET,
) -> Response[ErrorBody | LessonsABOutput]:
    """Closed-trade outcomes per lessons revision, and with no lessons (A/B telemetry)

     Whether lessons help: the skill's closed trades grouped by the lessons the agent saw when it opened
    them (and with none), with win rate and PnL per group and their intervals.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        version (int | Unset): Only this skill version (default: all versions).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorBody | LessonsABOutput]
    """

    kwargs = _get_kwargs(
        skill_id=skill_id,
        version=version,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    skill_id: int,
    *,
    client: AuthenticatedClient,
    version: int | Unset = UNSET,
) -> ErrorBody | LessonsABOutput | None:
    """Closed-trade outcomes per lessons revision, and with no lessons (A/B telemetry)

     Whether lessons help: the skill's closed trades grouped by the lessons the agent saw when it opened
    them (and with none), with win rate and PnL per group and their intervals.

    Args:
        skill_id (int): The skill's id (`id` from `POST /api/v1/skills/` or `list_skills`).
        version (int | Unset): Only this skill version (default: all versions).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorBody | LessonsABOutput
    """

    return (
        await asyncio_detailed(
            skill_id=skill_id,
            client=client,
            version=version,
        )
    ).parsed

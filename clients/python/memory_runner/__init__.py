"""The tick loop on top of the generated client (memory_client): what every runner needs and the
generated calls leave to you.

- Every POST carries an `Idempotency-Key`, one per logical call and the same on each retry, so a
  retry after a lost answer is replayed by the service instead of running twice.
- 5xx answers, 429s and network errors are retried with exponential backoff (capped, with jitter);
  a 429's `Retry-After` is honoured as given.
- `post_tick` reads the tick answers a runner must tell apart: 201 stored, 200 already stored
  (`duplicate`), 409 older than the deployment's latest tick (`older`): none of them is an error.
- Any other 4xx raises `ApiError` with the service's `detail` and per-field `errors`.

    runner = Runner("http://127.0.0.1:8000", token="rt_…", deployment_id=7)
    outcome = runner.post_tick({"tick_at": "2026-06-04T10:00:00Z", "equity_usd": 10000, "positions": []})
    context = runner.get_context()
    print(context.system_prompt.text, context.text)

A runner token (`rt_…`, from `create_runner_token`) reaches this deployment's ticks, fills, context and
trades only; an account token works too.

Paused deployments: the trader may pause a deployment (its page, or `status` "stopped" in the API). The
context then says so (`context.deployment_status == "stopped"`, `paused(context)`), and its system prompt
tells the agent not to open new positions or add to open ones. Keep posting ticks while paused: fills, stops
and exits at the venue must still reach the ledger, or it drifts from the account. Just do not open.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import httpx
from memory_client import AuthenticatedClient
from memory_client.api.context import get_context
from memory_client.api.ticks import post_fill, post_tick
from memory_client.api.trades import list_trades
from memory_client.models import (
    ContextOutput,
    ErrorBody,
    FillInputRequest,
    TickAccepted,
    TickInputRequest,
    TradeOutput,
)
from memory_client.types import UNSET, Response

__all__ = ["PAUSED", "ApiError", "Runner", "TickOutcome", "paused"]

T = TypeVar("T")
RETRYABLE_STATUSES = frozenset({429, 500, 502, 503, 504})
IDEMPOTENCY_IN_PROGRESS = "Idempotency-Key: a request with this key is still in progress"
PAUSED = "stopped"  # the context's deployment_status while the trader has paused the deployment


def paused(context: ContextOutput) -> bool:
    """The trader has paused the deployment: keep posting ticks (the ledger follows the venue), open nothing."""
    return str(context.deployment_status) == PAUSED


class ApiError(Exception):
    """A 4xx the caller has to fix (or a 5xx/429 still failing after the last attempt)."""

    def __init__(self, status: int, detail: str, errors: dict[str, list[str]] | None = None):
        super().__init__(f"{status}: {detail}")
        self.status = status
        self.detail = detail
        self.errors = errors or {}


@dataclass(frozen=True)
class TickOutcome:
    """What became of a posted tick.

    `stored`: a new tick (201); `duplicate`: that `tick_at` was stored before, nothing written (200);
    `older`: earlier than the deployment's latest tick, refused (409): ticks go forward in time."""

    status: Literal["stored", "duplicate", "older"]
    snapshot_id: str | None
    detail: str = ""


@dataclass
class Runner:
    """One deployment's runner: post ticks and fills, read the context and the trades."""

    base_url: str
    token: str
    deployment_id: int
    max_attempts: int = 5
    backoff_s: float = 0.5  # the first retry's wait; doubled each time, up to max_backoff_s
    max_backoff_s: float = 30.0
    timeout_s: float = 10.0
    sleep: Callable[[float], None] = time.sleep
    retries: list[tuple[int | str, float]] = field(default_factory=list)  # (status or error, wait): what happened
    client: AuthenticatedClient = field(init=False)

    def __post_init__(self) -> None:
        self.client = AuthenticatedClient(
            base_url=self.base_url, token=self.token, prefix="Token", timeout=httpx.Timeout(self.timeout_s)
        )

    # -- the runner's calls ------------------------------------------------------------------------

    def post_tick(self, tick: dict[str, Any] | TickInputRequest) -> TickOutcome:
        """Post one tick (see the schema's `post_tick`); `tick_at` may be an aware datetime or ISO 8601."""
        body = tick if isinstance(tick, TickInputRequest) else TickInputRequest.from_dict(_jsonable(tick))
        key = new_idempotency_key()
        response = self._call(
            lambda: post_tick.sync_detailed(self.deployment_id, client=self.client, body=body, idempotency_key=key),
            ok=(200, 201, 409),
        )
        if response.status_code == 409:
            error = _parsed(response, ErrorBody)
            errors = _errors(error)
            if "tick_at" not in errors:  # the key's own conflict: not the tick's, so not ours to swallow
                raise ApiError(409, error.detail, errors)
            return TickOutcome("older", None, error.detail)
        accepted = _parsed(response, TickAccepted)
        return TickOutcome("duplicate" if accepted.duplicate else "stored", str(accepted.snapshot_id))

    def post_fill(self, *, symbol: str, fees_usd: float, filled_at: dt.datetime | str) -> TradeOutput:
        """Add a fill's fees to the open trade in `symbol`."""
        body = FillInputRequest.from_dict(_jsonable({"symbol": symbol, "fees_usd": fees_usd, "filled_at": filled_at}))
        key = new_idempotency_key()
        response = self._call(
            lambda: post_fill.sync_detailed(self.deployment_id, client=self.client, body=body, idempotency_key=key)
        )
        return _parsed(response, TradeOutput)

    def get_context(self) -> ContextOutput:
        """The memory block (`text`) and the system prompt for the agent's next decision, and the deployment's
        status (`deployment_status`: "running", or "stopped" while paused: see `paused`)."""
        response = self._call(lambda: get_context.sync_detailed(self.deployment_id, client=self.client))
        return _parsed(response, ContextOutput)

    def list_trades(self, *, status: str | None = None, limit: int = 50) -> list[TradeOutput]:
        """The deployment's trades, newest entry first (`status`: "open" or "closed"; None: both)."""
        response = self._call(
            lambda: list_trades.sync_detailed(
                self.deployment_id,
                client=self.client,
                status=UNSET if status is None else status,  # type: ignore[arg-type]  # a ListTradesStatus literal
                limit=limit,
            )
        )
        return _parsed(response, list)

    def call(self, send: Callable[[], Response[Any]], ok: tuple[int, ...] = (200, 201)) -> Response[Any]:
        """Any other generated operation with the same retries, e.g.
        `runner.call(lambda: search_recall.sync_detailed(client=runner.client, body=..., idempotency_key=key))`:
        pass one `idempotency_key` made before the lambda, so every attempt of a POST carries the same."""
        return self._call(send, ok)

    # -- retries -----------------------------------------------------------------------------------

    def _call(self, send: Callable[[], Response[Any]], ok: tuple[int, ...] = (200, 201)) -> Response[Any]:
        """`send()` until an answer in `ok`, retrying what a retry can fix; raises ApiError otherwise."""
        for attempt in range(1, self.max_attempts + 1):
            last = attempt == self.max_attempts
            try:
                response = send()
            except (httpx.TransportError, httpx.TimeoutException) as error:
                if last:
                    raise
                self._wait(type(error).__name__, self._backoff(attempt))
                continue
            status = int(response.status_code)
            if status in ok:
                return response
            parsed = response.parsed
            detail = parsed.detail if isinstance(parsed, ErrorBody) else response.content.decode(errors="replace")
            retryable = status in RETRYABLE_STATUSES or (status == 409 and detail.startswith(IDEMPOTENCY_IN_PROGRESS))
            if not retryable or last:
                raise ApiError(status, detail, _errors(parsed) if isinstance(parsed, ErrorBody) else None)
            retry_after = _retry_after(response.headers.get("Retry-After"))
            self._wait(status, retry_after if retry_after is not None else self._backoff(attempt))
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _backoff(self, attempt: int) -> float:
        ceiling = min(self.max_backoff_s, self.backoff_s * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)  # noqa: S311 (jitter, not a secret)

    def _wait(self, why: int | str, seconds: float) -> None:
        self.retries.append((why, seconds))
        self.sleep(seconds)


def _parsed(response: Response[Any], expected: type[T]) -> T:
    """The answer's parsed body, of the type the schema documents for its status."""
    if not isinstance(response.parsed, expected):
        raise TypeError(f"{response.status_code}: expected {expected.__name__}, got {type(response.parsed).__name__}")
    return response.parsed


def new_idempotency_key() -> str:
    return f"runner-{uuid.uuid4()}"


def _retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds or an HTTP date (None: absent or unreadable)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _errors(body: ErrorBody) -> dict[str, list[str]]:
    errors = body.errors
    return dict(errors.additional_properties) if errors is not UNSET and errors is not None else {}  # type: ignore[union-attr]


def _jsonable(value: Any) -> Any:
    """The tick as JSON: datetimes as ISO 8601 (UTC `Z`), everything else as given."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            raise ValueError("tick times must be timezone-aware (UTC)")
        return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")
    if isinstance(value, dict):
        return {key: _jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    return value

"""Reads of analyst memory: one round trip for every agent's latest signals on a market, degrading
to empty memory (never an exception) when the database errors, times out or refuses connections.

Error policy (seed, "Error Handling"): a timeout (``SIGNALS_QUERY_TIMEOUT_MS``, 5 s) is not retried;
a rate limit (PostgreSQL refusing connections: too many clients) is retried with exponential
backoff up to 3 times; another connection error is retried once after 1 s; a query error is not
retried; rows failing validation are skipped. Every outcome is returned typed, for the audit log.
The memory read's market lookup (``market_for_memory``) follows the same policy. The reads run under that
timeout (the request's own timeout back afterwards) in one savepoint (``memory_reads``: the answer's market
lookup and signals query share it), and a failed one rolls back to it, so the rest of the request's
transaction stays usable.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import TypeVar

import psycopg.errors
from django.conf import settings
from django.core.cache import cache
from django.db import DatabaseError, OperationalError, connection
from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber
from django.shortcuts import get_object_or_404
from redis.exceptions import RedisError

from memorysite.statement_timeout import TimedReads, timed_reads
from signals.memory import MAX_SIGNALS, AgentMemoryContext, signal_from_row
from signals.models import AgentSignal, Market, MemorySettings, RetrievalErrorType, SignalEvolutionEvent

logger = logging.getLogger(__name__)

T = TypeVar("T")

RATE_LIMIT_BACKOFF_S = 0.25  # 0.25, 0.5, 1 s
CONNECTION_RETRY_DELAY_S = 1.0

# The latest `limit` signals of each named agent on one market, in one statement: one index range
# scan (signal_latest) per agent, whatever the size of the table.
_LATEST_PER_AGENT = """
    SELECT s.agent_name, s.market_id, s.created_at, s.direction, s.fair_probability, s.confidence,
           s.key_drivers, s.metadata
    FROM unnest(%s::text[]) AS a(name)
    CROSS JOIN LATERAL (
        SELECT agent_name, market_id, created_at, direction, fair_probability, confidence, key_drivers, metadata
        FROM agent_signals
        WHERE market_id = %s AND owner_id = %s AND agent_name = a.name
        ORDER BY created_at DESC, id DESC
        LIMIT %s
    ) AS s
"""


def market_list(*, user) -> QuerySet[Market]:
    return Market.objects.owned_by(user).order_by("-created_at", "-id")


def market_get(*, user, market_id: int) -> Market:
    return get_object_or_404(Market.objects.owned_by(user), pk=market_id)


def evolution_list(*, market: Market, agent: str | None = None) -> QuerySet[SignalEvolutionEvent]:
    events = SignalEvolutionEvent.objects.filter(market=market)
    if agent:
        events = events.filter(agent_name=agent)
    return events.order_by("-timestamp", "-id")


def signal_timeline(*, market: Market, limit_per_agent: int = 500) -> dict[str, list[AgentSignal]]:
    """Every agent's latest `limit_per_agent` signals on the market, oldest first (the market page)."""
    ranked = (
        AgentSignal.objects.filter(market=market)
        .annotate(
            rank=Window(RowNumber(), partition_by=[F("agent_name")], order_by=[F("created_at").desc(), F("id").desc()])
        )
        .filter(rank__lte=limit_per_agent)
        .order_by("agent_name", "created_at", "id")
    )
    timeline: dict[str, list[AgentSignal]] = {}
    for signal in ranked:
        timeline.setdefault(signal.agent_name, []).append(signal)
    return timeline


@dataclass
class RetrievalOutcome:
    success: bool = True
    error_type: str = ""
    error: str = ""
    retry_attempts: int = 0
    invalid_rows_skipped: int = 0
    duration_ms: float = 0.0
    agents_with_history: int = 0
    memories: dict[str, AgentMemoryContext] = field(default_factory=dict)


@dataclass(frozen=True)
class MemorySwitches:
    """Analyst memory's switches (seed § Deployment) as they hold now."""

    enabled: bool
    max_signals: int
    timeout_ms: int
    retries: int


# Shared by every process through the cache (Redis), named after the database; a save in admin sets it at once
# (signals.services.memory_settings_save), so reading the switches costs no query on the retrieval's path.
SWITCHES_CACHE_S = 60


def switches_cache_key() -> str:
    """Named after the database and the environment's values: a restart with other values reads afresh."""
    env = switches_from_environment()
    return (
        f"signals:memory-switches:{connection.settings_dict['NAME']}:"
        f"{int(env.enabled)}-{env.max_signals}-{env.timeout_ms}-{env.retries}"
    )


def switches_from_environment() -> MemorySwitches:
    return MemorySwitches(
        enabled=settings.SIGNALS_MEMORY_ENABLED,
        max_signals=settings.SIGNALS_MEMORY_MAX_SIGNALS,
        timeout_ms=settings.SIGNALS_QUERY_TIMEOUT_MS,
        retries=settings.SIGNALS_MEMORY_RETRIES,
    )


def switches_of(row: MemorySettings | None) -> MemorySwitches:
    """The row's switches (it wins), or the environment's when there is no row."""
    if row is None:
        return switches_from_environment()
    return MemorySwitches(
        enabled=row.enabled, max_signals=row.max_signals, timeout_ms=row.timeout_ms, retries=row.retries
    )


def memory_switches() -> MemorySwitches:
    """The switches: from the cache, else read (staff's row, or the environment) and cached for SWITCHES_CACHE_S.
    With Redis down, read from the database every time (never an error for it)."""
    key = switches_cache_key()
    try:
        cached = cache.get(key)
    except (RedisError, OSError):
        cached = None
    if isinstance(cached, dict):
        return MemorySwitches(**cached)
    switches = switches_of(MemorySettings.objects.filter(pk=1).first())
    try:
        cache.set(key, asdict(switches), SWITCHES_CACHE_S)
    except (RedisError, OSError):
        logger.warning("analyst memory switches not cached (Redis unavailable)")
    return switches


def memory_reads(switches: MemorySwitches | None = None) -> AbstractContextManager[TimedReads]:
    """``with memory_reads() as reads:`` the reads of a memory answer (``market_for_memory``,
    ``get_all_agent_memories``, given ``reads``) under SIGNALS_QUERY_TIMEOUT_MS in ONE savepoint
    (``memorysite.statement_timeout.timed_reads``): four statements on the happy path however many reads, where
    a savepoint and a timeout per read cost four each. Reads only: the audit row is written after the block."""
    return timed_reads((switches or memory_switches()).timeout_ms)


def _under_retry_policy(
    read: Callable[[], T], outcome: RetrievalOutcome, what: str, reads: TimedReads | None
) -> T | None:
    """``read()`` (one of ``reads``, or in a ``memory_reads`` block of its own) under the error policy: retried on
    a rate limit or a connection error; when it gives up, ``outcome`` says why (logged, naming ``what``) and
    None. A failed attempt has rolled the transaction back to the block's savepoint."""
    if reads is None:
        with memory_reads() as own:
            return _under_retry_policy(read, outcome, what, own)
    while True:
        try:
            return reads.attempt(read)
        except DatabaseError as exc:
            error_type = _classify(exc)
            retries = memory_switches().retries
            if error_type == RetrievalErrorType.RATE_LIMIT and outcome.retry_attempts < retries:
                time.sleep(RATE_LIMIT_BACKOFF_S * 2**outcome.retry_attempts)
            elif error_type == RetrievalErrorType.CONNECTION and outcome.retry_attempts < min(1, retries):
                time.sleep(CONNECTION_RETRY_DELAY_S)
            else:
                outcome.success, outcome.error_type, outcome.error = False, error_type, _one_line(exc)
                logger.warning(
                    "%s failed (%s after %s retries): %s", what, error_type, outcome.retry_attempts, outcome.error
                )
                return None
            outcome.retry_attempts += 1


def market_for_memory(
    *, user, market_id: int, reads: TimedReads | None = None
) -> tuple[Market | None, RetrievalOutcome]:
    """``market_get`` for a memory read (404 when the market is not the trader's), under the retrieval's error
    policy: when the database fails or times out, (None, the outcome saying why), and the read degrades. One of
    ``reads`` (``memory_reads``) when given."""
    outcome = RetrievalOutcome()
    market = _under_retry_policy(
        lambda: market_get(user=user, market_id=market_id),
        outcome,
        f"memory market lookup of market {market_id}",
        reads,
    )
    return market, outcome


def no_memories(*, market_id: int, agent_names: Sequence[str], outcome: RetrievalOutcome) -> RetrievalOutcome:
    """``outcome`` (a failed step's) with empty memory for every named agent."""
    outcome.memories = {
        name: AgentMemoryContext(agent_name=name, market_id=str(market_id), historical_signals=())
        for name in dict.fromkeys(agent_names)
    }
    outcome.agents_with_history = 0
    return outcome


def get_all_agent_memories(
    *, market: Market, agent_names: Sequence[str], limit: int = 3, reads: TimedReads | None = None
) -> RetrievalOutcome:
    """Each named agent's own latest signals (newest first, at most MAX_SIGNALS) on the market.

    One statement for all agents (one of ``reads``, ``memory_reads``, when given). Never raises for database
    trouble: the outcome says what went wrong and every agent gets empty memory (Property 10)."""
    started = time.perf_counter()
    names = list(dict.fromkeys(agent_names))  # unique, in the order asked
    outcome = RetrievalOutcome()
    rows = _under_retry_policy(
        lambda: _query(market, names, min(limit, MAX_SIGNALS, memory_switches().max_signals)),
        outcome,
        f"memory retrieval for market {market.pk}",
        reads,
    )
    if rows is None:
        rows = []
    by_agent: dict[str, list] = {name: [] for name in names}
    for row in rows:
        signal = _historical_signal(dict(zip(_SIGNAL_COLUMNS, row, strict=True)))
        if signal is None:
            outcome.invalid_rows_skipped += 1
            continue
        by_agent[signal.agent_name].append(signal)
    if outcome.invalid_rows_skipped:
        logger.warning(
            "memory retrieval for market %s skipped %s invalid rows", market.pk, outcome.invalid_rows_skipped
        )
    outcome.memories = {
        name: AgentMemoryContext(agent_name=name, market_id=str(market.pk), historical_signals=tuple(signals))
        for name, signals in by_agent.items()
    }
    outcome.agents_with_history = sum(1 for memory in outcome.memories.values() if memory.has_history)
    outcome.duration_ms = (time.perf_counter() - started) * 1000
    return outcome


# The columns of _LATEST_PER_AGENT, in its order: the keys signal_from_row reads.
_SIGNAL_COLUMNS = (
    "agent_name", "market_id", "created_at", "direction", "fair_probability", "confidence", "key_drivers", "metadata",
)  # fmt: skip


def _historical_signal(row: dict):
    """A stored row (from the raw statement or .values()) as a validated HistoricalSignal, or None."""
    return signal_from_row(
        {**row, "market_id": str(row["market_id"]), "key_drivers": _json(row["key_drivers"]),
         "metadata": _json(row["metadata"])}
    )  # fmt: skip


def latest_signal(*, market: Market, agent_name: str):
    """The agent's newest valid signal on the market (what a new signal is compared with), or None."""
    row = (
        AgentSignal.objects.filter(market=market, agent_name=agent_name)
        .order_by("-created_at", "-id")
        .values(*_SIGNAL_COLUMNS)
        .first()
    )
    return _historical_signal(row) if row else None


def _query(market: Market, names: list[str], limit: int) -> list[tuple]:
    if not names:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_LATEST_PER_AGENT, [names, market.pk, market.owner_id, limit])
        return cursor.fetchall()


def _classify(exc: DatabaseError) -> str:
    cause = exc.__cause__
    if isinstance(cause, psycopg.errors.QueryCanceled):
        return RetrievalErrorType.TIMEOUT
    if isinstance(cause, psycopg.errors.TooManyConnections | psycopg.errors.ConfigurationLimitExceeded):
        return RetrievalErrorType.RATE_LIMIT
    if isinstance(exc, OperationalError):
        return RetrievalErrorType.CONNECTION
    return RetrievalErrorType.QUERY


def _json(value):
    """A jsonb column from a raw cursor arrives as text (Django leaves JSON decoding to its fields)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None  # corrupt: the row fails validation and is skipped
    return value


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:500]


# --- Pages (/markets/): the market list with its counts in one statement --------------------------


def market_list_with_counts(*, user) -> QuerySet[Market]:
    """The trader's markets, newest first, each annotated with signal_count, agent_names (sorted),
    last_signal_at and event_count: correlated subqueries, so one statement whatever the page size
    (no join fan-out between signals and events)."""
    from django.contrib.postgres.aggregates import ArrayAgg
    from django.db.models import Count, Max, OuterRef, Subquery
    from django.db.models.functions import Coalesce

    signals = AgentSignal.objects.filter(market=OuterRef("pk")).order_by().values("market")
    events = SignalEvolutionEvent.objects.filter(market=OuterRef("pk")).order_by().values("market")
    return (
        Market.objects.owned_by(user)
        .annotate(
            signal_count=Coalesce(Subquery(signals.annotate(n=Count("pk")).values("n")), 0),
            agent_names=Subquery(
                signals.annotate(names=ArrayAgg("agent_name", distinct=True, order_by="agent_name")).values("names")
            ),
            last_signal_at=Subquery(signals.annotate(last=Max("created_at")).values("last")),
            event_count=Coalesce(Subquery(events.annotate(n=Count("pk")).values("n")), 0),
        )
        .order_by("-created_at", "-id")
    )

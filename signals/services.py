"""Writes of analyst memory: storing a signal (and the evolution it shows), auditing retrievals."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import partial
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, IntegrityError, transaction

from memorysite import retention
from memorysite.metrics import ANALYST_EVOLUTION_EVENTS
from memorysite.statement_timeout import local_statement_timeout
from signals import selectors
from signals.memory import EvolutionEvent, NewSignal, track_evolution
from signals.metrics import observe_retrieval
from signals.models import AgentSignal, Market, MemoryRetrievalAudit, MemorySettings, SignalEvolutionEvent

logger = logging.getLogger(__name__)

T = TypeVar("T")


def market_for_condition(*, owner, condition_id: str, question: str = "") -> Market:
    """The trader's market for this condition id, created on first sight (race-safe)."""
    market = Market.objects.filter(owner=owner, condition_id=condition_id).first()
    if market is not None:
        if question and not market.question:
            market.question = question
            market.save(update_fields=["question"])
        return market
    try:
        with transaction.atomic():
            return Market.objects.create(owner=owner, condition_id=condition_id, question=question)
    except IntegrityError:  # a concurrent first signal created it
        return Market.objects.get(owner=owner, condition_id=condition_id)


@transaction.atomic
def signal_store(
    *,
    owner,
    condition_id: str,
    agent_name: str,
    agent_type: str,
    direction: str,
    fair_probability: Decimal,
    confidence: Decimal,
    key_drivers: Sequence[str],
    metadata: dict,
    recommendation_id=None,
    question: str = "",
    now: dt.datetime | None = None,
) -> tuple[AgentSignal, list[SignalEvolutionEvent] | None]:
    """Store one signal and the evolution events it shows against the agent's previous signal on
    the market (Property 12: every new signal is compared). The market row lock serialises signals
    of one market, so each is compared with the one stored just before it.

    The evolution step (reading the previous signal, comparing, storing the events) degrades (seed:
    "Evolution tracking failure → Skip evolution logging, continue workflow"): each of its database parts
    runs in a savepoint under SIGNALS_QUERY_TIMEOUT_MS, and when one fails (or the comparison raises) it is
    logged and skipped: the signal is stored and the events are None (not an empty list: nothing was compared)."""
    market = market_for_condition(owner=owner, condition_id=condition_id, question=question)
    Market.objects.select_for_update().filter(pk=market.pk).get()
    try:
        latest = _evolution_part(lambda: selectors.latest_signal(market=market, agent_name=agent_name))
    except Exception:
        _evolution_skipped(market, agent_name)
        latest, evolution = None, False
    else:
        evolution = True
    signal = AgentSignal(
        owner=owner,
        market=market,
        agent_name=agent_name,
        agent_type=agent_type,
        direction=direction,
        fair_probability=fair_probability,
        confidence=confidence,
        key_drivers=list(key_drivers),
        metadata=metadata,
        recommendation_id=recommendation_id,
    )
    signal.save(force_insert=True)
    if now is not None:  # tests and imports of historical signals pin the time
        AgentSignal.objects.filter(pk=signal.pk).update(created_at=now)
        signal.created_at = now
    if not evolution:
        return signal, None
    new = NewSignal(
        agent_name=agent_name,
        direction=direction,
        fair_probability=fair_probability,
        confidence=confidence,
        key_drivers=tuple(key_drivers),
        timestamp=signal.created_at,
    )
    previous = [latest] if latest is not None else []

    def store_events() -> list[SignalEvolutionEvent]:
        found = track_evolution(new, previous, market_id=str(market.pk))
        return SignalEvolutionEvent.objects.bulk_create([_event_row(owner, market, signal, event) for event in found])

    def count_events(events: list[SignalEvolutionEvent]) -> None:
        for event in events:
            ANALYST_EVOLUTION_EVENTS.labels(event.type).inc()

    try:
        stored = _evolution_part(store_events)
        transaction.on_commit(partial(count_events, stored))
        return signal, stored
    except Exception:
        _evolution_skipped(market, agent_name)
        return signal, None


def _evolution_part(part: Callable[[], T]) -> T:
    """One database part of the evolution step, in a savepoint under SIGNALS_QUERY_TIMEOUT_MS (so a failure
    rolls back only it, and the signal's own writes stand)."""
    with transaction.atomic(), local_statement_timeout(settings.SIGNALS_QUERY_TIMEOUT_MS):
        return part()


def _evolution_skipped(market: Market, agent_name: str) -> None:
    logger.warning(
        "evolution tracking skipped for agent %r on market %s: the signal is stored without its events",
        agent_name,
        market.pk,
        exc_info=True,
    )


def _event_row(owner, market: Market, signal: AgentSignal, event: EvolutionEvent) -> SignalEvolutionEvent:
    return SignalEvolutionEvent(
        owner=owner,
        market=market,
        signal=signal,
        agent_name=event.agent_name,
        type=event.type,
        previous_value=_json(event.previous_value),
        current_value=_json(event.current_value),
        magnitude=event.magnitude,
        description=event.description,
        timestamp=event.timestamp,
    )


def _json(value):
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def memory_for_agents(*, market: Market, agent_names: Sequence[str], limit: int) -> selectors.RetrievalOutcome:
    """The agents' memories, with the seed's audit record (``memory_audit``); empty, unread and unaudited when
    analyst memory is switched off."""
    if not selectors.memory_switches().enabled:
        return selectors.no_memories(market_id=market.pk, agent_names=agent_names, outcome=selectors.RetrievalOutcome())
    outcome = selectors.get_all_agent_memories(market=market, agent_names=agent_names, limit=limit)
    return memory_audit(market=market, agent_names=agent_names, outcome=outcome)


def memory_audit(
    *, market: Market, agent_names: Sequence[str], outcome: selectors.RetrievalOutcome
) -> selectors.RetrievalOutcome:
    """The seed's audit record of a retrieval (success or failure, agents with history, duration); ``outcome``
    back. An audit that cannot be written (the database is down) is logged, never raised."""
    try:
        MemoryRetrievalAudit.objects.create(
            owner_id=market.owner_id,
            market=market,
            agents=list(dict.fromkeys(agent_names)),
            agents_with_history=outcome.agents_with_history,
            success=outcome.success,
            error_type=outcome.error_type,
            error=outcome.error,
            retry_attempts=outcome.retry_attempts,
            invalid_rows_skipped=outcome.invalid_rows_skipped,
            duration_ms=Decimal(f"{outcome.duration_ms:.3f}"),
        )
    except DatabaseError:
        logger.warning("memory retrieval audit for market %s not written", market.pk, exc_info=True)
    observe_retrieval(
        success=outcome.success,
        error_type=outcome.error_type,
        duration_ms=outcome.duration_ms,
        signals=sum(len(memory.historical_signals) for memory in outcome.memories.values()),
    )
    return outcome


def retrieval_audits_expire(*, now: dt.datetime, batch: int = retention.BATCH) -> int:
    """Delete every trader's retrieval audits older than SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS (the seed keeps
    them 90-180 days); the beat sweep, whose caller elevates. Returns how many were deleted."""
    cutoff = now - dt.timedelta(days=settings.SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS)
    return retention.in_batches(
        MemoryRetrievalAudit.objects.filter(created_at__lt=cutoff), lambda picked: picked.delete()[0], batch=batch
    )


def memory_settings_save(*, row: MemorySettings) -> MemorySettings:
    """Staff's switches (admin): validated, saved, and put in the cache at once, so every process follows them
    on its next retrieval."""
    row.pk = 1
    row.full_clean()
    row.save()
    switches = selectors.switches_of(row)
    transaction.on_commit(lambda: _cache_switches(switches))
    return row


def _cache_switches(switches: selectors.MemorySwitches) -> None:
    from dataclasses import asdict

    from django.core.cache import cache
    from redis.exceptions import RedisError

    try:
        cache.set(selectors.switches_cache_key(), asdict(switches), selectors.SWITCHES_CACHE_S)
    except (RedisError, OSError):
        logger.warning("analyst memory switches not cached (Redis unavailable): each retrieval reads them")


def memory_settings_delete() -> None:
    """Staff's row removed: the environment's values hold again, at once."""
    MemorySettings.objects.filter(pk=1).delete()
    transaction.on_commit(lambda: _cache_switches(selectors.switches_from_environment()))

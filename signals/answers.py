"""The answer GET /api/v1/markets/{id}/memory/ and the MCP tool `get_analyst_memory` share: the market,
the query validated by signals' serializer, then its services. The view and the tool only carry it."""

from __future__ import annotations

import datetime as dt
import logging

from django.utils import timezone

from memorysite.api import validated
from signals import selectors, services
from signals.memory import (
    MEMORY_STEPS,
    STEP_FORMATTING,
    STEP_MARKET,
    STEP_SIGNALS,
    AgentMemoryContext,
    FormattedMemoryContext,
    agent_prompt_block,
    format_memory_context,
)
from signals.metrics import observe_retrieval
from signals.serializers import MemoryOutput, MemoryQuery

logger = logging.getLogger(__name__)


def market_memory_answer(*, user, market_id: int, query) -> dict:
    """GET /api/v1/markets/{market_id}/memory/'s answer to its query parameters, and the MCP tool
    `get_analyst_memory`'s: the market (404 when not the trader's), then the query validated (400), then
    each named agent's memory, formatted for its prompt (the retrieval audited). With analyst memory switched off
    (selectors.memory_switches), every agent's memory is empty and nothing is read or written: `enabled` false.

    Degrade, never fail (seed property 10): each step that fails — the market lookup or the signals query (a
    database error or SIGNALS_QUERY_TIMEOUT_MS), an agent's formatting (any error) — gives empty memory
    ("No previous analysis available") for the agents it concerns, is logged, and is named in
    `degraded_steps` (`degraded` is true); the rest is served. A failed market lookup writes no audit row (the
    audit names its market); a failed query's audit says why.

    The market lookup and the signals query share one savepoint and one statement timeout
    (``selectors.memory_reads``); the audit row is written after them."""
    switches = selectors.memory_switches()
    if not switches.enabled:  # the seed's feature flag off: empty memory, no query (not even the market's), no audit
        options = validated(MemoryQuery, query)
        off = selectors.no_memories(
            market_id=market_id, agent_names=options["agents"], outcome=selectors.RetrievalOutcome()
        )
        now = timezone.now()
        agents = {name: agent_memory(memory, now=now, options=options)[0] for name, memory in off.memories.items()}
        return MemoryOutput({"agents": agents, "enabled": False, "degraded": False, "degraded_steps": []}).data
    with selectors.memory_reads(switches) as reads:
        market, lookup = selectors.market_for_memory(user=user, market_id=market_id, reads=reads)
        options = validated(MemoryQuery, query)
        if market is not None:
            retrieved = selectors.get_all_agent_memories(
                market=market, agent_names=options["agents"], limit=options["limit"], reads=reads
            )
    steps = set()
    if market is None:
        steps.add(STEP_MARKET)
        outcome = selectors.no_memories(market_id=market_id, agent_names=options["agents"], outcome=lookup)
        observe_retrieval(success=False, error_type=outcome.error_type, duration_ms=outcome.duration_ms, signals=0)
    else:
        outcome = services.memory_audit(market=market, agent_names=options["agents"], outcome=retrieved)
        if not outcome.success:
            steps.add(STEP_SIGNALS)
    now = timezone.now()
    agents = {}
    for name, memory in outcome.memories.items():
        agents[name], formatted = agent_memory(memory, now=now, options=options)
        if not formatted:
            steps.add(STEP_FORMATTING)
    degraded_steps = [step for step in MEMORY_STEPS if step in steps]
    answer = {"agents": agents, "enabled": True, "degraded": bool(degraded_steps), "degraded_steps": degraded_steps}
    return MemoryOutput(answer).data


def agent_memory(memory: AgentMemoryContext, *, now: dt.datetime, options: dict) -> tuple[dict, bool]:
    """One agent's entry of the answer, and whether its formatting succeeded. A formatting error (seed:
    "Formatting errors → Return 'No previous analysis available'") is logged and gives the entry of empty
    memory: no signals, the no-history text and its prompt block."""
    try:
        formatted = format_memory_context(
            memory,
            now=now,
            max_length=options["max_length"],
            include_metadata=options["include_metadata"],
            date_format=options["date_format"],
        )
        return _entry(memory.historical_signals, formatted), True
    except Exception:  # the seed's fallback: never fail the agent's workflow over its memory's text
        logger.warning(
            "memory formatting failed for agent %r on market %s", memory.agent_name, memory.market_id, exc_info=True
        )
    empty = format_memory_context(AgentMemoryContext(memory.agent_name, memory.market_id), now=now)
    return _entry((), empty), False


def _entry(signals, formatted: FormattedMemoryContext) -> dict:
    return {
        "signals": signals,
        "text": formatted.text,
        "prompt": agent_prompt_block(formatted),
        "signal_count": formatted.signal_count,
        "truncated": formatted.truncated,
    }

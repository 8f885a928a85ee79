"""The answer GET /api/v1/markets/{id}/memory/ and the MCP tool `get_analyst_memory` share: the market,
the query validated by signals' serializer, then its services. The view and the tool only carry it."""

from __future__ import annotations

from django.utils import timezone

from memorysite.api import validated
from signals import selectors, services
from signals.memory import agent_prompt_block, format_memory_context
from signals.serializers import MemoryOutput, MemoryQuery


def market_memory_answer(*, user, market_id: int, query) -> dict:
    """GET /api/v1/markets/{market_id}/memory/'s answer to its query parameters, and the MCP tool
    `get_analyst_memory`'s: the market (404 when not the trader's), then the query validated (400), then
    each named agent's memory, formatted for its prompt (the retrieval audited)."""
    market = selectors.market_get(user=user, market_id=market_id)
    options = validated(MemoryQuery, query)
    outcome = services.memory_for_agents(market=market, agent_names=options["agents"], limit=options["limit"])
    now = timezone.now()
    agents = {}
    for name, memory in outcome.memories.items():
        formatted = format_memory_context(
            memory,
            now=now,
            max_length=options["max_length"],
            include_metadata=options["include_metadata"],
            date_format=options["date_format"],
        )
        agents[name] = {
            "signals": memory.historical_signals,
            "text": formatted.text,
            "prompt": agent_prompt_block(formatted),
            "signal_count": formatted.signal_count,
            "truncated": formatted.truncated,
        }
    return MemoryOutput({"agents": agents, "degraded": not outcome.success}).data

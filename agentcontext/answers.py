"""The answer GET /api/v1/deployments/{id}/context/ and the MCP tool `get_trading_context` share (and its
resource's text): the ledger brought up to date by its service, then the context read."""

from __future__ import annotations

from agentcontext.prompt import compose_system_prompt
from agentcontext.selectors import deployment_context
from ledger import services as ledger_services
from ledger.models import Deployment
from memorysite.metrics import CONTEXT_DEGRADED, CONTEXT_SECTION_TOKENS


def context_answer(*, deployment: Deployment) -> dict:
    """GET /api/v1/deployments/{id}/context/'s body, and the MCP tool `get_trading_context`'s (and its
    resource's text): the ticks not yet materialized are applied first, so the block is current.

    ``degraded`` names the sections whose reads failed (``agentcontext.degrade``): they are empty (null), the
    rest is served. Nothing here is cached or stored, so a degraded answer is never served again: the next
    request reads every section afresh."""
    ledger_services.materialize_if_behind(deployment)
    context = deployment_context(deployment=deployment)
    memory, segments = context.memory, context.segments
    for section, tokens in memory.token_estimate["per_section"].items():
        CONTEXT_SECTION_TOKENS.labels(section).observe(tokens)
    for section in context.degraded:
        CONTEXT_DEGRADED.labels(section).inc()
    return {
        # Paused: the runner keeps posting ticks (the ledger follows the venue) and the agent is told not to open.
        "deployment_status": deployment.status,
        "text": memory.text,
        "sections": memory.sections,
        "token_estimate": memory.token_estimate,
        "system_prompt": {"segments": segments.as_dict(), "text": compose_system_prompt(segments)},
        "degraded": list(context.degraded),
    }

"""The answer GET /api/v1/deployments/{id}/context/ and the MCP tool `get_trading_context` share (and its
resource's text): the ledger brought up to date by its service, then the context read, then recorded."""

from __future__ import annotations

import logging

from django.utils import timezone

from agentcontext.prompt import compose_system_prompt
from agentcontext.selectors import deployment_context
from ledger import services as ledger_services
from ledger.models import Deployment
from memorysite.metrics import CONTEXT_DEGRADED, CONTEXT_RECORD_FAILURES, CONTEXT_SECTION_TOKENS

logger = logging.getLogger(__name__)


def context_answer(*, deployment: Deployment) -> dict:
    """GET /api/v1/deployments/{id}/context/'s body, and the MCP tool `get_trading_context`'s (and its
    resource's text): the ticks not yet materialized are applied first, so the block is current.

    ``degraded`` names the sections whose reads failed (``agentcontext.degrade``): they are empty (null), the
    rest is served. Nothing here is cached, so a degraded answer is never served again: the next request reads
    every section afresh. What was served is recorded (``record_served``) for the trade page's "what the agent
    saw before opening this trade"; the record never fails the answer."""
    ledger_services.materialize_if_behind(deployment)
    context = deployment_context(deployment=deployment)
    memory, segments = context.memory, context.segments
    for section, tokens in memory.token_estimate["per_section"].items():
        CONTEXT_SECTION_TOKENS.labels(section).observe(tokens)
    for section in context.degraded:
        CONTEXT_DEGRADED.labels(section).inc()
    answer = {
        # Paused: the runner keeps posting ticks (the ledger follows the venue) and the agent is told not to open.
        "deployment_status": deployment.status,
        "text": memory.text,
        "sections": memory.sections,
        "token_estimate": memory.token_estimate,
        "system_prompt": {"segments": segments.as_dict(), "text": compose_system_prompt(segments)},
        "degraded": list(context.degraded),
    }
    record_served(deployment=deployment, answer=answer)
    return answer


def record_served(*, deployment: Deployment, answer: dict) -> bool:
    """Keep `answer`'s memory block and system prompt as served for the deployment's latest tick (in the
    caller's transaction, in a savepoint of its own; the request's transaction ends before its answer is sent,
    so no transaction waits on the client). A failure is logged and counted, never raised: the agent's
    context matters more than the trade page's record of it. Returns whether it was recorded."""
    try:
        ledger_services.served_context_record(
            deployment=deployment,
            memory_text=answer["text"],
            system_prompt_text=answer["system_prompt"]["text"],
            degraded=answer["degraded"],
            served_at=timezone.now(),
        )
    except Exception as exc:  # the record is a by-product: whatever went wrong, the answer is served
        CONTEXT_RECORD_FAILURES.inc()
        logger.exception(
            "served context not recorded for deployment %s: %s",
            deployment.pk,
            type(exc.__cause__ or exc).__name__,
            extra={"deployment_id": deployment.pk},
        )
        return False
    return True

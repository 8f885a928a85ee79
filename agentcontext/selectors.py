"""What the trading agent sees for one deployment: its memory block, assembled from ledger reads."""

from __future__ import annotations

from agentcontext.formatting import MemoryContext, render_context
from agentcontext.prompt import SystemPromptSegments, compose_system_prompt_segments
from ledger import selectors as ledger_selectors
from ledger.models import Deployment
from recall import selectors as recall_selectors
from reflection import selectors as reflection_selectors

SIMILAR_SITUATIONS_KEY = "similar_situations"


def deployment_memory_context(*, deployment: Deployment) -> MemoryContext:
    """The memory block as of the deployment's latest tick ("now" is that tick, not the wall clock)."""
    skill_version = deployment.skill_version
    inputs = ledger_selectors.context_inputs(deployment=deployment, recent_k=skill_version.recent_trades_k)
    context = render_context(
        inputs, recent_trades_k=skill_version.recent_trades_k, memory_enabled=skill_version.memory_enabled
    )
    return _with_similar_situations(context, deployment, inputs, skill_version.memory_enabled)


def _with_similar_situations(context: MemoryContext, deployment: Deployment, inputs, memory_enabled: bool):
    """Phase 3: the nearest closed trades to each open one (recall), when memory is on and there are any."""
    section = None
    if memory_enabled and inputs.open_trades and inputs.last_tick is not None:
        section = recall_selectors.similar_situations_section(deployment=deployment, as_of=inputs.last_tick.tick_at)
    return context.with_section(SIMILAR_SITUATIONS_KEY, section)


def deployment_system_prompt(*, deployment: Deployment) -> SystemPromptSegments:
    """The agent's system prompt segments: the skill version's text plus the active lessons, if any."""
    skill_version = deployment.skill_version
    # active_lessons_hash is kept in step with the active note: no lessons, no query.
    note = reflection_selectors.active_note(deployment=deployment) if deployment.active_lessons_hash else None
    return compose_system_prompt_segments(
        strategy_text=skill_version.strategy_text,
        avoid_rules=skill_version.avoid_rule_list,
        lessons=note.lessons_text if note else None,
    )


def deployment_memory_context_with(
    *, deployment: Deployment, recent_trades_k: int, memory_enabled: bool
) -> MemoryContext:
    """The memory block as ``deployment_memory_context`` renders it, with "what if" settings in place of the
    skill version's (the preview page); nothing is saved."""
    inputs = ledger_selectors.context_inputs(deployment=deployment, recent_k=recent_trades_k)
    context = render_context(inputs, recent_trades_k=recent_trades_k, memory_enabled=memory_enabled)
    return _with_similar_situations(context, deployment, inputs, memory_enabled)

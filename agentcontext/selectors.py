"""What the trading agent sees for one deployment: its memory block, assembled from ledger reads."""

from __future__ import annotations

from django.utils.functional import SimpleLazyObject

from agentcontext.formatting import MemoryContext, render_context
from agentcontext.manual import (
    MANUAL_MIN_SCORE,
    MANUAL_SOURCES,
    ManualChunk,
    ManualSettings,
    manual_query_for,
    render_manual_section,
)
from agentcontext.prompt import SystemPromptSegments, compose_system_prompt_segments
from ledger import selectors as ledger_selectors
from ledger.memory_view import ContextInputs
from ledger.models import Deployment, SkillVersion
from recall import selectors as recall_selectors
from reflection import selectors as reflection_selectors

SIMILAR_SITUATIONS_KEY = "similar_situations"
MANUAL_KEY = "manual"


def manual_settings(skill_version: SkillVersion) -> ManualSettings:
    """The skill version's settings of the ``## From your manual and playbooks`` section."""
    return ManualSettings(
        enabled=skill_version.manual_enabled, k=skill_version.manual_k, token_cap=skill_version.manual_token_cap
    )


def deployment_memory_context(*, deployment: Deployment) -> MemoryContext:
    """The memory block as of the deployment's latest tick ("now" is that tick, not the wall clock)."""
    skill_version = deployment.skill_version
    return deployment_memory_context_with(
        deployment=deployment,
        recent_trades_k=skill_version.recent_trades_k,
        memory_enabled=skill_version.memory_enabled,
        manual=manual_settings(skill_version),
    )


def context_for_inputs(
    inputs: ContextInputs,
    *,
    user,
    deployment_id: int | None,
    recent_trades_k: int,
    memory_enabled: bool,
    manual: ManualSettings,
    manual_min_score: float = MANUAL_MIN_SCORE,
) -> MemoryContext:
    """The memory block from a ledger's ContextInputs, live (``ledger.selectors.context_inputs``) or sim
    (``ledger.sim.SimLedger.context_inputs``), with the manual section: the one path for both, so the same
    tick stream and index state give the same text. Live adds similar past situations on top (the sim
    ledger has no situation memory: the one section where they differ)."""
    context = render_context(inputs, recent_trades_k=recent_trades_k, memory_enabled=memory_enabled)
    section = manual_section(
        user=user, deployment_id=deployment_id, inputs=inputs, settings=manual, min_score=manual_min_score
    )
    return context.with_section(MANUAL_KEY, section)


def manual_section(
    *,
    user,
    deployment_id: int | None,
    inputs: ContextInputs,
    settings: ManualSettings,
    min_score: float = MANUAL_MIN_SCORE,
) -> str | None:
    """``## From your manual and playbooks`` for the latest tick in ``inputs``, or None: off, no situation to
    ask about (no tick), or nothing readable clears ``min_score``.

    The chunks are the trader's manual (for all its deployments or ``deployment_id``'s; never another
    deployment's or another trader's: recall's scope and row-level security) and the playbooks and runbooks
    (staff's, global) that recall's search ranks best for ``agentcontext.manual.manual_query_for(inputs)``:
    one search for ``k`` hits, of ``MANUAL_SOURCES`` with the workspace files narrowed to the manual where
    recall fetches its candidates (``workspace_manual_only``), so the trader's other files (SOUL.md, notes,
    however many outrank the manual) neither show nor crowd it out.

    Keyword side only (no embedder): the section is a function of the tick and of the readable chunks'
    text, which a document write changes in its own transaction (chunks, and the BM25 document frequencies
    kept in step by triggers). The vector side reads embeddings that the embedding worker fills later, so a
    hybrid search would answer differently for the same tick before and after the worker's pass. The query
    is identifiers (symbols, sides, rejection codes, action kinds) and the agent's own reason words, where
    keyword matching is at its best, and no query is embedded on the per-tick path.
    """
    if not settings.enabled or inputs.last_tick is None:
        return None
    query = manual_query_for(inputs)
    if not query:
        return None
    outcome = recall_selectors.search(
        user=user,
        query=query,
        k=settings.k,
        sources=MANUAL_SOURCES,
        workspace_manual_only=True,
        deployment_id=deployment_id,
        min_score=min_score,
        now=inputs.last_tick.tick_at,
        embedder=None,
    )
    chunks = [
        ManualChunk(
            path=hit.candidate.path,
            start_line=hit.candidate.start_line,
            end_line=hit.candidate.end_line,
            text=hit.candidate.snippet,
            staff=hit.candidate.staff_document,
        )
        for hit in outcome.hits
    ]
    return render_manual_section(chunks, token_cap=settings.token_cap)


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
    *, deployment: Deployment, recent_trades_k: int, memory_enabled: bool, manual: ManualSettings | None = None
) -> MemoryContext:
    """The memory block as ``deployment_memory_context`` renders it, with "what if" settings in place of the
    skill version's (the preview page; ``manual`` None: the skill version's); nothing is saved."""
    inputs = ledger_selectors.context_inputs(deployment=deployment, recent_k=recent_trades_k)
    context = context_for_inputs(
        inputs,
        user=SimpleLazyObject(lambda: deployment.owner),  # read only when the manual section searches
        deployment_id=deployment.pk,
        recent_trades_k=recent_trades_k,
        memory_enabled=memory_enabled,
        manual=manual if manual is not None else manual_settings(deployment.skill_version),
    )
    return _with_similar_situations(context, deployment, inputs, memory_enabled)

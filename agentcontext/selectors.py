"""What the trading agent sees for one deployment: its memory block, assembled from ledger reads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.utils.functional import SimpleLazyObject

from agentcontext.degrade import LESSONS_KEY, SectionReads, section_reads
from agentcontext.formatting import SECTION_KEYS, MemoryContext, render_context, render_recent_trades
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
from ledger.domain import ClosedTrade
from ledger.memory_view import ContextInputs
from ledger.models import Deployment, DeploymentStatus, SkillVersion
from memorysite.metrics import RECALL_SEARCH_SECONDS
from recall import selectors as recall_selectors
from recall.embeddings import get_embedder
from recall.situations import SituationMemory
from reflection import selectors as reflection_selectors
from reflection.models import ReflectionNote

SIMILAR_SITUATIONS_KEY = "similar_situations"
MANUAL_KEY = "manual"
# What each read of the live context feeds besides its own section: when it fails, these cannot be computed
# either (agentcontext.degrade). The latest tick is "now" for every window, the manual's query and situations'
# as-of; the engine outcomes give the manual's rejection code; the open trades decide whether situations are read.
_NEED_THE_LATEST_TICK = ("recent_activity", "open_positions", SIMILAR_SITUATIONS_KEY, MANUAL_KEY)
_NEED_THE_OUTCOMES = (MANUAL_KEY,)
_NEED_THE_OPEN_TRADES = (SIMILAR_SITUATIONS_KEY,)


def manual_settings(skill_version: SkillVersion) -> ManualSettings:
    """The skill version's settings of the ``## From your manual and playbooks`` section."""
    return ManualSettings(
        enabled=skill_version.manual_enabled, k=skill_version.manual_k, token_cap=skill_version.manual_token_cap
    )


@dataclass(frozen=True)
class DeploymentContext:
    """What the agent gets for its next tick: the memory block, the system prompt segments, and the sections
    (``agentcontext.degrade.DEGRADABLE_SECTIONS``: the memory sections and ``lessons``) whose reads failed."""

    memory: MemoryContext
    segments: SystemPromptSegments
    degraded: tuple[str, ...]


def deployment_context(
    *,
    deployment: Deployment,
    recent_trades_k: int | None = None,
    memory_enabled: bool | None = None,
    manual: ManualSettings | None = None,
    avoid_rules: list[str] | None = None,
) -> DeploymentContext:
    """The context endpoint's memory block and system prompt (and the preview's, with its "what if" settings,
    ``avoid_rules`` a list of rules, in place of the skill version's: None is the skill version's), every section
    read on its own under the section timeout (``agentcontext.degrade``): a failed read empties its section and is
    named in ``degraded``, the rest is served."""
    skill_version = deployment.skill_version
    with section_reads(deployment_id=deployment.pk) as reads:
        memory = deployment_memory_context_with(
            deployment=deployment,
            recent_trades_k=skill_version.recent_trades_k if recent_trades_k is None else recent_trades_k,
            memory_enabled=skill_version.memory_enabled if memory_enabled is None else memory_enabled,
            manual=manual,
            reads=reads,
        )
        segments = deployment_system_prompt(deployment=deployment, reads=reads, avoid_rules=avoid_rules)
    return DeploymentContext(memory=memory, segments=segments, degraded=reads.degraded)


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
    similar_situations: Callable[[datetime], str | None] | None = None,
    reads: SectionReads | None = None,
) -> MemoryContext:
    """The memory block from a ledger's ContextInputs, live (``ledger.selectors.context_inputs``) or sim
    (``ledger.sim.SimLedger.context_inputs``), with similar past situations and the manual section: the one
    path for both, so the same tick stream and index state give the same text, section by section.

    ``similar_situations(as_of)`` is the ledger's situation memory as of the latest tick: live
    ``recall.selectors.similar_situations_section``, sim ``recall.situations.SituationMemory.section``
    (``sim_situations``); None: no situation memory, no section. Asked only when memory is on and a trade is
    open.

    With ``reads`` (live) the situations and the manual section's search are reads of their own: a database
    error empties the section and names it in ``reads.degraded``. Without (sim) it raises: a backtest has no
    tick to keep alive, and a run that silently lost a section would not be the replay it claims to be."""
    context = render_context(inputs, recent_trades_k=recent_trades_k, memory_enabled=memory_enabled)
    last_tick = inputs.last_tick
    situations = None
    if similar_situations is not None and memory_enabled and inputs.open_trades and last_tick is not None:
        as_of = last_tick.tick_at

        def similar() -> str | None:
            return similar_situations(as_of)

        situations = similar() if reads is None else reads.read(SIMILAR_SITUATIONS_KEY, similar, None)
    context = context.with_section(SIMILAR_SITUATIONS_KEY, situations)

    def section() -> str | None:
        return manual_section(
            user=user, deployment_id=deployment_id, inputs=inputs, settings=manual, min_score=manual_min_score
        )

    return context.with_section(MANUAL_KEY, section() if reads is None else reads.read(MANUAL_KEY, section, None))


def sim_situations(memory: SituationMemory) -> Callable[[datetime], str | None]:
    """``context_for_inputs``'s ``similar_situations`` for a sim ledger's situation memory (always as of the
    ledger's latest tick, the one its ContextInputs are of)."""
    return lambda as_of: memory.section()


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
    with RECALL_SEARCH_SECONDS.labels("context").time():
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


def _live_inputs(reads: SectionReads, deployment: Deployment, recent_k: int) -> ContextInputs:
    """``ledger.selectors.context_inputs``, read section by section (the same reads, so the same inputs when
    none fails). A failed read leaves its part empty and degrades the sections that need it: the latest tick
    all but recent trades, which are read anyway (``deployment_memory_context_with`` renders them)."""
    last_tick = reads.read(
        "last_decision",
        lambda: ledger_selectors.context_last_tick(deployment=deployment),
        None,
        takes_down=_NEED_THE_LATEST_TICK,
    )
    if last_tick is None:
        recent_closed: tuple[ClosedTrade, ...] = ()
        if reads.is_degraded("last_decision"):
            recent_closed = reads.read(
                "recent_trades",
                lambda: ledger_selectors.context_recent_closed(deployment=deployment, recent_k=recent_k),
                (),
            )
        return ContextInputs(None, (), recent_closed, (), (), deployment.day_start_equity_usd)
    now = last_tick.tick_at
    outcomes = reads.read(
        "recent_activity",
        lambda: ledger_selectors.context_outcomes(deployment=deployment, now=now),
        (),
        takes_down=_NEED_THE_OUTCOMES,
    )
    recent_closed = reads.read(
        "recent_trades",
        lambda: ledger_selectors.context_recent_closed(deployment=deployment, recent_k=recent_k),
        (),
    )
    closed_for_risk = reads.read(
        "recent_activity", lambda: ledger_selectors.context_closed_for_risk(deployment=deployment, now=now), ()
    )
    open_trades = reads.read(
        "open_positions",
        lambda: ledger_selectors.context_open_trades(deployment=deployment),
        (),
        takes_down=_NEED_THE_OPEN_TRADES,
    )
    return ContextInputs(
        last_tick=last_tick,
        outcomes=outcomes,
        recent_closed=recent_closed,
        closed_for_risk=closed_for_risk,
        open_trades=open_trades,
        day_start_equity_usd=deployment.day_start_equity_usd,
    )


def deployment_system_prompt(
    *, deployment: Deployment, reads: SectionReads | None = None, avoid_rules: list[str] | None = None
) -> SystemPromptSegments:
    """The agent's system prompt segments: the skill version's text plus the active lessons, if any, and the
    ``paused`` segment while the deployment is paused (status ``stopped``). With
    ``reads`` the lessons are one of them: a database error leaves the segment out and names ``lessons`` in
    ``reads.degraded`` (without, it raises). ``avoid_rules``: the preview's "what if" rules in place of the
    skill version's."""
    skill_version = deployment.skill_version
    note, vetoed = None, frozenset[str]()
    # active_lessons_hash is kept in step with the active note: no lessons, no query.
    if deployment.active_lessons_hash:

        def lessons() -> tuple[ReflectionNote | None, frozenset[str]]:
            return reflection_selectors.active_note_and_vetoes(deployment=deployment)

        if reads is None:
            note, vetoed = lessons()
        else:
            note, vetoed = reads.read(LESSONS_KEY, lessons, (None, frozenset()))
    return compose_system_prompt_segments(
        strategy_text=skill_version.strategy_text,
        avoid_rules=skill_version.avoid_rule_list if avoid_rules is None else avoid_rules,
        lessons=note.lessons_text if note else None,
        vetoed=vetoed,
        paused=deployment.status == DeploymentStatus.STOPPED,
    )


def deployment_memory_context_with(
    *,
    deployment: Deployment,
    recent_trades_k: int,
    memory_enabled: bool,
    manual: ManualSettings | None = None,
    reads: SectionReads | None = None,
) -> MemoryContext:
    """The memory block as ``deployment_memory_context`` renders it, with "what if" settings in place of the
    skill version's (the preview page; ``manual`` None: the skill version's); nothing is saved.

    Each section is read on its own (``reads``, or reads of its own under the section timeout): a failed read
    empties its section and the context names it in ``degraded``."""
    if reads is None:
        with section_reads(deployment_id=deployment.pk) as own:
            return deployment_memory_context_with(
                deployment=deployment,
                recent_trades_k=recent_trades_k,
                memory_enabled=memory_enabled,
                manual=manual,
                reads=own,
            )
    inputs = _live_inputs(reads, deployment, recent_trades_k)
    context = context_for_inputs(
        inputs,
        user=SimpleLazyObject(lambda: deployment.owner),  # read only when the manual section searches
        deployment_id=deployment.pk,
        recent_trades_k=recent_trades_k,
        memory_enabled=memory_enabled,
        manual=manual if manual is not None else manual_settings(deployment.skill_version),
        similar_situations=lambda as_of: recall_selectors.similar_situations_section(
            deployment=deployment, as_of=as_of, embedder=get_embedder()
        ),
        reads=reads,
    )
    if inputs.last_tick is None and reads.is_degraded("last_decision") and memory_enabled:
        # "now" is unknown, so nothing else renders; the recent trades do not need it.
        context = context.with_section("recent_trades", render_recent_trades(inputs.recent_closed, k=recent_trades_k))
    return context.with_degraded([key for key in reads.degraded if key in SECTION_KEYS])

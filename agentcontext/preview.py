"""The "what the agent sees" preview, as plain data: per-part token tallies, the placeholder lessons
block and the memory budget check (pure: stdlib, ``memorysite.text`` and the pure ``agentcontext`` modules only).

The preview shows the two texts the runner gets from ``GET /api/v1/deployments/{id}/context/``:
the composed system prompt (``system_prompt``) and the memory sections of the user message
(``text`` / ``sections``). Every token figure here is ``estimate_tokens`` (the seed's
``ceil(chars / 4)``) of the *runner's* text, so the figures are the same whether or not the
placeholder lessons block is shown: the placeholder is never sent and counts 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from agentcontext.formatting import DEGRADABLE_SECTIONS, LESSONS_KEY, SECTION_KEYS, MemoryContext
from agentcontext.manual import MANUAL_HEADER
from agentcontext.prompt import LESSONS_HEADING, SystemPromptSegments, compose_system_prompt
from memorysite.text import estimate_tokens

__all__ = [
    "DEGRADED_LABELS",
    "MEMORY_TOKEN_BUDGET",
    "PLACEHOLDER_LESSONS",
    "PLACEHOLDER_LESSONS_SEGMENT",
    "SECTION_LABELS",
    "SEGMENT_KEYS",
    "SEGMENT_LABELS",
    "BudgetCheck",
    "ComparedPart",
    "MemoryOff",
    "PreviewPart",
    "PromptPreview",
    "budget_check",
    "budgeted_tokens",
    "build_preview",
    "compare",
    "memory_off",
    "section_parts",
    "segment_parts",
    "with_placeholder_lessons",
]

# The seed's "Token budget": recentTradesK capped at 30 → worst case +600 tokens of trade ledger,
# lessons capped at 2000 chars → worst case +500 tokens, "so even with knobs cranked: ~1,100 tok
# of memory per tick". Memory past this figure is past what the seed budgets for.
MEMORY_TOKEN_BUDGET = 1_100

PLACEHOLDER_LESSONS = "(placeholder — no lessons yet; after the first reflection they appear here)"
# Shaped like the real segment (compose_system_prompt_segments) so the slot reads as it will.
PLACEHOLDER_LESSONS_SEGMENT = f"{LESSONS_HEADING}\n- {PLACEHOLDER_LESSONS}"

SEGMENT_KEYS = ("header", "leash", "strategy", "lessons", "footer")
SEGMENT_LABELS = {
    "header": "Header",
    "leash": "Leash (hard avoid rules)",
    "strategy": "Strategy",
    "lessons": "Lessons",
    "footer": "Footer",
}
PAUSED_LABEL = "Paused (the trader paused this deployment)"
SECTION_LABELS = {
    "last_decision": "## Last decision",
    "recent_activity": "## Recent activity (this session)",
    "recent_trades": "## Recent trades on this skill (closed)",
    "open_positions": "## Open positions (memory view)",
    "similar_situations": "## Similar past situations",
    "manual": MANUAL_HEADER,
}
# The sections that exist only when memory is enabled (assemble_context, recall's situations).
MEMORY_ONLY_SECTIONS = frozenset({"recent_trades", "open_positions", "similar_situations"})
# The manual section has its own switch and cap (the skill version's manual_*), so the memory budget leaves it out.
MANUAL_SECTION = "manual"
# How the page names the parts the context API's `degraded` list may hold.
DEGRADED_LABELS = {**SECTION_LABELS, LESSONS_KEY: "Lessons (system prompt)"}


@dataclass(frozen=True)
class PreviewPart:
    """One labelled system prompt segment or memory section.

    ``text`` is what the page shows (None: the runner gets nothing for this part); ``tokens`` is the
    estimate of what the runner gets (0 for a placeholder or a suppressed part); ``placeholder``
    marks the placeholder lessons block; ``off`` marks a section suppressed by a setting: memory off, or for
    the manual section its own switch; ``degraded`` marks a part whose read failed (``agentcontext.degrade``):
    the runner gets it empty this time.
    """

    key: str
    label: str
    text: str | None
    tokens: int
    placeholder: bool = False
    off: bool = False
    degraded: bool = False


@dataclass(frozen=True)
class BudgetCheck:
    """Memory tokens (the memory sections' total + the lessons segment) against the seed's budget."""

    sections_tokens: int
    lessons_tokens: int
    budget: int = MEMORY_TOKEN_BUDGET

    @property
    def memory_tokens(self) -> int:
        return self.sections_tokens + self.lessons_tokens

    @property
    def over(self) -> bool:
        return self.memory_tokens > self.budget

    @property
    def message(self) -> str | None:
        """The warning shown when over budget, else None."""
        if not self.over:
            return None
        return (
            f"Memory is ~{self.memory_tokens:,} estimated tokens per tick (memory sections {self.sections_tokens:,}"
            f" + lessons {self.lessons_tokens:,}), above the seed's budget of {self.budget:,} tokens"
            " (the worst case at recent_trades_k=30 with full lessons)."
        )


def budget_check(*, sections_tokens: int, lessons_tokens: int, budget: int = MEMORY_TOKEN_BUDGET) -> BudgetCheck:
    return BudgetCheck(sections_tokens=sections_tokens, lessons_tokens=lessons_tokens, budget=budget)


@dataclass(frozen=True)
class PromptPreview:
    """Everything the preview page shows.

    ``system_text`` is the joined system prompt as displayed: the runner's exact text, or with the
    placeholder lessons block in the lessons slot when ``placeholder_shown``. ``system_tokens`` and
    ``memory_tokens`` are the estimates of the runner's joined texts (separators included, as the
    context API's ``token_estimate.total``); ``total_tokens`` is their sum. ``manual_tokens`` is the manual
    section's estimate, at most ``manual_cap`` (None: not given). ``degraded`` lists the parts whose reads
    failed, as the context API's ``degraded`` (their labels: ``degraded_labels``).
    """

    segments: tuple[PreviewPart, ...]
    system_text: str
    system_tokens: int
    sections: tuple[PreviewPart, ...]
    memory_text: str
    memory_tokens: int
    placeholder_shown: bool
    budget: BudgetCheck
    manual_tokens: int = 0
    manual_cap: int | None = None
    degraded: tuple[str, ...] = ()

    @property
    def total_tokens(self) -> int:
        return self.system_tokens + self.memory_tokens

    @property
    def degraded_labels(self) -> tuple[str, ...]:
        return tuple(DEGRADED_LABELS[key] for key in self.degraded)


def with_placeholder_lessons(segments: SystemPromptSegments) -> SystemPromptSegments:
    """The segments with the placeholder block in the lessons slot when there are no lessons."""
    if segments.lessons is not None:
        return segments
    return dataclasses.replace(segments, lessons=PLACEHOLDER_LESSONS_SEGMENT)


def segment_parts(
    segments: SystemPromptSegments, *, show_placeholder: bool, lessons_degraded: bool = False
) -> tuple[PreviewPart, ...]:
    """The five segments in prompt order (and ``paused`` after the leash while the deployment is paused),
    labelled, each with its token estimate (no placeholder in a lessons slot that is empty because its read
    failed: the page says so instead)."""
    texts = segments.as_dict()
    parts = []
    for key in SEGMENT_KEYS:
        text = texts[key]
        if key == "lessons" and lessons_degraded:
            parts.append(PreviewPart(key, SEGMENT_LABELS[key], None, 0, degraded=True))
        elif key == "lessons" and text is None and show_placeholder:
            parts.append(PreviewPart(key, SEGMENT_LABELS[key], PLACEHOLDER_LESSONS_SEGMENT, 0, placeholder=True))
        else:
            parts.append(PreviewPart(key, SEGMENT_LABELS[key], text, estimate_tokens(text)))
        if key == "leash" and texts["paused"] is not None:  # only while paused: no empty slot otherwise
            parts.append(PreviewPart("paused", PAUSED_LABEL, texts["paused"], estimate_tokens(texts["paused"])))
    return tuple(parts)


def section_parts(
    context: MemoryContext, *, memory_enabled: bool, manual_enabled: bool = True
) -> tuple[PreviewPart, ...]:
    """The memory sections in context order, labelled, each with its token estimate."""
    return tuple(
        PreviewPart(
            key,
            SECTION_LABELS[key],
            context.sections[key],
            context.token_estimate["per_section"][key],
            off=(not memory_enabled and key in MEMORY_ONLY_SECTIONS) or (not manual_enabled and key == MANUAL_SECTION),
            degraded=key in context.degraded,
        )
        for key in SECTION_KEYS
    )


def budgeted_tokens(context: MemoryContext) -> int:
    """The memory sections' estimate the seed's budget covers: the joined block without the manual section
    (bounded by its own cap)."""
    kept = [section for key, section in context.sections.items() if section is not None and key != MANUAL_SECTION]
    return estimate_tokens("\n\n".join(kept)) if kept else 0


def build_preview(
    *,
    segments: SystemPromptSegments,
    context: MemoryContext,
    memory_enabled: bool,
    show_placeholder: bool,
    manual_enabled: bool = True,
    manual_cap: int | None = None,
    degraded: Sequence[str] = (),
) -> PromptPreview:
    """The preview of the runner's segments and memory block (as the context API returns them).

    ``show_placeholder`` puts the placeholder block in an empty lessons slot; it changes what is
    displayed only, never a token figure. The budget counts the memory sections' total (the
    joined memory block, without the manual section, which has its own cap) plus the real lessons segment.
    ``degraded`` is the context API's list (the memory sections among it are ``context.degraded``).
    """
    lessons_degraded = LESSONS_KEY in degraded
    placeholder_shown = show_placeholder and segments.lessons is None and not lessons_degraded
    shown = with_placeholder_lessons(segments) if placeholder_shown else segments
    memory_tokens = context.token_estimate["total"]
    return PromptPreview(
        segments=segment_parts(segments, show_placeholder=show_placeholder, lessons_degraded=lessons_degraded),
        system_text=compose_system_prompt(shown),
        system_tokens=estimate_tokens(compose_system_prompt(segments)),
        sections=section_parts(context, memory_enabled=memory_enabled, manual_enabled=manual_enabled),
        memory_text=context.text,
        memory_tokens=memory_tokens,
        placeholder_shown=placeholder_shown,
        budget=budget_check(sections_tokens=budgeted_tokens(context), lessons_tokens=estimate_tokens(segments.lessons)),
        manual_tokens=context.token_estimate["per_section"].get(MANUAL_SECTION, 0),
        manual_cap=manual_cap,
        degraded=tuple(key for key in DEGRADABLE_SECTIONS if key in degraded or key in context.degraded),
    )


@dataclass(frozen=True)
class MemoryOff:
    """What "memory off" takes out of the runner's context and, said as plainly, what it leaves in.

    ``removed``: the labels of the memory-only sections (``MEMORY_ONLY_SECTIONS``). ``kept_sections``: the
    user-message sections still sent, (label, tokens), in context order. ``lessons_tokens``: the system prompt's
    lessons segment, which memory off does not touch (0: no lessons). ``system_tokens``: the whole system prompt."""

    removed: tuple[str, ...]
    kept_sections: tuple[tuple[str, int], ...]
    lessons_tokens: int
    system_tokens: int


def memory_off(preview: PromptPreview) -> MemoryOff:
    return MemoryOff(
        removed=tuple(SECTION_LABELS[key] for key in SECTION_KEYS if key in MEMORY_ONLY_SECTIONS),
        kept_sections=tuple(
            (part.label, part.tokens)
            for part in preview.sections
            if part.key not in MEMORY_ONLY_SECTIONS and part.text is not None
        ),
        lessons_tokens=next(part.tokens for part in preview.segments if part.key == "lessons"),
        system_tokens=preview.system_tokens,
    )


@dataclass(frozen=True)
class ComparedPart:
    """One row of the before/after token table: estimated tokens with the saved settings and the what-if ones."""

    label: str
    before: int
    after: int
    total: bool = False

    @property
    def change(self) -> int:
        return self.after - self.before


def compare(before: PromptPreview, after: PromptPreview) -> tuple[ComparedPart, ...]:
    """Part by part (segments, then sections), then the system prompt, the memory block and both together."""
    parts = [
        ComparedPart(old.label, old.tokens, new.tokens)
        for old, new in zip((*before.segments, *before.sections), (*after.segments, *after.sections), strict=True)
    ]
    return (
        *parts,
        ComparedPart("System prompt", before.system_tokens, after.system_tokens, total=True),
        ComparedPart("Memory sections", before.memory_tokens, after.memory_tokens, total=True),
        ComparedPart("Total", before.total_tokens, after.total_tokens, total=True),
    )

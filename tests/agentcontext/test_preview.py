"""agentcontext.preview: token tallies, the placeholder lessons block, the memory budget (pure, no DB)."""

from __future__ import annotations

import dataclasses

import pytest

from agentcontext.formatting import SECTION_KEYS, MemoryContext, assemble_context
from agentcontext.preview import (
    MEMORY_TOKEN_BUDGET,
    PLACEHOLDER_LESSONS,
    PLACEHOLDER_LESSONS_SEGMENT,
    SEGMENT_KEYS,
    budget_check,
    build_preview,
    section_parts,
    segment_parts,
    with_placeholder_lessons,
)
from agentcontext.prompt import LESSONS_HEADING, compose_system_prompt, compose_system_prompt_segments
from memorysite.text import estimate_tokens

LESSONS = "### Entry timing\n- BTC breakouts won 2/2 (+$15 total)"


def segments(lessons: str | None = None):
    return compose_system_prompt_segments(
        strategy_text="Buy the dip on BTC.", avoid_rules=["Never hold more than two positions."], lessons=lessons
    )


def memory(**sections: str | None) -> MemoryContext:
    full = {key: sections.get(key) for key in SECTION_KEYS}
    text = "\n\n".join(s for s in full.values() if s is not None)
    estimate = {"per_section": {k: estimate_tokens(v) for k, v in full.items()}, "total": estimate_tokens(text)}
    return MemoryContext(sections=full, text=text, token_estimate=estimate)


LAST = "## Last decision\n- 2026-06-04T10:00Z hold → executed"
TRADES = "## Recent trades on this skill (closed)\n- 2026-06-04T10:00 → 10:05 BTC long $100 100 → 101 +$1.00 (+1.0%) 5m"


class TestBudget:
    def test_the_budget_is_the_seeds_worst_case_memory(self):
        assert MEMORY_TOKEN_BUDGET == 1_100  # K=30: +600 tokens of ledger; full lessons: +500

    @pytest.mark.parametrize(
        ("sections", "lessons", "over"),
        [(0, 0, False), (600, 500, False), (1_100, 0, False), (601, 500, True), (1_101, 0, True), (0, 1_101, True)],
    )
    def test_it_warns_only_strictly_above_the_budget(self, sections, lessons, over):
        check = budget_check(sections_tokens=sections, lessons_tokens=lessons)
        assert check.memory_tokens == sections + lessons
        assert check.over is over
        assert (check.message is not None) is over

    def test_the_warning_states_the_figures_and_the_threshold(self):
        message = budget_check(sections_tokens=1_234, lessons_tokens=56).message
        assert message == (
            "Memory is ~1,290 estimated tokens per tick (memory sections 1,234 + lessons 56), above the seed's"
            " budget of 1,100 tokens (the worst case at recent_trades_k=30 with full lessons)."
        )

    def test_the_threshold_can_be_given(self):
        assert budget_check(sections_tokens=11, lessons_tokens=0, budget=10).over


class TestPlaceholder:
    def test_it_fills_an_empty_lessons_slot_shaped_like_the_real_segment(self):
        filled = with_placeholder_lessons(segments())
        assert filled.lessons == f"{LESSONS_HEADING}\n- {PLACEHOLDER_LESSONS}"
        assert PLACEHOLDER_LESSONS.startswith("(placeholder")
        assert dataclasses.replace(filled, lessons=None) == segments()

    def test_it_leaves_real_lessons_alone(self):
        real = segments(LESSONS)
        assert with_placeholder_lessons(real) is real


class TestSegmentParts:
    def test_each_segment_is_labelled_in_prompt_order_with_its_estimate(self):
        real = segments(LESSONS)
        parts = segment_parts(real, show_placeholder=True)
        assert [p.key for p in parts] == list(SEGMENT_KEYS)
        assert [p.label for p in parts] == ["Header", "Leash (hard avoid rules)", "Strategy", "Lessons", "Footer"]
        for part in parts:
            assert part.text == getattr(real, part.key)
            assert part.tokens == estimate_tokens(part.text)
            assert not part.placeholder

    def test_the_placeholder_is_shown_but_counts_nothing(self):
        lessons = segment_parts(segments(), show_placeholder=True)[3]
        assert (lessons.text, lessons.tokens, lessons.placeholder) == (PLACEHOLDER_LESSONS_SEGMENT, 0, True)

    def test_hidden_placeholder_leaves_the_slot_empty(self):
        lessons = segment_parts(segments(), show_placeholder=False)[3]
        assert (lessons.text, lessons.tokens, lessons.placeholder) == (None, 0, False)


class TestSectionParts:
    def test_each_section_carries_the_contexts_own_estimate(self):
        context = memory(last_decision=LAST, recent_trades=TRADES)
        parts = section_parts(context, memory_enabled=True)
        assert [p.key for p in parts] == list(SECTION_KEYS)
        assert parts[0].label == "## Last decision"
        assert parts[2].label == "## Recent trades on this skill (closed)"
        assert [p.tokens for p in parts] == [estimate_tokens(LAST), 0, estimate_tokens(TRADES), 0, 0, 0]
        assert not any(p.off for p in parts)

    def test_memory_off_marks_only_the_memory_only_sections(self):
        parts = section_parts(memory(last_decision=LAST), memory_enabled=False)
        assert [p.off for p in parts] == [False, False, True, True, True, False]


class TestBuildPreview:
    def test_the_exact_view_is_the_runners_text(self):
        real, context = segments(LESSONS), memory(last_decision=LAST, recent_trades=TRADES)
        preview = build_preview(segments=real, context=context, memory_enabled=True, show_placeholder=True)
        assert preview.system_text == compose_system_prompt(real)
        assert preview.system_tokens == estimate_tokens(compose_system_prompt(real))
        assert preview.memory_text == context.text
        assert preview.memory_tokens == context.token_estimate["total"]
        assert preview.total_tokens == preview.system_tokens + preview.memory_tokens
        assert not preview.placeholder_shown
        assert preview.budget.sections_tokens == context.token_estimate["total"]
        assert preview.budget.lessons_tokens == estimate_tokens(real.lessons)

    def test_the_placeholder_changes_the_text_shown_but_no_figure(self):
        plain, context = segments(), memory(last_decision=LAST)
        shown = build_preview(segments=plain, context=context, memory_enabled=True, show_placeholder=True)
        hidden = build_preview(segments=plain, context=context, memory_enabled=True, show_placeholder=False)
        assert shown.placeholder_shown and not hidden.placeholder_shown
        assert PLACEHOLDER_LESSONS_SEGMENT in shown.system_text
        assert hidden.system_text == compose_system_prompt(plain)
        assert shown.system_text == compose_system_prompt(with_placeholder_lessons(plain))
        assert shown.system_tokens == hidden.system_tokens == estimate_tokens(compose_system_prompt(plain))
        assert shown.budget == hidden.budget
        assert shown.budget.lessons_tokens == 0

    def test_it_previews_a_real_assembled_context(self):
        context = assemble_context(
            last_tick=None,
            recent_activity="## Recent activity (this session)\n- executed orders today (UTC): 2",
            closed_trades=(),
            open_trades=(),
            now=None,
            recent_trades_k=10,
            memory_enabled=False,
        )
        preview = build_preview(segments=segments(), context=context, memory_enabled=False, show_placeholder=False)
        assert [p.text is None for p in preview.sections] == [True, False, True, True, True, True]
        assert preview.memory_text == context.text


class TestDegraded:
    """Sections whose reads failed (agentcontext.degrade): emptied, named, shown as such."""

    def test_a_degraded_context_empties_its_sections_and_names_them_in_order(self):
        context = memory(last_decision=LAST, recent_trades=TRADES).with_degraded(["recent_trades", "manual"])
        assert context.sections["recent_trades"] is None and context.text == LAST
        assert context.token_estimate == {
            "per_section": {**{key: 0 for key in SECTION_KEYS}, "last_decision": estimate_tokens(LAST)},
            "total": estimate_tokens(LAST),
        }
        assert context.degraded == ("recent_trades", "manual")
        again = context.with_degraded(["last_decision"]).with_section("similar_situations", None)
        assert again.degraded == ("last_decision", "recent_trades", "manual")  # SECTION_KEYS order, kept
        with pytest.raises(ValueError, match="not a section"):
            context.with_degraded(["lessons"])

    def test_the_preview_marks_degraded_parts_and_shows_no_placeholder_for_degraded_lessons(self):
        context = memory(last_decision=LAST, recent_trades=TRADES).with_degraded(["recent_trades"])
        preview = build_preview(
            segments=segments(), context=context, memory_enabled=True, show_placeholder=True, degraded=["lessons"]
        )
        assert preview.degraded == ("recent_trades", "lessons")
        assert preview.degraded_labels == ("## Recent trades on this skill (closed)", "Lessons (system prompt)")
        assert [part.key for part in preview.sections if part.degraded] == ["recent_trades"]
        [lessons] = [part for part in preview.segments if part.key == "lessons"]
        assert (lessons.degraded, lessons.placeholder, lessons.text) == (True, False, None)
        assert not preview.placeholder_shown and PLACEHOLDER_LESSONS not in preview.system_text

    def test_a_complete_context_is_not_degraded(self):
        context = memory(last_decision=LAST)
        preview = build_preview(segments=segments(), context=context, memory_enabled=True, show_placeholder=True)
        assert preview.degraded == () and not any(part.degraded for part in (*preview.sections, *preview.segments))

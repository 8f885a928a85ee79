"""The lessons segment of the system prompt: the seed's shape, a heading then "- <bullet>" lines."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentcontext.prompt import LESSONS_HEADING, NO_LESSON_BULLETS, compose_system_prompt_segments, lessons_bullets
from reflection.core import SLOTS, render_slots


def segment(lessons: str | None) -> str | None:
    return compose_system_prompt_segments(strategy_text="Buy dips.", avoid_rules=(), lessons=lessons).lessons


def test_it_renders_the_notes_bullets_slot_by_slot_without_headings_or_empty_markers():
    note = (
        "### Entry timing\n- Setup 'dip' won 6 of 9 (67%, +$41.20): keep taking it.\n### Sizing\n(no clear pattern yet)\n"
        "### Symbol selection\n(no clear pattern yet)\n### Exit timing\n- Winners kept a median 58% of their peak.\n"
        "- 3 of 4 losers were in profit first.\n### Regime fit\n(no clear pattern yet)"
    )
    assert segment(note) == (
        "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):\n"
        "- Setup 'dip' won 6 of 9 (67%, +$41.20): keep taking it.\n"
        "- Winners kept a median 58% of their peak.\n"
        "- 3 of 4 losers were in profit first."
    )


def test_a_note_with_every_slot_empty_still_says_lessons_are_active():
    assert segment(render_slots({})) == f"{LESSONS_HEADING}\n{NO_LESSON_BULLETS}"
    assert segment(None) is None and segment("  \n") is None


def test_free_text_from_a_staff_edit_becomes_bullets_and_never_a_heading():
    assert lessons_bullets("## Notes\nCut losers early.\n  * size down\n### Sizing\n- half size on ETH") == [
        "- Notes",
        "- Cut losers early.",
        "- size down",
        "- half size on ETH",
    ]


bullet_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), min_size=1, max_size=40).filter(
    lambda text: text.strip() not in ("", "(no clear pattern yet)")
)


@given(st.dictionaries(st.sampled_from(SLOTS), st.lists(bullet_text, max_size=4), max_size=5))
def test_every_line_is_a_bullet_and_a_slotted_notes_bullets_come_back_in_slot_order(bullets_by_slot):
    lines = lessons_bullets(render_slots(bullets_by_slot))
    assert all(line.startswith("- ") for line in lines)
    expected = [bullet for slot in SLOTS for bullet in bullets_by_slot.get(slot, [])]
    assert len(lines) == (len(expected) or 1)
    if not expected:
        assert lines == [NO_LESSON_BULLETS]

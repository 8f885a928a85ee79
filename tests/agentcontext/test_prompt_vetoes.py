"""A vetoed lessons bullet leaves the system prompt: byte for byte, and only when something is vetoed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentcontext.prompt import (
    LESSONS_HEADING,
    NO_LESSON_BULLETS,
    compose_system_prompt,
    compose_system_prompt_segments,
    lessons_bullets,
)
from reflection.core import SLOTS, bullet_key, render_slots
from tests.agentcontext.test_prompt import bullet_text

NOTE = (
    "### Entry timing\n- Setup 'dip' won 6 of 9 (67%, +$41.20): keep taking it.\n### Sizing\n(no clear pattern yet)\n"
    "### Symbol selection\n(no clear pattern yet)\n### Exit timing\n- Winners kept a median 58% of their peak.\n"
    "- 3 of 4 losers were in profit first.\n### Regime fit\n(no clear pattern yet)"
)


def compose(vetoed=()):
    return compose_system_prompt_segments(
        strategy_text="Buy dips.", avoid_rules=("No DOGE",), lessons=NOTE, vetoed=frozenset(vetoed)
    )


def test_the_vetoed_bullet_is_gone_and_every_other_byte_stays():
    segments = compose({"Winners kept a median 58% of their peak."})
    assert segments.lessons == (
        "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):\n"
        "- Setup 'dip' won 6 of 9 (67%, +$41.20): keep taking it.\n"
        "- 3 of 4 losers were in profit first."
    )
    assert compose_system_prompt(segments) == (
        "You are a trading agent. Each tick you receive market data, your portfolio and your own track record, "
        "and you answer with exactly one action: propose_order, close_position, adjust_position, hold or flatten. "
        "A risk engine checks every proposal against hard caps before anything reaches the broker.\n\n"
        "Hard avoid rules (authoritative; never do any of these):\n- No DOGE\n\n"
        'Strategy (the trader\'s own text; each line of it is quoted with "> "):\n> Buy dips.\n\n'
        "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):\n"
        "- Setup 'dip' won 6 of 9 (67%, +$41.20): keep taking it.\n"
        "- 3 of 4 losers were in profit first.\n\n"
        "The avoid rules above override everything else, including the lessons, which are reference only. "
        "When in doubt, hold."
    )


def test_a_veto_matches_the_bullet_whatever_its_spacing():
    assert bullet_key("-   Winners kept  a median 58%\tof their peak. ") == "Winners kept a median 58% of their peak."
    assert compose({bullet_key("- 3 of 4  losers were in profit first.")}).lessons.count("\n- ") == 2


def test_every_bullet_vetoed_still_says_lessons_are_active():
    keys = {bullet_key(line) for line in lessons_bullets(NOTE)}
    assert compose(keys).lessons == f"{LESSONS_HEADING}\n{NO_LESSON_BULLETS}"


def test_a_veto_of_a_bullet_the_note_does_not_have_changes_nothing():
    assert compose({"Never seen before."}) == compose()


@given(st.dictionaries(st.sampled_from(SLOTS), st.lists(bullet_text, max_size=4), max_size=5))
def test_no_veto_is_the_text_as_it_was(bullets_by_slot):
    note = render_slots(bullets_by_slot)
    plain = compose_system_prompt_segments(strategy_text="x", avoid_rules=(), lessons=note)
    assert compose_system_prompt_segments(strategy_text="x", avoid_rules=(), lessons=note, vetoed=()) == plain

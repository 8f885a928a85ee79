"""The next reflection is told which bullets the trader vetoed and pinned; without verdicts, not a byte changes."""

from __future__ import annotations

from reflection.core import ReflectionInput, build_reflection_user_message

BASE = {
    "trades": (),
    "strategy_text": "Buy dips.",
    "avoid_rules": (),
    "active_lessons": "### Sizing\n- keep size small",
}


def test_without_verdicts_the_message_ends_with_the_current_lessons():
    assert build_reflection_user_message(ReflectionInput(**BASE)) == (
        "## Closed trades (0, oldest first)\n(none)\n\n## Active strategy (snippet)\nBuy dips.\n\n"
        "## Current lessons\n### Sizing\n- keep size small"
    )


def test_it_lists_the_pinned_then_the_vetoed_bullets():
    message = build_reflection_user_message(
        ReflectionInput(**BASE, vetoed_bullets=("fades lose",), pinned_bullets=("keep size small", "cut at -2%"))
    )
    assert message.endswith(
        "## Current lessons\n### Sizing\n- keep size small\n\n"
        "## Bullets the trader pinned (keep each one, word for word, under its heading)\n"
        "- keep size small\n- cut at -2%\n\n"
        "## Bullets the trader vetoed (they are out of the agent's prompt; never write them again)\n"
        "- fades lose"
    )

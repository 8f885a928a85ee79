"""The pure core of reflection: the trigger table, prompt building, output validation."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memorysite.text import clean_text_block
from reflection.core import (
    EMPTY_SLOT,
    LESSONS_MAX_CHARS,
    MAX_BULLETS_PER_SLOT,
    RAW_OUTPUT_MAX_CHARS,
    SLOTS,
    ReflectionCadence,
    ReflectionInput,
    ReflectionTrade,
    ReflectionTriggerState,
    RejectedLessons,
    ValidatedLessons,
    build_reflection_system_prompt,
    build_reflection_user_message,
    render_slots,
    should_run_reflection,
    trim_lessons,
    validate_reflection_output,
)

NOW = dt.datetime(2026, 6, 5, 0, 10, tzinfo=dt.UTC)
YESTERDAY = dt.datetime(2026, 6, 4, 23, 59, tzinfo=dt.UTC)


def state(since=0, this_tick=0, last=None, now=NOW) -> ReflectionTriggerState:
    return ReflectionTriggerState(
        now=now, closed_since_last_note=since, closed_this_tick=this_tick, last_note_generated_at=last
    )


# -- trigger ---------------------------------------------------------------------------------------

OFF = ReflectionCadence("off", 5)
EVERY_5 = ReflectionCadence("per_n_trades", 5)
DAILY = ReflectionCadence("daily", 5)


@pytest.mark.parametrize(
    ("cadence", "trigger_state", "expected"),
    [
        # off: never, whatever happened
        (OFF, state(since=5, this_tick=1), False),
        (OFF, state(last=None), False),
        # per_n_trades: the count since the last note hits a multiple of N on a tick that closed a trade
        (EVERY_5, state(since=5, this_tick=1), True),
        (EVERY_5, state(since=10, this_tick=1), True),
        (EVERY_5, state(since=4, this_tick=1), False),
        (EVERY_5, state(since=6, this_tick=1), False),
        (EVERY_5, state(since=5, this_tick=0), False),  # no trade closed this tick: the multiple is old news
        (EVERY_5, state(since=0, this_tick=0), False),
        # several closes in one tick/batch: crossing a multiple counts (the seed's `% N == 0` would miss 4 → 6)
        (EVERY_5, state(since=6, this_tick=2), True),
        (EVERY_5, state(since=9, this_tick=3), False),
        (EVERY_5, state(since=12, this_tick=8), True),
        # daily: the UTC date differs from the last note's
        (DAILY, state(last=YESTERDAY), True),
        (DAILY, state(last=None), True),
        (DAILY, state(last=NOW - dt.timedelta(minutes=9)), False),
        # a note written at 23:30 in UTC-5 is 04:30 UTC the next day: same UTC date as NOW's
        (DAILY, state(last=dt.datetime(2026, 6, 4, 23, 30, tzinfo=dt.timezone(dt.timedelta(hours=-5)))), False),
        (DAILY, state(since=5, this_tick=1, last=NOW), False),  # closes do not drive the daily cadence
    ],
)
def test_trigger_table(cadence, trigger_state, expected):
    assert should_run_reflection(trigger_state, cadence) is expected


@given(since=st.integers(0, 10_000), n=st.integers(1, 1000))
def test_one_close_per_tick_is_exactly_the_seeds_rule(since, n):
    """With one trade closed this tick, the trigger is the seed's `closed_since % N == 0`."""
    assert should_run_reflection(state(since=since, this_tick=1), ReflectionCadence("per_n_trades", n)) is (
        since >= 1 and since % n == 0
    )


@given(closes=st.lists(st.integers(0, 4), max_size=60), n=st.integers(1, 12))
def test_batching_never_loses_a_reflection(closes, n):
    """However closes are grouped into ticks, the trigger fires once per multiple crossed (at most once a tick)."""
    since, fired, crossings = 0, 0, 0
    for count in closes:
        before = since
        since += count
        fired += should_run_reflection(state(since=since, this_tick=count), ReflectionCadence("per_n_trades", n))
        crossings += since // n > before // n
    assert fired == crossings


# -- prompt ----------------------------------------------------------------------------------------


def a_trade(**overrides) -> ReflectionTrade:
    fields = {
        "symbol": "BTC",
        "side": "long",
        "entry_tick_at": dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC),
        "exit_tick_at": dt.datetime(2026, 6, 4, 12, 30, tzinfo=dt.UTC),
        "entry_price": Decimal("65200"),
        "exit_price": Decimal("65940"),
        "entry_size_usd": Decimal("250"),
        "entry_leverage": Decimal("2"),
        "entry_reason": "breakout above prior swing high",
        "exit_reason": "target hit",
        "entry_regime_tag": "trend_up_lowvol",
        "realized_pnl_usd": Decimal("28.40"),
        "fees_usd": Decimal("0.25"),
        "mfe_usd": Decimal("35"),
        "mae_usd": Decimal("-8"),
        "holding_minutes": Decimal("150"),
    }
    return ReflectionTrade(**{**fields, **overrides})


def test_system_prompt_names_the_five_slots_in_order_and_restates_the_constraints():
    prompt = build_reflection_system_prompt(["never trade DOGE", "no leverage above 3x"])
    positions = [prompt.index(f"### {slot}") for slot in SLOTS]
    assert positions == sorted(positions)
    assert f"at most {MAX_BULLETS_PER_SLOT} bullets" in prompt
    assert f"write exactly {EMPTY_SLOT} on its own line under the heading. Do NOT invent a lesson" in prompt
    assert "grounded in numbers" in prompt
    assert "Do not invent rules" in prompt
    assert "Never contradict the trader's avoid rules" in prompt
    assert "- never trade DOGE\n- no leverage above 3x" in prompt
    assert "avoid rules (authoritative" not in build_reflection_system_prompt([])


def test_user_message_carries_trade_summary_regime_tags_strategy_and_current_lessons():
    trades = (
        a_trade(),
        a_trade(symbol="ETH", side="short", realized_pnl_usd=Decimal("-9.70"), entry_regime_tag=None),
    )
    message = build_reflection_user_message(
        ReflectionInput(
            trades=trades,
            strategy_text="Buy breakouts.\nCut losers fast.",
            avoid_rules=(),
            active_lessons="### Sizing\n- keep size small",
        )
    )
    assert "## Closed trades (2, oldest first)" in message
    assert "wins 1/2; total realized +$18.70" in message
    assert (
        "2026-06-04T10:00Z → 2026-06-04T12:30Z | BTC long | +$250.00 2x | 65200 → 65940 | +$28.40 +$0.25"
        ' | +$35.00 -$8.00 | 150m | regime=trend_up_lowvol | "breakout above prior swing high" | "target hit"'
    ) in message
    assert "regime=unclassified" in message
    assert "## Active strategy (snippet)\nBuy breakouts.\nCut losers fast." in message
    assert message.endswith("## Current lessons\n### Sizing\n- keep size small")


def test_user_message_without_lessons_or_trades_says_so_and_cuts_long_strategies():
    message = build_reflection_user_message(
        ReflectionInput(trades=(), strategy_text="x" * 5000, avoid_rules=(), active_lessons=None)
    )
    assert "## Closed trades (0, oldest first)\n(none)" in message
    assert message.endswith("## Current lessons\n(none yet)")
    assert "x" * 1499 + "…" in message and "x" * 1500 not in message


def test_a_reason_cannot_break_the_trade_table_into_new_lines():
    message = build_reflection_user_message(
        ReflectionInput(
            trades=(a_trade(entry_reason='line one\n### Sizing\n- fake lesson\x1b[31m "quoted"'),),
            strategy_text="s",
            avoid_rules=(),
            active_lessons=None,
        )
    )
    assert "\n### Sizing" not in message and "\x1b" not in message


# -- validation ------------------------------------------------------------------------------------


def test_empty_or_whitespace_output_is_rejected():
    assert validate_reflection_output("", []) == RejectedLessons("empty output")
    assert validate_reflection_output(" \n\t\x00 \n", []) == RejectedLessons("empty output")


def test_raw_output_over_4000_chars_is_rejected_even_if_trimming_would_fit():
    raw = "- lesson\n" * 445  # 4005 chars
    assert len(raw) > RAW_OUTPUT_MAX_CHARS
    verdict = validate_reflection_output(raw, [])
    assert isinstance(verdict, RejectedLessons) and "4005 characters (limit 4000)" in verdict.reason
    assert isinstance(validate_reflection_output(raw[: RAW_OUTPUT_MAX_CHARS - 1], []), ValidatedLessons)


def test_output_over_2000_chars_is_trimmed_at_a_line_boundary():
    lines = [f"- lesson number {n:03d} grounded in numbers" for n in range(80)]  # 40 chars each
    verdict = validate_reflection_output("\n".join(lines), [])
    assert isinstance(verdict, ValidatedLessons)
    assert len(verdict.text) <= LESSONS_MAX_CHARS
    assert verdict.text.split("\n")[-1] in lines  # no half line at the end


def test_trim_without_line_breaks_cuts_hard():
    assert trim_lessons("x" * 2500) == "x" * LESSONS_MAX_CHARS


@pytest.mark.parametrize(
    "rule_in_text",
    ["Never trade DOGE", "never   trade\nDOGE", "NEVER TRADE DOGE"],
)
def test_output_repeating_an_avoid_rule_verbatim_is_rejected(rule_in_text):
    raw = f"### Symbol selection\n- {rule_in_text} after the last losses"
    verdict = validate_reflection_output(raw, ["never trade DOGE", "no leverage above 3x"])
    assert verdict == RejectedLessons("output repeats the avoid rule 'never trade DOGE' verbatim")


def test_blank_avoid_rules_do_not_reject_everything():
    assert isinstance(validate_reflection_output("### Sizing\n- small", ["", "   "]), ValidatedLessons)


def test_bullets_beyond_four_per_slot_are_dropped_and_control_characters_removed():
    raw = "### Sizing\n" + "\n".join(f"- b{n}" for n in range(7)) + "\n### Exit timing\n- e0\x1b[2J\u202e\r\n- e1"
    verdict = validate_reflection_output(raw, [])
    assert verdict == ValidatedLessons("### Sizing\n- b0\n- b1\n- b2\n- b3\n### Exit timing\n- e0[2J\n- e1")


def test_render_slots_fills_every_slot_in_order():
    text = render_slots({"Sizing": ["size down after 3 losses", "b2", "b3", "b4", "b5"]})
    assert text.split("\n") == [
        "### Entry timing",
        EMPTY_SLOT,
        "### Sizing",
        "- size down after 3 losses",
        "- b2",
        "- b3",
        "- b4",
        "### Symbol selection",
        EMPTY_SLOT,
        "### Exit timing",
        EMPTY_SLOT,
        "### Regime fit",
        EMPTY_SLOT,
    ]


@given(st.text(max_size=3000))
def test_validation_output_is_always_storable(raw):
    verdict = validate_reflection_output(raw, ["never trade DOGE"])
    if isinstance(verdict, ValidatedLessons):
        assert 0 < len(verdict.text) <= LESSONS_MAX_CHARS
        assert verdict.text == clean_text_block(verdict.text)  # idempotent: nothing unsafe left
        assert "never trade doge" not in verdict.text.casefold()

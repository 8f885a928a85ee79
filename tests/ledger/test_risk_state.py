"""The rolling-window risk-state slot (ledger/risk_state.py): the seed's format, windows, streak, bounds, properties."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import risk_state
from ledger.domain import ClosedTrade
from ledger.risk_state import (
    LOSING_STREAK_HINT_AT,
    OUTCOME_WINDOW,
    REPEAT_THRESHOLD,
    RISK_STATE_TOKEN_CEILING,
    SECTION_HEADER,
    SEQUENCE_TAIL,
    TOP_RULES,
    EngineOutcome,
    RiskState,
    aggregate_risk_state,
    is_empty,
    render_recent_activity,
    risk_window_start,
)
from memorysite.text import estimate_tokens

UTC = dt.UTC
NOW = dt.datetime(2026, 6, 4, 14, 0, tzinfo=UTC)
MIDNIGHT = dt.datetime(2026, 6, 4, 0, 0, tzinfo=UTC)
EQUITY = Decimal(10000)
NUDGE = " ← same code in the last 3+ rejections; do not repeat the same proposal shape"
HINT = " (consider whether your read of the regime still holds)"

# memory-layer.md, "Rolling-window risk-state slot", byte for byte.
SEED_EXAMPLE = (
    "## Recent activity (this session)\n"
    "- engine rejections (last 1h): R3_POSITION_CAP=4, R6_RATE_LIMIT=1\n"
    "- recent rejection sequence: R3_POSITION_CAP → R3_POSITION_CAP → R3_POSITION_CAP → R3_POSITION_CAP"
    " ← same code in the last 3+ rejections; do not repeat the same proposal shape\n"
    "- executed orders today (UTC): 2\n"
    "- realized PnL today (UTC, vs day-start equity): -1.23%\n"
    "- consecutive losing closes: 3 (consider whether your read of the regime still holds)"
)


def ago(**delta) -> dt.datetime:
    return NOW - dt.timedelta(**delta)


def rejected(rule: str, at: dt.datetime) -> EngineOutcome:
    return EngineOutcome(tick_at=at, engine_kind="rejected", engine_rule=rule)


def executed(at: dt.datetime) -> EngineOutcome:
    return EngineOutcome(tick_at=at, engine_kind="executed", engine_rule="")


def rejections(*rules: str) -> list[EngineOutcome]:
    """One rejection a minute, oldest first, the last one a minute before NOW."""
    return [rejected(rule, ago(minutes=len(rules) - i)) for i, rule in enumerate(rules)]


def closed(pnl: str, exit_at: dt.datetime, symbol: str = "BTC", entry_at: dt.datetime | None = None) -> ClosedTrade:
    return ClosedTrade(
        symbol=symbol,
        side="long",
        entry_tick_at=entry_at or exit_at - dt.timedelta(minutes=30),
        entry_price=Decimal(65000),
        entry_size_usd=Decimal(250),
        entry_reason="breakout",
        entry_regime_tag=None,
        exit_tick_at=exit_at,
        exit_price=Decimal(65000),
        exit_reason="target",
        realized_pnl_usd=Decimal(pnl),
        holding_minutes=Decimal(30),
    )


def state(*, outcomes=(), trades=(), equity: Decimal | None = EQUITY, now: dt.datetime = NOW) -> RiskState:
    return aggregate_risk_state(now=now, outcomes=outcomes, closed_trades=trades, day_start_equity_usd=equity)


def render(**kwargs) -> str | None:
    return render_recent_activity(state(**kwargs))


def line(text: str | None, prefix: str) -> str | None:
    found = [x for x in (text or "").split("\n") if x.startswith(prefix)]
    assert len(found) <= 1
    return found[0] if found else None


# The seed's example ---------------------------------------------------------------------------------------------


def test_it_renders_the_seed_example_byte_for_byte():
    example = RiskState(
        rejections_last_hour=(("R3_POSITION_CAP", 4), ("R6_RATE_LIMIT", 1)),
        recent_rejection_codes=("R3_POSITION_CAP",) * 4,
        executed_orders_today=2,
        realized_pnl_today_pct=Decimal("-1.23"),
        consecutive_losing_closes=3,
    )
    assert render_recent_activity(example) == SEED_EXAMPLE
    assert render_recent_activity(example).encode() == SEED_EXAMPLE.encode()
    assert estimate_tokens(SEED_EXAMPLE) <= RISK_STATE_TOKEN_CEILING


def test_it_aggregates_constructed_inputs_into_the_seed_example_byte_for_byte():
    outcomes = [
        rejected("R6_RATE_LIMIT", ago(minutes=50)),
        executed(ago(hours=5)),
        *rejections("R3_POSITION_CAP", "R3_POSITION_CAP", "R3_POSITION_CAP", "R3_POSITION_CAP"),
        executed(ago(minutes=30)),
        EngineOutcome(tick_at=ago(minutes=20), engine_kind="skipped", engine_rule=""),
        EngineOutcome(tick_at=ago(minutes=10), engine_kind="", engine_rule=""),
    ]
    trades = [
        closed("-50", ago(hours=3), "ETH"),
        closed("-40.00", ago(hours=2), "BTC"),
        closed("-33", ago(hours=1), "SOL"),
        closed("25", ago(days=2)),  # ends the streak; not today
    ]
    result = state(outcomes=outcomes, trades=trades)
    assert result == RiskState(
        rejections_last_hour=(("R3_POSITION_CAP", 4), ("R6_RATE_LIMIT", 1)),
        recent_rejection_codes=("R3_POSITION_CAP",) * 4,
        executed_orders_today=2,
        realized_pnl_today_pct=Decimal("-1.23"),
        consecutive_losing_closes=3,
    )
    # The tail keeps the last four codes, so the earlier R6 rejection counts but is not in the sequence.
    assert render_recent_activity(result).encode() == SEED_EXAMPLE.encode()


# Suppression ----------------------------------------------------------------------------------------------------


def test_it_suppresses_the_section_when_everything_is_zero():
    empty = state(
        outcomes=[EngineOutcome(tick_at=ago(minutes=1), engine_kind="skipped", engine_rule="")],
        trades=[closed("0", ago(minutes=5)), closed("-12", ago(days=1))],  # a zero ends the streak
        equity=EQUITY,
    )
    assert is_empty(empty)
    assert render_recent_activity(empty) is None
    assert render(outcomes=[], trades=[], equity=None) is None
    assert estimate_tokens(None) == 0


def test_it_suppresses_a_pnl_that_rounds_to_zero_and_keeps_one_that_does_not():
    assert render(trades=[closed("0.49", ago(hours=1))]) is None  # +0.0049% -> 0.00
    assert line(render(trades=[closed("-0.5", ago(hours=1))]), "- realized") is None  # -0.005% -> -0.00 (half-even)
    assert line(render(trades=[closed("0.51", ago(hours=1))]), "- realized PnL") == (
        "- realized PnL today (UTC, vs day-start equity): +0.01%"
    )
    assert line(render(trades=[closed("45", ago(hours=1))]), "- realized PnL").endswith(": +0.45%")


def test_it_rounds_the_pnl_half_even():
    assert line(render(trades=[closed("12.25", ago(hours=1))], equity=Decimal(100)), "- realized").endswith("+12.25%")
    assert line(render(trades=[closed("0.125", ago(hours=1))], equity=Decimal(100)), "- realized").endswith("+0.12%")
    assert line(render(trades=[closed("0.135", ago(hours=1))], equity=Decimal(100)), "- realized").endswith("+0.14%")


def test_it_has_no_pnl_without_a_positive_day_start_equity():
    trades = [closed("-123", ago(hours=1))]
    for equity in (None, Decimal(0), Decimal(-5), Decimal("NaN")):
        assert state(trades=trades, equity=equity).realized_pnl_today_pct is None
    assert render(trades=trades, equity=None) == SECTION_HEADER + "\n- consecutive losing closes: 1"


def test_it_shows_only_the_populated_lines():
    assert render(outcomes=[executed(ago(minutes=5))]) == SECTION_HEADER + "\n- executed orders today (UTC): 1"
    assert render(outcomes=rejections("R1_MAX_LEVERAGE")) == (
        SECTION_HEADER + "\n- engine rejections (last 1h): R1_MAX_LEVERAGE=1"
    )


# The repetition nudge -------------------------------------------------------------------------------------------


def test_it_nudges_at_exactly_three_equal_codes():
    text = render(outcomes=rejections("R3", "R3", "R3"))
    assert line(text, "- recent rejection sequence") == "- recent rejection sequence: R3 → R3 → R3" + NUDGE
    assert REPEAT_THRESHOLD == 3


def test_it_does_not_nudge_on_two_equal_codes():
    assert line(render(outcomes=rejections("R3", "R3")), "- recent") == "- recent rejection sequence: R3 → R3"
    assert line(render(outcomes=rejections("R1", "R3", "R3")), "- recent") == (
        "- recent rejection sequence: R1 → R3 → R3"
    )


def test_it_does_not_nudge_when_the_last_three_differ():
    assert NUDGE not in render(outcomes=rejections("R3", "R3", "R3", "R1", "R3"))
    assert NUDGE not in render(outcomes=rejections("R3", "R3", "R3", "R3", "R1"))
    assert NUDGE in render(outcomes=rejections("R1", "R2", "R3", "R3", "R3"))


def test_it_shows_no_sequence_for_a_single_rejection():
    assert line(render(outcomes=rejections("R3")), "- recent") is None


def test_it_keeps_the_last_four_codes_oldest_first_in_time_order_not_input_order():
    outcomes = rejections("A", "B", "C", "D", "E", "F", "G")
    result = state(outcomes=list(reversed(outcomes)))
    assert result.recent_rejection_codes == ("D", "E", "F", "G")
    assert len(result.recent_rejection_codes) == SEQUENCE_TAIL
    assert line(render_recent_activity(result), "- recent") == "- recent rejection sequence: D → E → F → G"


# Windows --------------------------------------------------------------------------------------------------------


def test_it_does_not_count_a_rejection_61_minutes_ago():
    result = state(outcomes=[rejected("OLD", ago(minutes=61)), rejected("NEW", ago(minutes=59))])
    assert result.rejections_last_hour == (("NEW", 1),)
    assert result.recent_rejection_codes == ("NEW",)


def test_it_counts_the_hour_open_at_the_start_and_closed_at_now():
    result = state(outcomes=[rejected("EDGE", ago(hours=1)), rejected("NOW", NOW), rejected("LATE", ago(seconds=-1))])
    assert result.rejections_last_hour == (("NOW", 1),)


def test_it_does_not_count_an_executed_order_from_yesterday():
    just_after_midnight = dt.datetime(2026, 6, 4, 0, 20, tzinfo=UTC)
    outcomes = [
        executed(dt.datetime(2026, 6, 3, 23, 59, 59, tzinfo=UTC)),
        executed(MIDNIGHT),
        executed(dt.datetime(2026, 6, 4, 0, 10, tzinfo=UTC)),
        executed(dt.datetime(2026, 6, 4, 0, 30, tzinfo=UTC)),  # after now
    ]
    assert state(outcomes=outcomes, now=just_after_midnight).executed_orders_today == 2


def test_it_keeps_a_trade_closed_before_midnight_out_of_todays_pnl():
    trades = [closed("-500", dt.datetime(2026, 6, 3, 23, 59, tzinfo=UTC)), closed("-123", ago(hours=2))]
    assert state(trades=trades).realized_pnl_today_pct == Decimal("-1.23")
    assert state(trades=trades).consecutive_losing_closes == 2  # the streak is not limited to today


def test_it_ignores_outcomes_and_trades_after_now():
    result = state(
        outcomes=[rejected("R3", ago(minutes=-1)), executed(ago(minutes=-1))],
        trades=[closed("-10", ago(minutes=-1))],
    )
    assert is_empty(result)
    assert render_recent_activity(result) is None


def test_it_computes_windows_in_utc_whatever_the_offset():
    tokyo = dt.timezone(dt.timedelta(hours=9))
    now_in_tokyo = NOW.astimezone(tokyo)  # 23:00 in Tokyo, 14:00 UTC
    yesterday_utc_today_tokyo = dt.datetime(2026, 6, 4, 8, 0, tzinfo=tokyo)  # 2026-06-03 23:00 UTC
    result = state(
        outcomes=[executed(yesterday_utc_today_tokyo), executed(ago(hours=1).astimezone(tokyo))], now=now_in_tokyo
    )
    assert result.executed_orders_today == 1


def test_it_refuses_naive_datetimes():
    naive = dt.datetime(2026, 6, 4, 14, 0)
    with pytest.raises(ValueError, match="timezone-aware"):
        state(now=naive)
    with pytest.raises(ValueError, match="timezone-aware"):
        state(outcomes=[executed(naive)])
    with pytest.raises(ValueError, match="timezone-aware"):
        risk_window_start(naive)


def test_it_starts_the_fetch_window_at_the_earlier_of_an_hour_ago_and_midnight():
    assert risk_window_start(NOW) == MIDNIGHT
    early = dt.datetime(2026, 6, 4, 0, 30, tzinfo=UTC)
    assert risk_window_start(early) == early - OUTCOME_WINDOW == dt.datetime(2026, 6, 3, 23, 30, tzinfo=UTC)
    assert risk_window_start(NOW.astimezone(dt.timezone(dt.timedelta(hours=-5)))) == MIDNIGHT


# Rules ----------------------------------------------------------------------------------------------------------


def test_it_counts_a_rejection_without_a_rule_as_unspecified():
    result = state(
        outcomes=[rejected("", ago(minutes=3)), rejected("  ", ago(minutes=2)), rejected("R3", ago(minutes=1))]
    )
    assert result.rejections_last_hour == (("UNSPECIFIED", 2), ("R3", 1))
    assert result.recent_rejection_codes == ("UNSPECIFIED", "UNSPECIFIED", "R3")


def test_it_orders_counts_by_count_desc_then_rule_asc():
    result = state(outcomes=rejections("B", "C", "A", "C", "B", "D"))
    assert result.rejections_last_hour == (("B", 2), ("C", 2), ("A", 1), ("D", 1))


def test_it_keeps_line_breaks_in_a_rule_from_breaking_the_format():
    text = render(outcomes=rejections("R3\nPOSITION", "R3\r\nPOSITION", "R3 \u2028POSITION"))
    assert text.splitlines()[1:] == [
        "- engine rejections (last 1h): R3 POSITION=3",
        "- recent rejection sequence: R3 POSITION → R3 POSITION → R3 POSITION" + NUDGE,
    ]


# The losing streak ----------------------------------------------------------------------------------------------


def test_it_counts_losing_closes_newest_first_whatever_the_input_order():
    trades = [
        closed("-1", ago(hours=2)),
        closed("5", ago(hours=4)),
        closed("-2", ago(hours=1)),
        closed("-3", ago(hours=3)),
    ]
    assert state(trades=trades).consecutive_losing_closes == 3
    assert state(trades=list(reversed(trades))).consecutive_losing_closes == 3


def test_it_breaks_the_streak_on_a_win():
    trades = [closed("-1", ago(hours=3)), closed("-1", ago(hours=2)), closed("0.01", ago(hours=1))]
    assert state(trades=trades).consecutive_losing_closes == 0
    trades = [closed("-1", ago(hours=3)), closed("2", ago(hours=2)), closed("-1", ago(hours=1))]
    assert state(trades=trades).consecutive_losing_closes == 1


def test_it_breaks_the_streak_on_a_zero():
    trades = [closed("-1", ago(hours=3)), closed("0", ago(hours=2)), closed("-1", ago(hours=1))]
    assert state(trades=trades).consecutive_losing_closes == 1


def test_it_orders_same_exit_closes_deterministically():
    exit_at = ago(hours=1)
    trades = [
        closed("5", exit_at, "BTC", entry_at=ago(hours=3)),
        closed("-1", exit_at, "ETH", entry_at=ago(hours=2)),
        closed("-1", ago(hours=2)),
    ]
    # Newest entry first among equal exits: ETH (loss), then BTC (win) ends the streak.
    assert state(trades=trades).consecutive_losing_closes == 1
    assert state(trades=trades[::-1]).consecutive_losing_closes == 1


def test_it_adds_the_regime_hint_from_three_losing_closes():
    two = [closed("-1", ago(hours=h)) for h in (1, 2)]
    three = [closed("-1", ago(hours=h)) for h in (1, 2, 3)]
    assert line(render(trades=two, equity=None), "- consecutive") == "- consecutive losing closes: 2"
    assert line(render(trades=three, equity=None), "- consecutive") == "- consecutive losing closes: 3" + HINT
    assert LOSING_STREAK_HINT_AT == 3


# Bounds ---------------------------------------------------------------------------------------------------------


def test_it_caps_the_counts_line_at_the_top_five_rules():
    outcomes = rejections(*[f"R{n}" for n in range(1, 9) for _ in range(n)])
    text = line(render(outcomes=outcomes), "- engine rejections")
    assert text == "- engine rejections (last 1h): R8=8, R7=7, R6=6, R5=5, R4=4, +3 more"
    assert TOP_RULES == 5


def test_it_stays_under_the_ceiling_in_the_worst_case_with_64_char_codes():
    codes = [f"R{n:02d}_" + "X" * 60 for n in range(40)]
    assert all(len(code) == 64 for code in codes)
    outcomes = [rejected(code, ago(minutes=50, seconds=i)) for i, code in enumerate(codes * 20)]
    outcomes += rejections(codes[0], codes[1], codes[2], codes[2], codes[2])
    outcomes += [executed(ago(seconds=s)) for s in range(1, 50000, 1)]
    trades = [closed("-1000", ago(minutes=m)) for m in range(1, 700)]
    worst = state(outcomes=outcomes, trades=trades, equity=Decimal("0.01"))
    text = render_recent_activity(worst)
    assert estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING
    assert text.startswith(SECTION_HEADER + "\n")
    lines = text.split("\n")
    assert len(lines) == 6
    assert lines[1].startswith("- engine rejections (last 1h): ") and lines[1].endswith(", +39 more")
    assert lines[2].endswith(NUDGE)
    assert lines[3] == "- executed orders today (UTC): 49999"
    assert lines[4] == "- realized PnL today (UTC, vs day-start equity): <-99999.99%"
    assert lines[5] == "- consecutive losing closes: 699" + HINT


def test_it_stays_under_the_ceiling_with_every_number_at_nine_digits():
    codes = [f"R{n:02d}_" + "X" * 60 for n in range(40)]
    huge = 10**9 - 1
    worst = RiskState(
        rejections_last_hour=tuple((code, huge) for code in codes),
        recent_rejection_codes=(codes[0], codes[1], codes[2], codes[2], codes[2]),
        executed_orders_today=huge,
        realized_pnl_today_pct=Decimal("-1e30"),
        consecutive_losing_closes=huge,
    )
    text = render_recent_activity(worst)
    assert estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING
    assert text.split("\n")[1:] == [
        "- engine rejections (last 1h): R00_XXXXXXXXXXXXXXX…=999999999, +39 more",
        "- recent rejection sequence: " + " → ".join(["R02_XXXXXXXXXXXXXXX…"] * 3) + NUDGE,
        "- executed orders today (UTC): 999999999",
        "- realized PnL today (UTC, vs day-start equity): <-99999.99%",
        "- consecutive losing closes: 999999999" + HINT,
    ]
    # The guarantee is the last level: it fits even with 7 more digits in "+39 more" (a 9-digit count of rules).
    last_level = "\n".join([SECTION_HEADER, *risk_state._lines(worst, *risk_state._LEVELS[-1])])
    assert len(last_level) + 7 <= 4 * RISK_STATE_TOKEN_CEILING


def test_it_shows_a_64_char_code_whole_when_the_section_fits():
    code = "R1_" + "X" * 61
    assert render(outcomes=rejections(code)) == SECTION_HEADER + "\n- engine rejections (last 1h): " + code + "=1"


def test_it_shortens_codes_before_dropping_rules_when_the_section_does_not_fit():
    codes = [f"R{n}_" + "X" * 61 for n in range(7)]
    text = render(outcomes=rejections(*codes))
    assert estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING
    short = [code[:23] + "…" for code in codes]
    assert text.split("\n")[1:] == [
        "- engine rejections (last 1h): " + ", ".join(f"{c}=1" for c in short[:5]) + ", +2 more",
        "- recent rejection sequence: " + " → ".join(short[3:]),
    ]


# Properties -----------------------------------------------------------------------------------------------------

RULES = st.one_of(
    st.sampled_from(["R1_MAX_LEVERAGE", "R3_POSITION_CAP", "R6_RATE_LIMIT", "R4_SYMBOL_ALLOWLIST", "", "  "]),
    st.text(max_size=80),
    st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789", min_size=1, max_size=64),
    st.sampled_from([f"R{n}_{'LONG_RULE_CODE_' * 5}"[:64] for n in range(8)]),  # 64-char codes that repeat
)
OFFSETS = st.sampled_from([UTC, dt.timezone(dt.timedelta(hours=9)), dt.timezone(dt.timedelta(hours=-5, minutes=-30))])
TIMES = st.builds(
    lambda seconds, tz: (NOW + dt.timedelta(seconds=seconds)).astimezone(tz),
    # Mostly inside the last hour (where the long lines come from), else anywhere from 3 days back to 1h ahead.
    st.one_of(st.integers(min_value=-3600, max_value=0), st.integers(min_value=-3 * 86400, max_value=3600)),
    OFFSETS,
)
OUTCOMES = st.lists(
    st.builds(
        EngineOutcome,
        tick_at=TIMES,
        engine_kind=st.sampled_from(["rejected", "rejected", "rejected", "executed", "skipped", ""]),
        engine_rule=RULES,
    ),
    max_size=60,
)
AMOUNTS = st.decimals(
    min_value=Decimal("-1e9"), max_value=Decimal("1e9"), allow_nan=False, allow_infinity=False, places=2
)
TRADES = st.lists(
    st.builds(
        lambda exit_at, minutes, pnl, symbol: closed(
            str(pnl), exit_at, symbol, entry_at=exit_at - dt.timedelta(minutes=minutes)
        ),
        TIMES,
        st.integers(min_value=0, max_value=10000),
        AMOUNTS,
        st.sampled_from(["BTC", "ETH", "SOL"]),
    ),
    max_size=30,
)
EQUITIES = st.one_of(
    st.none(),
    st.just(Decimal(0)),
    st.decimals(min_value=Decimal("-1e9"), max_value=Decimal("1e12"), allow_nan=False, allow_infinity=False),
)


@settings(max_examples=300, deadline=None, database=None)
@given(outcomes=OUTCOMES, trades=TRADES, equity=EQUITIES, now_tz=OFFSETS)
def test_it_renders_a_bounded_well_formed_deterministic_section(outcomes, trades, equity, now_tz):
    now = NOW.astimezone(now_tz)
    result = aggregate_risk_state(now=now, outcomes=outcomes, closed_trades=trades, day_start_equity_usd=equity)
    text = render_recent_activity(result)
    assert (text is None) == is_empty(result)
    if text is not None:
        assert text.startswith(SECTION_HEADER + "\n")
        assert all(x.startswith("- ") for x in text.split("\n")[1:])
        assert text.splitlines() == text.split("\n")
        assert not text.endswith("\n")
    assert estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING
    again = aggregate_risk_state(
        now=now, outcomes=list(outcomes), closed_trades=list(trades), day_start_equity_usd=equity
    )
    assert again == result
    assert render_recent_activity(again) == text
    # Trades are sorted by the module, so their input order does not matter either.
    shuffled = aggregate_risk_state(now=now, outcomes=outcomes, closed_trades=trades[::-1], day_start_equity_usd=equity)
    assert shuffled.consecutive_losing_closes == result.consecutive_losing_closes


@settings(max_examples=300, deadline=None, database=None)
@given(
    rejected_codes=st.lists(RULES, max_size=40),
    executed_count=st.integers(min_value=0, max_value=10**9),
    pnl_pct=st.one_of(st.none(), st.decimals(allow_nan=False, allow_infinity=False)),
    streak=st.integers(min_value=0, max_value=10**9),
)
def test_it_stays_under_the_ceiling_for_any_state_and_keeps_the_nudge(rejected_codes, executed_count, pnl_pct, streak):
    outcomes = rejections(*rejected_codes)
    rejected_state = state(outcomes=outcomes)
    full = RiskState(
        rejections_last_hour=rejected_state.rejections_last_hour,
        recent_rejection_codes=rejected_state.recent_rejection_codes,
        executed_orders_today=executed_count,
        realized_pnl_today_pct=pnl_pct,
        consecutive_losing_closes=streak,
    )
    text = render_recent_activity(full)
    assert estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING
    tail = [" ".join(code.split()) or "UNSPECIFIED" for code in rejected_codes][-REPEAT_THRESHOLD:]
    nudged = len(tail) == REPEAT_THRESHOLD and len(set(tail)) == 1
    assert (text is not None and NUDGE in text) == nudged
    if text is not None:
        assert all(x.startswith("- ") for x in text.split("\n")[1:])
        assert len(text.split("\n")) == 1 + sum(
            [
                bool(rejected_codes),
                len(rejected_codes) >= 2,
                executed_count > 0,
                _pnl_shows(pnl_pct),
                streak > 0,
            ]
        )


def _pnl_shows(pct: Decimal | None) -> bool:
    return pct is not None and (abs(pct) > 1 or pct.quantize(Decimal("0.01")) != 0)


@settings(max_examples=200, deadline=None, database=None)
@given(codes=st.lists(st.sampled_from(["R1", "R3", "R6"]), min_size=1, max_size=12))
def test_it_nudges_exactly_when_the_last_three_codes_are_equal(codes):
    text = render(outcomes=rejections(*codes))
    expected = len(codes) >= REPEAT_THRESHOLD and len(set(codes[-REPEAT_THRESHOLD:])) == 1
    assert (NUDGE in text) == expected

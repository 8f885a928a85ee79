"""The exposure figures (chatmemory/exposure.py): worked examples at the documented window, plus
properties of the summary at any history."""

from __future__ import annotations

import datetime as dt
import random
import statistics
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatmemory.exposure import (
    DECIMALS,
    MAX_PAST_EVENTS,
    MIN_EVENTS,
    BarClose,
    Exposure,
    PastEvent,
    Position,
    bar_move,
    compute_exposure,
    event_move,
    summarize_moves,
    window_bounds,
)

T0 = dt.datetime(2026, 3, 12, 12, 30, tzinfo=dt.UTC)  # a CPI print at 12:30Z
LONG = Position("BTC", "long", Decimal(5000))
SHORT = Position("BTC", "short", Decimal(5000))


def hourly(at: dt.datetime, before: str, after: str) -> list[BarClose]:
    """1h bars: the 11:00 bar closes at 12:00 (the reference for 12:30), the 15:00 bar closes at
    16:00 (the outcome for 16:30); a bar in between that must not be read."""
    return [
        BarClose(at.replace(minute=0) - dt.timedelta(hours=1), Decimal(before)),
        BarClose(at.replace(minute=0) + dt.timedelta(hours=1), Decimal("1")),
        BarClose(at.replace(minute=0) + dt.timedelta(hours=3), Decimal(after)),
    ]


def past(at: dt.datetime, before: str, after: str, kind: str = "cpi") -> PastEvent:
    return PastEvent(kind, at, {"1h": hourly(at, before, after)})


def event_at(days_ago: int, before: str, after: str, kind: str = "cpi") -> PastEvent:
    return past(T0 - dt.timedelta(days=days_ago), before, after, kind)


# -- the window ----------------------------------------------------------------------------------------


def test_move_is_close_four_hours_after_over_last_close_before():
    assert event_move(past(T0, "100", "103")) == Decimal("0.03")
    assert event_move(past(T0, "100", "95")) == Decimal("-0.05")


def test_reference_is_the_last_bar_closed_at_or_before_the_event():
    bars = [
        BarClose(dt.datetime(2026, 3, 12, 12, 20, tzinfo=dt.UTC), Decimal(100)),  # closes 12:25
        BarClose(dt.datetime(2026, 3, 12, 12, 25, tzinfo=dt.UTC), Decimal(200)),  # closes 12:30: the reference
        BarClose(dt.datetime(2026, 3, 12, 12, 30, tzinfo=dt.UTC), Decimal(300)),  # closes 12:35: after the print
        BarClose(dt.datetime(2026, 3, 12, 16, 25, tzinfo=dt.UTC), Decimal(210)),  # closes 16:30: the outcome
        BarClose(dt.datetime(2026, 3, 12, 16, 30, tzinfo=dt.UTC), Decimal(999)),  # closes 16:35: too late
    ]
    assert bar_move(T0, bars, "5m") == Decimal("0.05")


def test_stale_bars_do_not_count():
    reference = BarClose(T0 - dt.timedelta(hours=2), Decimal(100))  # 5m bar closing 1h55 before the print
    outcome = BarClose(T0 + dt.timedelta(hours=3, minutes=55), Decimal(110))
    assert bar_move(T0, [reference, outcome], "5m") is None
    fresh = BarClose(T0 - dt.timedelta(minutes=65), Decimal(100))  # closes exactly 1h before: still fresh
    assert bar_move(T0, [fresh, outcome], "5m") == Decimal("0.1")


def test_an_event_missing_either_bar_is_skipped():
    only_before = PastEvent("cpi", T0, {"1h": hourly(T0, "100", "101")[:1]})
    only_after = PastEvent("cpi", T0, {"1h": hourly(T0, "100", "101")[2:]})
    assert event_move(only_before) is None
    assert event_move(only_after) is None
    assert event_move(PastEvent("cpi", T0, {})) is None


def test_the_finest_timeframe_with_both_bars_wins():
    five = [
        BarClose(T0 - dt.timedelta(minutes=5), Decimal(100)),
        BarClose(T0 + dt.timedelta(hours=3, minutes=55), Decimal(102)),
    ]
    both = PastEvent("cpi", T0, {"5m": five, "1h": hourly(T0, "100", "110")})
    assert event_move(both) == Decimal("0.02")
    broken_five = PastEvent("cpi", T0, {"5m": five[:1], "1h": hourly(T0, "100", "110")})
    assert event_move(broken_five) == Decimal("0.1")
    coarse_only = PastEvent("cpi", T0, {"4h": five, "1d": five})  # not read: too coarse for a 4h window
    assert event_move(coarse_only) is None


def test_window_bounds_cover_every_bar_read():
    start, end = window_bounds(T0)
    assert start == T0 - dt.timedelta(hours=2)
    assert end == T0 + dt.timedelta(hours=4)


# -- worked examples -------------------------------------------------------------------------------------


def test_worked_example_long_and_short():
    history = [event_at(30, "100", "102"), event_at(60, "100", "97"), event_at(90, "100", "101")]
    # moves +2%, -3%, +1%: |moves| 2%, 3%, 1% -> median 2%
    assert compute_exposure(LONG, "cpi", history) == Exposure(3, 0.02, -0.03)
    # a short suffers from the +2% move: worst is -2%
    assert compute_exposure(SHORT, "cpi", history) == Exposure(3, 0.02, -0.02)


def test_worked_example_all_favourable_gives_the_least_favourable_still_positive():
    history = [event_at(30, "100", "102"), event_at(60, "100", "105"), event_at(90, "100", "101")]
    assert compute_exposure(LONG, "cpi", history) == Exposure(3, 0.02, 0.01)
    assert compute_exposure(SHORT, "cpi", history) == Exposure(3, 0.02, -0.05)


def test_median_of_an_even_count_averages_the_middle_two():
    history = [event_at(d, "100", after) for d, after in ((10, "101"), (20, "98"), (30, "104"), (40, "99.5"))]
    # |moves| 1%, 2%, 4%, 0.5% -> middle two 1% and 2%
    assert compute_exposure(LONG, "cpi", history) == Exposure(4, 0.015, -0.02)


def test_fewer_than_three_usable_events_give_null_figures():
    unusable = PastEvent("cpi", T0 - dt.timedelta(days=5), {})
    history = [event_at(30, "100", "102"), event_at(60, "100", "90"), unusable]
    assert compute_exposure(LONG, "cpi", history) == Exposure(2, None, None)
    assert compute_exposure(LONG, "cpi", []) == Exposure(0, None, None)


def test_only_past_events_of_the_same_kind_count():
    history = [event_at(d, "100", "102") for d in (1, 2, 3)] + [event_at(4, "100", "50", kind="fomc")]
    assert compute_exposure(LONG, "cpi", history) == Exposure(3, 0.02, 0.02)
    assert compute_exposure(LONG, "fomc", history) == Exposure(1, None, None)


def test_only_the_last_fifty_past_events_count():
    recent = [event_at(d, "100", "101") for d in range(1, MAX_PAST_EVENTS + 1)]
    ancient = [event_at(1000 + d, "100", "50") for d in range(10)]
    figures = compute_exposure(LONG, "cpi", ancient + recent)
    assert figures == Exposure(MAX_PAST_EVENTS, 0.01, 0.01)


def test_side_must_be_long_or_short():
    with pytest.raises(ValueError, match="side"):
        summarize_moves("flat", [Decimal(0)] * 3)


# -- properties ------------------------------------------------------------------------------------------

moves_strategy = st.lists(
    st.decimals(min_value=Decimal("-0.9"), max_value=Decimal("5"), places=6, allow_nan=False), max_size=60
)
sides = st.sampled_from(["long", "short"])


@given(moves_strategy, sides)
def test_null_below_three_and_counts_every_move(moves, side):
    figures = summarize_moves(side, moves)
    assert figures.similar_events_back == len(moves)
    if len(moves) < MIN_EVENTS:
        assert figures.median_abs_move_pct is None
        assert figures.worst_move_pct is None
    else:
        assert figures.median_abs_move_pct is not None
        assert figures.worst_move_pct is not None


@given(moves_strategy.filter(lambda moves: len(moves) >= MIN_EVENTS), sides)
def test_median_and_worst_invariants(moves, side):
    figures = summarize_moves(side, moves)
    absolute = [abs(move) for move in moves]
    relative = [move if side == "long" else -move for move in moves]
    tolerance = 10**-DECIMALS
    assert float(min(absolute)) - tolerance <= figures.median_abs_move_pct <= float(max(absolute)) + tolerance
    assert figures.median_abs_move_pct >= 0
    # the worst is one of the position-relative moves, and no move was worse for the position
    assert any(abs(figures.worst_move_pct - float(move)) <= tolerance for move in relative)
    assert all(figures.worst_move_pct <= float(move) + tolerance for move in relative)
    assert abs(figures.worst_move_pct) <= float(max(absolute)) + tolerance
    # at least half the moves are at most the median in size
    median = statistics.median(absolute)
    assert sum(1 for value in absolute if value <= median) * 2 >= len(absolute)


@given(moves_strategy)
def test_long_and_short_are_mirror_images(moves):
    long_figures = summarize_moves("long", moves)
    short_figures = summarize_moves("short", moves)
    mirrored = summarize_moves("short", [-move for move in moves])
    assert long_figures == mirrored
    assert long_figures.median_abs_move_pct == short_figures.median_abs_move_pct
    if len(moves) >= MIN_EVENTS:
        assert long_figures.worst_move_pct == round(float(min(moves)), DECIMALS)
        assert short_figures.worst_move_pct == round(float(-max(moves)), DECIMALS)
        # a long's worst is never better than a short's best case, and vice versa
        assert long_figures.worst_move_pct <= -short_figures.worst_move_pct


@given(moves_strategy, sides, st.randoms(use_true_random=False))
def test_order_of_past_events_does_not_matter(moves, side, rng: random.Random):
    shuffled = list(moves)
    rng.shuffle(shuffled)
    assert summarize_moves(side, moves) == summarize_moves(side, shuffled)


prices = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("100000"), places=2, allow_nan=False)


@given(st.lists(st.tuples(prices, prices), max_size=12), sides)
def test_bars_to_figures_end_to_end(pairs, side):
    history = [event_at(index + 1, str(before), str(after)) for index, (before, after) in enumerate(pairs)]
    figures = compute_exposure(Position("BTC", side, Decimal(1)), "cpi", history)
    moves = [after / before - 1 for before, after in pairs]
    assert figures == summarize_moves(side, moves)
    if side == "long" and figures.worst_move_pct is not None:
        assert figures.worst_move_pct >= -1  # a long loses at most everything

"""The A/B figures' intervals (reflection.ab_stats): known values, then properties over random samples."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from reflection.ab_stats import (
    MIN_TRADES_TO_TELL,
    VERDICT_HIGHER,
    VERDICT_LOWER,
    VERDICT_NO_CLEAR_DIFFERENCE,
    VERDICT_TOO_FEW_TRADES,
    TradeSample,
    compare_with_baseline,
    estimate_group,
    mean_difference_interval,
    mean_interval,
    t_quantile,
    wilson_interval,
    win_rate_difference_interval,
)

# PnL per trade in cents-ish dollars, as the ledger stores them (no NaN, no infinities).
pnls = st.floats(min_value=-5_000, max_value=5_000, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 2))
samples = st.lists(pnls, min_size=2, max_size=80)
counts = st.integers(min_value=1, max_value=2_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n)))


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)


# -- known values ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("df", "expected"),  # Student's t table, two-sided 95%
    [(1, 12.706205), (2, 4.302653), (5, 2.570582), (19, 2.093024), (30, 2.042272), (120, 1.979930)],
)
def test_t_quantiles_match_the_table(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-6)
    assert t_quantile(0.025, df) == pytest.approx(-expected, abs=1e-6)


def test_wilson_matches_a_worked_example():
    # 8 wins of 20 (Newcombe 1998, Table I style): 0.2188 .. 0.6134
    interval = wilson_interval(8, 20)
    assert (round(interval.low, 4), round(interval.high, 4)) == (0.2188, 0.6134)


def test_a_sample_is_summarised_like_the_sql_aggregates():
    sample = TradeSample.of([2.0, -1.0, 3.0, 0.0])
    assert (sample.n, sample.wins, sample.mean_pnl) == (4, 2, 1.0)  # 0 is not a win
    assert sample.sd_pnl == pytest.approx(math.sqrt((1 + 4 + 4 + 1) / 3))
    assert TradeSample.of([5.0]).sd_pnl is None and TradeSample.of([]).mean_pnl is None


# -- properties --------------------------------------------------------------------------------------


@given(counts)
def test_wilson_contains_the_rate_and_stays_inside_zero_one(count):
    wins, n = count
    interval = wilson_interval(wins, n)
    assert 0 <= interval.low <= wins / n <= interval.high <= 1


@given(counts)
def test_wilson_is_mirrored_by_swapping_wins_and_losses(count):
    wins, n = count
    interval, mirrored = wilson_interval(wins, n), wilson_interval(n - wins, n)
    assert close(interval.low, 1 - mirrored.high) and close(interval.high, 1 - mirrored.low)


@given(counts, st.integers(min_value=2, max_value=50))
def test_wilson_narrows_with_more_trades_at_the_same_rate(count, factor):
    wins, n = count
    assert wilson_interval(wins * factor, n * factor).width < wilson_interval(wins, n).width


@given(samples)
def test_the_mean_interval_is_centred_on_the_average(values):
    sample = TradeSample.of(values)
    interval = mean_interval(sample)
    assert sample.mean_pnl is not None
    assert interval.contains(sample.mean_pnl)
    assert close(sample.mean_pnl - interval.low, interval.high - sample.mean_pnl)


@given(samples, pnls)
def test_the_mean_interval_moves_with_the_data_and_mirrors_with_its_sign(values, shift):
    interval = mean_interval(TradeSample.of(values))
    shifted = mean_interval(TradeSample.of([v + shift for v in values]))
    negated = mean_interval(TradeSample.of([-v for v in values]))
    assert close(shifted.low, interval.low + shift) and close(shifted.high, interval.high + shift)
    assert close(negated.low, -interval.high) and close(negated.high, -interval.low)


@given(samples, st.integers(min_value=2, max_value=10))
def test_the_mean_interval_narrows_with_more_of_the_same_trades(values, copies):
    assume(len(set(values)) > 1)  # a spread to narrow
    assert mean_interval(TradeSample.of(values * copies)).width < mean_interval(TradeSample.of(values)).width


@given(st.lists(pnls, min_size=2, max_size=10))
def test_identical_trades_give_a_point_interval(values):
    interval = mean_interval(TradeSample.of([values[0]] * len(values)))
    assert interval.width == 0 and interval.low == values[0]


@given(samples, samples)
def test_the_difference_of_means_contains_the_difference_and_is_negated_by_swapping(a_values, b_values):
    a, b = TradeSample.of(a_values), TradeSample.of(b_values)
    assert a.mean_pnl is not None and b.mean_pnl is not None
    interval, swapped = mean_difference_interval(a, b), mean_difference_interval(b, a)
    assert interval.contains(a.mean_pnl - b.mean_pnl)
    assert close(interval.low, -swapped.high) and close(interval.high, -swapped.low)


@given(counts, counts)
def test_the_difference_of_win_rates_contains_the_difference_inside_minus_one_one(a_count, b_count):
    a = TradeSample(n=a_count[1], wins=a_count[0], mean_pnl=0.0, sd_pnl=None)
    b = TradeSample(n=b_count[1], wins=b_count[0], mean_pnl=0.0, sd_pnl=None)
    interval, swapped = win_rate_difference_interval(a, b), win_rate_difference_interval(b, a)
    assert -1 <= interval.low <= a.wins / a.n - b.wins / b.n <= interval.high <= 1
    assert close(interval.low, -swapped.high) and close(interval.high, -swapped.low)


@given(st.lists(pnls, min_size=0, max_size=3 * MIN_TRADES_TO_TELL))
def test_a_group_below_the_minimum_sample_has_no_interval(values):
    estimate = estimate_group(TradeSample.of(values))
    below = len(values) < MIN_TRADES_TO_TELL
    assert estimate.too_few_trades is below
    assert (estimate.avg_pnl_interval is None) is below and (estimate.win_rate_interval is None) is below
    assert estimate.n == len(values)


@given(st.lists(pnls, min_size=1, max_size=2 * MIN_TRADES_TO_TELL), st.lists(pnls, min_size=1, max_size=50))
def test_a_difference_needs_the_minimum_sample_on_both_sides(a_values, b_values):
    a, b = TradeSample.of(a_values), TradeSample.of(b_values)
    difference = compare_with_baseline(a, b)
    below = min(len(a_values), len(b_values)) < MIN_TRADES_TO_TELL
    assert difference.too_few_trades is below
    assert (difference.verdict == VERDICT_TOO_FEW_TRADES) is below
    assert (difference.avg_pnl_interval is None) is below and (difference.win_rate_interval is None) is below
    assert a.mean_pnl is not None and b.mean_pnl is not None
    assert difference.avg_pnl is not None and close(difference.avg_pnl, a.mean_pnl - b.mean_pnl)


def test_the_verdict_follows_the_interval_of_the_difference():
    n = MIN_TRADES_TO_TELL
    baseline = TradeSample.of([1.0, -1.0] * n)
    assert compare_with_baseline(TradeSample.of([11.0, 9.0] * n), baseline).verdict == VERDICT_HIGHER
    assert compare_with_baseline(TradeSample.of([-9.0, -11.0] * n), baseline).verdict == VERDICT_LOWER
    assert compare_with_baseline(TradeSample.of([1.5, -1.0] * n), baseline).verdict == VERDICT_NO_CLEAR_DIFFERENCE
    without_trades = compare_with_baseline(TradeSample.of([1.0] * n), TradeSample.of([]))
    assert (without_trades.verdict, without_trades.avg_pnl, without_trades.win_rate) == (
        VERDICT_TOO_FEW_TRADES,
        None,
        None,
    )

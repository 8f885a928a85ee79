"""The regime classifier (ledger/regime.py): examples at the seed's thresholds plus properties."""

from __future__ import annotations

import itertools
import logging
import math
import statistics
from decimal import Decimal, localcontext

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ledger.domain import Bar
from ledger.regime import (
    MIN_BARS,
    REGIME_TAGS,
    TREND_THRESHOLD,
    UNKNOWN,
    VOL_THRESHOLD,
    classify_regime,
    regime_tag_at_open,
)

ALL_RESULTS = REGIME_TAGS | {UNKNOWN}


def bars_of(closes) -> tuple[Bar, ...]:
    return tuple(
        Bar(t=f"2026-06-04T{i // 60:02d}:{i % 60:02d}:00Z", o=c, h=c, l=c, c=c, v=Decimal(1))
        for i, c in enumerate(closes)
    )


def linear(start: str, end: str, n: int = 20) -> list[Decimal]:
    first, last = Decimal(start), Decimal(end)
    return [first + (last - first) * i / (n - 1) for i in range(n)]


def with_noise(closes: list[Decimal], amplitude: str = "0.01") -> list[Decimal]:
    """Tiny alternating wiggle on the inner bars; the first and last closes stay put."""
    wiggle = Decimal(amplitude)
    return [c if i in (0, len(closes) - 1) else c + (wiggle if i % 2 else -wiggle) for i, c in enumerate(closes)]


def alternating(n: int) -> list[Decimal]:
    return [Decimal(100) if i % 2 == 0 else Decimal(101) for i in range(n)]


# Examples -----------------------------------------------------------------------------------------


def test_it_tags_a_steady_one_percent_rise_with_tiny_noise_trend_up_lowvol():
    assert classify_regime(bars_of(with_noise(linear("100", "101")))) == "trend_up_lowvol"


def test_it_tags_a_steady_one_percent_fall_with_tiny_noise_trend_down_lowvol():
    assert classify_regime(bars_of(with_noise(linear("100", "99")))) == "trend_down_lowvol"


def test_it_tags_a_choppy_fall_trend_down_hivol():
    closes = [Decimal(100), *[Decimal(99) if i % 2 else Decimal(97) for i in range(12)], Decimal(97)]
    assert classify_regime(bars_of(closes)) == "trend_down_hivol"


def test_it_tags_a_choppy_rise_trend_up_hivol():
    closes = [Decimal(100), *[Decimal(101) if i % 2 else Decimal(103) for i in range(12)], Decimal(103)]
    assert classify_regime(bars_of(closes)) == "trend_up_hivol"


def test_it_tags_a_flat_series_chop_lowvol():
    assert classify_regime(bars_of([Decimal(100)] * 20)) == "chop_lowvol"


def test_it_tags_alternating_one_percent_closes_chop_hivol():
    assert classify_regime(bars_of(alternating(13))) == "chop_hivol"


def test_it_counts_exactly_plus_half_a_percent_as_chop():
    assert classify_regime(bars_of(linear("100", "100.5", MIN_BARS))) == "chop_lowvol"


def test_it_counts_exactly_minus_half_a_percent_as_chop():
    assert classify_regime(bars_of(linear("100", "99.5", MIN_BARS))) == "chop_lowvol"


def test_it_counts_just_beyond_half_a_percent_as_a_trend():
    assert classify_regime(bars_of(linear("100", "100.51", MIN_BARS))) == "trend_up_lowvol"
    assert classify_regime(bars_of(linear("100", "99.49", MIN_BARS))) == "trend_down_lowvol"


def test_it_counts_vol_equal_to_the_threshold_as_hivol():
    assert classify_regime(bars_of([Decimal(100)] * 20), vol_threshold=0.0) == "chop_hivol"


def test_it_takes_thresholds_per_call():
    rising = bars_of(with_noise(linear("100", "101")))
    assert classify_regime(rising, trend_threshold=Decimal("0.02")) == "chop_lowvol"
    assert classify_regime(rising, vol_threshold=0.0001) == "trend_up_hivol"
    assert classify_regime(bars_of(alternating(13)), vol_threshold=0.02) == "chop_lowvol"


def test_it_returns_unknown_for_eleven_bars():
    assert classify_regime(bars_of(linear("100", "110", MIN_BARS - 1))) == UNKNOWN


def test_it_classifies_twelve_bars():
    assert classify_regime(bars_of(linear("100", "101", MIN_BARS))) == "trend_up_lowvol"


def test_it_returns_unknown_for_no_bars():
    assert classify_regime(()) == UNKNOWN


def test_it_returns_unknown_when_a_close_is_nan():
    for bad in ("NaN", "sNaN", "Infinity", "-Infinity"):
        closes = linear("100", "101")
        closes[7] = Decimal(bad)
        assert classify_regime(bars_of(closes)) == UNKNOWN, bad


def test_it_returns_unknown_when_a_close_is_zero_or_negative():
    for bad in ("0", "-0", "-1"):
        for index in (0, 7, 19):
            closes = linear("100", "101")
            closes[index] = Decimal(bad)
            assert classify_regime(bars_of(closes)) == UNKNOWN, (bad, index)


def test_it_raises_type_error_for_a_close_that_is_not_a_decimal():
    closes: list = linear("100", "101")
    closes[3] = "100.2"
    with pytest.raises(TypeError):
        classify_regime(bars_of(closes))


def test_it_ignores_the_callers_decimal_context():
    bars = bars_of(linear("100", "100.5", MIN_BARS))
    with localcontext() as ctx:
        ctx.prec = 3
        assert classify_regime(bars) == "chop_lowvol"


# regime_tag_at_open -------------------------------------------------------------------------------


def test_it_stamps_none_when_the_runner_sent_no_bars():
    assert regime_tag_at_open(None) is None


def test_it_stamps_none_and_logs_when_the_bars_are_malformed(caplog):
    closes: list = linear("100", "101")
    closes[5] = "not a price"
    with caplog.at_level(logging.INFO, logger="ledger.regime"):
        assert regime_tag_at_open(bars_of(closes)) is None
    assert any(r.levelno == logging.INFO and "regime" in r.getMessage() for r in caplog.records)


def test_it_stamps_none_when_the_bars_are_not_bars():
    assert regime_tag_at_open([object()] * MIN_BARS) is None


def test_it_stamps_the_tag_for_a_normal_window():
    assert regime_tag_at_open(bars_of(alternating(13))) == "chop_hivol"


def test_it_stamps_unknown_not_none_for_a_short_window():
    assert regime_tag_at_open(()) == UNKNOWN
    assert regime_tag_at_open(bars_of(linear("100", "101", 5))) == UNKNOWN


# Properties ---------------------------------------------------------------------------------------

# Positive, finite closes with a bounded number of digits, so multiplying by the scale factors
# below stays exact in the default 28-digit Decimal context.
positive_closes = st.decimals(
    min_value=Decimal("0.0001"), max_value=Decimal("1000000"), places=4, allow_nan=False, allow_infinity=False
)
close_series = st.lists(positive_closes, min_size=0, max_size=60)
long_series = st.lists(positive_closes, min_size=MIN_BARS, max_size=60)
# Random walks around 100 produce all six tags, not only hivol.
small_steps = st.decimals(min_value=Decimal("-0.008"), max_value=Decimal("0.008"), places=4)


@st.composite
def walks(draw) -> list[Decimal]:
    steps = draw(st.lists(small_steps, min_size=MIN_BARS - 1, max_size=60))
    closes = [Decimal(100)]
    for step in steps:
        closes.append((closes[-1] * (1 + step)).quantize(Decimal("0.0001")))
    return closes


any_series = st.one_of(close_series, walks())


def reference(closes: list[Decimal]) -> tuple[float, float]:
    """An independent float computation of the two axes (trend change, vol)."""
    floats = [float(c) for c in closes]
    change = floats[-1] / floats[0] - 1
    vol = statistics.pstdev([math.log(b / a) for a, b in itertools.pairwise(floats)])
    return change, vol


@given(any_series)
def test_it_always_returns_one_of_the_six_tags_or_unknown(closes):
    assert classify_regime(bars_of(closes)) in ALL_RESULTS


@given(st.lists(positive_closes, min_size=0, max_size=MIN_BARS - 1))
def test_it_returns_unknown_for_every_window_shorter_than_twelve(closes):
    assert classify_regime(bars_of(closes)) == UNKNOWN


@given(any_series)
def test_it_is_deterministic(closes):
    assert classify_regime(bars_of(closes)) == classify_regime(bars_of(list(closes)))


@given(any_series, st.sampled_from([Decimal(2), Decimal(3), Decimal(10), Decimal("0.5"), Decimal("0.01")]))
def test_it_does_not_change_the_tag_when_all_prices_are_scaled(closes, factor):
    scaled = [c * factor for c in closes]
    assert classify_regime(bars_of(scaled)) == classify_regime(bars_of(closes))


@given(st.one_of(long_series, walks()))
def test_it_agrees_with_an_independent_float_computation_away_from_the_thresholds(closes):
    change, vol = reference(closes)
    threshold = float(TREND_THRESHOLD)
    assume(abs(abs(change) - threshold) > 1e-9)
    assume(abs(vol - VOL_THRESHOLD) > 1e-9)
    trend = "trend_up" if change > threshold else "trend_down" if change < -threshold else "chop"
    expected = f"{trend}_{'hivol' if vol >= VOL_THRESHOLD else 'lowvol'}"
    assert classify_regime(bars_of(closes)) == expected


@given(st.one_of(long_series, walks()))
def test_it_never_tags_a_reversed_uptrend_as_an_uptrend(closes):
    tag = classify_regime(bars_of(closes))
    reversed_tag = classify_regime(bars_of(closes[::-1]))
    if tag.startswith("trend_up"):
        assert reversed_tag.startswith(("trend_down", "chop"))
    if tag.startswith("trend_down"):
        assert reversed_tag.startswith(("trend_up", "chop"))


@given(st.one_of(long_series, walks()))
def test_it_keeps_the_vol_bucket_when_the_series_is_reversed_away_from_the_threshold(closes):
    _, vol = reference(closes)
    assume(abs(vol - VOL_THRESHOLD) > 1e-9)
    tag = classify_regime(bars_of(closes))
    reversed_tag = classify_regime(bars_of(closes[::-1]))
    assert tag.rsplit("_", 1)[1] == reversed_tag.rsplit("_", 1)[1]


@given(
    st.one_of(long_series, walks()),
    st.decimals(min_value=0, max_value=Decimal("0.05"), places=4),
    st.decimals(min_value=0, max_value=Decimal("0.05"), places=4),
)
def test_it_never_leaves_chop_when_the_trend_threshold_rises(closes, a, b):
    low, high = sorted((a, b))
    if classify_regime(bars_of(closes), trend_threshold=low).startswith("chop"):
        assert classify_regime(bars_of(closes), trend_threshold=high).startswith("chop")


@given(
    st.one_of(long_series, walks()),
    st.floats(min_value=0, max_value=0.05),
    st.floats(min_value=0, max_value=0.05),
)
def test_it_never_leaves_lowvol_when_the_vol_threshold_rises(closes, a, b):
    low, high = sorted((a, b))
    if classify_regime(bars_of(closes), vol_threshold=low).endswith("lowvol"):
        assert classify_regime(bars_of(closes), vol_threshold=high).endswith("lowvol")


@given(st.one_of(long_series, walks()))
def test_it_keeps_a_tag_stamped_at_open_consistent_with_the_classifier(closes):
    assert regime_tag_at_open(bars_of(closes)) == classify_regime(bars_of(closes))

"""ledger.liveness: the runner-alive rule and today's drawdown (pure)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ledger import liveness

NOW = dt.datetime(2026, 6, 4, 12, 0, tzinfo=dt.UTC)


def every(minutes: float, count: int, last_ago: float) -> list[dt.datetime]:
    """`count` receipt times `minutes` apart, the last `last_ago` minutes before NOW."""
    last = NOW - dt.timedelta(minutes=last_ago)
    return [last - dt.timedelta(minutes=minutes * i) for i in range(count)]


def test_the_usual_interval_is_the_median_gap_of_the_last_ticks():
    times = every(5, 10, 0)
    times.append(times[-1] - dt.timedelta(hours=6))  # one long pause long ago does not move the median
    assert liveness.usual_interval(times) == dt.timedelta(minutes=5)
    assert liveness.usual_interval(times[:1]) is None
    assert liveness.usual_interval([]) is None
    assert liveness.usual_interval(list(reversed(times))) == dt.timedelta(minutes=5)  # any order


def test_it_keeps_only_the_last_sample_gaps():
    recent = every(1, liveness.SAMPLE, 0)
    older = every(60, 40, 24 * 60)
    assert liveness.usual_interval(recent + older) == dt.timedelta(minutes=1)


def test_alive_until_three_usual_intervals_pass():
    assert liveness.runner_liveness(received_at=every(5, 10, 14), now=NOW).state == "alive"
    state = liveness.runner_liveness(received_at=every(5, 10, 16), now=NOW)
    assert state.state == "quiet"
    assert state.silent_for == dt.timedelta(minutes=16)
    assert state.stale_after == dt.timedelta(minutes=15)


def test_a_fast_runner_gets_at_least_a_minute():
    fast = [NOW - dt.timedelta(seconds=50 + i) for i in range(10)]  # every second, last 50 s ago
    assert liveness.runner_liveness(received_at=fast, now=NOW).state == "alive"
    slow = [NOW - dt.timedelta(seconds=61 + i) for i in range(10)]
    assert liveness.runner_liveness(received_at=slow, now=NOW).state == "quiet"


def test_a_first_tick_has_a_fixed_grace():
    assert liveness.runner_liveness(received_at=every(5, 1, 14), now=NOW).state == "alive"
    lone = liveness.runner_liveness(received_at=every(5, 1, 16), now=NOW)
    assert (lone.state, lone.usual_interval) == ("quiet", None)


def test_never_ticked():
    assert liveness.runner_liveness(received_at=[], now=NOW).state == "no_ticks"


def test_drawdown_from_todays_peak():
    assert liveness.drawdown_pct(peak_equity_usd=Decimal(10500), equity_usd=Decimal(9975)) == Decimal(5)
    assert liveness.drawdown_pct(peak_equity_usd=Decimal(10000), equity_usd=Decimal(10000)) == Decimal(0)
    assert liveness.drawdown_pct(peak_equity_usd=None, equity_usd=Decimal(1)) is None
    assert liveness.drawdown_pct(peak_equity_usd=Decimal(0), equity_usd=Decimal(0)) is None

"""Whether a deployment's runner looks alive, and how far its equity is below today's peak.

Pure: stdlib only, no clock (``now`` is an argument). Times are aware datetimes.

The rule ("alive"): the last tick was *received* (the server's clock, so a backtest posting old tick
times is judged by when it posts) no longer ago than STALE_AFTER_INTERVALS times the runner's usual
interval, and never less than MIN_GRACE. The usual interval is the median gap between the receipt
times of the last ticks (at most SAMPLE of them). With a single tick there is no interval yet: alive
for LONE_TICK_GRACE after it. A paused deployment is judged the same: pause tells the agent to open nothing
new, and the runner keeps posting ticks so that the ledger follows the account.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

SAMPLE = 20  # receipt times the usual interval is the median gap of
STALE_AFTER_INTERVALS = 3
MIN_GRACE = dt.timedelta(minutes=1)  # a runner ticking every second is not "quiet" after 3 seconds
LONE_TICK_GRACE = dt.timedelta(minutes=15)

State = Literal["alive", "quiet", "no_ticks"]


@dataclass(frozen=True)
class Liveness:
    state: State
    last_received_at: dt.datetime | None
    usual_interval: dt.timedelta | None  # None: fewer than two ticks
    silent_for: dt.timedelta | None  # now - last_received_at
    stale_after: dt.timedelta | None  # quiet once silent_for exceeds this


def usual_interval(received_at: Sequence[dt.datetime]) -> dt.timedelta | None:
    """The median gap between consecutive receipt times (any order given), None with fewer than two."""
    times = sorted(received_at)[-SAMPLE:]
    if len(times) < 2:
        return None
    gaps = [(later - earlier).total_seconds() for earlier, later in itertools.pairwise(times)]
    return dt.timedelta(seconds=statistics.median(gaps))


def runner_liveness(*, received_at: Sequence[dt.datetime], now: dt.datetime) -> Liveness:
    """The runner's state by the rule in the module docstring; `received_at`: receipt times of its latest ticks."""
    if not received_at:
        return Liveness("no_ticks", None, None, None, None)
    last = max(received_at)
    interval = usual_interval(received_at)
    stale_after = max(interval * STALE_AFTER_INTERVALS, MIN_GRACE) if interval is not None else LONE_TICK_GRACE
    silent_for = max(now - last, dt.timedelta(0))
    state: State = "alive" if silent_for <= stale_after else "quiet"
    return Liveness(state, last, interval, silent_for, stale_after)


def drawdown_pct(*, peak_equity_usd: Decimal | None, equity_usd: Decimal | None) -> Decimal | None:
    """How far `equity_usd` is below the peak, in percent of the peak (0 at the peak); None when unknown."""
    if peak_equity_usd is None or equity_usd is None or peak_equity_usd <= 0:
        return None
    return max(peak_equity_usd - equity_usd, Decimal(0)) * 100 / peak_equity_usd

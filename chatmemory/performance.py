"""Performance figures from a daily realized-PnL series (pure: stdlib only).

The series comes from ``trade_daily_pnl`` (closed trades rolled up per UTC exit day), so these
figures cost the same at 10 or 100,000 trades. Definitions:

- ``realized_pnl_usd``: sum of realized PnL of closed trades (before fees, as the ledger stores it).
- ``win_rate``: closed trades with realized PnL > 0 ÷ closed trades.
- ``sharpe``: mean ÷ sample standard deviation of daily realized PnL over every UTC day from the
  first to the last day with a close (days without closes count as 0), × √365 (crypto trades every
  day). None with fewer than 2 days or no variation. PnL in dollars, not returns: the ledger has no
  capital base per trade, so this is the Sharpe of the PnL stream.
- ``max_drawdown_usd``: the largest fall of cumulative realized PnL from a running peak (the peak
  starts at 0), measured at the end of each day; 0 when it never fell.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class DailyPnl:
    day: dt.date
    realized_pnl_usd: Decimal
    n_closed: int
    n_wins: int


@dataclass(frozen=True)
class PerformanceSummary:
    n_closed: int
    realized_pnl_usd: Decimal
    win_rate: float | None
    sharpe: float | None
    max_drawdown_usd: Decimal
    first_day: dt.date | None
    last_day: dt.date | None


def summarize(days: Sequence[DailyPnl]) -> PerformanceSummary:
    by_day: dict[dt.date, Decimal] = {}
    n_closed = n_wins = 0
    for row in days:
        by_day[row.day] = by_day.get(row.day, Decimal(0)) + row.realized_pnl_usd
        n_closed += row.n_closed
        n_wins += row.n_wins
    if not by_day:
        return PerformanceSummary(0, Decimal(0), None, None, Decimal(0), None, None)
    first, last = min(by_day), max(by_day)
    series = [by_day.get(first + dt.timedelta(days=offset), Decimal(0)) for offset in range((last - first).days + 1)]
    return PerformanceSummary(
        n_closed=n_closed,
        realized_pnl_usd=sum(series, Decimal(0)),
        win_rate=n_wins / n_closed if n_closed else None,
        sharpe=_sharpe(series),
        max_drawdown_usd=_max_drawdown(series),
        first_day=first,
        last_day=last,
    )


def _sharpe(series: Sequence[Decimal]) -> float | None:
    if len(series) < 2:
        return None
    values = [float(value) for value in series]
    mean = sum(values) / len(values)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    if variance <= 0:
        return None
    return mean / math.sqrt(variance) * math.sqrt(365)


def _max_drawdown(series: Sequence[Decimal]) -> Decimal:
    peak = cumulative = worst = Decimal(0)
    for value in series:
        cumulative += value
        peak = max(peak, cumulative)
        worst = max(worst, peak - cumulative)
    return worst

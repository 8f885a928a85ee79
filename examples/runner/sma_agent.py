"""The example's market and agent, no service in sight: a monthly price series and a moving-average rule.

Pure (stdlib only), so the replay is the same every run: the runner (run.py) feeds it one month at a time
and turns its decisions into ticks.

- `load_prices(path)`: vega_datasets' stocks.csv (`symbol,date,price`, one closing price a month, USD).
- `SmaCrossoverAgent`: long-only. It buys a symbol when its fast moving average of monthly closes crosses
  above its slow one, sells when it crosses back below, and cuts a loser at `stop_loss` below entry. Every
  position is opened with the same dollar amount (`ticket_usd`); cash pays for it, so equity is cash plus
  the positions at their marks.
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "stocks.csv"
ENTRY_REASON = "fast SMA crossed above slow SMA"
EXIT_REASON = "fast SMA crossed below slow SMA"
STOP_REASON = "stop loss hit"


@dataclass(frozen=True)
class Month:
    """One month of the series: its date (the first of the month, UTC) and each listed symbol's close."""

    date: dt.date
    closes: dict[str, float]


def load_prices(path: Path = DATA, symbols: tuple[str, ...] | None = None) -> list[Month]:
    """The series month by month, oldest first; `symbols` keeps only those (None: all in the file)."""
    by_date: dict[dt.date, dict[str, float]] = {}
    with path.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            if symbols is not None and row["symbol"] not in symbols:
                continue
            date = dt.datetime.strptime(row["date"], "%b %d %Y").date()  # e.g. "Jan 1 2000"
            by_date.setdefault(date, {})[row["symbol"]] = float(row["price"])
    return [Month(date, closes) for date, closes in sorted(by_date.items())]


@dataclass(frozen=True)
class Position:
    symbol: str
    size: float  # shares
    entry_price: float
    entry_date: dt.date


@dataclass(frozen=True)
class Decision:
    """One thing the agent does this month: `open` or `close` a position in `symbol`, and why."""

    action: str  # "open" | "close"
    symbol: str
    reason: str
    price: float


@dataclass
class SmaCrossoverAgent:
    fast: int = 3
    slow: int = 6
    stop_loss: float = 0.15  # close when the close is this far below the entry price
    ticket_usd: float = 20_000.0
    cash_usd: float = 100_000.0
    positions: dict[str, Position] = field(default_factory=dict)
    history: dict[str, list[float]] = field(default_factory=dict)

    def decide(self, month: Month) -> list[Decision]:
        """This month's decisions, closes before opens (so the cash of a sale can pay for a purchase)."""
        closes, opens = [], []
        for symbol, price in sorted(month.closes.items()):
            prices = self.history.setdefault(symbol, [])
            prices.append(price)
            if len(prices) <= self.slow:
                continue  # not enough months for both averages, this month and the last
            now, before = self._spread(prices), self._spread(prices[:-1])
            held = self.positions.get(symbol)
            if held is not None and price <= held.entry_price * (1 - self.stop_loss):
                closes.append(Decision("close", symbol, STOP_REASON, price))
            elif held is not None and before >= 0 > now:
                closes.append(Decision("close", symbol, EXIT_REASON, price))
            elif held is None and before <= 0 < now:
                opens.append(Decision("open", symbol, ENTRY_REASON, price))
        return closes + opens

    def apply(self, decision: Decision, date: dt.date) -> None:
        """The decision filled at its price (the runner is its own paper engine)."""
        if decision.action == "open":
            size = round(self.ticket_usd / decision.price, 6)
            self.cash_usd -= size * decision.price
            self.positions[decision.symbol] = Position(decision.symbol, size, decision.price, date)
        else:
            held = self.positions.pop(decision.symbol)
            self.cash_usd += held.size * decision.price

    def equity_usd(self, marks: dict[str, float]) -> float:
        return round(self.cash_usd + sum(p.size * marks[p.symbol] for p in self.positions.values()), 2)

    def open_positions(self) -> Iterator[Position]:
        return iter(sorted(self.positions.values(), key=lambda p: p.symbol))

    def _spread(self, prices: list[float]) -> float:
        """Fast average minus slow average of the latest closes."""
        return sum(prices[-self.fast :]) / self.fast - sum(prices[-self.slow :]) / self.slow

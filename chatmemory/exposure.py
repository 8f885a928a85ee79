"""How past events of one kind moved a symbol: the figures behind ``your_exposure`` (ADR-0020 §1).

Pure (stdlib only): no Django, no I/O, no clock. The caller passes, for an open position, the
past events of the upcoming event's kind that touched the position's symbol, each with the
symbol's bars around it; this module measures each event's move and summarises them.

The window, per past event (times are bar *close* times: a bar stamped ``ts`` closes at
``ts + its timeframe``, so a 1h bar stamped 13:00 is the 14:00 close):

- reference: the close of the last bar that closed at or before ``scheduled_at`` — the last
  price known before the print;
- outcome: the close of the last bar that closed at or before ``scheduled_at + 4h``
  (``OUTCOME_WINDOW``);
- each must be fresh: a bar that closed more than 1h (``MAX_STALENESS``) before its target time
  does not count (a gap in the data must not pass a days-old close off as the price at the
  event). An event missing either bar is skipped: it is not one of the ``similar_events_back``.
- move = outcome close / reference close - 1.

Timeframe: for each past event, the finest of ``5m``, ``15m``, ``1h`` (``TIMEFRAMES``) whose bars
give both a fresh reference and a fresh outcome; coarser data fills in only where the finer is
missing (e.g. 5m bars kept for the last months, 1h bars for years). 1m is not read (noisier, 240
bars a window), 4h and 1d are too coarse for a 4-hour window.

The summary over the usable events (at most the last ``MAX_PAST_EVENTS`` by time):

- ``similar_events_back``: how many past events gave a move;
- ``median_abs_move_pct``: the median of |move|, a fraction (0.02 = 2%);
- ``worst_move_pct``: the move most adverse to the position, signed relative to its direction:
  a long's move as is, a short's negated, then the minimum — negative is bad for the position.
  When every move favoured the position it is the least favourable one, still positive.
- Both are ``None`` when fewer than ``MIN_EVENTS`` (3) events are usable (the ADR's honest
  under-reporting). Figures are rounded to 6 decimal places (0.0001%).
"""

from __future__ import annotations

import bisect
import datetime as dt
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

OUTCOME_WINDOW = dt.timedelta(hours=4)
MAX_STALENESS = dt.timedelta(hours=1)
# Finest first: the order in which a past event's bars are tried.
TIMEFRAMES: dict[str, dt.timedelta] = {
    "5m": dt.timedelta(minutes=5),
    "15m": dt.timedelta(minutes=15),
    "1h": dt.timedelta(hours=1),
}
MIN_EVENTS = 3
MAX_PAST_EVENTS = 50
DECIMALS = 6
LONG, SHORT = "long", "short"


@dataclass(frozen=True)
class BarClose:
    """One bar as this module reads it: its (open) timestamp and its close."""

    ts: dt.datetime
    close: Decimal


@dataclass(frozen=True)
class Position:
    symbol: str
    side: str  # "long" | "short"
    notional_usd: Decimal


@dataclass(frozen=True)
class PastEvent:
    """A past event and the bars of the position's symbol around it, by timeframe."""

    kind: str
    scheduled_at: dt.datetime
    bars: Mapping[str, Sequence[BarClose]]


@dataclass(frozen=True)
class Exposure:
    similar_events_back: int
    median_abs_move_pct: float | None
    worst_move_pct: float | None


def window_bounds(scheduled_at: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    """[start, end): the bar timestamps (any timeframe in TIMEFRAMES) the window can read."""
    longest = max(TIMEFRAMES.values())
    return scheduled_at - MAX_STALENESS - longest, scheduled_at + OUTCOME_WINDOW


def _close_at(closes: Sequence[tuple[dt.datetime, Decimal]], target: dt.datetime) -> Decimal | None:
    """The close of the last bar closed at or before `target`, if it closed within MAX_STALENESS."""
    index = bisect.bisect_right(closes, target, key=lambda item: item[0]) - 1
    if index < 0 or closes[index][0] < target - MAX_STALENESS:
        return None
    return closes[index][1]


def bar_move(scheduled_at: dt.datetime, bars: Sequence[BarClose], timeframe: str) -> Decimal | None:
    """outcome / reference - 1 from one timeframe's bars; None when either bar is missing or stale."""
    length = TIMEFRAMES[timeframe]
    closes = sorted((bar.ts + length, bar.close) for bar in bars if bar.close > 0)
    reference = _close_at(closes, scheduled_at)
    outcome = _close_at(closes, scheduled_at + OUTCOME_WINDOW)
    if reference is None or outcome is None:
        return None
    return outcome / reference - 1


def event_move(event: PastEvent) -> Decimal | None:
    """The event's move from the finest timeframe that has both bars; None when none has."""
    for timeframe in TIMEFRAMES:
        move = bar_move(event.scheduled_at, event.bars.get(timeframe, ()), timeframe)
        if move is not None:
            return move
    return None


def _round(value: Decimal) -> float:
    return round(float(value), DECIMALS)


def summarize_moves(side: str, moves: Sequence[Decimal]) -> Exposure:
    """The figures for a position on `side` from the usable events' raw moves."""
    if side not in (LONG, SHORT):
        raise ValueError(f"side must be {LONG} or {SHORT}, not {side!r}")
    if len(moves) < MIN_EVENTS:
        return Exposure(len(moves), None, None)
    relative = [move if side == LONG else -move for move in moves]
    return Exposure(
        similar_events_back=len(moves),
        median_abs_move_pct=_round(statistics.median(abs(move) for move in moves)),
        worst_move_pct=_round(min(relative)),
    )


def compute_exposure(position: Position, event_kind: str, past_events: Sequence[PastEvent]) -> Exposure:
    """The exposure of `position` to an upcoming event of `event_kind`, from `past_events`.

    Only past events of the same kind count, the last MAX_PAST_EVENTS by time."""
    same_kind = sorted((e for e in past_events if e.kind == event_kind), key=lambda e: e.scheduled_at)
    moves = [move for event in same_kind[-MAX_PAST_EVENTS:] if (move := event_move(event)) is not None]
    return summarize_moves(position.side, moves)

"""Reads behind the ``get_upcoming_events`` chat tool (ADR-0020 §1): scheduled market events and,
for one of the trader's deployments, ``your_exposure`` to them.

Events: ``scheduled_at`` in [now, now + lookaheadHours], ``importance >= minImportance``, kind in
``types`` and symbols overlapping ``symbols`` when those are given (an empty or missing list
filters nothing). An event with no symbols is market-wide: it matches any symbol filter and
every position. Soonest first, at most ``MAX_EVENTS`` (``truncated`` says when more matched).

Exposure (with ``deploymentId``): the deployment's open positions (open ``trade_history`` rows;
notional = size_base x last_mark_price) x the listed events on their symbol or market-wide. The
figures come from ``chatmemory.exposure`` over the last ``MAX_PAST_EVENTS`` past events of the
same kind touching the symbol (or market-wide) whose 4-hour outcome window had ended by now, and
the symbol's 5m/15m/1h bars around them.

Queries are bounded whatever the history size: the events, the deployment, its open positions,
then one past-events query per (kind, symbol) pair and one bars query per symbol covering every
window it needs.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from decimal import Decimal

from django.db.models import Q
from django.utils import timezone

from chatmemory.exposure import (
    MAX_PAST_EVENTS,
    OUTCOME_WINDOW,
    TIMEFRAMES,
    BarClose,
    PastEvent,
    Position,
    compute_exposure,
    window_bounds,
)
from chatmemory.models import Bar, MarketEvent
from chatmemory.tool_errors import ToolObjectNotFound
from ledger import selectors as ledger_selectors

MAX_EVENTS = 50
MAX_EXPOSURE = 100


def _iso(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).isoformat().replace("+00:00", "Z")


def _touches(event: MarketEvent, symbol: str) -> bool:
    return not event.symbols or symbol in event.symbols


def _symbols(values) -> list[str]:
    return sorted({value.strip().upper() for value in values or () if value.strip()})


def upcoming_events(
    *,
    user,
    lookaheadHours: int,  # the tool's JSON names
    minImportance: float,
    types: list[str] | None = None,
    symbols: list[str] | None = None,
    deploymentId: int | None = None,
    now: dt.datetime | None = None,
) -> dict:
    now = now or timezone.now()
    deployment = None
    if deploymentId is not None:
        deployment = ledger_selectors.deployment_find(user=user, deployment_id=deploymentId)
        if deployment is None:
            raise ToolObjectNotFound("deploymentId", "deployment")

    events = MarketEvent.objects.filter(
        scheduled_at__gte=now,
        scheduled_at__lte=now + dt.timedelta(hours=lookaheadHours),
        importance__gte=Decimal(str(minImportance)),
    )
    if types:
        events = events.filter(kind__in=types)
    wanted = _symbols(symbols)
    if wanted:
        events = events.filter(Q(symbols__overlap=wanted) | Q(symbols=[]))
    listed = list(events.order_by("scheduled_at", "-importance", "id")[: MAX_EVENTS + 1])
    truncated = len(listed) > MAX_EVENTS
    listed = listed[:MAX_EVENTS]

    result: dict = {
        "events": [
            {
                "event_id": str(event.pk),
                "kind": event.kind,
                "title": event.title,
                "symbols": list(event.symbols),
                "scheduled_at": _iso(event.scheduled_at),
                "importance": float(event.importance),
                "hours_until": round((event.scheduled_at - now).total_seconds() / 3600, 2),
            }
            for event in listed
        ],
        "truncated": truncated,
    }
    if deployment is not None:
        exposure, cut = _exposure(deployment, listed, now)
        result["your_exposure"] = exposure
        result["truncated"] = truncated or cut
    return result


def _open_positions(deployment) -> list[Position]:
    rows = ledger_selectors.open_position_marks(deployment=deployment)
    return [Position(symbol, side, size * mark) for symbol, side, size, mark in rows]


def _exposure(deployment, events: list[MarketEvent], now: dt.datetime) -> tuple[list[dict], bool]:
    positions = _open_positions(deployment) if events else []
    pairs = [(e, p) for e in events for p in positions if _touches(e, p.symbol.upper())]
    truncated = len(pairs) > MAX_EXPOSURE
    pairs = pairs[:MAX_EXPOSURE]
    if not pairs:
        return [], truncated

    # Past events per (kind, symbol): one query each, the last MAX_PAST_EVENTS whose window has ended.
    past: dict[tuple[str, str], list[MarketEvent]] = {}
    for kind, symbol in sorted({(event.kind, position.symbol.upper()) for event, position in pairs}):
        rows = (
            MarketEvent.objects.filter(kind=kind, scheduled_at__lte=now - OUTCOME_WINDOW)
            .filter(Q(symbols__contains=[symbol]) | Q(symbols=[]))
            .order_by("-scheduled_at")
            .only("id", "kind", "scheduled_at")[:MAX_PAST_EVENTS]
        )
        past[kind, symbol] = list(rows)

    # Bars per symbol: one query covering the windows of all its past events.
    bars: dict[str, dict[str, list[BarClose]]] = {}
    for symbol in sorted({symbol for _, symbol in past}):
        times = sorted({e.scheduled_at for (_, s), rows in past.items() if s == symbol for e in rows})
        bars[symbol] = defaultdict(list)
        if not times:
            continue
        windows = Q()
        for scheduled_at in times:
            start, end = window_bounds(scheduled_at)
            windows |= Q(ts__gte=start, ts__lt=end)
        for timeframe, ts, close in (
            Bar.objects.filter(windows, symbol=symbol, timeframe__in=list(TIMEFRAMES))
            .order_by("timeframe", "ts")
            .values_list("timeframe", "ts", "close")
        ):
            bars[symbol][timeframe].append(BarClose(ts, close))

    entries = []
    for event, position in pairs:
        symbol = position.symbol.upper()
        history = [_past_event(row, bars[symbol]) for row in past[event.kind, symbol]]
        figures = compute_exposure(position, event.kind, history)
        entries.append(
            {
                "event_id": str(event.pk),
                "symbol": position.symbol,
                "position_side": position.side,
                "notional_usd": float(round(position.notional_usd, 2)),
                "similar_events_back": figures.similar_events_back,
                "median_abs_move_pct": figures.median_abs_move_pct,
                "worst_move_pct": figures.worst_move_pct,
            }
        )
    return entries, truncated


def _past_event(row: MarketEvent, bars: dict[str, list[BarClose]]) -> PastEvent:
    """The event with its window's bars only (the symbol's bars cover every event's window)."""
    start, end = window_bounds(row.scheduled_at)
    around = {}
    for timeframe, series in bars.items():  # each sorted by ts (the query's order)
        first = bisect.bisect_left(series, start, key=lambda bar: bar.ts)
        last = bisect.bisect_left(series, end, key=lambda bar: bar.ts)
        around[timeframe] = series[first:last]
    return PastEvent(row.kind, row.scheduled_at, around)

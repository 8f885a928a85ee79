"""Closed trades for reflection tests, made the real way: ticks stored and materialized."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from ledger import services as ledger_services
from ledger.models import Deployment
from reflection.core import ReflectionInput, ReflectionResult

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


@dataclass(frozen=True)
class RoundTrip:
    symbol: str = "BTC"
    entry: float = 100.0
    exit: float = 101.0
    size: float = 1.0
    reason: str = "breakout"
    side: str = "long"


def tick(deployment: Deployment, at: dt.datetime, positions: list[dict], reason: str = "", marks=None) -> None:
    action = {"kind": "propose_order", "reason": reason} if reason else {"kind": "hold"}
    payload = {
        "equity_usd": 10_000,
        "positions": positions,
        "marks": marks or {},
        "proposed_action": action,
        "engine": {"kind": "executed"},
    }
    ledger_services.tick_ingest(owner=deployment.owner, deployment_id=deployment.pk, tick_at=at, payload=payload)


def trade(deployment: Deployment, start: dt.datetime, trip: RoundTrip, *, materialize: bool = True) -> dt.datetime:
    """One round trip: open at `start`, close 30 minutes later. Returns the exit tick's time."""
    position = {"symbol": trip.symbol, "side": trip.side, "size": trip.size, "mark_price": trip.entry}
    tick(deployment, start, [position], reason=trip.reason)
    exit_at = start + dt.timedelta(minutes=30)
    tick(deployment, exit_at, [], reason=f"exit {trip.symbol}", marks={trip.symbol: trip.exit})
    if materialize:
        ledger_services.materialize_pending(deployment_id=deployment.pk)
    return exit_at


def trades(deployment: Deployment, trips: list[RoundTrip], *, start: dt.datetime = T0) -> dt.datetime:
    """Round trips one hour apart; returns the last exit time."""
    last = start
    for n, trip in enumerate(trips):
        last = trade(deployment, start + dt.timedelta(hours=n), trip)
    return last


class CannedEngine:
    """A reflection engine that answers with fixed text and remembers what it was asked."""

    def __init__(self, text: str, model: str = "canned-v1"):
        self.text = text
        self.model = model
        self.inputs: list[ReflectionInput] = []

    def reflect(self, inp: ReflectionInput) -> ReflectionResult:
        self.inputs.append(inp)
        return ReflectionResult(text=self.text, model_used=self.model, input_tokens=10, output_tokens=20)

"""Plain data the pure ledger modules exchange: positions, tick context, trade rows.

No Django, no I/O, no clock. Money and prices are Decimal; times are aware UTC datetimes.
Field names keep the seed's (memory-layer.md) column names.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

Side = Literal["long", "short"]
ActionKind = Literal["propose_order", "close_position", "adjust_position", "hold", "flatten"]
EngineKind = Literal["executed", "rejected", "skipped", ""]


@dataclass(frozen=True)
class Position:
    """One line of the broker's portfolio after this tick's fills settled."""

    symbol: str
    side: Side
    size: Decimal  # base units, > 0
    mark_price: Decimal
    leverage: Decimal | None = None


@dataclass(frozen=True)
class ProposedAction:
    kind: ActionKind
    symbol: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class Bar:
    t: str
    o: Decimal
    h: Decimal
    l: Decimal  # noqa: E741 (the runner's field name)
    c: Decimal
    v: Decimal


@dataclass(frozen=True)
class Tick:
    """Everything one decision snapshot says, as the materializer and renderers need it."""

    snapshot_id: str
    tick_at: dt.datetime
    equity_usd: Decimal
    positions: tuple[Position, ...]
    marks: dict[str, Decimal] = field(default_factory=dict)
    proposed_action: ProposedAction | None = None
    engine_kind: EngineKind = ""
    engine_rule: str = ""
    bars: dict[str, tuple[Bar, ...]] = field(default_factory=dict)

    def mark_of(self, symbol: str) -> Decimal | None:
        """This tick's mark for a symbol: the broker's position line first, then the marks map."""
        for position in self.positions:
            if position.symbol == symbol:
                return position.mark_price
        return self.marks.get(symbol)


@dataclass(frozen=True)
class OpenTrade:
    """The ledger's state of one open trade row (what the materializer carries tick to tick)."""

    symbol: str
    side: Side
    entry_tick_at: dt.datetime
    entry_price: Decimal  # the mark at the entering tick
    entry_size_usd: Decimal
    entry_reason: str
    entry_regime_tag: str | None
    size_base: Decimal  # current size; adds and partial reductions change it
    avg_entry_price: Decimal  # average cost across adds
    accrued_pnl_usd: Decimal  # realized by partial reductions so far
    mfe_usd: Decimal
    mae_usd: Decimal
    last_mark_price: Decimal


@dataclass(frozen=True)
class ClosedTrade:
    """A closed trade_history row as the context renderers and risk state read it."""

    symbol: str
    side: Side
    entry_tick_at: dt.datetime
    entry_price: Decimal
    entry_size_usd: Decimal
    entry_reason: str
    entry_regime_tag: str | None
    exit_tick_at: dt.datetime
    exit_price: Decimal
    exit_reason: str
    realized_pnl_usd: Decimal
    holding_minutes: Decimal


def _decimal(value: object) -> Decimal:
    """JSON numbers arrive as int or float; their shortest repr is the value the runner wrote."""
    return Decimal(str(value))


def tick_from_payload(snapshot_id: str, tick_at: dt.datetime, payload: dict[str, Any]) -> Tick:
    """A Tick from a stored decision snapshot's JSON (the runner's tick body, validated).

    The live ledger and the in-memory sim ledger both build ticks here, so the same tick
    stream yields identical Decimals, ops and rendered text in both.
    """
    action = payload.get("proposed_action")
    engine = payload.get("engine") or {}
    return Tick(
        snapshot_id=snapshot_id,
        tick_at=tick_at,
        equity_usd=_decimal(payload["equity_usd"]),
        positions=tuple(
            Position(
                symbol=p["symbol"],
                side=p["side"],
                size=_decimal(p["size"]),
                mark_price=_decimal(p["mark_price"]),
                leverage=_decimal(p["leverage"]) if p.get("leverage") is not None else None,
            )
            for p in payload.get("positions") or ()
        ),
        marks={symbol: _decimal(mark) for symbol, mark in (payload.get("marks") or {}).items()},
        proposed_action=ProposedAction(
            kind=action["kind"], symbol=action.get("symbol"), reason=action.get("reason") or ""
        )
        if action
        else None,
        engine_kind=engine.get("kind") or "",
        engine_rule=engine.get("rule") or "",
        bars={
            symbol: tuple(Bar(t=str(b["t"]), **{k: _decimal(b[k]) for k in "ohlcv"}) for b in bars)
            for symbol, bars in (payload.get("bars") or {}).items()
        },
    )


LESSONS_HASH_CHARS = 16


def hash_lessons_text(text: str) -> str:
    """The seed's hashLessonsText: first 16 hex chars of SHA-256 over whitespace-normalised text.

    Runs of whitespace (spaces, tabs, newlines) become one space and the ends are trimmed, so the
    live and sim writers hash the same lessons identically however they were wrapped. Joins
    trade_history.entry_lessons_hash to reflection_notes.content_hash.
    """
    normalised = " ".join(text.split())
    return hashlib.sha256(normalised.encode("utf-8")).hexdigest()[:LESSONS_HASH_CHARS]

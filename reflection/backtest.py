"""Reflection in backtests: the live trigger, window and validation over a `ledger.sim.SimLedger` (pure).

Pure: stdlib, ``ledger``'s pure modules and ``reflection``'s; no Django, no I/O, no clock. Pass a
``SimReflection`` to ``SimLedger(reflection=…)`` and every applied tick is followed by what the live
service does after a materialization that closed trades, when reflection keeps up with the ticks:

- **Trigger**: ``should_run_reflection`` with the skill version's cadence. Per N trades: the trades
  closed since the latest note's window (all of them before the first note), this tick's closes among
  them. Daily: the tick's UTC date differs from the latest note's ``generated_at`` date and trades
  closed since its window (live, beat drives it on the wall clock; a backtest's clock is its ticks).
- **Window**: the last ``WINDOW_TRADES`` trades closed up to the tick, oldest exit first (exit, entry,
  symbol), with the strategy, the avoid rules and the current lessons (incremental), the version's
  model override: the live ``ReflectionInput`` field for field. Values are the ones the live columns
  hold: the materializer's amounts are already at their scale; leverage is stored at 4 places.
- **Output**: ``validate_reflection_output``; a rejected output or a ``ReflectionFailed`` engine keeps
  the prior lessons (logged as a warning, as live). A window already distilled is not run again.
- **Note**: ``generated_at`` is the tick's time, so the same ticks with a deterministic engine (the
  statistical one) give the same revisions, texts and hashes, in the same order.

The new note's hash is returned to the ledger, which stamps it on trades opened from the next tick
on: live stamps a tick with the deployment's hash when the tick arrives, before its reflection.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol

from ledger.domain import ClosedTrade, Tick, hash_lessons_text
from ledger.materializer import CloseTrade, Op, OpenTradeOp, flatten_ops
from reflection.core import (
    WINDOW_TRADES,
    ReflectionCadence,
    ReflectionFailed,
    ReflectionInput,
    ReflectionResult,
    ReflectionTrade,
    ReflectionTriggerState,
    RejectedLessons,
    should_run_reflection,
    validate_reflection_output,
)

__all__ = ["SimNote", "SimReflection"]

logger = logging.getLogger(__name__)

# trade_history.entry_leverage is numeric(12, 4): PostgreSQL rounds half away from zero (leverage > 0).
_LEVERAGE_QUANTUM = Decimal("0.0001")
_ZERO = Decimal(0)


class Engine(Protocol):
    def reflect(self, inp: ReflectionInput) -> ReflectionResult: ...


@dataclass(frozen=True)
class SimNote:
    """One lessons revision a backtest produced (the reflection_notes fields that describe it)."""

    generated_at: dt.datetime
    window_start: dt.datetime
    window_end: dt.datetime
    trades_considered: int
    lessons_text: str
    content_hash: str
    model_used: str
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: Decimal | None


class SimReflection:
    """A deployment's reflection during a backtest; ``notes`` are its revisions, oldest first."""

    def __init__(
        self,
        *,
        cadence: ReflectionCadence,
        engine: Engine,
        strategy_text: str,
        avoid_rules: Sequence[str] = (),
        model_override: str | None = None,
        vetoed_bullets: Sequence[str] = (),
        pinned_bullets: Sequence[str] = (),
    ):
        self.cadence = cadence
        self.engine = engine
        self.strategy_text = strategy_text
        self.avoid_rules = tuple(avoid_rules)
        self.model_override = model_override
        # The trader's verdicts on the skill's bullets (reflection.core.bullet_key): told to every run, as live.
        self.vetoed_bullets = tuple(vetoed_bullets)
        self.pinned_bullets = tuple(pinned_bullets)
        self.notes: list[SimNote] = []
        self._leverage: dict[str, Decimal | None] = {}  # entry leverage of the open trade, by symbol
        self._trades: list[ReflectionTrade] = []  # every closed trade, as reflection reads it, in exit order

    @property
    def active_lessons(self) -> str | None:
        """The lessons text the agent sees now (the latest revision's), or None before the first."""
        return self.notes[-1].lessons_text if self.notes else None

    @property
    def lessons_hash(self) -> str | None:
        return self.notes[-1].content_hash if self.notes else None

    def after_tick(
        self, *, tick: Tick, ops: Sequence[Op], closed: Sequence[ClosedTrade], closed_trades: Sequence[ClosedTrade]
    ) -> str | None:
        """``ledger.sim.SimReflector``: record the tick's trades, reflect when due; the new hash or None."""
        self._record(ops, closed)
        if not self._due(tick.tick_at, closed_this_tick=len(closed)):
            return None
        note = self._reflect(tick.tick_at)
        return note.content_hash if note is not None else None

    # -- the tick's trades ---------------------------------------------------------------------------

    def _record(self, ops: Sequence[Op], closed: Sequence[ClosedTrade]) -> None:
        flat = flatten_ops(ops)  # a flip as its close, then its open
        closes = {op.symbol: op for op in flat if isinstance(op, CloseTrade)}
        for trade in closed:  # before the opens: a flip closes and opens the same symbol
            close = closes[trade.symbol]
            self._trades.append(_reflection_trade(trade, close, self._leverage.pop(trade.symbol, None)))
        for op in flat:
            if isinstance(op, OpenTradeOp):
                self._leverage[op.symbol] = _stored_leverage(op.entry_leverage)

    # -- trigger, window, run ------------------------------------------------------------------------

    def _closed_after(self, after: dt.datetime | None) -> int:
        if after is None:
            return len(self._trades)
        return sum(1 for trade in self._trades if trade.exit_tick_at > after)

    def _due(self, now: dt.datetime, *, closed_this_tick: int) -> bool:
        latest = self.notes[-1] if self.notes else None
        since = self._closed_after(latest.window_end if latest else None)
        state = ReflectionTriggerState(
            now=now,
            closed_since_last_note=since,
            closed_this_tick=closed_this_tick,
            last_note_generated_at=latest.generated_at if latest else None,
        )
        if not should_run_reflection(state, self.cadence):
            return False
        return since > 0  # daily: only with trades closed since the last window (live: daily_reflection_due)

    def _reflect(self, now: dt.datetime) -> SimNote | None:
        window = tuple(
            sorted(
                (t for t in self._trades if t.exit_tick_at <= now),
                key=lambda t: (t.exit_tick_at, t.entry_tick_at, t.symbol),
            )[-WINDOW_TRADES:]
        )
        if not window:
            return None
        window_end = window[-1].exit_tick_at
        if self.notes and self.notes[-1].window_end >= window_end:
            return None  # already distilled
        inp = ReflectionInput(
            trades=window,
            strategy_text=self.strategy_text,
            avoid_rules=self.avoid_rules,
            active_lessons=self.active_lessons,
            model_override=self.model_override,
            vetoed_bullets=self.vetoed_bullets,
            pinned_bullets=self.pinned_bullets,
        )
        try:
            result = self.engine.reflect(inp)
        except ReflectionFailed as exc:
            logger.warning("backtest reflection at %s failed; prior lessons stay active: %s", now.isoformat(), exc)
            return None
        verdict = validate_reflection_output(result.text, self.avoid_rules)
        if isinstance(verdict, RejectedLessons):
            logger.warning("backtest reflection at %s rejected (%s); prior lessons stay", now.isoformat(), verdict)
            return None
        note = SimNote(
            generated_at=now,
            window_start=min(t.entry_tick_at for t in window),
            window_end=window_end,
            trades_considered=len(window),
            lessons_text=verdict.text,
            content_hash=hash_lessons_text(verdict.text),
            model_used=result.model_used,
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            cost_usd=result.cost_usd,
        )
        self.notes.append(note)
        return note


def _stored_leverage(value: Decimal | None) -> Decimal | None:
    return None if value is None else value.quantize(_LEVERAGE_QUANTUM, rounding=ROUND_HALF_UP)


def _reflection_trade(trade: ClosedTrade, op: CloseTrade, leverage: Decimal | None) -> ReflectionTrade:
    return ReflectionTrade(
        symbol=trade.symbol,
        side=trade.side,
        entry_tick_at=trade.entry_tick_at,
        exit_tick_at=trade.exit_tick_at,
        entry_price=trade.entry_price,
        exit_price=trade.exit_price,
        entry_size_usd=trade.entry_size_usd,
        entry_leverage=leverage,
        entry_reason=trade.entry_reason,
        exit_reason=trade.exit_reason,
        entry_regime_tag=trade.entry_regime_tag,
        realized_pnl_usd=trade.realized_pnl_usd,
        fees_usd=_ZERO,  # a backtest has no fills; live trades without fills carry 0 too
        mfe_usd=op.mfe_usd,
        mae_usd=op.mae_usd,
        holding_minutes=trade.holding_minutes,
    )

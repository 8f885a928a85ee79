"""The in-memory trade ledger for backtests: the live ledger's write and read paths over dicts.

Pure: no Django, no I/O, no clock. `SimLedger.record_tick` takes the runner's tick body exactly
as it would be POSTed to the tick endpoint, builds the Tick with `ledger.domain.tick_from_payload`
and applies the same materializer ops the live ledger applies (`ledger.services._apply_snapshots`);
`SimLedger.context_inputs` answers with the same `ContextInputs` the live selector builds
(`ledger.selectors.context_inputs`), with the same windows, orderings and cuts. So
`agentcontext.formatting.render_context` over a SimLedger is byte-identical to the live
`GET /context/` after the same tick stream (tests/ledger/test_sim.py drives both); with situation
memory (`situations=recall.situations.SituationMemory(embedder)`) and
`agentcontext.selectors.context_for_inputs`, every section is.

Memory: open trades, every closed trade (they are the backtest's result) and the engine verdicts
of the ticks inside the widest risk window (`risk_window_start` of the latest tick: at most one
UTC day and an hour); older verdicts are dropped as the stream moves on.

Where the live ledger's storage changes a value, the sim does the same, so the two agree on
every ContextInputs field and not only on the rendered text:

- equity_usd is kept to 8 decimal places, rounded half away from zero, as the live ledger's
  numeric(20, 8) column stores it (the day-start equity is read back from that column);
- times are converted to UTC, as the database returns them (the UTC date decides day-start).

Reflection (opt-in): a `SimReflector` passed as `reflection` is called after every applied tick
with the tick, its ops and the trades it closed, and answers the lessons hash new trades carry from
the next tick on (a new revision) or None (unchanged): what the live deployment's
`active_lessons_hash` becomes when reflection keeps up with the ticks. The ledger knows nothing of how
lessons are made (reflection sits above it); `reflection.backtest.SimReflection` is the implementation.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import deque
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, Protocol

from ledger.domain import ClosedTrade, OpenTrade, Tick, tick_from_payload
from ledger.materializer import (
    MaterializeContext,
    Op,
    OpenTradeOp,
    apply_ops,
    flatten_ops,
    opened_trade,
    reconcile_portfolio_delta,
)
from ledger.memory_view import STREAK_LOOKBACK, ContextInputs
from ledger.risk_state import EngineOutcome, risk_window_start

__all__ = ["SimLedger", "SimReflector"]

# DecisionSnapshot.equity_usd / Deployment.day_start_equity_usd are numeric(20, 8); PostgreSQL
# rounds a numeric to its scale half away from zero (equity is never negative, so half up).
_EQUITY_QUANTUM = Decimal("0.00000001")
_EQUITY_CONTEXT = Context(prec=60, rounding=ROUND_HALF_UP)


def _utc(moment: dt.datetime) -> dt.datetime:
    if not isinstance(moment, dt.datetime) or moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"tick_at must be a timezone-aware datetime, got {moment!r}")
    return moment.astimezone(dt.UTC)


def _stored_equity(value: object) -> Decimal:
    return Decimal(str(value)).quantize(_EQUITY_QUANTUM, context=_EQUITY_CONTEXT)


def _midnight(moment: dt.datetime) -> dt.datetime:
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)


def _by_exit_newest_first(trades: list[ClosedTrade]) -> list[ClosedTrade]:
    """The live query's `order_by("-exit_tick_at", "-entry_tick_at", "symbol")` (C-collation symbols)."""
    ordered = sorted(trades, key=lambda t: t.symbol)
    ordered.sort(key=lambda t: (t.exit_tick_at, t.entry_tick_at), reverse=True)  # stable: symbol asc in ties
    return ordered


def _entry_key(trade: ClosedTrade) -> tuple[dt.timedelta, str]:
    """Ascending on this key is the live `order_by("-entry_tick_at", "symbol")`."""
    return (dt.datetime.min.replace(tzinfo=dt.UTC) - trade.entry_tick_at, trade.symbol)


class SimReflector(Protocol):
    def after_tick(
        self, *, tick: Tick, ops: Sequence[Op], closed: Sequence[ClosedTrade], closed_trades: Sequence[ClosedTrade]
    ) -> str | None:
        """Called once per applied tick: its ops, the trades it closed, every closed trade so far (exit
        order). Returns the lessons hash for trades opened from the next tick on, or None: unchanged."""
        ...


class SituationRecorder(Protocol):
    """Situation memory (recall.situations.SituationMemory): told the trades each tick opened and closed."""

    def record(self, tick: Tick, *, opened: Sequence[OpenTrade], closed: Sequence[ClosedTrade]) -> None: ...


class SimLedger:
    """One deployment's trade ledger in memory, fed the same tick stream a runner posts live.

    `lessons_hash` is what the live deployment's `active_lessons_hash` would be: new trades are
    stamped with it (an empty string counts as none, as live). It may be changed between ticks,
    and `reflection` (opt-in) changes it when it makes a new lessons revision.

    `situations` is the situation memory the live ledger writes as it materializes a tick
    (recall.situations.SituationMemory, with the live embedder): told each tick's opened and
    closed trades before the ledger's own state changes, so an error there changes nothing.
    """

    def __init__(
        self,
        *,
        lessons_hash: str | None = None,
        reflection: SimReflector | None = None,
        situations: SituationRecorder | None = None,
    ):
        self.lessons_hash = lessons_hash
        self.reflection = reflection
        self.situations = situations
        self._open: dict[str, OpenTrade] = {}
        self._closed: list[ClosedTrade] = []  # in exit order, as the ops closed them
        self._by_entry: list[ClosedTrade] = []  # the same trades, entry desc then symbol asc
        self._outcomes: deque[EngineOutcome] = deque()  # engine verdicts by tick_at, pruned to the risk window
        self._last_tick: Tick | None = None
        self._day_start_on: dt.date | None = None
        self._day_start_equity_usd: Decimal | None = None

    # -- write path ------------------------------------------------------------------------------

    def record_tick(self, *, snapshot_id: str, tick_at: dt.datetime, payload: dict[str, Any]) -> list[Op]:
        """Apply one tick; returns its materializer ops (a flip as one FlipTrade, as reconcile gives it).

        `payload` is the runner's tick body without `tick_at`, as POSTed (JSON numbers as int or
        float). The same tick_at as the latest tick is a re-delivery: ignored, returns []. An
        older tick_at raises ValueError (live answers 409; live also answers a re-delivery of an
        *older* stored tick as a duplicate, which the sim, keeping no tick history, refuses).
        A payload the materializer refuses (a symbol twice, a size <= 0) raises ValueError and
        changes nothing.
        """
        tick_at = _utc(tick_at)
        if self._last_tick is not None:
            latest = self._last_tick.tick_at
            if tick_at == latest:
                return []
            if tick_at < latest:
                raise ValueError(f"tick_at {tick_at.isoformat()} is older than the latest tick, {latest.isoformat()}")
        stored = {**payload, "equity_usd": _stored_equity(payload["equity_usd"])}
        tick = tick_from_payload(str(snapshot_id), tick_at, stored)
        ops = reconcile_portfolio_delta(self._open, tick.positions, MaterializeContext(tick, self.lessons_hash or None))
        open_trades, closed = apply_ops(self._open, ops)
        if self.situations is not None:
            opened = [opened_trade(op) for op in flatten_ops(ops) if isinstance(op, OpenTradeOp)]
            if opened or closed:
                self.situations.record(tick, opened=opened, closed=closed)
        # Nothing below raises: the tick is applied whole or not at all.
        self._open = open_trades
        for trade in closed:
            self._closed.append(trade)
            bisect.insort(self._by_entry, trade, key=_entry_key)
        if tick.engine_kind:
            self._outcomes.append(EngineOutcome(tick.tick_at, tick.engine_kind, tick.engine_rule))
        if self._day_start_on != tick.tick_at.date():  # the first tick of a UTC date
            self._day_start_on = tick.tick_at.date()
            self._day_start_equity_usd = tick.equity_usd
        self._last_tick = tick
        oldest_needed = risk_window_start(tick.tick_at)  # never moves back: prune for good
        while self._outcomes and self._outcomes[0].tick_at < oldest_needed:
            self._outcomes.popleft()
        if self.reflection is not None:  # after the tick, as live reflection runs after its materialization
            new_hash = self.reflection.after_tick(tick=tick, ops=ops, closed=closed, closed_trades=self._closed)
            if new_hash is not None:
                self.lessons_hash = new_hash
        return ops

    # -- read path -------------------------------------------------------------------------------

    def context_inputs(self, *, recent_k: int) -> ContextInputs:
        """What `ledger.selectors.context_inputs` returns for the same stream, field for field."""
        if recent_k < 0:
            raise ValueError("recent_k must be >= 0")
        last = self._last_tick
        if last is None:
            return ContextInputs(None, (), (), (), (), self._day_start_equity_usd)
        now = last.tick_at
        window_start = risk_window_start(now)
        # Live: tick_at__gte=window_start, tick_at__lte=now, engine_kind != "", by tick_at.
        outcomes = tuple(o for o in self._outcomes if window_start <= o.tick_at <= now)
        return ContextInputs(
            last_tick=last,
            outcomes=outcomes,
            recent_closed=tuple(self._by_entry[:recent_k]),
            closed_for_risk=self._closed_for_risk(now),
            open_trades=tuple(self._open[symbol] for symbol in sorted(self._open)),
            day_start_equity_usd=self._day_start_equity_usd,
        )

    def _closed_for_risk(self, now: dt.datetime) -> tuple[ClosedTrade, ...]:
        """Today's exits (<= now) then the STREAK_LOOKBACK newest exits (<= now), deduplicated.

        The live query, over the only trades it can reach: those exiting at or after the earlier of
        today's midnight and the STREAK_LOOKBACK-th newest exit (whose whole exit-time tie group is
        taken, since the tie order decides which of them the cut keeps).
        """
        day_start = _midnight(now)
        reachable = bisect.bisect_right(self._closed, now, key=lambda t: t.exit_tick_at)
        first = 0
        if reachable > STREAK_LOOKBACK:
            floor = min(day_start, self._closed[reachable - STREAK_LOOKBACK].exit_tick_at)
            first = bisect.bisect_left(self._closed, floor, 0, reachable, key=lambda t: t.exit_tick_at)
        by_exit = _by_exit_newest_first(self._closed[first:reachable])
        today = [t for t in by_exit if day_start <= t.exit_tick_at <= now]
        streak = by_exit[:STREAK_LOOKBACK]
        merged: dict[int, ClosedTrade] = {}
        for trade in [*today, *streak]:
            merged.setdefault(id(trade), trade)
        return tuple(merged.values())

    # -- state -----------------------------------------------------------------------------------

    @property
    def last_tick(self) -> Tick | None:
        return self._last_tick

    @property
    def open_trades(self) -> tuple[OpenTrade, ...]:
        """The open trades by symbol."""
        return tuple(self._open[symbol] for symbol in sorted(self._open))

    @property
    def closed_trades(self) -> tuple[ClosedTrade, ...]:
        """Every closed trade, in the order they closed (exit time; one tick's closes by symbol)."""
        return tuple(self._closed)

    @property
    def day_start_equity_usd(self) -> Decimal | None:
        """The equity at the first tick of the latest tick's UTC date (as stored: 8 decimals)."""
        return self._day_start_equity_usd

    @property
    def retained_outcomes(self) -> tuple[EngineOutcome, ...]:
        """The engine verdicts still held: those since risk_window_start of the latest tick."""
        return tuple(self._outcomes)

"""The trade-ledger materializer: position deltas in, trade_history ops out (memory-layer.md).

`reconcile_portfolio_delta(prev, next, ctx)` is pure: `prev` is the ledger's open trades by
symbol, `next` the broker's positions after this tick's fills, `ctx` the tick (marks, proposal,
engine verdict, bars) plus the active lessons hash. Transitions per symbol:

| prev        | next                   | ops                                             |
|-------------|------------------------|-------------------------------------------------|
| absent      | open (size > 0)        | OpenTrade                                       |
| open        | absent                 | CloseTrade                                      |
| open        | open, same side        | UpdateMfeMae (adds and partial reductions stay one trade row) |
| open long   | open short (or mirror) | FlipTrade = CloseTrade (old side) + OpenTrade (new side)     |

Accounting is average-cost at tick marks: an add moves the average entry, a partial reduction
realizes `reduced × (mark − average) × direction` into the trade, and the close realizes the
rest, so a trade's `realized_pnl_usd` is exactly the mark-to-market PnL of its position path.
`entry_price` stays the mark at the entering tick. MFE/MAE track the trade's PnL at each tick
mark (realized part + open part): MFE ≥ 0 is the best seen, MAE ≤ 0 the worst.

Exit reasons: "external_flatten" when the tick carries a flatten command; the proposal's reason
when the agent's own executed action (close, adjust, or an order that flipped the position)
touched the symbol; "liquidated" when the position vanished otherwise. An exit with no mark
this tick uses the last known mark and says so (`exit_price_carried`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_EVEN, Decimal

from ledger.domain import ClosedTrade, OpenTrade, Position, ProposedAction, Side, Tick
from ledger.regime import regime_tag_at_open

USD_QUANTUM = Decimal("0.00000001")
PRICE_QUANTUM = Decimal("0.000000000001")
MINUTES_QUANTUM = Decimal("0.01")

EXTERNAL_FLATTEN = "external_flatten"
LIQUIDATED = "liquidated"
EXTERNAL_ENTRY = "opened outside the agent's proposal"
_AGENT_POSITION_ACTIONS = frozenset({"propose_order", "close_position", "adjust_position"})


def usd(value: Decimal) -> Decimal:
    return value.quantize(USD_QUANTUM, rounding=ROUND_HALF_EVEN)


def price(value: Decimal) -> Decimal:
    return value.quantize(PRICE_QUANTUM, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class MaterializeContext:
    tick: Tick
    lessons_hash: str | None = None


@dataclass(frozen=True)
class OpenTradeOp:
    op = "open_trade"
    symbol: str
    side: Side
    entry_tick_at: dt.datetime
    entry_price: Decimal
    entry_size_usd: Decimal
    entry_leverage: Decimal | None
    entry_reason: str
    entry_snapshot_id: str
    entry_regime_tag: str | None
    entry_lessons_hash: str | None
    size_base: Decimal


@dataclass(frozen=True)
class UpdateMfeMae:
    op = "update_mfe_mae"
    symbol: str
    mfe_usd: Decimal
    mae_usd: Decimal
    size_base: Decimal
    avg_entry_price: Decimal
    accrued_pnl_usd: Decimal
    last_mark_price: Decimal


@dataclass(frozen=True)
class CloseTrade:
    op = "close_trade"
    symbol: str
    exit_tick_at: dt.datetime
    exit_price: Decimal
    exit_price_carried: bool
    exit_reason: str
    exit_snapshot_id: str
    realized_pnl_usd: Decimal
    holding_minutes: Decimal
    mfe_usd: Decimal
    mae_usd: Decimal


@dataclass(frozen=True)
class FlipTrade:
    op = "flip_trade"
    close: CloseTrade
    open: OpenTradeOp

    @property
    def symbol(self) -> str:
        return self.open.symbol


Op = OpenTradeOp | UpdateMfeMae | CloseTrade | FlipTrade


def _direction(side: Side) -> int:
    return 1 if side == "long" else -1


def _agent_action_on(symbol: str, tick: Tick) -> ProposedAction | None:
    """The tick's action when the agent executed one that moves this symbol's position; else None."""
    action = tick.proposed_action
    if (
        action is not None
        and tick.engine_kind == "executed"
        and action.kind in _AGENT_POSITION_ACTIONS
        and (action.symbol is None or action.symbol == symbol)
    ):
        return action
    return None


def _exit_reason(symbol: str, tick: Tick) -> str:
    action = tick.proposed_action
    if action is not None and action.kind == "flatten":
        return EXTERNAL_FLATTEN
    acted = _agent_action_on(symbol, tick)
    if acted is not None:
        return acted.reason or acted.kind
    return LIQUIDATED


def _entry_reason(symbol: str, tick: Tick) -> str:
    acted = _agent_action_on(symbol, tick)
    if acted is not None:
        return acted.reason or acted.kind
    return EXTERNAL_ENTRY


def _open(position: Position, ctx: MaterializeContext) -> OpenTradeOp:
    tick = ctx.tick
    return OpenTradeOp(
        symbol=position.symbol,
        side=position.side,
        entry_tick_at=tick.tick_at,
        entry_price=price(position.mark_price),
        entry_size_usd=usd(position.size * position.mark_price),
        entry_leverage=position.leverage,
        entry_reason=_entry_reason(position.symbol, tick),
        entry_snapshot_id=tick.snapshot_id,
        entry_regime_tag=regime_tag_at_open(tick.bars.get(position.symbol)),
        entry_lessons_hash=ctx.lessons_hash,
        size_base=price(position.size),
    )


def _trade_pnl(trade: OpenTrade, mark: Decimal, size: Decimal, average: Decimal, accrued: Decimal) -> Decimal:
    return accrued + size * (mark - average) * _direction(trade.side)


def _close(trade: OpenTrade, tick: Tick) -> CloseTrade:
    mark = tick.mark_of(trade.symbol)
    carried = mark is None
    exit_price = trade.last_mark_price if mark is None else mark
    realized = usd(_trade_pnl(trade, exit_price, trade.size_base, trade.avg_entry_price, trade.accrued_pnl_usd))
    held = Decimal((tick.tick_at - trade.entry_tick_at).total_seconds()) / 60
    return CloseTrade(
        symbol=trade.symbol,
        exit_tick_at=tick.tick_at,
        exit_price=price(exit_price),
        exit_price_carried=carried,
        exit_reason=_exit_reason(trade.symbol, tick),
        exit_snapshot_id=tick.snapshot_id,
        realized_pnl_usd=realized,
        holding_minutes=held.quantize(MINUTES_QUANTUM, rounding=ROUND_HALF_EVEN),
        mfe_usd=max(trade.mfe_usd, realized),
        mae_usd=min(trade.mae_usd, realized),
    )


def _update(trade: OpenTrade, position: Position) -> UpdateMfeMae:
    mark = position.mark_price
    size = position.size
    average = trade.avg_entry_price
    accrued = trade.accrued_pnl_usd
    if size > trade.size_base:  # an add, filled at this tick's mark
        average = price((trade.size_base * average + (size - trade.size_base) * mark) / size)
    elif size < trade.size_base:  # a partial reduction realizes its share at this tick's mark
        accrued = usd(accrued + (trade.size_base - size) * (mark - average) * _direction(trade.side))
    pnl = usd(_trade_pnl(trade, mark, size, average, accrued))
    return UpdateMfeMae(
        symbol=trade.symbol,
        mfe_usd=max(trade.mfe_usd, pnl),
        mae_usd=min(trade.mae_usd, pnl),
        size_base=price(size),
        avg_entry_price=average,
        accrued_pnl_usd=accrued,
        last_mark_price=price(mark),
    )


def reconcile_portfolio_delta(
    prev: Mapping[str, OpenTrade], next: Sequence[Position], ctx: MaterializeContext
) -> list[Op]:
    """Ops that take the ledger from `prev` (open trades) to the broker's `next` positions.

    Symbols are visited in sorted order so the op list is deterministic. Raises ValueError for
    a symbol listed twice or a non-positive size (the API refuses both before this runs).
    """
    positions: dict[str, Position] = {}
    for listed in next:
        if listed.symbol in positions:
            raise ValueError(f"symbol {listed.symbol!r} listed twice")
        if listed.size <= 0 or listed.mark_price <= 0:
            raise ValueError(f"symbol {listed.symbol!r}: size and mark_price must be > 0")
        positions[listed.symbol] = listed
    ops: list[Op] = []
    for symbol in sorted(set(prev) | set(positions)):
        trade, position = prev.get(symbol), positions.get(symbol)
        if trade is None:
            ops.append(_open(positions[symbol], ctx))  # not in prev, so listed now
        elif position is None:
            ops.append(_close(trade, ctx.tick))
        elif position.side == trade.side:
            ops.append(_update(trade, position))
        else:
            ops.append(FlipTrade(close=_close(trade, ctx.tick), open=_open(position, ctx)))
    return ops


def opened_trade(op: OpenTradeOp) -> OpenTrade:
    return OpenTrade(
        symbol=op.symbol,
        side=op.side,
        entry_tick_at=op.entry_tick_at,
        entry_price=op.entry_price,
        entry_size_usd=op.entry_size_usd,
        entry_reason=op.entry_reason,
        entry_regime_tag=op.entry_regime_tag,
        size_base=op.size_base,
        avg_entry_price=op.entry_price,
        accrued_pnl_usd=Decimal(0),
        mfe_usd=Decimal(0),
        mae_usd=Decimal(0),
        last_mark_price=op.entry_price,
    )


def closed_trade(trade: OpenTrade, op: CloseTrade) -> ClosedTrade:
    return ClosedTrade(
        symbol=trade.symbol,
        side=trade.side,
        entry_tick_at=trade.entry_tick_at,
        entry_price=trade.entry_price,
        entry_size_usd=trade.entry_size_usd,
        entry_reason=trade.entry_reason,
        entry_regime_tag=trade.entry_regime_tag,
        exit_tick_at=op.exit_tick_at,
        exit_price=op.exit_price,
        exit_reason=op.exit_reason,
        realized_pnl_usd=op.realized_pnl_usd,
        holding_minutes=op.holding_minutes,
    )


def updated_trade(trade: OpenTrade, op: UpdateMfeMae) -> OpenTrade:
    return replace(
        trade,
        mfe_usd=op.mfe_usd,
        mae_usd=op.mae_usd,
        size_base=op.size_base,
        avg_entry_price=op.avg_entry_price,
        accrued_pnl_usd=op.accrued_pnl_usd,
        last_mark_price=op.last_mark_price,
    )


def flatten_ops(ops: Sequence[Op]) -> list[OpenTradeOp | UpdateMfeMae | CloseTrade]:
    """A flip as what it does to rows: the close of the old side, then the open of the new."""
    flat: list[OpenTradeOp | UpdateMfeMae | CloseTrade] = []
    for op in ops:
        flat.extend((op.close, op.open) if isinstance(op, FlipTrade) else (op,))
    return flat


def apply_ops(
    open_trades: Mapping[str, OpenTrade], ops: Sequence[Op]
) -> tuple[dict[str, OpenTrade], list[ClosedTrade]]:
    """The in-memory ledger's write path: the same ops the database applies, applied to dicts."""
    state = dict(open_trades)
    closed: list[ClosedTrade] = []
    for op in flatten_ops(ops):
        if isinstance(op, OpenTradeOp):
            if op.symbol in state:
                raise ValueError(f"an open trade for {op.symbol!r} exists already")
            state[op.symbol] = opened_trade(op)
        elif isinstance(op, UpdateMfeMae):
            state[op.symbol] = updated_trade(state[op.symbol], op)
        else:
            closed.append(closed_trade(state.pop(op.symbol), op))
    return state, closed

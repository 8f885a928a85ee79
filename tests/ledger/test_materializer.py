"""The materializer's transition table as examples, and its invariants over random position paths."""

import datetime as dt
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.domain import Bar, OpenTrade, Position, ProposedAction, Tick
from ledger.materializer import (
    EXTERNAL_ENTRY,
    EXTERNAL_FLATTEN,
    LIQUIDATED,
    CloseTrade,
    FlipTrade,
    MaterializeContext,
    OpenTradeOp,
    UpdateMfeMae,
    apply_ops,
    flatten_ops,
    reconcile_portfolio_delta,
)

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
D = Decimal


def tick(minute=0, positions=(), marks=None, action=None, engine="", rule="", bars=None, snapshot="s"):
    return Tick(
        snapshot_id=f"{snapshot}{minute}",
        tick_at=T0 + dt.timedelta(minutes=minute),
        equity_usd=D(10_000),
        positions=tuple(positions),
        marks=marks or {},
        proposed_action=action,
        engine_kind=engine,
        engine_rule=rule,
        bars=bars or {},
    )


def long(symbol="BTC", size="0.01", mark="65200", side="long"):
    return Position(symbol=symbol, side=side, size=D(size), mark_price=D(mark))


def run(ticks, lessons_hash=None):
    """Drive ticks through reconcile + apply; returns (open trades, closed trades, ops per tick)."""
    state, closed, all_ops = {}, [], []
    for t in ticks:
        ops = reconcile_portfolio_delta(state, t.positions, MaterializeContext(t, lessons_hash))
        state, newly_closed = apply_ops(state, ops)
        closed.extend(newly_closed)
        all_ops.append(ops)
    return state, closed, all_ops


BUY = ProposedAction(kind="propose_order", symbol="BTC", reason="breakout above prior swing high")
CLOSE = ProposedAction(kind="close_position", symbol="BTC", reason="target hit")


class TestTransitionTable:
    def test_it_opens_a_trade_when_a_position_appears(self):
        bars = {"BTC": tuple(Bar(t=str(i), o=D(100), h=D(100), l=D(100), c=D(100 + i), v=D(1)) for i in range(20))}
        (op,) = reconcile_portfolio_delta(
            {}, [long()], MaterializeContext(tick(0, [long()], action=BUY, engine="executed", bars=bars), "abc")
        )
        assert isinstance(op, OpenTradeOp)
        assert (op.symbol, op.side, op.entry_price, op.entry_size_usd) == ("BTC", "long", D(65200), D("652.00000000"))
        assert op.entry_reason == "breakout above prior swing high"
        assert op.entry_snapshot_id == "s0"
        assert op.entry_lessons_hash == "abc"
        assert op.entry_regime_tag.startswith("trend_up")

    def test_it_closes_a_trade_when_the_position_disappears(self):
        state, closed, ops = run(
            [
                tick(0, [long()], action=BUY, engine="executed"),
                tick(120, [], marks={"BTC": D(65940)}, action=CLOSE, engine="executed"),
            ]
        )
        assert state == {}
        (close,) = ops[1]
        assert isinstance(close, CloseTrade)
        assert close.exit_price == D(65940)
        assert close.exit_price_carried is False
        assert close.exit_reason == "target hit"
        assert close.realized_pnl_usd == D("7.40000000")  # 0.01 × (65,940 − 65,200)
        assert close.holding_minutes == D("120.00")
        assert closed[0].realized_pnl_usd == D("7.40000000")

    def test_it_only_updates_mfe_mae_for_the_same_side_and_size(self):
        _, _, ops = run([tick(0, [long()]), tick(5, [long(mark="65000")]), tick(10, [long(mark="65500")])])
        assert [type(op) for op in flatten_ops(ops[1] + ops[2])] == [UpdateMfeMae, UpdateMfeMae]
        assert ops[1][0].mae_usd == D("-2.00000000")
        assert ops[2][0].mfe_usd == D("3.00000000")
        assert ops[2][0].mae_usd == D("-2.00000000")  # the worst stays

    def test_it_keeps_adds_and_partial_reductions_in_one_trade_with_average_cost(self):
        _, closed, ops = run(
            [
                tick(0, [long(size="1", mark="100")]),
                tick(1, [long(size="3", mark="110")]),  # add 2 @110 → average 106.666…
                tick(2, [long(size="1", mark="120")]),  # reduce 2 @120 → realizes 2 × 13.333… = 26.666…
                tick(3, [], marks={"BTC": D(90)}),  # close 1 @90 → −16.666…
            ]
        )
        assert all(isinstance(op, UpdateMfeMae) for op in ops[1] + ops[2])
        (trade,) = closed
        assert trade.entry_price == D(100)  # the mark at the entering tick, not the average
        # path PnL: 1×(110−100) + 3×(120−110) + 1×(90−120) = 10
        assert abs(trade.realized_pnl_usd - D(10)) < D("0.000001")

    def test_it_closes_then_opens_on_a_flip(self):
        _, closed, ops = run(
            [
                tick(0, [long(mark="100", size="1")]),
                tick(5, [long(mark="95", size="2", side="short")], action=BUY, engine="executed"),
            ]
        )
        (flip,) = ops[1]
        assert isinstance(flip, FlipTrade)
        assert [type(op) for op in flatten_ops(ops[1])] == [CloseTrade, OpenTradeOp]
        assert flip.close.realized_pnl_usd == D("-5.00000000")
        assert flip.open.side == "short"
        assert flip.open.entry_price == D(95)
        assert closed[0].side == "long"

    def test_it_labels_a_vanished_position_liquidated(self):
        _, closed, _ = run([tick(0, [long()]), tick(5, [], marks={"BTC": D(60000)}, engine="rejected", rule="R1")])
        assert closed[0].exit_reason == LIQUIDATED

    def test_it_labels_a_flatten_command_external_flatten(self):
        flatten = ProposedAction(kind="flatten")
        _, closed, _ = run([tick(0, [long()]), tick(5, [], marks={"BTC": D(65000)}, action=flatten, engine="executed")])
        assert closed[0].exit_reason == EXTERNAL_FLATTEN

    def test_it_does_not_credit_the_agent_for_a_close_on_another_symbol(self):
        close_eth = ProposedAction(kind="close_position", symbol="ETH", reason="eth done")
        _, closed, _ = run(
            [tick(0, [long()]), tick(5, [], marks={"BTC": D(65000)}, action=close_eth, engine="executed")]
        )
        assert closed[0].exit_reason == LIQUIDATED

    def test_it_carries_the_last_mark_when_the_runner_sent_none(self):
        _, _, ops = run([tick(0, [long()]), tick(5, [long(mark="66000")]), tick(10, [])])
        (close,) = ops[2]
        assert close.exit_price == D(66000)
        assert close.exit_price_carried is True

    def test_it_marks_an_unproposed_entry_as_external(self):
        (op,) = reconcile_portfolio_delta({}, [long()], MaterializeContext(tick(0, [long()])))
        assert op.entry_reason == EXTERNAL_ENTRY
        assert op.entry_regime_tag is None  # no bars sent: not classified, never made up

    def test_it_does_nothing_with_no_positions_on_either_side(self):
        assert reconcile_portfolio_delta({}, [], MaterializeContext(tick(0))) == []

    def test_it_orders_ops_by_symbol(self):
        positions = [long("SOL"), long("BTC"), long("ETH")]
        ops = reconcile_portfolio_delta({}, positions, MaterializeContext(tick(0, positions)))
        assert [op.symbol for op in ops] == ["BTC", "ETH", "SOL"]


# -- properties over random position paths -----------------------------------------------------

SYMBOLS = ["BTC", "ETH"]
signed_sizes = st.sampled_from([D(0), D(0), D(1), D(2), D("0.5"), D(-1), D(-2), D("-0.5")])
marks = st.integers(min_value=50, max_value=150).map(D)
steps = st.lists(st.tuples(signed_sizes, signed_sizes, marks, marks), min_size=1, max_size=30)


def _path_ticks(step_list):
    """Ticks from (BTC size, ETH size, BTC mark, ETH mark); signed size: + long, − short. Ends flat."""
    ticks = []
    for minute, (btc, eth, btc_mark, eth_mark) in enumerate([*step_list, (D(0), D(0), D(100), D(100))]):
        positions = [
            Position(symbol=s, side="long" if size > 0 else "short", size=abs(size), mark_price=m)
            for s, size, m in (("BTC", btc, btc_mark), ("ETH", eth, eth_mark))
            if size != 0
        ]
        ticks.append(tick(minute, positions, marks={"BTC": btc_mark, "ETH": eth_mark}))
    return ticks


def _path_pnl(ticks, symbol):
    """Mark-to-market PnL of holding the signed position from each tick to the next."""
    total, held, last_mark = D(0), D(0), None
    for t in ticks:
        mark = t.marks[symbol]
        if last_mark is not None:
            total += held * (mark - last_mark)
        position = next((p for p in t.positions if p.symbol == symbol), None)
        held = D(0) if position is None else (position.size if position.side == "long" else -position.size)
        last_mark = mark
    return total


@settings(max_examples=200, deadline=None)
@given(steps)
def test_at_most_one_open_trade_per_symbol_and_every_close_has_its_open(step_list):
    state, opened = {}, []
    for t in _path_ticks(step_list):
        ops = flatten_ops(reconcile_portfolio_delta(state, t.positions, MaterializeContext(t)))
        for op in ops:
            if isinstance(op, OpenTradeOp):
                assert op.symbol not in state or any(
                    isinstance(c, CloseTrade) and c.symbol == op.symbol for c in ops
                ), "a second open row for one symbol"
                opened.append(op.symbol)
            if isinstance(op, CloseTrade):
                assert op.symbol in state, "a close without its open"
        state, _ = apply_ops(state, ops)
        assert set(state) == {p.symbol for p in t.positions}  # the ledger mirrors the broker
    assert state == {}


@settings(max_examples=200, deadline=None)
@given(steps)
def test_realized_pnl_sums_to_the_paths_mark_to_market_pnl(step_list):
    ticks = _path_ticks(step_list)
    _, closed, _ = run(ticks)
    for symbol in SYMBOLS:
        realized = sum((c.realized_pnl_usd for c in closed if c.symbol == symbol), D(0))
        assert abs(realized - _path_pnl(ticks, symbol)) < D("0.000001") * (len(ticks) + 1)


@settings(max_examples=200, deadline=None)
@given(steps)
def test_mfe_is_never_negative_and_mae_never_positive(step_list):
    state = {}
    for t in _path_ticks(step_list):
        ops = flatten_ops(reconcile_portfolio_delta(state, t.positions, MaterializeContext(t)))
        for op in ops:
            if isinstance(op, UpdateMfeMae | CloseTrade):
                assert op.mfe_usd >= 0 >= op.mae_usd
                if isinstance(op, CloseTrade):
                    assert op.mae_usd <= op.realized_pnl_usd <= op.mfe_usd
        state, _ = apply_ops(state, ops)


@settings(max_examples=200, deadline=None)
@given(steps, st.integers(min_value=0, max_value=29))
def test_replaying_a_tick_already_applied_changes_nothing(step_list, cut):
    ticks = _path_ticks(step_list)
    prefix = ticks[: min(cut, len(ticks) - 1) + 1]
    state, _, _ = run(prefix)
    last = prefix[-1]
    replay = flatten_ops(reconcile_portfolio_delta(state, last.positions, MaterializeContext(last)))
    assert all(isinstance(op, UpdateMfeMae) for op in replay)
    replayed, closed = apply_ops(state, replay)
    assert replayed == state
    assert closed == []


def test_open_trade_state_is_a_plain_value():
    trade = run([tick(0, [long()])])[0]["BTC"]
    assert isinstance(trade, OpenTrade)
    assert trade.size_base == D("0.01")

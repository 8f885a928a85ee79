"""SimLedger: the in-memory ledger for backtests gives the live context byte for byte.

The parity tests drive one tick stream through two live deployments of two traders (POST a tick, GET
the context, which catches up inline; the same documents indexed for each) and through a SimLedger with
situation memory (the same embedder), and compare at every tick: the rendered text and every section
(similar past situations and the manual's included), the ContextInputs the live selector builds, and the
ops the tick materialized. Replaying a prefix (posting it again, rebuilding the ledger from its ticks, a
fresh sim) changes nothing.
"""

import datetime as dt
from dataclasses import asdict
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from access import scope
from agentcontext.formatting import SECTION_KEYS, render_context
from agentcontext.selectors import context_for_inputs, manual_settings, sim_situations
from ledger import selectors
from ledger.materializer import (
    EXTERNAL_ENTRY,
    EXTERNAL_FLATTEN,
    LIQUIDATED,
    CloseTrade,
    FlipTrade,
    MaterializeContext,
    OpenTradeOp,
    UpdateMfeMae,
    flatten_ops,
    reconcile_portfolio_delta,
)
from ledger.memory_view import STREAK_LOOKBACK, ContextInputs
from ledger.models import Deployment
from ledger.risk_state import EngineOutcome, risk_window_start
from ledger.services import op_as_json, trade_history_rebuild
from ledger.sim import SimLedger
from recall import services as recall_services
from recall.embeddings import get_embedder
from recall.situations import SituationMemory
from tests.factories import DeploymentFactory

D = Decimal
T0 = dt.datetime(2026, 6, 4, 18, 0, tzinfo=dt.UTC)
FIVE = dt.timedelta(minutes=5)
MIDNIGHT = dt.datetime(2026, 6, 5, tzinfo=dt.UTC)


# -- driving live and sim side by side -----------------------------------------------------------


def iso(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


# Each trader's manual (for all its deployments) and a staff playbook: the words of the streams' ticks (symbols,
# sides, rejection codes, action kinds, reasons), so the manual section is there at some ticks and not at others.
MANUAL = """# Trading manual

## Caps
When the engine rejects with R3_POSITION_CAP, halve the size or close the weakest position first.
R6_RATE_LIMIT: wait an hour before the next propose_order.

## BTC
Buy the breakout above the prior swing high; trim into resistance; add on strength only when in profit.

## ETH
Fade the rally when RSI is above 75 and go short with half size; cut the loser at the stop.
"""
PLAYBOOK = """# Drawdown rejections

R2_DRAWDOWN means the deployment lost its daily limit: flatten and do not propose again today.
"""


@pytest.fixture
def manuals(owner, other):
    for trader in (owner, other):
        recall_services.document_upsert(
            owner=trader, path="TRADING_MANUAL.md", content=MANUAL, source="workspace", queue_embedding=False
        )
    recall_services.document_upsert(
        owner=None, path="playbooks/drawdown.md", content=PLAYBOOK, source="playbook", queue_embedding=False
    )


@pytest.fixture
def twins(owner_api, owner, other_api, other, manuals):
    """``twins(k)``: a deployment for each trader, of a new skill with recent_trades_k = k (each trader's own index)."""

    def make(k: int) -> list[tuple]:
        return [
            (api, user, DeploymentFactory(skill_version__skill__owner=user, skill_version__recent_trades_k=k))
            for api, user in ((owner_api, owner), (other_api, other))
        ]

    return make


class Parity:
    """Live deployments (the twins: the same tick stream, each its trader's own index) and one SimLedger with
    situation memory, fed the same ticks and compared after each, section by section."""

    def __init__(self, twins: list[tuple], k: int):
        self.twins, self.k = twins, k
        self.api, self.owner, self.deployment = twins[0]
        self.memory = SituationMemory(get_embedder())
        self.sim = SimLedger(situations=self.memory)
        self.latest: dt.datetime | None = None
        self.ticks = 0
        self.stream: list[tuple[dt.datetime, dict]] = []
        self.texts: list[str] = []  # the context text after each tick
        self.seen: dict[str, set[bool]] = {key: set() for key in SECTION_KEYS}  # was each section there?

    def sim_context(self, sim: SimLedger | None = None, memory: SituationMemory | None = None):
        sim, memory = sim or self.sim, memory or self.memory
        version = self.deployment.skill_version
        with scope.owner_scope(self.owner):
            return context_for_inputs(
                sim.context_inputs(recent_k=self.k),
                user=self.owner,
                deployment_id=self.deployment.pk,
                recent_trades_k=self.k,
                memory_enabled=version.memory_enabled,
                manual=manual_settings(version),
                similar_situations=sim_situations(memory),
            )

    def tick(self, tick_at: dt.datetime, payload: dict) -> None:
        self.ticks += 1
        where = f"tick #{self.ticks} at {iso(tick_at)}"
        redelivered = tick_at == self.latest
        snapshot_ids = []
        for api, _, deployment in self.twins:
            url = f"/api/v1/deployments/{deployment.pk}/ticks/"
            response = api.post(url, {"tick_at": iso(tick_at), **payload}, format="json")
            assert response.status_code == (200 if redelivered else 201), (where, response.json())
            snapshot_ids.append(response.json()["snapshot_id"])
        ops = self.sim.record_tick(snapshot_id=snapshot_ids[0], tick_at=tick_at, payload=payload)
        self.latest = tick_at
        self.stream.append((tick_at, payload))

        bodies = []
        for api, _, deployment in self.twins:
            live = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
            assert live.status_code == 200
            bodies.append(live.json())
        self.live_body = bodies[0]
        sim_context = self.sim_context()
        assert tuple(sim_context.sections) == SECTION_KEYS
        for body in bodies:
            assert body["degraded"] == [], where
            for key, section in sim_context.sections.items():
                assert body["sections"][key] == section, (where, key)
            assert body["text"] == sim_context.text, where
            assert body["token_estimate"] == sim_context.token_estimate, where
        self.texts.append(sim_context.text)
        for key, section in sim_context.sections.items():
            self.seen[key].add(section is not None)

        deployment = Deployment.objects.get(pk=self.deployment.pk)
        sim_inputs = self.sim.context_inputs(recent_k=self.k)
        assert selectors.context_inputs(deployment=deployment, recent_k=self.k) == sim_inputs, where
        url = f"/api/v1/deployments/{self.deployment.pk}/ticks/"
        if redelivered:
            assert ops == [], where
        else:
            detail = self.api.get(f"{url}{snapshot_ids[0]}/").json()
            assert detail["ops"] == [
                same_values(live, op) for live, op in zip(detail["ops"], flatten_ops(ops), strict=True)
            ], where

    def replay_changes_nothing(self, prefixes: list[int]) -> None:
        """Replaying changes nothing: each prefix posted again (re-deliveries), the ledger rebuilt from its ticks
        (situations included), and a fresh sim fed the prefix gives the text the run gave at its last tick."""
        final = self.texts[-1]
        api, _, deployment = self.twins[0]
        url = f"/api/v1/deployments/{deployment.pk}/ticks/"

        def live_text() -> str:
            return api.get(f"/api/v1/deployments/{deployment.pk}/context/").json()["text"]

        for n in prefixes:
            for tick_at, payload in self.stream[:n]:
                assert api.post(url, {"tick_at": iso(tick_at), **payload}, format="json").status_code == 200
            assert live_text() == final, n
            memory = SituationMemory(get_embedder())
            sim = SimLedger(situations=memory)
            for number_, (tick_at, payload) in enumerate(self.stream[:n]):
                sim.record_tick(snapshot_id=str(number_), tick_at=tick_at, payload=payload)
            assert self.sim_context(sim, memory).text == self.texts[n - 1], n
        trade_history_rebuild(deployment_id=deployment.pk)
        assert live_text() == final


def same_values(live: dict, op) -> dict:
    """The sim op as JSON, taking the live op's spelling of an equal Decimal ("0E-8" read back vs "0")."""
    sim = op_as_json(op)
    for key, value in asdict(op).items():
        if isinstance(value, Decimal) and isinstance(live.get(key), str) and Decimal(live[key]) == value:
            sim[key] = live[key]
    return sim


# -- the scripted stream ---------------------------------------------------------------------------

R_BREAKOUT = 'breakout "above" the prior swing high — ünïcødé ✓ 📈'
R_SHORT = "fade the 'rally': RSI 78 → mean reversion, «short» it"
R_LONG = "a very long reason " + "that keeps going and going " * 5 + "until it is cut"


def number(value: float):
    """A JSON number as a runner writes it: an int when whole, else the float."""
    return int(value) if float(value).is_integer() else value


def btc_mark(i: int):
    return number(65000 + 40 * ((i * 37) % 23) - 400 + (i % 7) * 12.5)


def eth_mark(i: int):
    return number(3400 + ((i * 53) % 31) * 1.25 - 20)


def bars(first_close: float, step: float, n: int = 14) -> list[dict]:
    out = []
    for j in range(n):
        close = first_close + step * j + (0.3 if j % 2 else -0.2)
        out.append(
            {
                "t": f"2026-06-04T{j // 12:02d}:{j % 12 * 5:02d}:00Z",
                "o": close,
                "h": close + 1,
                "l": close - 1,
                "c": close,
                "v": 10 + j,
            }
        )
    return out


def action(kind, symbol=None, reason=""):
    proposal = {"kind": kind, "reason": reason}
    if symbol is not None:
        proposal["symbol"] = symbol
    return proposal


EXECUTED = {"kind": "executed"}


def rejected(rule=None):
    return {"kind": "rejected", "rule": rule} if rule else {"kind": "rejected"}


def body(positions=(), equity=10_000, **extra) -> dict:
    return {"equity_usd": equity, "positions": list(positions), **extra}


def btc(size=0.01, mark=65200, side="long"):
    return {"symbol": "BTC", "side": side, "size": size, "mark_price": mark}


BUY = {"proposed_action": action("propose_order", "BTC", "breakout"), "engine": EXECUTED}


# tick index -> what happens: book changes (None drops the symbol), proposal, verdict, bars, marks
# left out of the marks map (a close without a mark carries the last one), price overrides.
EVENTS = {
    1: {
        "book": {"BTC": ("long", 0.01)},
        "action": action("propose_order", "BTC", R_BREAKOUT),
        "engine": EXECUTED,
        "bars": {"BTC": bars(64000, 60)},
    },
    3: {"action": action("propose_order", "ETH", "add ETH"), "engine": rejected("R3_POSITION_CAP")},
    4: {"action": action("propose_order", "ETH", "add ETH"), "engine": rejected("R3_POSITION_CAP")},
    5: {"action": action("propose_order", "ETH", "add ETH again"), "engine": rejected("R3_POSITION_CAP")},
    6: {"action": action("propose_order", "ETH", "add ETH"), "engine": rejected("R6_RATE_LIMIT")},
    7: {"action": action("propose_order", "ETH"), "engine": rejected()},
    8: {
        "book": {"ETH": ("short", 0.5)},
        "action": action("propose_order", "ETH", R_SHORT),
        "engine": EXECUTED,
        "bars": {"ETH": bars(3400, 0, 12)},
    },
    12: {
        "book": {"BTC": ("long", 0.02)},
        "action": action("adjust_position", "BTC", "add on strength"),
        "engine": EXECUTED,
    },
    16: {
        "book": {"BTC": ("long", 0.015)},
        "action": action("adjust_position", "BTC", "trim into resistance"),
        "engine": EXECUTED,
    },
    20: {"book": {"BTC": None}, "action": action("close_position", "BTC", "target hit"), "engine": EXECUTED},
    22: {"book": {"BTC": ("long", 0.01)}, "action": action("propose_order", "BTC", R_LONG), "engine": EXECUTED},
    26: {"book": {"ETH": None}, "action": action("close_position", "ETH", "stop"), "engine": EXECUTED, "hide": ["ETH"]},
    30: {
        "book": {"BTC": ("short", 0.01)},
        "action": action("propose_order", "BTC", "flip to short"),
        "engine": EXECUTED,
        "bars": {"BTC": bars(66000, -80)},
    },
    35: {
        "book": {"BTC": None},
        "action": action("propose_order", "ETH", "buy ETH"),
        "engine": rejected("R3_POSITION_CAP"),
    },
    40: {
        "book": {"BTC": ("long", 0.01), "ETH": ("long", 1)},
        "action": action("propose_order", None, "pair basket"),
        "engine": EXECUTED,
    },
    44: {"book": {"ETH": ("long", 1.5)}, "action": action("adjust_position", "ETH", "add ETH"), "engine": EXECUTED},
    50: {"book": {"BTC": None, "ETH": None}, "action": action("flatten")},
    52: {"book": {"ETH": ("long", 1)}, "px": {"ETH": 3500}},
    55: {
        "book": {"ETH": None},
        "action": action("close_position", "ETH", "cut the loser"),
        "engine": EXECUTED,
        "px": {"ETH": 3450},
    },
    57: {
        "book": {"BTC": ("long", 0.01)},
        "action": action("propose_order", "BTC", "bounce"),
        "engine": EXECUTED,
        "px": {"BTC": 65500},
    },
    59: {
        "book": {"BTC": None},
        "action": action("close_position", "BTC", "stopped"),
        "engine": EXECUTED,
        "px": {"BTC": 65100},
    },
    61: {
        "book": {"BTC": ("short", 0.01)},
        "action": action("propose_order", "BTC", "short the pop"),
        "engine": EXECUTED,
        "px": {"BTC": 65000},
    },
    63: {
        "book": {"BTC": None},
        "action": action("close_position", "BTC", "squeezed"),
        "engine": EXECUTED,
        "px": {"BTC": 65300},
    },
    65: {"action": action("propose_order", "BTC", "again"), "engine": rejected("R2_DRAWDOWN")},
    67: {"action": action("propose_order", "BTC", "again"), "engine": rejected("R2_DRAWDOWN")},
    69: {"action": action("propose_order", "BTC", "again"), "engine": rejected("R2_DRAWDOWN")},
    71: {"book": {"BTC": ("long", 0.02)}, "action": action("propose_order", "BTC", "late long"), "engine": EXECUTED},
    72: {
        "book": {"BTC": ("long", 0.03)},
        "action": action("adjust_position", "BTC", "midnight add"),
        "engine": EXECUTED,
        "equity": 10012.123456785,
    },
    76: {
        "book": {"BTC": None},
        "action": action("close_position", "BTC", "done for the night"),
        "engine": EXECUTED,
        "hide": ["BTC"],
    },
}


def dense_event(i: int) -> dict:
    """From tick 80 on: BTC opens on even ticks and closes on odd ones, ETH the other way round."""
    opening, closing = ("BTC", "ETH") if i % 2 == 0 else ("ETH", "BTC")
    side = "long" if i % 4 < 2 else "short"
    book = {opening: (side, 0.01 if opening == "BTC" else 0.4), closing: None}
    event = {"book": book, "action": action("propose_order", opening, f"cycle {i} ✓"), "engine": EXECUTED}
    if i % 7 == 0:
        event["engine"] = rejected("R3_POSITION_CAP")  # the close is a liquidation, the open external
    if i % 5 == 0:
        event["hide"] = [closing]
    if i % 11 == 0:
        event["bars"] = {opening: bars(100, 1.5, 13)}
    return event


def scripted_stream() -> list[tuple[dt.datetime, dict]]:
    book: dict[str, tuple[str, float]] = {}
    stream = []
    for i in range(150):
        event = EVENTS.get(i) or (dense_event(i) if i >= 80 else {})
        for symbol, line in event.get("book", {}).items():
            if line is None:
                book.pop(symbol, None)
            else:
                book[symbol] = line
        px = {"BTC": btc_mark(i), "ETH": eth_mark(i), **event.get("px", {})}
        payload = {
            "equity_usd": event.get("equity", number(10000 + (i * 7919) % 200 - 100 + 0.25)),
            "positions": [
                {"symbol": symbol, "side": side, "size": size, "mark_price": px[symbol]}
                for symbol, (side, size) in sorted(book.items())
            ],
            "marks": {symbol: mark for symbol, mark in px.items() if symbol not in event.get("hide", ())},
        }
        if "action" in event:
            payload["proposed_action"] = event["action"]
        elif i % 4:
            payload["proposed_action"] = action("hold", None, "waiting for a pullback" if i % 4 == 1 else "")
        if "engine" in event:
            payload["engine"] = event["engine"]
        elif i % 4 == 1:
            payload["engine"] = {"kind": "skipped"}
        if "bars" in event:
            payload["bars"] = event["bars"]
        stream.append((T0 + i * FIVE, payload))
    return stream


def test_it_is_checked_against_a_scripted_stream_that_covers_every_case():
    sim = SimLedger()
    ops, texts, cut_a_tie = [], [], False
    for n, (tick_at, payload) in enumerate(scripted_stream()):
        ops.extend(flatten_ops(sim.record_tick(snapshot_id=str(n), tick_at=tick_at, payload=payload)))
        inputs = sim.context_inputs(recent_k=3)
        texts.append(render_context(inputs, recent_trades_k=3, memory_enabled=True).text)
        pair = [t.symbol for t in inputs.recent_closed if t.entry_tick_at == T0 + 40 * FIVE]
        cut_a_tie |= pair == ["BTC"]  # k cuts between two trades entered together: symbol order decides
    closes = [op for op in ops if isinstance(op, CloseTrade)]
    assert {op.exit_reason for op in closes} >= {LIQUIDATED, EXTERNAL_FLATTEN, "target hit", "flip to short"}
    assert any(op.exit_price_carried for op in closes) and not all(op.exit_price_carried for op in closes)
    assert {t.entry_reason for t in sim.closed_trades} >= {EXTERNAL_ENTRY, R_BREAKOUT, "pair basket"}
    assert {t.entry_regime_tag for t in sim.closed_trades} >= {None, "trend_up_lowvol", "chop_lowvol"}
    assert len([t for t in sim.closed_trades if t.exit_tick_at >= MIDNIGHT]) > STREAK_LOOKBACK
    assert sim.closed_trades[0].exit_tick_at < MIDNIGHT <= sim.last_tick.tick_at
    assert cut_a_tie
    for shown in (
        "← same code in the last 3+ rejections",
        "UNSPECIFIED",
        "- executed orders today (UTC): ",
        "- realized PnL today (UTC, vs day-start equity): ",
        "(consider whether your read of the regime still holds)",
        "exit=liquidated",
        "exit=external_flatten",
        "regime=trend_down_",
        "ünïcødé ✓ 📈",
        "…",
        "→ skipped",
        "no proposal → no engine verdict",
    ):
        assert any(shown in text for text in texts), shown


def test_it_renders_the_live_context_at_every_tick_of_a_scripted_day(twins):
    parity = Parity(twins(3), k=3)
    for tick_at, payload in scripted_stream():
        parity.tick(tick_at, payload)
    parity.tick(*scripted_stream()[-1])  # a re-delivery of the latest tick
    # Every section, similar situations and the manual's included, is there at some ticks and not at others (the
    # last decision at every tick).
    assert parity.seen == {key: {True} if key == "last_decision" else {True, False} for key in SECTION_KEYS}
    parity.replay_changes_nothing([1, 23, 80, len(parity.stream)])


def test_it_counts_an_order_executed_at_exactly_midnight_all_day(twins):
    parity = Parity(twins(1), k=1)
    for minutes, engine in ((0, EXECUTED), (30, EXECUTED), (61, None)):
        payload = body([btc(size=0.01 * (minutes + 1))], proposed_action=action("propose_order", "BTC"))
        parity.tick(MIDNIGHT + dt.timedelta(minutes=minutes), {**payload, **({"engine": engine} if engine else {})})
    assert "- executed orders today (UTC): 2" in parity.live_body["sections"]["recent_activity"]


# -- random streams ------------------------------------------------------------------------------

SYMBOLS = ("BTC", "ETH")
REASONS = ("", 'buy the "dip"', "ça va — ✓ 🚀", "x" * 90, "trim")
RULES = (None, "R3_POSITION_CAP", "R3_POSITION_CAP", "R6_RATE_LIMIT")
STEPS_SECONDS = (0, 1, 60, 300, 300, 300, 3540, 3600, 3601, 18000, 86400)  # 0: a re-delivery
MOVES = ("keep", "keep", "open_long", "open_short", "add", "reduce", "flip", "close")

sizes = st.integers(1, 400).map(lambda n: number(n / 100))
prices = st.integers(200, 600).map(lambda n: number(n / 4))
engines = st.one_of(
    st.none(),
    st.just(EXECUTED),
    st.sampled_from(RULES).map(rejected),
    st.just({"kind": "skipped"}),
)
actions = st.one_of(
    st.none(),
    st.builds(
        action,
        st.sampled_from(["propose_order", "close_position", "adjust_position", "hold", "flatten"]),
        st.sampled_from([None, *SYMBOLS]),
        st.sampled_from(REASONS),
    ),
)


@st.composite
def tick_streams(draw) -> list[tuple[dt.datetime, dict]]:
    at = dt.datetime(2026, 6, 4, 22, 0, tzinfo=dt.UTC) + dt.timedelta(minutes=draw(st.integers(0, 180)))
    book: dict[str, tuple[str, float]] = {}
    stream = []
    for index in range(draw(st.integers(1, 25))):
        if index:
            at += dt.timedelta(seconds=draw(st.sampled_from(STEPS_SECONDS)))
        px = {symbol: draw(prices) for symbol in SYMBOLS}
        for symbol in SYMBOLS:
            move, line = draw(st.sampled_from(MOVES)), book.get(symbol)
            if line is None and move.startswith("open"):
                book[symbol] = (move.removeprefix("open_"), draw(sizes))
            elif line is not None and move in ("add", "reduce"):
                size = draw(sizes)
                book[symbol] = (line[0], size + line[1] if move == "add" else min(size, line[1]))
            elif line is not None and move == "flip":
                book[symbol] = ("short" if line[0] == "long" else "long", draw(sizes))
            elif line is not None and move == "close":
                book.pop(symbol)
        payload = {
            "equity_usd": draw(st.one_of(st.integers(0, 20000), st.integers(1, 2 * 10**13).map(lambda n: n / 10**9))),
            "positions": [
                {"symbol": symbol, "side": side, "size": number(round(size, 2)), "mark_price": px[symbol]}
                for symbol, (side, size) in sorted(book.items())
            ],
            "marks": {symbol: mark for symbol, mark in px.items() if draw(st.booleans())},
        }
        proposed, engine = draw(actions), draw(engines)
        if proposed is not None:
            payload["proposed_action"] = proposed
        if engine is not None:
            payload["engine"] = engine
        if draw(st.booleans()):
            symbol = draw(st.sampled_from(SYMBOLS))
            payload["bars"] = {
                symbol: bars(draw(prices), draw(st.sampled_from([-2, 0, 0.01, 2])), draw(st.integers(11, 13)))
            }
        stream.append((at, payload))
    return stream


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(stream=tick_streams(), k=st.integers(1, 4))
def test_it_renders_the_live_context_for_random_streams(twins, stream, k):
    parity = Parity(twins(k), k=k)
    for tick_at, payload in stream:
        parity.tick(tick_at, payload)
    parity.replay_changes_nothing(sorted({1, len(stream) // 2 or 1, len(stream)}))


# -- the sim on its own ----------------------------------------------------------------------------


def test_it_has_an_empty_context_before_the_first_tick():
    sim = SimLedger()
    assert sim.context_inputs(recent_k=5) == ContextInputs(None, (), (), (), (), None)
    assert render_context(sim.context_inputs(recent_k=5), recent_trades_k=5, memory_enabled=True).text == ""


def test_it_returns_the_materializer_ops_and_stamps_the_lessons_hash():
    sim = SimLedger(lessons_hash="abc123")
    opened = sim.record_tick(snapshot_id="s1", tick_at=T0, payload=body([btc()], **BUY))
    assert [type(op) for op in opened] == [OpenTradeOp]
    assert opened[0].entry_lessons_hash == "abc123"
    assert opened[0].entry_snapshot_id == "s1"
    held = sim.record_tick(snapshot_id="s2", tick_at=T0 + FIVE, payload=body([btc(mark=65300)]))
    assert [type(op) for op in held] == [UpdateMfeMae]
    sim.lessons_hash = ""  # no active lessons: stamped None, as live
    flipped = sim.record_tick(snapshot_id="s3", tick_at=T0 + 2 * FIVE, payload=body([btc(side="short")], **BUY))
    assert [type(op) for op in flipped] == [FlipTrade]
    assert flipped[0].open.entry_lessons_hash is None
    assert [t.side for t in sim.closed_trades] == ["long"]
    assert [t.side for t in sim.open_trades] == ["short"]


def test_it_ignores_a_redelivered_tick():
    sim = SimLedger()
    sim.record_tick(snapshot_id="s1", tick_at=T0, payload=body([btc()], **BUY))
    before = sim.context_inputs(recent_k=5)
    assert sim.record_tick(snapshot_id="s2", tick_at=T0, payload=body([], equity=1)) == []
    assert sim.context_inputs(recent_k=5) == before
    assert sim.last_tick.snapshot_id == "s1"


def test_it_refuses_a_tick_older_than_the_latest_and_a_naive_one():
    sim = SimLedger()
    sim.record_tick(snapshot_id="s1", tick_at=T0, payload=body([btc()]))
    before = sim.context_inputs(recent_k=5)
    with pytest.raises(ValueError, match="older than the latest tick"):
        sim.record_tick(snapshot_id="s0", tick_at=T0 - FIVE, payload=body([]))
    with pytest.raises(ValueError, match="timezone-aware"):
        sim.record_tick(snapshot_id="s2", tick_at=(T0 + FIVE).replace(tzinfo=None), payload=body([]))
    assert sim.context_inputs(recent_k=5) == before


def test_it_changes_nothing_when_the_materializer_refuses_a_tick():
    sim = SimLedger()
    sim.record_tick(snapshot_id="s1", tick_at=T0, payload=body([btc()]))
    before = sim.context_inputs(recent_k=5)
    with pytest.raises(ValueError, match="listed twice"):
        sim.record_tick(snapshot_id="s2", tick_at=T0 + FIVE, payload=body([btc(), btc()], engine=EXECUTED))
    assert sim.context_inputs(recent_k=5) == before
    assert sim.record_tick(snapshot_id="s3", tick_at=T0 + FIVE, payload=body([]))[0].op == "close_trade"


def test_it_captures_day_start_equity_at_the_first_tick_after_midnight():
    sim = SimLedger()
    late = dt.datetime(2026, 6, 5, 1, 55, tzinfo=dt.timezone(dt.timedelta(hours=2)))  # 23:55 UTC on June 4
    sim.record_tick(snapshot_id="a", tick_at=late, payload=body(equity=1000))
    assert sim.day_start_equity_usd == D("1000")
    assert sim.last_tick.tick_at == dt.datetime(2026, 6, 4, 23, 55, tzinfo=dt.UTC)
    sim.record_tick(snapshot_id="b", tick_at=MIDNIGHT + FIVE, payload=body(equity=2000.123456785))
    assert sim.day_start_equity_usd == D("2000.12345679")  # numeric(20, 8), half away from zero, as stored live
    sim.record_tick(snapshot_id="c", tick_at=MIDNIGHT + 2 * FIVE, payload=body(equity=3000))
    assert sim.context_inputs(recent_k=1).day_start_equity_usd == D("2000.12345679")


def _reference_inputs(sim: SimLedger, outcomes: list[EngineOutcome], recent_k: int) -> ContextInputs:
    """The live selector's queries, literally, over everything the stream ever produced."""
    now = sim.last_tick.tick_at
    start = risk_window_start(now)
    closed = list(sim.closed_trades)
    by_entry = sorted(sorted(closed, key=lambda t: t.symbol), key=lambda t: t.entry_tick_at, reverse=True)
    by_exit = sorted(
        sorted(closed, key=lambda t: t.symbol), key=lambda t: (t.exit_tick_at, t.entry_tick_at), reverse=True
    )
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    today = [t for t in by_exit if day_start <= t.exit_tick_at <= now]
    streak = [t for t in by_exit if t.exit_tick_at <= now][:STREAK_LOOKBACK]
    merged = {(t.symbol, t.entry_tick_at): t for t in [*today, *streak]}
    return ContextInputs(
        last_tick=sim.last_tick,
        outcomes=tuple(o for o in outcomes if start <= o.tick_at <= now),
        recent_closed=tuple(by_entry[:recent_k]),
        closed_for_risk=tuple(merged.values()),
        open_trades=sim.open_trades,
        day_start_equity_usd=sim.day_start_equity_usd,
    )


def test_it_keeps_the_context_identical_while_it_prunes_old_outcomes():
    sim, outcomes = SimLedger(), []
    tick_at = T0
    for i in range(3 * 24 * 6):  # three days of 10-minute ticks, a verdict on each
        tick_at += dt.timedelta(minutes=10)
        positions = [btc(mark=65000 + (i * 37) % 500)] if i % 3 else []
        verdict = [EXECUTED, rejected("R3_POSITION_CAP"), {"kind": "skipped"}, rejected()][i % 4]
        sim.record_tick(snapshot_id=str(i), tick_at=tick_at, payload=body(positions, engine=verdict))
        outcomes.append(EngineOutcome(tick_at, verdict["kind"], verdict.get("rule") or ""))
        for k in (1, 7):
            assert sim.context_inputs(recent_k=k) == _reference_inputs(sim, outcomes, k)
        kept = sim.retained_outcomes
        assert kept[0].tick_at >= risk_window_start(tick_at)
        assert len(kept) <= 25 * 6
    assert len(sim.closed_trades) > 2 * STREAK_LOOKBACK


def test_it_returns_the_ops_of_the_materializer_it_wraps():
    sim = SimLedger()
    payload = body([btc()], **BUY, bars={"BTC": bars(64000, 60)})
    ops = sim.record_tick(snapshot_id="s1", tick_at=T0, payload=payload)
    tick = sim.last_tick
    assert ops == reconcile_portfolio_delta({}, tick.positions, MaterializeContext(tick))
    assert ops[0].entry_regime_tag == "trend_up_lowvol"

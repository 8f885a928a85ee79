"""The runner API: ticks, their ops, fills and trades (contract in the trade-memory issue)."""

import datetime as dt

import pytest

from ledger.models import DecisionSnapshot, Deployment, TradeHistory
from tests.factories import DeploymentFactory
from tests.openapi import assert_matches_schema

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


def at(minutes: int) -> str:
    return (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def tick_body(minutes=0, positions=(), **extra):
    return {"tick_at": at(minutes), "equity_usd": 10_000, "positions": list(positions), **extra}


def btc(size=0.01, mark=65200, side="long"):
    return {"symbol": "BTC", "side": side, "size": size, "mark_price": mark}


BUY = {
    "proposed_action": {"kind": "propose_order", "symbol": "BTC", "reason": "breakout"},
    "engine": {"kind": "executed"},
}


def ticks_url(deployment):
    return f"/api/v1/deployments/{deployment.pk}/ticks/"


def post_tick(api, deployment, body):
    return api.post(ticks_url(deployment), body, format="json")


def _rows():
    return (DecisionSnapshot.objects.count(), TradeHistory.objects.count())


class TestTickIngest:
    def test_it_stores_a_tick_and_answers_201(self, owner_api, deployment):
        response = post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
        assert response.status_code == 201, response.json()
        assert_matches_schema(response)
        body = response.json()
        assert body["duplicate"] is False
        snapshot = DecisionSnapshot.objects.get(pk=body["snapshot_id"])
        assert snapshot.owner_id == deployment.owner_id
        assert snapshot.positions == [btc()]  # as the runner sent it
        assert snapshot.engine_kind == "executed"

    def test_the_same_tick_again_is_a_200_duplicate_that_writes_nothing(self, owner_api, deployment):
        first = post_tick(owner_api, deployment, tick_body(0, [btc()])).json()
        before = _rows()
        again = post_tick(owner_api, deployment, tick_body(0, [btc()]))
        assert again.status_code == 200
        assert_matches_schema(again)
        assert again.json() == {"snapshot_id": first["snapshot_id"], "duplicate": True}
        assert _rows() == before

    def test_an_older_tick_is_a_409(self, owner_api, deployment):
        post_tick(owner_api, deployment, tick_body(10, [btc()]))
        before = _rows()
        response = post_tick(owner_api, deployment, tick_body(5, []))
        assert response.status_code == 409
        assert response.json()["errors"]["tick_at"][0].startswith("must be later than this deployment's latest tick")
        assert _rows() == before

    @pytest.mark.parametrize(
        ("body", "field", "message"),
        [
            (tick_body(0, [btc(), btc()]), "positions.1.symbol", "listed twice; one line per symbol"),
            (tick_body(0, [btc(size=-1)]), "positions.0.size", "must be > 0"),
            (tick_body(0, [btc(size=0)]), "positions.0.size", "must be > 0"),
            (tick_body(0, [btc(mark=0)]), "positions.0.mark_price", "must be > 0"),
            (tick_body(0, [btc(side="sideways")]), "positions.0.side", "must be one of long, short"),
            (tick_body(0, [{**btc(), "colour": "red"}]), "positions.0.colour", None),
            (tick_body(0, [btc(size="1")]), "positions.0.size", "must be a number"),
            ({**tick_body(0), "tick_at": "2026-06-04T10:00:00"}, "tick_at", "must include a timezone offset"),
            ({**tick_body(0), "tick_at": "yesterday"}, "tick_at", "must be an ISO-8601 date-time"),
            ({**tick_body(0), "equity_usd": -5}, "equity_usd", "must be >= 0"),
            ({**tick_body(0), "equity_usd": True}, "equity_usd", "must be a number"),
            ({**tick_body(0), "marks": {"BTC": -1}}, "marks.BTC", "must be > 0"),
            ({**tick_body(0), "proposed_action": {"kind": "yolo"}}, "proposed_action.kind", "must be one of"),
            ({**tick_body(0), "proposed_action": {"kind": "hold", "reason": "x" * 501}}, "proposed_action.reason", "must be at most 500 characters"),
            ({**tick_body(0), "proposed_action": {"kind": "hold", "reason": "a\u202eb"}}, "proposed_action.reason", "must not contain control characters"),
            ({**tick_body(0), "engine": {"kind": "maybe"}}, "engine.kind", "must be one of executed, rejected, skipped"),
            ({**tick_body(0), "bars": {"BTC": [{"t": "x", "o": 1, "h": 1, "l": 1, "c": -1, "v": 0}]}}, "bars.BTC.0.c", "must be > 0"),
            ({**tick_body(0), "owner": 2}, "owner", None),
        ],
    )  # fmt: skip
    def test_bad_input_names_the_field_and_writes_nothing(self, owner_api, deployment, body, field, message):
        before = _rows()
        response = post_tick(owner_api, deployment, body)
        assert response.status_code == 400, response.json()
        errors = response.json()["errors"]
        assert field in errors, errors
        if message:
            assert errors[field][0].startswith(message), errors
        else:
            assert errors[field][0].startswith("unknown field")
        assert _rows() == before
        assert Deployment.objects.get(pk=deployment.pk).latest_tick_at is None

    @pytest.mark.parametrize("constant", ["NaN", "Infinity"])
    def test_non_finite_numbers_are_a_400(self, owner_api, deployment, constant):
        raw = f'{{"tick_at": "{at(0)}", "equity_usd": {constant}, "positions": []}}'
        response = owner_api.generic("POST", ticks_url(deployment), raw, content_type="application/json")
        assert response.status_code == 400
        assert _rows() == (0, 0)

    def test_another_traders_deployment_is_a_404(self, other_api, deployment):
        response = post_tick(other_api, deployment, tick_body(0, [btc()]))
        assert response.status_code == 404
        assert _rows() == (0, 0)

    def test_anonymous_is_a_401(self, anon_api, deployment):
        assert post_tick(anon_api, deployment, tick_body(0, [btc()])).status_code == 401
        assert _rows() == (0, 0)


class TestTickOps:
    def test_it_shows_what_materializing_a_tick_did_including_a_flip(self, owner_api, deployment):
        post_tick(owner_api, deployment, tick_body(0, [btc(size=1, mark=100)], **BUY))
        flip = post_tick(owner_api, deployment, tick_body(5, [btc(size=2, mark=95, side="short")], **BUY)).json()
        response = owner_api.get(f"{ticks_url(deployment)}{flip['snapshot_id']}/")
        assert response.status_code == 200
        assert_matches_schema(response)
        body = response.json()
        assert body["materialized_at"] is not None
        assert [(op["op"], op["symbol"]) for op in body["ops"]] == [("close_trade", "BTC"), ("open_trade", "BTC")]
        assert body["ops"][0]["realized_pnl_usd"] == "-5.00000000"
        assert body["ops"][1]["side"] == "short"

    def test_another_traders_tick_is_a_404(self, owner_api, other_api, deployment):
        snapshot_id = post_tick(owner_api, deployment, tick_body(0, [btc()])).json()["snapshot_id"]
        assert other_api.get(f"{ticks_url(deployment)}{snapshot_id}/").status_code == 404
        other_deployment = DeploymentFactory(skill_version__skill__owner=deployment.owner)
        assert owner_api.get(f"{ticks_url(other_deployment)}{snapshot_id}/").status_code == 404


class TestTrades:
    def _trade_round_trip(self, api, deployment):
        post_tick(api, deployment, tick_body(0, [btc(size=1, mark=100)], **BUY))
        post_tick(api, deployment, tick_body(10, [], marks={"BTC": 110}))
        post_tick(api, deployment, tick_body(20, [btc(size=1, mark=105)], **BUY))

    def test_it_lists_trades_newest_first_with_seed_field_names(self, owner_api, deployment):
        self._trade_round_trip(owner_api, deployment)
        response = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/")
        assert response.status_code == 200
        assert_matches_schema(response)
        trades = response.json()
        assert [(t["status"], t["entry_price"]) for t in trades] == [
            ("open", "105.000000000000"),
            ("closed", "100.000000000000"),
        ]
        closed = trades[1]
        assert closed["realized_pnl_usd"] == "10.00000000"
        assert closed["exit_reason"] == "liquidated"
        assert closed["holding_minutes"] == "10.00"
        assert closed["entry_reason"] == "breakout"

    def test_it_filters_by_status_and_limits(self, owner_api, deployment):
        self._trade_round_trip(owner_api, deployment)
        url = f"/api/v1/deployments/{deployment.pk}/trades/"
        assert [t["status"] for t in owner_api.get(url, {"status": "closed"}).json()] == ["closed"]
        assert len(owner_api.get(url, {"limit": 1}).json()) == 1
        bad = owner_api.get(url, {"status": "pending"})
        assert bad.status_code == 400
        assert bad.json()["errors"] == {"status": ["must be one of open, closed"]}
        assert owner_api.get(url, {"limit": 0}).json()["errors"] == {"limit": ["must be between 1 and 500"]}
        assert owner_api.get(url, {"order": "asc"}).status_code == 400

    def test_another_traders_trades_are_a_404(self, other_api, anon_api, deployment):
        assert other_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").status_code == 404
        assert anon_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").status_code == 401


class TestFills:
    def test_it_adds_fees_to_the_open_trade(self, owner_api, deployment):
        post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
        url = f"/api/v1/deployments/{deployment.pk}/fills/"
        for fee in (1.25, 0.5):
            response = owner_api.post(url, {"symbol": "BTC", "fees_usd": fee, "filled_at": at(0)}, format="json")
            assert response.status_code == 200, response.json()
        assert_matches_schema(response)
        assert response.json()["fees_usd"] == "1.75000000"

    def test_it_stores_the_latest_fill_time_and_returns_it(self, owner_api, deployment):
        post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
        url = f"/api/v1/deployments/{deployment.pk}/fills/"
        (trade,) = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()
        assert trade["last_filled_at"] is None  # no fill yet
        for minutes in (2, 5, 3):  # the fill at minute 3 arrives late: the latest time stays
            response = owner_api.post(url, {"symbol": "BTC", "fees_usd": 1, "filled_at": at(minutes)}, format="json")
            assert response.status_code == 200, response.json()
            assert_matches_schema(response)
        assert response.json()["last_filled_at"] == "2026-06-04T10:05:00Z"
        stored = TradeHistory.objects.get(deployment=deployment, symbol="BTC")
        assert stored.last_filled_at == dt.datetime(2026, 6, 4, 10, 5, tzinfo=dt.UTC)
        (trade,) = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()
        assert trade["last_filled_at"] == "2026-06-04T10:05:00Z"

    def test_it_names_a_symbol_with_no_open_trade(self, owner_api, deployment):
        url = f"/api/v1/deployments/{deployment.pk}/fills/"
        response = owner_api.post(url, {"symbol": "ETH", "fees_usd": 1, "filled_at": at(0)}, format="json")
        assert response.status_code == 400
        assert response.json()["errors"] == {"symbol": ["this deployment has no open trade in ETH"]}

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"symbol": "BTC", "fees_usd": -1, "filled_at": at(0)}, "fees_usd"),
            ({"symbol": "BTC", "fees_usd": 1, "filled_at": "2026-06-04T10:00:00"}, "filled_at"),
            ({"symbol": "BTC", "fees_usd": 1}, "filled_at"),
            ({"symbol": "BTC", "fees_usd": 1, "filled_at": at(0), "trade_id": "x"}, "trade_id"),
        ],
    )
    def test_bad_fills_name_the_field_and_change_nothing(self, owner_api, deployment, body, field):
        post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
        response = owner_api.post(f"/api/v1/deployments/{deployment.pk}/fills/", body, format="json")
        assert response.status_code == 400
        assert field in response.json()["errors"]
        (trade,) = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()
        assert trade["fees_usd"] == "0.00000000"

    def test_another_traders_fill_is_a_404(self, owner_api, other_api, deployment):
        post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
        body = {"symbol": "BTC", "fees_usd": 1, "filled_at": at(0)}
        assert other_api.post(f"/api/v1/deployments/{deployment.pk}/fills/", body, format="json").status_code == 404
        (trade,) = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()
        assert trade["fees_usd"] == "0.00000000"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({**tick_body(0), "equity_usd": 1e12}, "equity_usd", "must be <= 1e+11"),
        (tick_body(0, [btc(size=1e11)]), "positions.0.size", "must be <= 1e+10"),
        (tick_body(0, [btc(mark=2e9)]), "positions.0.mark_price", "must be <= 1e+09"),
        (tick_body(0, [{**btc(), "leverage": 5000}]), "positions.0.leverage", "must be <= 1000"),
    ],
)
def test_numbers_past_what_the_ledger_stores_are_refused(owner_api, deployment, body, field, message):
    response = post_tick(owner_api, deployment, body)
    assert response.status_code == 400
    assert response.json()["errors"][field] == [message]
    assert _rows() == (0, 0)


def test_the_largest_accepted_position_materializes(owner_api, deployment):
    post_tick(owner_api, deployment, tick_body(0, [btc(size=1e10, mark=1e9)], equity_usd=1e11))
    post_tick(owner_api, deployment, tick_body(1, [], marks={"BTC": 1e9 - 1}))
    response = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200
    (trade,) = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()
    assert trade["realized_pnl_usd"] == "-10000000000.00000000"


@pytest.mark.parametrize(
    ("bars", "field", "message"),
    [
        ([{"t": "x", "o": 1, "h": 1, "l": 1, "c": 0, "v": 0}], "bars.BTC.0.c", "must be > 0"),
        ([{"t": "x", "o": 1, "h": 1, "l": 1, "c": 1}], "bars.BTC.0.v", "This field is required."),
        ([{"t": True, "o": 1, "h": 1, "l": 1, "c": 1, "v": 1}], "bars.BTC.0.t", "must be a timestamp string or number"),
        ([{"t": "x", "o": 1, "h": 1, "l": 1, "c": 1, "v": 1, "q": 2}], "bars.BTC.0.q", "unknown field"),
        ([{"t": "x", "o": "1", "h": 1, "l": 1, "c": 1, "v": 1}], "bars.BTC.0.o", "must be a number"),
        (["bar"], "bars.BTC.0", "must be an object"),
        ({"t": 1}, "bars.BTC", "must be a list of bars"),
        ([{"t": "x", "o": 1, "h": 1, "l": 1, "c": 1, "v": 1}] * 1001, "bars.BTC", "must hold at most 1000 bars"),
    ],
)
def test_bad_bars_name_the_bar_and_field(owner_api, deployment, bars, field, message):
    response = post_tick(owner_api, deployment, tick_body(0, [btc()], bars={"BTC": bars}))
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors[field][0].startswith(message), errors
    assert _rows() == (0, 0)


def test_new_trades_are_stamped_with_the_active_lessons_hash(owner_api, deployment):
    from ledger.domain import hash_lessons_text

    post_tick(owner_api, deployment, tick_body(0, [btc()], **BUY))
    Deployment.objects.filter(pk=deployment.pk).update(active_lessons_hash=hash_lessons_text("Cut losers early."))
    post_tick(owner_api, deployment, tick_body(1, [btc(), {**btc(), "symbol": "ETH", "mark_price": 3400}]))
    trades = {t["symbol"]: t for t in owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/").json()}
    assert trades["BTC"]["entry_lessons_hash"] is None  # stamped at open, never rewritten
    assert trades["ETH"]["entry_lessons_hash"] == hash_lessons_text("Cut losers early.")

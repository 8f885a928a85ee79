"""get_upcoming_events (chatmemory/events.py): filtering, validation and your_exposure, through the
tool registry and the REST endpoint."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from chatmemory.events import upcoming_events
from chatmemory.models import Bar, MarketEvent
from chatmemory.tool_errors import ToolInputError
from chatmemory.tools import call_tool
from ledger.models import TradeHistory, TradeStatus
from tests.factories import DeploymentFactory

URL = "/api/v1/chat/tools/get_upcoming_events/"
NOW = dt.datetime(2026, 6, 4, 12, 0, tzinfo=dt.UTC)


def event(kind="cpi", title=None, symbols=(), at=NOW, importance="0.8") -> MarketEvent:
    return MarketEvent.objects.create(
        kind=kind,
        title=title or f"{kind} {at.isoformat()} {'/'.join(symbols)}",
        symbols=list(symbols),
        scheduled_at=at,
        importance=Decimal(importance),
    )


def bars_around(symbol: str, at: dt.datetime, before: str, after: str, timeframe: str = "1h") -> None:
    """Two 1h bars: one closing at the event (the reference), one closing 4h later (the outcome)."""
    for ts, close in ((at - dt.timedelta(hours=1), before), (at + dt.timedelta(hours=3), after)):
        price = Decimal(close)
        Bar.objects.create(symbol=symbol, timeframe=timeframe, ts=ts, open=price, high=price, low=price, close=price)


def position(deployment, symbol: str, side: str, size: str, mark: str, status=TradeStatus.OPEN) -> TradeHistory:
    closed = (
        {
            "exit_tick_at": NOW,
            "exit_price": Decimal(mark),
            "exit_reason": "tp",
            "realized_pnl_usd": 1,
            "holding_minutes": 5,
        }
        if status == TradeStatus.CLOSED
        else {}
    )
    return TradeHistory.objects.create(
        owner=deployment.owner,
        deployment=deployment,
        skill_id=deployment.skill_version.skill_id,
        skill_version=deployment.skill_version.version,
        symbol=symbol,
        side=side,
        status=status,
        entry_tick_at=NOW - dt.timedelta(days=1),
        entry_price=Decimal(mark),
        entry_size_usd=Decimal(size) * Decimal(mark),
        size_base=Decimal(size),
        avg_entry_price=Decimal(mark),
        last_mark_price=Decimal(mark),
        **closed,
    )


def call(user, now=NOW, **params):
    params = {"lookaheadHours": 24, "minImportance": 0.4, **params}
    return upcoming_events(user=user, now=now, **params)


def titles(result) -> list[str]:
    return [row["title"] for row in result["events"]]


# -- the events --------------------------------------------------------------------------------------


def test_window_is_now_to_now_plus_lookahead_inclusive(owner):
    event(title="just gone", at=NOW - dt.timedelta(seconds=1))
    event(title="now", at=NOW)
    event(title="last hour", at=NOW + dt.timedelta(hours=6))
    event(title="too far", at=NOW + dt.timedelta(hours=6, seconds=1))
    assert titles(call(owner, lookaheadHours=6)) == ["now", "last hour"]


def test_importance_types_and_symbols_filter(owner):
    event(title="cpi", kind="cpi", importance="0.4", at=NOW + dt.timedelta(hours=1))
    event(title="minor", kind="cpi", importance="0.399", at=NOW + dt.timedelta(hours=2))
    event(title="btc unlock", kind="token_unlock", symbols=["BTC"], at=NOW + dt.timedelta(hours=3))
    event(title="eth unlock", kind="token_unlock", symbols=["ETH", "ARB"], at=NOW + dt.timedelta(hours=4))
    assert titles(call(owner)) == ["cpi", "btc unlock", "eth unlock"]
    assert titles(call(owner, minImportance=0.3)) == ["cpi", "minor", "btc unlock", "eth unlock"]
    assert titles(call(owner, types=["token_unlock"])) == ["btc unlock", "eth unlock"]
    # market-wide events match any symbol filter; symbols are matched case-insensitively
    assert titles(call(owner, symbols=["btc"])) == ["cpi", "btc unlock"]
    assert titles(call(owner, symbols=["ARB", "SOL"], types=["token_unlock"])) == ["eth unlock"]


def test_event_rows_are_json_with_iso_times_and_hours_until(owner):
    row = event(kind="fomc", title="FOMC June", symbols=["BTC"], at=NOW + dt.timedelta(hours=18, minutes=30))
    assert call(owner) == {
        "events": [
            {
                "event_id": str(row.pk),
                "kind": "fomc",
                "title": "FOMC June",
                "symbols": ["BTC"],
                "scheduled_at": "2026-06-05T06:30:00Z",
                "importance": 0.8,
                "hours_until": 18.5,
            }
        ],
        "truncated": False,
    }


def test_through_the_tool_registry_with_defaults(owner):
    soon = timezone.now() + dt.timedelta(hours=2)
    event(title="soon", at=soon)
    event(title="in two days", at=soon + dt.timedelta(hours=48))
    event(title="unimportant", at=soon, importance="0.1")
    result = call_tool(owner, "get_upcoming_events", {})
    assert titles(result) == ["soon"]
    assert 1.9 < result["events"][0]["hours_until"] <= 2
    assert "your_exposure" not in result
    assert titles(call_tool(owner, "get_upcoming_events", {"lookaheadHours": 72})) == ["soon", "in two days"]


def test_through_rest(owner_api, owner):
    event(title="soon", kind="nfp", at=timezone.now() + dt.timedelta(hours=3))
    response = owner_api.post(URL, {"types": ["nfp"], "minImportance": 0.5}, format="json")
    assert response.status_code == 200, response.json()
    assert titles(response.json()) == ["soon"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"lookaheadHours": 73}, "lookaheadHours"),
        ({"lookaheadHours": 0}, "lookaheadHours"),
        ({"minImportance": 1.5}, "minImportance"),
        ({"types": ["moon"]}, "types.0"),
        ({"window": 3}, "window"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(owner_api, body, field):
    response = owner_api.post(URL, body, format="json")
    assert response.status_code == 400
    assert field in response.json()["errors"]


def test_another_traders_deployment_is_a_404_naming_deployment_id(owner_api, owner, other):
    theirs = DeploymentFactory(skill_version__skill__owner=other)
    response = owner_api.post(URL, {"deploymentId": theirs.pk}, format="json")
    assert response.status_code == 404
    assert response.json()["detail"] == "deploymentId: no such deployment among yours"
    with pytest.raises(ToolInputError) as caught:
        call_tool(owner, "get_upcoming_events", {"deploymentId": 999_999})
    assert caught.value.errors == {"deploymentId": ["no such deployment among yours"]}


# -- your_exposure -----------------------------------------------------------------------------------


@pytest.fixture
def book(owner):
    """A BTC long ($5,000) and an ETH short ($5,000); a closed SOL trade and another deployment's
    open position that must not appear."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    position(deployment, "BTC", "long", "0.1", "50000")
    position(deployment, "ETH", "short", "2", "2500")
    position(deployment, "SOL", "long", "10", "150", status=TradeStatus.CLOSED)
    position(DeploymentFactory(skill_version__skill__owner=owner), "DOGE", "long", "1000", "0.2")
    return deployment


def past_days(days: int) -> dt.datetime:
    return NOW - dt.timedelta(days=days, minutes=30)


def test_exposure_from_hand_built_history(owner, book):
    cpi = event(kind="cpi", title="CPI May", at=NOW + dt.timedelta(hours=5))  # market-wide
    unlock = event(kind="token_unlock", title="ETH unlock", symbols=["ETH"], at=NOW + dt.timedelta(hours=10))
    event(kind="earnings", title="DOGE earnings", symbols=["DOGE"], at=NOW + dt.timedelta(hours=11))
    # three past CPI prints with BTC bars (+2%, -3%, +1%); ETH bars around only two of them
    for days, btc, eth in ((30, "102", "95"), (60, "97", "104"), (90, "101", None)):
        at = past_days(days)
        event(kind="cpi", title=f"CPI -{days}d", at=at)
        bars_around("BTC", at, "100", btc)
        if eth:
            bars_around("ETH", at, "100", eth)
    # not counted for BTC: a past CPI that touched only SOL, and a past FOMC (another kind)
    sol_only = past_days(45)
    event(kind="cpi", title="CPI SOL", symbols=["SOL"], at=sol_only)
    bars_around("BTC", sol_only, "100", "50")
    fomc = past_days(20)
    event(kind="fomc", title="FOMC", at=fomc)
    bars_around("BTC", fomc, "100", "70")
    # a print two hours ago: its four-hour window has not ended, so it is not history yet
    recent = NOW - dt.timedelta(hours=2)
    event(kind="cpi", title="CPI just now", at=recent)
    bars_around("BTC", recent, "100", "60")

    result = call(owner, deploymentId=book.pk)
    assert titles(result) == ["CPI May", "ETH unlock", "DOGE earnings"]
    assert result["your_exposure"] == [
        {
            "event_id": str(cpi.pk),
            "symbol": "BTC",
            "position_side": "long",
            "notional_usd": 5000.0,
            "similar_events_back": 3,
            "median_abs_move_pct": 0.02,
            "worst_move_pct": -0.03,
        },
        {
            "event_id": str(cpi.pk),
            "symbol": "ETH",
            "position_side": "short",
            "notional_usd": 5000.0,
            "similar_events_back": 2,
            "median_abs_move_pct": None,
            "worst_move_pct": None,
        },
        {
            "event_id": str(unlock.pk),
            "symbol": "ETH",
            "position_side": "short",
            "notional_usd": 5000.0,
            "similar_events_back": 0,
            "median_abs_move_pct": None,
            "worst_move_pct": None,
        },
    ]


def test_a_short_sees_up_moves_as_its_worst(owner, book):
    event(kind="fomc", title="FOMC", symbols=["ETH"], at=NOW + dt.timedelta(hours=1))
    for days, after in ((10, "103"), (20, "99"), (30, "101.5"), (40, "98")):
        at = past_days(days)
        event(kind="fomc", title=f"FOMC -{days}d", symbols=["ETH", "BTC"], at=at)
        bars_around("ETH", at, "100", after, timeframe="5m")
    (row,) = call(owner, deploymentId=book.pk)["your_exposure"]
    assert (row["symbol"], row["similar_events_back"], row["median_abs_move_pct"], row["worst_move_pct"]) == (
        "ETH",
        4,
        0.0175,  # |moves| 3%, 1%, 1.5%, 2% -> (1.5% + 2%) / 2
        -0.03,  # the +3% print, against a short
    )


def test_exposure_through_rest(owner_api, owner, book):
    soon = timezone.now() + dt.timedelta(hours=4)
    event(kind="cpi", title="CPI", at=soon)
    for days, after in ((30, "102"), (60, "96"), (90, "101")):
        at = soon - dt.timedelta(days=days)
        event(kind="cpi", title=f"CPI -{days}d", at=at)
        bars_around("BTC", at, "100", after)
    response = owner_api.post(URL, {"deploymentId": book.pk, "types": ["cpi"]}, format="json")
    assert response.status_code == 200, response.json()
    by_symbol = {row["symbol"]: row for row in response.json()["your_exposure"]}
    assert by_symbol["BTC"]["similar_events_back"] == 3
    assert by_symbol["BTC"]["median_abs_move_pct"] == 0.02
    assert by_symbol["BTC"]["worst_move_pct"] == -0.04
    assert by_symbol["ETH"]["median_abs_move_pct"] is None


def test_no_open_positions_means_an_empty_exposure(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    event(at=NOW + dt.timedelta(hours=1))
    assert call(owner, deploymentId=deployment.pk)["your_exposure"] == []


def test_queries_are_bounded_and_only_the_last_fifty_past_events_count(owner, book):
    event(kind="cpi", title="CPI", symbols=["BTC"], at=NOW + dt.timedelta(hours=1))
    event(kind="nfp", title="NFP", at=NOW + dt.timedelta(hours=2))

    def history(first_day: int, count: int, after: str) -> None:
        for days in range(first_day, first_day + count):
            at = past_days(days)
            event(kind="cpi", title=f"CPI -{days}d", symbols=["BTC"], at=at)
            bars_around("BTC", at, "100", after)
            bars_around("BTC", at, "100", after, timeframe="15m")

    history(1, 3, "101")
    with CaptureQueriesContext(connection) as few:
        small = call(owner, deploymentId=book.pk)
    assert small["your_exposure"][0]["similar_events_back"] == 3

    history(4, 57, "101")  # 60 past prints in all
    history(500, 5, "50")  # older than the last fifty: never read
    with CaptureQueriesContext(connection) as many:
        large = call(owner, deploymentId=book.pk)
    cpi_btc = large["your_exposure"][0]
    assert (cpi_btc["similar_events_back"], cpi_btc["median_abs_move_pct"], cpi_btc["worst_move_pct"]) == (
        50,
        0.01,
        0.01,
    )
    assert len(many.captured_queries) == len(few.captured_queries)
    # events, deployment, positions, past events per (kind, symbol) pair, bars per symbol
    assert len(many.captured_queries) <= 3 + 3 + 2

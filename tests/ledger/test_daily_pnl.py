"""trade_daily_pnl always equals the closed trades rolled up per UTC exit day."""

import datetime as dt
from decimal import Decimal

import pytest
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate

from ledger import services
from ledger.models import TradeDailyPnl, TradeHistory
from tests.factories import DeploymentFactory

pytestmark = pytest.mark.django_db
T0 = dt.datetime(2026, 6, 4, 21, 0, tzinfo=dt.UTC)


def tick(deployment, minutes: int, btc: float, eth: float, btc_mark: float, eth_mark: float) -> None:
    positions = [
        {"symbol": symbol, "side": "long" if size > 0 else "short", "size": abs(size), "mark_price": mark}
        for symbol, size, mark in (("BTC", btc, btc_mark), ("ETH", eth, eth_mark))
        if size
    ]
    services.tick_ingest(
        owner=deployment.owner,
        deployment_id=deployment.pk,
        tick_at=T0 + dt.timedelta(minutes=minutes),
        payload={
            "equity_usd": 10_000,
            "positions": positions,
            "marks": {"BTC": btc_mark, "ETH": eth_mark},
            "proposed_action": {"kind": "propose_order", "reason": "scripted"},
            "engine": {"kind": "executed"},
        },
    )


def expected(deployment) -> list[tuple]:
    rows = (
        TradeHistory.objects.filter(deployment=deployment, status="closed")
        .annotate(day=TruncDate("exit_tick_at", tzinfo=dt.UTC))
        .values("day")
        .annotate(pnl=Sum("realized_pnl_usd"), n=Count("id"), wins=Count("id", filter=Q(realized_pnl_usd__gt=0)))
        .order_by("day")
    )
    return [(row["day"], row["pnl"], row["n"], row["wins"]) for row in rows]


def actual(deployment) -> list[tuple]:
    return list(
        TradeDailyPnl.objects.filter(deployment=deployment)
        .order_by("day")
        .values_list("day", "realized_pnl_usd", "n_closed", "n_wins")
    )


def scripted(deployment, count: int, *, batch_every: int) -> None:
    for n in range(count):
        btc = [0, 1, 2, 0, -1, 0][n % 6]
        eth = [0, 0, 3, 3, 0, 2, -2][n % 7]
        tick(deployment, 45 * n, btc, eth, 100 + (n * 7) % 11, 50 + (n * 5) % 9)
        if n % batch_every == 0:
            services.materialize_pending(deployment_id=deployment.pk)
    services.materialize_pending(deployment_id=deployment.pk)


@pytest.mark.parametrize("batch_every", [1, 7, 1000])
def test_the_rollup_equals_the_closed_trades_per_utc_exit_day_however_ticks_are_batched(owner, batch_every):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    scripted(deployment, 90, batch_every=batch_every)  # 90 ticks × 45 min: trades close across 3 UTC days
    rows = actual(deployment)
    assert rows == expected(deployment)
    assert len(rows) >= 3
    assert sum(row[2] for row in rows) == TradeHistory.objects.filter(deployment=deployment, status="closed").count()
    first = TradeDailyPnl.objects.filter(deployment=deployment).first()
    assert (first.owner_id, first.skill_id, first.skill_version) == (
        owner.pk,
        deployment.skill_version.skill_id,
        deployment.skill_version.version,
    )


def test_a_rebuild_rebuilds_the_rollup(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    scripted(deployment, 40, batch_every=3)
    before = actual(deployment)
    TradeDailyPnl.objects.filter(deployment=deployment).update(realized_pnl_usd=Decimal("999"))  # corrupt it
    services.trade_history_rebuild(deployment_id=deployment.pk)
    assert actual(deployment) == before == expected(deployment)

"""Retention sweeps (beat): idempotency keys after 24 h, retrieval audits after their days, old snapshots' bars,
old served contexts."""

import datetime as dt
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.utils import timezone

from access.models import Elevation, IdempotencyKey
from ledger import services as ledger
from ledger import tasks as ledger_tasks
from ledger.models import DecisionSnapshot, ServedContext, TradeHistory
from memorysite import celery as site_tasks
from memorysite import retention
from signals import tasks as signals_tasks
from signals.models import Market, MemoryRetrievalAudit
from tests.factories import DeploymentFactory, UserFactory, token_client
from tests.workers import celery_worker, wait_until

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
HASH = "0" * 64


def _keys(owner, *ages_hours: float) -> None:
    now = timezone.now()
    for number, hours in enumerate(ages_hours):
        IdempotencyKey.objects.create(
            owner=owner, key=f"k{number}-{hours}", request_hash=HASH, created_at=now - dt.timedelta(hours=hours)
        )


def _audits(owner, *ages_days: float) -> None:
    market, _ = Market.objects.get_or_create(owner=owner, condition_id="0xabc")
    for days in ages_days:
        audit = MemoryRetrievalAudit.objects.create(owner=owner, market=market, success=True, duration_ms=Decimal(1))
        MemoryRetrievalAudit.objects.filter(pk=audit.pk).update(created_at=timezone.now() - dt.timedelta(days=days))


def _bars(closes: list[float]) -> list[dict]:
    return [{"t": f"b{i}", "o": c, "h": c, "l": c, "c": c, "v": 1} for i, c in enumerate(closes)]


TREND_UP = _bars([100 + i * 0.1 for i in range(12)])


def _ticks_with_bars(owner):
    """Four ticks with bars: a trade opens on the second and closes on the third; all materialized."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    api = token_client(owner)
    btc = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    for minutes, positions in enumerate([[], [btc], [], []]):
        at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
        body = {"tick_at": at, "equity_usd": 10_000, "positions": positions, "bars": {"BTC": TREND_UP}}
        response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
        assert response.status_code == 201, response.json()
    ledger.materialize_pending(deployment_id=deployment.pk)
    return deployment


def _age(snapshots, days: float) -> None:
    DecisionSnapshot.objects.filter(pk__in=[s.pk for s in snapshots]).update(
        created_at=timezone.now() - dt.timedelta(days=days)
    )


def _without_csrf(page: str) -> str:
    page = re.sub(r'"X-CSRFToken": "[^"]+"', "", page)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page)


def _ledger_view(deployment):
    trades = TradeHistory.objects.filter(deployment=deployment).order_by("entry_tick_at")
    return [
        (t.symbol, t.status, t.entry_tick_at, t.entry_price, t.entry_regime_tag, t.exit_tick_at, t.realized_pnl_usd)
        for t in trades
    ]


@pytest.mark.django_db
class TestTheSweeps:
    def test_it_deletes_only_keys_older_than_24_hours_of_every_trader(self, owner, other):
        _keys(owner, 1, 23.9, 24.1, 100)
        _keys(other, 25)
        assert site_tasks.expire_idempotency_keys() == 3
        assert sorted(IdempotencyKey.objects.values_list("owner__username", "key")) == [
            ("owner", "k0-1"),
            ("owner", "k1-23.9"),
        ]
        assert site_tasks.expire_idempotency_keys() == 0  # idempotent

    def test_it_deletes_retrieval_audits_past_their_retention_and_no_younger_one(self, owner, other, settings):
        assert settings.SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS == 90
        _audits(owner, 1, 89, 91, 400)
        _audits(other, 120)
        assert signals_tasks.expire_retrieval_audits() == 3
        assert MemoryRetrievalAudit.objects.count() == 2
        settings.SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS = 60  # changed: the next sweep follows it
        assert signals_tasks.expire_retrieval_audits() == 1
        assert signals_tasks.expire_retrieval_audits() == 0

    def test_each_sweep_is_audited_as_an_elevation(self, owner):
        before = Elevation.objects.count()
        site_tasks.expire_idempotency_keys()
        signals_tasks.expire_retrieval_audits()
        ledger_tasks.prune_snapshot_bars()
        ledger_tasks.prune_served_contexts()
        reasons = list(Elevation.objects.order_by("id").values_list("reason", flat=True)[before:])
        assert [reason.split(":")[0] for reason in reasons] == [
            "memorysite.expire_idempotency_keys",
            "signals.expire_retrieval_audits",
            "ledger.prune_snapshot_bars",
            "ledger.prune_served_contexts",
        ]

    def test_batches_are_bounded_and_the_total_is_every_row(self, owner):
        _keys(owner, *[30] * 7)
        batches = []

        def delete(picked):
            batches.append(picked.count())
            return picked.delete()[0]

        assert retention.in_batches(IdempotencyKey.objects.all(), delete, batch=3) == 7
        assert batches == [3, 3, 1]
        with pytest.raises(ValueError, match="batch: at least 1"):
            retention.in_batches(IdempotencyKey.objects.all(), delete, batch=0)


@pytest.mark.django_db
def test_it_drops_old_bars_but_keeps_the_ticks_that_opened_a_trade_and_the_ledger_rebuilds_the_same(owner, client):
    deployment = _ticks_with_bars(owner)
    snapshots = list(DecisionSnapshot.objects.filter(deployment=deployment).order_by("tick_at"))
    trade = TradeHistory.objects.get(deployment=deployment)
    assert trade.entry_snapshot_id == snapshots[1].pk and trade.entry_regime_tag == "trend_up_lowvol"
    ledger_before = _ledger_view(deployment)
    client.force_login(owner)
    page = client.get(f"/deployments/{deployment.pk}/trades/{trade.pk}/")
    assert page.status_code == 200
    detail_before = _without_csrf(page.content.decode())
    assert '<dd id="entry-bars">12 bars' in detail_before

    _age(snapshots[:3], days=settings.SNAPSHOT_BARS_RETENTION_DAYS + 1)  # the fourth is recent
    assert ledger_tasks.prune_snapshot_bars() == 2  # the first and the third; the second opened the trade
    held = {s.pk: s.bars is not None for s in DecisionSnapshot.objects.filter(deployment=deployment)}
    assert held == {snapshots[0].pk: False, snapshots[1].pk: True, snapshots[2].pk: False, snapshots[3].pk: True}
    kept = DecisionSnapshot.objects.get(pk=snapshots[2].pk)
    assert kept.positions == snapshots[2].positions and kept.marks == snapshots[2].marks
    assert kept.materialized_ops == snapshots[2].materialized_ops
    assert ledger_tasks.prune_snapshot_bars() == 0  # idempotent

    # The trade page shows the same; a rebuild from the stored ticks (the parity replay) gives the same ledger.
    after = client.get(f"/deployments/{deployment.pk}/trades/{trade.pk}/").content.decode()
    assert _without_csrf(after) == detail_before
    ledger.trade_history_rebuild(deployment_id=deployment.pk)
    assert _ledger_view(deployment) == ledger_before


@pytest.mark.django_db
def test_it_leaves_unmaterialized_ticks_whole(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    snapshot = DecisionSnapshot.objects.create(
        owner=owner, deployment=deployment, tick_at=T0, equity_usd=Decimal(1), bars={"BTC": TREND_UP}
    )
    _age([snapshot], days=365)
    assert ledger_tasks.prune_snapshot_bars() == 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_a_worker_runs_the_beat_sweeps(tmp_path, empty_queue):
    owner = UserFactory(username="swept")
    _keys(owner, 1, 48)
    _audits(owner, 10, 200)
    with celery_worker(tmp_path / "worker.log"):
        for task in (site_tasks.expire_idempotency_keys, signals_tasks.expire_retrieval_audits):
            task.apply_async()
        wait_until(
            lambda: IdempotencyKey.objects.count() == 1 and MemoryRetrievalAudit.objects.count() == 1,
            message="the sweeps to run",
            details=(tmp_path / "worker.log").read_text,
        )
    assert set(settings.CELERY_BEAT_SCHEDULE) >= {
        "retention-idempotency-keys",
        "retention-retrieval-audits",
        "retention-snapshot-bars",
        "retention-served-contexts",
    }
    assert {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()} >= {
        "memorysite.expire_idempotency_keys",
        "signals.expire_retrieval_audits",
        "ledger.prune_snapshot_bars",
        "ledger.prune_served_contexts",
    }


def _served_around_trades(owner):
    """A context read before every tick, and after the last: ticks at 0..4 min, a trade opened by the first tick
    (so the read before any tick is its entry's) and another by the fourth (the read as of minute 2 is its)."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    api = token_client(owner)
    btc = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    eth = {"symbol": "ETH", "side": "long", "size": 1, "mark_price": 3000}
    for minutes, positions in enumerate([[btc], [], [], [eth], [eth]]):
        assert api.get(f"/api/v1/deployments/{deployment.pk}/context/").status_code == 200
        at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
        body = {"tick_at": at, "equity_usd": 10_000, "positions": positions}
        assert api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json").status_code == 201
    assert api.get(f"/api/v1/deployments/{deployment.pk}/context/").status_code == 200
    ledger.materialize_pending(deployment_id=deployment.pk)
    return deployment


def _as_ofs(deployment) -> list[float | None]:
    """The minutes (after T0) of the deployment's served contexts' as-of ticks, None (before any tick) first."""
    at = ServedContext.objects.filter(deployment=deployment).values_list("as_of_tick_at", flat=True)
    minutes = [(tick - T0).total_seconds() / 60 if tick else None for tick in at]
    return sorted(minutes, key=lambda m: -1 if m is None else m)


@pytest.mark.django_db
def test_it_deletes_old_served_contexts_but_keeps_those_before_a_trades_entry(owner, other, client):
    deployment = _served_around_trades(owner)
    others = _served_around_trades(other)
    trades = TradeHistory.objects.filter(deployment=deployment).order_by("entry_tick_at")
    assert [(t.symbol, (t.entry_tick_at - T0).total_seconds() / 60) for t in trades] == [("BTC", 0), ("ETH", 3)]
    assert _as_ofs(deployment) == [None, 0, 1, 2, 3, 4]  # before the first tick, then as of each of the five
    client.force_login(owner)
    pages_before = [client.get(f"/deployments/{deployment.pk}/trades/{t.pk}/").content.decode() for t in trades]
    assert all('id="served-memory"' in page or 'id="served-system-prompt"' in page for page in pages_before)

    old = timezone.now() - dt.timedelta(days=settings.SERVED_CONTEXT_RETENTION_DAYS + 1)
    ServedContext.objects.exclude(as_of_tick_at=T0 + dt.timedelta(minutes=4)).update(served_at=old)  # one recent
    assert ledger_tasks.prune_served_contexts() == 6  # as of 0, 1 and 3 min, of each trader
    assert _as_ofs(deployment) == [None, 2, 4]  # BTC's entry's, ETH's entry's, the recent one
    assert ServedContext.objects.filter(deployment=others).count() == 3
    assert ledger_tasks.prune_served_contexts() == 0  # idempotent

    # The trade pages show the same contexts (their served time aged above).
    pages_after = [client.get(f"/deployments/{deployment.pk}/trades/{t.pk}/").content.decode() for t in trades]
    assert [_served_section(page) for page in pages_after] == [_served_section(page) for page in pages_before]


def _served_section(page: str) -> str:
    section = re.search(r'<section [^>]*id="served-context">.*?</section>', page, re.DOTALL).group(0)
    return re.sub(r'<dd id="served-at">[^<]*</dd>', "", section)


@pytest.mark.django_db
def test_served_contexts_younger_than_the_retention_are_kept_and_it_follows_the_setting(owner, settings):
    deployment = _served_around_trades(owner)
    assert settings.SERVED_CONTEXT_RETENTION_DAYS == 30
    ServedContext.objects.update(served_at=timezone.now() - dt.timedelta(days=29))
    assert ledger_tasks.prune_served_contexts() == 0
    settings.SERVED_CONTEXT_RETENTION_DAYS = 7  # changed: the next sweep follows it
    assert ledger_tasks.prune_served_contexts() == 4  # as of 0, 1, 3 and 4 min: no trade opened on the next tick
    assert _as_ofs(deployment) == [None, 2]

"""Celery materializes ticks strictly in tick order, exactly once in effect, whatever happens.

Real worker processes on the real Redis broker and the test database; expected rows come from
the pure materializer run over the same tick bodies (one clean pass).
"""

import datetime as dt
import json
import os
import signal
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings

from ledger import services
from ledger.domain import tick_from_payload
from ledger.materializer import MaterializeContext, apply_ops, reconcile_portfolio_delta
from ledger.models import DecisionSnapshot, TradeHistory
from ledger.tasks import materialize_deployment
from memorysite.queues import TICKS
from tests.factories import account_key
from tests.workers import celery_worker, database_url_of_test_db, kind_queue, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("empty_queue")]
T0 = dt.datetime(2026, 6, 4, 23, 0, tzinfo=dt.UTC)


def tick_bodies(count: int) -> list[dict]:
    """A scripted stream over two symbols: opens, adds, reductions, flips, closes."""
    bodies = []
    for n in range(count):
        btc_size = [0, 1, 2, 1, 0, 0.5, -1, -2, 0, 1][n % 10]
        eth_size = [0, 0, 3, 3, 1, 0, 0, 2, 2, 0][(n * 3) % 10]
        mark_btc, mark_eth = 100 + (n * 7) % 13, 50 + (n * 5) % 11
        positions = [
            {"symbol": s, "side": "long" if size > 0 else "short", "size": abs(size), "mark_price": mark}
            for s, size, mark in (("BTC", btc_size, mark_btc), ("ETH", eth_size, mark_eth))
            if size
        ]
        bodies.append(
            {
                "tick_at": (T0 + dt.timedelta(minutes=5 * n)).isoformat(),
                "equity_usd": 10_000 + n,
                "positions": positions,
                "marks": {"BTC": mark_btc, "ETH": mark_eth},
                "proposed_action": {"kind": "propose_order", "reason": f"step {n}"},
                "engine": {"kind": "executed" if n % 3 else "rejected", "rule": "R3_POSITION_CAP"},
            }
        )
    return bodies


def expected_rows(bodies):
    state, closed = {}, []
    for n, body in enumerate(bodies):
        payload = {k: v for k, v in body.items() if k != "tick_at"}
        tick = tick_from_payload(str(n), dt.datetime.fromisoformat(body["tick_at"]), payload)
        state, newly_closed = apply_ops(
            state, reconcile_portfolio_delta(state, tick.positions, MaterializeContext(tick))
        )
        closed.extend(newly_closed)
    closed_rows = sorted((c.symbol, c.side, c.entry_tick_at, c.exit_tick_at, c.realized_pnl_usd) for c in closed)
    open_rows = sorted((t.symbol, t.side, t.entry_tick_at, t.size_base, t.mfe_usd, t.mae_usd) for t in state.values())
    return closed_rows, open_rows


def actual_rows(deployment):
    trades = TradeHistory.objects.filter(deployment=deployment)
    closed = sorted(
        trades.filter(status="closed").values_list(
            "symbol", "side", "entry_tick_at", "exit_tick_at", "realized_pnl_usd"
        )
    )
    opened = sorted(
        trades.filter(status="open").values_list("symbol", "side", "entry_tick_at", "size_base", "mfe_usd", "mae_usd")
    )
    return closed, opened


def post_all(api, deployment, bodies):
    for body in bodies:
        response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
        assert response.status_code == 201, response.json()


def caught_up(deployment) -> bool:
    deployment.refresh_from_db()
    return deployment.materialized_through == deployment.latest_tick_at


def test_a_worker_materializes_posted_ticks_in_order(owner_api, deployment, tmp_path):
    bodies = tick_bodies(40)
    with celery_worker(tmp_path / "worker.log"):
        post_all(owner_api, deployment, bodies)
        wait_until(lambda: caught_up(deployment), message="the worker to materialize every tick")
    assert actual_rows(deployment) == expected_rows(bodies)
    assert not DecisionSnapshot.objects.filter(deployment=deployment, materialized_at__isnull=True).exists()


def test_two_workers_at_once_and_redelivered_tasks_leave_one_clean_pass(owner_api, deployment, tmp_path):
    bodies = tick_bodies(60)
    with celery_worker(tmp_path / "w1.log", concurrency=2), celery_worker(tmp_path / "w2.log", concurrency=2):
        post_all(owner_api, deployment, bodies)
        for _ in range(20):  # redeliveries: the same task again and again
            materialize_deployment.delay(deployment.pk)
        wait_until(lambda: caught_up(deployment), message="the workers to catch up")
        results = [
            materialize_deployment.apply_async(args=[deployment.pk], ignore_result=False).get(timeout=60)
            for _ in range(3)
        ]
    assert results == [0, 0, 0]  # nothing left to apply
    assert actual_rows(deployment) == expected_rows(bodies)


def test_a_worker_killed_mid_write_leaves_nothing_half_written(owner_api, deployment, tmp_path):
    bodies = tick_bodies(30)
    post_all(owner_api, deployment, bodies[:20])  # queued; no worker yet
    blocker = psycopg.connect(database_url_of_test_db(), autocommit=False)
    try:
        # Reads go on; the first write to trade_history waits: the worker is stopped mid-transaction.
        blocker.execute("LOCK TABLE trade_history IN SHARE MODE")
        with celery_worker(tmp_path / "killed.log") as worker:
            materialize_deployment.delay(deployment.pk)  # work for it even if the tick's task is held back
            log = tmp_path / "killed.log"
            wait_until(
                lambda: _waiting_on_lock(blocker), message="the worker to block mid-write", details=log.read_text
            )
            os.kill(worker.pid, signal.SIGKILL)
            worker.wait(timeout=10)
    finally:
        blocker.rollback()
        blocker.close()
    deployment.refresh_from_db()
    assert deployment.materialized_through is None  # the killed transaction was rolled back whole
    assert not TradeHistory.objects.filter(deployment=deployment).exists()
    with celery_worker(tmp_path / "fresh.log"):
        post_all(owner_api, deployment, bodies[20:])  # the next tick's task catches up everything
        wait_until(lambda: caught_up(deployment), message="a fresh worker to catch up")
    assert actual_rows(deployment) == expected_rows(bodies)


def _waiting_on_lock(blocker) -> bool:
    # The blocker is inside its transaction, where pg_stat_activity is a snapshot taken at first
    # read: clear it, or every poll sees the state of the first one.
    blocker.execute("SELECT pg_stat_clear_snapshot()")
    rows = blocker.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()"
    ).fetchone()
    return rows[0] > 0


REDIS_DOWN_SCRIPT = """
import json, sys
import django
django.setup()
from django.test import Client
client = Client(HTTP_AUTHORIZATION="Token " + sys.argv[1], HTTP_HOST="localhost")
for body in json.loads(sys.argv[3]):
    response = client.post(f"/api/v1/deployments/{sys.argv[2]}/ticks/", body, content_type="application/json")
    assert response.status_code == 201, response.content
health = client.get("/healthz")
print(health.status_code, json.dumps(health.json(), sort_keys=True))
"""


def test_ticks_are_accepted_and_materialized_inline_when_redis_is_down(owner, deployment, tmp_path):
    """A service process whose Redis is gone: every tick is still a 201 and is materialized."""
    token = account_key(owner)
    bodies = tick_bodies(5)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memorysite.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": f"unix://{tmp_path}/stopped-redis.sock?db=0",
    }
    result = subprocess.run(
        [sys.executable, "-c", REDIS_DOWN_SCRIPT, token, str(deployment.pk), json.dumps(bodies)],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    status, health = result.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "503"
    assert json.loads(health)["down"] == ["redis"]
    assert caught_up(deployment)
    assert actual_rows(deployment) == expected_rows(bodies)


def test_reads_catch_up_inline_with_no_worker(owner_api, deployment):
    bodies = tick_bodies(12)
    post_all(owner_api, deployment, bodies)
    assert not caught_up(deployment)  # queued for a worker that is not running
    response = owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/")
    assert response.status_code == 200
    assert caught_up(deployment)
    assert actual_rows(deployment) == expected_rows(bodies)


def test_materializing_again_changes_nothing(owner_api, deployment):
    bodies = tick_bodies(15)
    post_all(owner_api, deployment, bodies)
    assert services.materialize_pending(deployment_id=deployment.pk) == 15
    before = list(TradeHistory.objects.filter(deployment=deployment).order_by("id").values())
    assert services.materialize_pending(deployment_id=deployment.pk) == 0
    assert list(TradeHistory.objects.filter(deployment=deployment).order_by("id").values()) == before


def test_a_burst_of_ticks_queues_one_task_that_applies_them_all(owner_api, deployment, tmp_path):
    from memorysite.redis import client as redis_client

    bodies = tick_bodies(25)
    post_all(owner_api, deployment, bodies)
    assert redis_client().llen(kind_queue(TICKS)) == 1
    with celery_worker(tmp_path / "worker.log"):
        wait_until(lambda: caught_up(deployment), message="one task to apply the burst")
    assert actual_rows(deployment) == expected_rows(bodies)

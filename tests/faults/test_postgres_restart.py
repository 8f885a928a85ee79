"""PostgreSQL stopped with `pg_ctl stop -m immediate` (a crash, as far as clients can tell) under
load, then started again, while the service keeps running.

Everything here is this test's own: an embedded PostgreSQL and Redis under tmp_path (set up by the
same code as `make run`: EmbeddedServices, the launcher's `manage.py migrate`), and the service
itself as gunicorn, as the launcher runs it. Threads post ticks all along. Afterwards every tick
that got a 2xx is in the database, and the same gunicorn answers 2xx again, unrestarted.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import psycopg
import pytest

from memorysite import launcher
from memorysite.embedded import import_postgres
from tests.faults.support import private_servers, server_of

pytestmark = pytest.mark.slow

RUNNERS = 4  # concurrent tick posters, one deployment each (ticks of one deployment are ordered)
T0 = dt.datetime(2026, 6, 4, 0, 0, tzinfo=dt.UTC)
OUTAGE_S = 3.0
PASSWORD = "faults-password-1"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def service_environment(*services) -> dict[str, str]:
    """The launcher's environment for its children: the servers' URLs (whatever roles they name)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DATABASE_", "REDIS_", "TEST_"))}
    for each in services:
        env.update(each.environment())
    env["DJANGO_SETTINGS_MODULE"] = "memorysite.settings"
    return env


@contextlib.contextmanager
def gunicorn(env: dict[str, str], port: int, log_path: Path):
    """The web server as the launcher starts it (its own process group, dies with us)."""
    argv = [
        sys.executable, "-m", "gunicorn", "memorysite.wsgi", "--bind", f"127.0.0.1:{port}",
        "--workers", "2", "--threads", "4", "--access-logfile", "-", "--graceful-timeout", "5",
    ]  # fmt: skip
    with log_path.open("a") as log:
        process = subprocess.Popen(
            argv, cwd=launcher.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
            process_group=0, preexec_fn=launcher._die_with_parent,
        )  # fmt: skip
    try:
        launcher._wait_until_healthy(f"http://127.0.0.1:{port}/healthz", {"web": process})
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@dataclass(frozen=True)
class Outcome:
    started: float  # time.monotonic() when the request was sent
    tick_at: dt.datetime
    result: int | str  # the status code, or the client's error

    @property
    def accepted(self) -> bool:
        return isinstance(self.result, int) and 200 <= self.result < 300


@dataclass
class Runner:
    """Posts ticks of one deployment, one after another, each later than the last; records outcomes."""

    http: httpx2.Client
    deployment_id: int
    outcomes: list[Outcome] = field(default_factory=list)

    def run(self, stop: threading.Event) -> None:
        n = 0
        while not stop.is_set():
            tick_at = T0 + dt.timedelta(minutes=n)
            n += 1
            size = [0, 1, 2, 1, 0][n % 5]
            body = {
                "tick_at": tick_at.isoformat(),
                "equity_usd": 10_000 + n,
                "positions": [{"symbol": "BTC", "side": "long", "size": size, "mark_price": 100 + n % 7}]
                if size
                else [],
                "marks": {"BTC": 100 + n % 7},
                "proposed_action": {"kind": "propose_order", "reason": f"step {n}"},
                "engine": {"kind": "executed"},
            }
            started = time.monotonic()
            try:
                response = self.http.post(f"/api/v1/deployments/{self.deployment_id}/ticks/", json=body)
                self.outcomes.append(Outcome(started, tick_at, response.status_code))
            except httpx2.HTTPError as exc:
                self.outcomes.append(Outcome(started, tick_at, type(exc).__name__))
                time.sleep(0.05)

    def accepted_since(self, since: float) -> int:
        return sum(1 for outcome in self.outcomes if outcome.started >= since and outcome.accepted)


def wait_for(predicate, timeout: float, message: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message}")
        time.sleep(0.05)


def stop_immediately(services) -> None:
    """`pg_ctl stop -m immediate`: every backend killed, no checkpoint; recovery on the next start."""
    postgres = server_of(services, "postgres")
    import_postgres("_commands").pg_ctl(
        ["-w", "-m", "immediate", "stop"], pgdata=postgres.pgdata, user=postgres.system_user, timeout=60
    )
    assert not postgres.healthy()


def test_every_acknowledged_tick_survives_an_immediate_postgres_restart(tmp_path):
    with (
        private_servers(tmp_path / "pg", postgres=True) as database,
        private_servers(tmp_path / "redis", redis=True) as broker,  # no worker: ticks queue, reads catch up
    ):
        env = service_environment(database, broker)
        launcher._manage(env, "migrate", "--noinput")
        launcher._manage(
            env, "shell", "-c",
            f"from django.contrib.auth import get_user_model; get_user_model().objects.create_user('faults', password='{PASSWORD}')",
        )  # fmt: skip
        token = launcher._manage(env, "issue_token", "faults").strip()
        port = free_port()
        with (
            gunicorn(env, port, tmp_path / "web.log") as web,
            httpx2.Client(
                base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Token {token}"}, timeout=30
            ) as http,
        ):
            skill = http.post("/api/v1/skills/", json={"name": "faults", "strategy_text": "Buy dips."})
            assert skill.status_code == 201, skill.text
            deployments = [
                http.post("/api/v1/deployments/", json={"skill_id": skill.json()["id"], "mode": "paper"}).json()["id"]
                for _ in range(RUNNERS)
            ]
            runners = [Runner(http, deployment_id) for deployment_id in deployments]
            stop = threading.Event()
            threads = [threading.Thread(target=runner.run, args=(stop,), daemon=True) for runner in runners]
            for thread in threads:
                thread.start()
            try:
                wait_for(lambda: all(r.accepted_since(0) >= 10 for r in runners), 60, "load before the crash")
                crashed_at = time.monotonic()
                stop_immediately(database)
                time.sleep(OUTAGE_S)  # the runners keep posting into the outage
                database.start()  # the same data directory: crash recovery, then the same sockets
                back_at = time.monotonic()
                wait_for(lambda: all(r.accepted_since(back_at) >= 10 for r in runners), 60, "ticks accepted again")
            finally:
                stop.set()
                for thread in threads:
                    thread.join(timeout=60)
            assert web.poll() is None  # the same gunicorn, never restarted
            outcomes = [outcome for runner in runners for outcome in runner.outcomes]
            assert any(crashed_at <= o.started < back_at for o in outcomes)  # posting went on into the outage
            assert any(not o.accepted for o in outcomes)  # and it was felt: writes in flight failed
            for runner in runners:  # recovery is complete, not intermittent
                assert all(o.accepted for o in runner.outcomes[-5:]), runner.outcomes[-10:]
            assert http.get("/healthz").status_code == 200
            for deployment_id in deployments:  # reads answer, catching up every stored tick inline
                assert http.get(f"/api/v1/deployments/{deployment_id}/trades/").status_code == 200

        owner_url = env.get("DATABASE_MIGRATE_URL") or env["DATABASE_URL"]  # the owner sees every row
        with psycopg.connect(owner_url) as conn:
            for runner in runners:
                stored = {
                    at
                    for (at,) in conn.execute(
                        "SELECT tick_at FROM decision_snapshots WHERE deployment_id = %s", [runner.deployment_id]
                    )
                }
                lost = sorted({o.tick_at for o in runner.outcomes if o.accepted} - stored)
                assert lost == [], f"deployment {runner.deployment_id}: acknowledged ticks missing: {lost}"
                latest, through = conn.execute(
                    "SELECT latest_tick_at, materialized_through FROM deployments WHERE id = %s",
                    [runner.deployment_id],
                ).fetchone()
                assert latest == max(stored) == through  # the ledger caught up with every stored tick

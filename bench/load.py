"""Load: a mixed runner workload for 1,000 deployments across 50 traders, with and without RLS.

    .venv/bin/python bench/load.py [--seconds 40] [--threads 4] [--before REV|self] [--traders 50]
                                   [--deployments 20] [--smoke]

Two gunicorns serve one benchmark database side by side:
- "rls": this checkout, connected as the app role (row-level security, the request transaction
  and its scope statement: what ships);
- "before": the last commit before row-level security (`--before`, default PRE_RLS_REVISION),
  checked out into a temporary git worktree and connected as the tables' owner — the service as
  it was. `--before self` (the smoke run's) serves this checkout there instead, still as the owner:
  no worktree, and its ratios say only what the owner's bypass of row-level security saves.
Every operation is sent to both, in alternating order, by client threads that each own a slice
of the deployments (ticks of one deployment stay in order): POST a tick (50%), GET the agent's
context (35%), GET the trades (5%), GET the trader's home page with a session (10%). Afterwards
it checks: zero 5xx (any unexpected status fails the run), zero cross-trader rows (every
deployment list is exactly the trader's; another trader's context is a 404; every snapshot and
trade row belongs to its deployment's trader), and prints p50/p95 per endpoint and server with
the rls/before ratios.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import REPO, BenchRun, Client, parse_args, percentile, print_table, spawn

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"seconds": 3.0, "threads": 2, "traders": 4, "deployments": 3, "before": "self"}

# The last commit before row-level security (issue 9): the "before" server runs this code.
PRE_RLS_REVISION = "5ded33d"
SELF = "self"  # --before self: this checkout (as the owner) instead of an old tree
GIT = shutil.which("git") or "git"
TRADERS = 50
DEPLOYMENTS_PER_TRADER = 20
T0 = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
OPERATIONS = [("tick", 50), ("context", 35), ("trades", 5), ("page", 10)]


# The "before" server authenticates with DRF's authtoken table, which this checkout's migrations replaced
# (accounts/): the benchmark gives it one back, with a key of its own per trader.
LEGACY_AUTH_TABLE_SQL = (
    "CREATE TABLE IF NOT EXISTS authtoken_token (key varchar(40) PRIMARY KEY, created timestamptz NOT NULL, "
    "user_id integer NOT NULL UNIQUE REFERENCES auth_user (id))"
)


def seed(n_traders: int, per_trader: int, legacy: bool) -> dict:
    """Traders with tokens (one per server) and sessions, `per_trader` deployments each (as the owner role, in bulk).
    legacy: the "before" server is the old tree (its own authtoken key and database session); else it is this
    checkout and uses the same token and session as "rls"."""
    import secrets

    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends import cache, db
    from django.db import connection
    from django.utils import timezone

    from accounts.services import account_token_create
    from ledger.models import Deployment, Skill, SkillVersion

    if legacy:
        with connection.cursor() as cursor:
            cursor.execute(LEGACY_AUTH_TABLE_SQL)

    traders = {}
    for n in range(n_traders):
        user = get_user_model().objects.create_user(f"trader{n:02d}", password="x")  # noqa: S106
        skill = Skill.objects.create(owner=user, name="Trend")
        version = SkillVersion.objects.create(owner=user, skill=skill, version=1, strategy_text="Follow the trend.")
        deployments = Deployment.objects.bulk_create(
            [Deployment(owner=user, skill_version=version, mode="sim") for _ in range(per_trader)]
        )
        sessions = {}
        # This checkout keeps sessions on Redis; the "before" tree kept them in its database.
        for server, store in (("rls", cache.SessionStore), ("before", db.SessionStore if legacy else None)):
            if store is None:
                sessions[server] = sessions["rls"]
                continue
            session = store()
            session[SESSION_KEY] = str(user.pk)
            session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
            session[HASH_SESSION_KEY] = user.get_session_auth_hash()
            session.create()
            sessions[server] = session.session_key
        token = account_token_create(owner=user, name="load", now=timezone.now())[1]
        before_token = token
        if legacy:
            before_token = secrets.token_hex(20)
            with connection.cursor() as cursor:
                cursor.execute("INSERT INTO authtoken_token VALUES (%s, now(), %s)", [before_token, user.pk])
        traders[user.pk] = {
            "tokens": {"rls": token, "before": before_token},
            "sessions": sessions,
            "deployments": [d.pk for d in deployments],
        }
    return traders


def start_before(run: BenchRun, revision: str, worktree: Path):
    if revision == SELF:
        worktree = REPO
    else:
        subprocess.run([GIT, "worktree", "add", "--detach", str(worktree), revision], cwd=REPO, check=True)
        # The same benchmark settings as the "rls" server (the old tree's may predate what this run needs).
        shutil.copy(REPO / "bench" / "_floor_settings.py", worktree / "bench" / "_floor_settings.py")
    env = {**run.env, "DATABASE_URL": run.env["DATABASE_MIGRATE_URL"], "PYTHONPATH": str(worktree)}
    env.pop("DATABASE_MIGRATE_URL")
    from bench._harness import free_port

    port = free_port()
    argv = [
        sys.executable, "-m", "gunicorn", "memorysite.wsgi", "--chdir", str(worktree),
        "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "4",
        "--keep-alive", "75", "--timeout", "120", "--log-level", "warning", "--error-logfile", "-",
    ]  # fmt: skip
    # Started in the old tree: `python -m` imports from its working directory first (gunicorn loads the
    # app before it applies --chdir), and gunicorn reads gunicorn.conf.py from there (the old tree has none).
    child = spawn("load-before-gunicorn", argv, env, port=port, cwd=worktree)
    run.children.append(child)
    run._wait_healthy(child)
    return child


class Worker(threading.Thread):
    def __init__(self, index: int, slice_: list[tuple[int, int]], traders: dict, ports: dict, until: float, seed_: int):
        super().__init__(daemon=True)
        self.slice, self.traders, self.ports, self.until = slice_, traders, ports, until
        self.rng = random.Random(seed_)
        self.ticks = {deployment: 0 for _, deployment in slice_}
        self.timings: dict[tuple[str, str], list[float]] = {}
        self.clients: dict[tuple[str, int], Client] = {}
        self.error: BaseException | None = None
        self.index = index

    def client(self, server: str, trader: int, page: bool = False) -> Client:
        key = (server + ("-page" if page else ""), trader)
        if key not in self.clients:
            info = self.traders[trader]
            client = Client(self.ports[server], None if page else info["tokens"][server])
            if page:
                client.headers["Cookie"] = f"sessionid={info['sessions'][server]}"
                client.headers["Accept"] = "text/html"
            self.clients[key] = client
        return self.clients[key]

    def run(self) -> None:
        try:
            names = [name for name, weight in OPERATIONS for _ in range(weight)]
            round_no = 0
            while time.monotonic() < self.until:
                trader, deployment = self.rng.choice(self.slice)
                operation = self.rng.choice(names)
                order = ("rls", "before") if round_no % 2 else ("before", "rls")
                round_no += 1
                for server in order:
                    self.one(server, operation, trader, deployment)
        except BaseException as exc:  # reported by the main thread
            self.error = exc
        finally:
            for client in self.clients.values():
                client.close()

    def one(self, server: str, operation: str, trader: int, deployment: int) -> None:
        base = f"/api/v1/deployments/{deployment}"
        if operation == "tick":
            self.ticks[deployment] += 1
            at = T0 + dt.timedelta(minutes=self.ticks[deployment])
            size = [0, 0.01, 0.02][self.ticks[deployment] % 3]
            body = {
                "tick_at": at.isoformat(),
                "equity_usd": 10_000,
                "positions": [{"symbol": "BTC", "side": "long", "size": size, "mark_price": 65_000}] if size else [],
            }
            elapsed, _ = self.client(server, trader).request("POST", f"{base}/ticks/", body, expect=(200, 201))
        elif operation == "context":
            elapsed, payload = self.client(server, trader).request("GET", f"{base}/context/")
            assert "text" in json.loads(payload), payload[:200]
        elif operation == "trades":
            elapsed, payload = self.client(server, trader).request("GET", f"{base}/trades/")
        else:
            elapsed, _ = self.client(server, trader, page=True).request("GET", "/")
        self.timings.setdefault((operation, server), []).append(elapsed)


def isolation_checks(traders: dict, ports: dict) -> list[str]:
    """Cross-trader reads through both servers, and ownership of every row written (as the owner)."""
    from django.db import connection

    failures = []
    ids = list(traders)
    for server, port in ports.items():
        for n, trader in enumerate(ids):
            client = Client(port, traders[trader]["tokens"][server])
            try:
                _, payload = client.request("GET", "/api/v1/deployments/?limit=100")
                listed = {row["id"] for row in json.loads(payload)["results"]}
                if listed != set(traders[trader]["deployments"]):
                    failures.append(
                        f"{server}: trader {trader} lists {sorted(listed - set(traders[trader]['deployments']))}"
                    )
                foreign = traders[ids[(n + 1) % len(ids)]]["deployments"][0]
                client.request("GET", f"/api/v1/deployments/{foreign}/context/", expect=(404,))
            finally:
                client.close()
    with connection.cursor() as cursor:
        for table in ("decision_snapshots", "trade_history"):
            cursor.execute(
                f"SELECT count(*) FROM {table} t JOIN deployments d ON d.id = t.deployment_id "  # noqa: S608
                "WHERE t.owner_id <> d.owner_id"
            )
            (wrong,) = cursor.fetchone()
            if wrong:
                failures.append(f"{table}: {wrong} rows owned by another trader than their deployment's")
    return failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument(
        "--before",
        default=PRE_RLS_REVISION,
        help=f"the commit the 'before' server runs ('{SELF}': this checkout, as the owner, no worktree)",
    )
    parser.add_argument("--traders", type=int, default=TRADERS)
    parser.add_argument("--deployments", type=int, default=DEPLOYMENTS_PER_TRADER, help="per trader")
    args = parse_args(parser, argv, SMOKE)
    worktree = Path(tempfile.mkdtemp(prefix="load-before-")) / "tree"
    try:
        with BenchRun("load") as run:
            started = time.monotonic()
            traders = seed(args.traders, args.deployments, legacy=args.before != SELF)
            print(
                f"seeded {args.traders} traders x {args.deployments} deployments in {time.monotonic() - started:.1f}s;"
                f" the 'before' server runs {args.before}"
            )
            ports = {"rls": run.start_gunicorn(workers=1, threads=4).port}
            ports["before"] = start_before(run, args.before, worktree).port
            pairs = [(trader, d) for trader, info in traders.items() for d in info["deployments"]]
            slices = [pairs[i :: args.threads] for i in range(args.threads)]
            until = time.monotonic() + args.seconds
            workers = [Worker(i, slices[i], traders, ports, until, seed_=i) for i in range(args.threads)]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            errors = [worker.error for worker in workers if worker.error is not None]
            if errors:
                raise errors[0]
            timings: dict[tuple[str, str], list[float]] = {}
            for worker in workers:
                for key, values in worker.timings.items():
                    timings.setdefault(key, []).extend(values)
            rows = []
            for operation, _ in OPERATIONS:
                before, rls = timings.get((operation, "before"), []), timings.get((operation, "rls"), [])
                if not before or not rls:
                    continue
                b50, b95 = percentile(before, 50), percentile(before, 95)
                r50, r95 = percentile(rls, 50), percentile(rls, 95)
                rows.append(
                    [operation, len(rls), f"{b50 * 1000:.2f}", f"{b95 * 1000:.2f}", f"{r50 * 1000:.2f}",
                     f"{r95 * 1000:.2f}", f"{r50 / b50:.2f}", f"{r95 / b95:.2f}"]
                )  # fmt: skip
            total = sum(len(values) for values in timings.values())
            print(f"\n{total} requests in {args.seconds:.0f}s, {args.threads} threads, all 2xx (else it fails)")
            print_table(
                [
                    "endpoint",
                    "n each",
                    "before p50 ms",
                    "before p95",
                    "rls p50 ms",
                    "rls p95",
                    "p50 ratio",
                    "p95 ratio",
                ],
                rows,
            )
            failures = isolation_checks(traders, ports)
            print(f"\ncross-trader rows or reads: {len(failures)}")
            for failure in failures:
                print("  " + failure)
            return 1 if failures else 0
    finally:
        subprocess.run([GIT, "worktree", "remove", "--force", str(worktree)], cwd=REPO, capture_output=True)
        shutil.rmtree(worktree.parent, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

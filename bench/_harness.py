"""Helpers shared by the benchmarks (a helper, not a benchmark: `make bench` skips files starting with `_`).

A benchmark run:

    with BenchRun("context_latency") as run:    # servers up, database recreated, Django set up, migrated
        ...seed rows with the ORM...
        web = run.start_gunicorn()               # on a free loopback port, bench settings, bench database
        client = Client(web.port, token)         # one keep-alive connection
        ...interleave requests, print_table(...), ratios...

Servers: the embedded PostgreSQL and Redis are started with EmbeddedServices.for_unset_urls()
on a data directory of the benchmarks' own (bench/.data, ignored by git; BENCH_DATA_DIR to
change it), so a benchmark neither depends on nor stops the servers a `make run` or a test
session in this checkout owns. With DATABASE_URL / REDIS_URL set those servers are used
instead; the benchmark database is still its own (dropped and recreated each run), and Celery
traffic goes to its own Redis database and queue (bench/_floor_settings.py).

Database: each run gets `memory_bench_<name>`, dropped and recreated. Migrating from scratch takes
5-15 s here, so the first run migrates and keeps a copy, `memory_bench_template_<digest>` (the digest
names every migration and its file's bytes); later runs clone it (CREATE DATABASE ... TEMPLATE,
under a second) and run `migrate` on the clone, which applies nothing but installs the row-level
security policies and the seal key for this run's SECRET_KEY, as a fresh database would have them.

Smoke mode (`--smoke`, or BENCH_SMOKE=1; `parse_args`): each script's tiny sizes, a few seconds of
work, so `make test` (tests/bench/test_smoke.py) proves every benchmark still runs against today's
code. Its figures mean nothing and it says so; the full runs stay manual (`make bench`).

Where the time goes: `run.statements.reset()` before a measured phase and
`run.statements.report("title")` after it print the run database's top statements by total
execution time from pg_stat_statements (preloaded by the embedded server and compose; a server
without it prints one line saying so).

Clean-up: child processes (gunicorn, celery) run in their own process groups, get SIGTERM from
the kernel if this process dies (PR_SET_PDEATHSIG), and are stopped, then the servers this
process started, on every exit path: return, exception, Ctrl-C, SIGTERM, SIGHUP (try/finally
plus atexit).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import fcntl
import gc
import hashlib
import http.client
import json
import math
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from memorysite.embedded import EmbeddedServices  # noqa: E402

DATA_DIR = Path(os.environ.get("BENCH_DATA_DIR") or REPO / "bench" / ".data")
LOG_DIR = DATA_DIR / "logs"
SETTINGS_MODULE = "bench._floor_settings"
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 20.0
_PR_SET_PDEATHSIG = 1


SMOKE_ENV = "BENCH_SMOKE"
_smoke = False  # this run is a smoke run (parse_args)
TEMPLATE_PREFIX = "memory_bench_template_"


class BenchError(RuntimeError):
    pass


# -- smoke mode ------------------------------------------------------------------------------------


def parse_args(parser: argparse.ArgumentParser, argv: Sequence[str] | None, smoke: dict) -> argparse.Namespace:
    """The script's arguments; with --smoke (or BENCH_SMOKE=1) `smoke` gives the defaults (tiny sizes), and flags
    given on the command line still win."""
    parser.add_argument(
        "--smoke",
        action="store_true",
        default=os.environ.get(SMOKE_ENV, "") not in ("", "0"),
        help=f"tiny sizes, seconds: does the benchmark still run? (make test; also {SMOKE_ENV}=1). Figures mean"
        " nothing",
    )
    if parser.parse_known_args(argv)[0].smoke:
        parser.set_defaults(**smoke)
    args = parser.parse_args(argv)
    global _smoke
    _smoke = args.smoke
    if args.smoke:
        print("SMOKE run (tiny sizes): it checks that the benchmark runs; its figures mean nothing", flush=True)
    return args


# -- numbers and tables --------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0-100) with linear interpolation between closest ranks."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for index, row in enumerate(cells):
        print("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(row)))
        if index == 0:
            print("  ".join("-" * w for w in widths))


def pcts(values: Sequence[float]) -> tuple[float, float, float]:
    return percentile(values, 50), percentile(values, 95), percentile(values, 99)


def timing_cells(values: Sequence[float], ps: Sequence[float] = (50, 95, 99)) -> list[str]:
    """The table cells of a series of seconds: each percentile of ps, then the mean, in ms."""
    return [*(ms(percentile(values, p)) for p in ps), ms(sum(values) / len(values))]


def ratio_line(label: str, value: float, goal: float, unit: str = "") -> str:
    verdict = "ok" if value <= goal else f"MISSED by {value / goal:.2f}x"
    return f"{label:<52} {value:7.2f}{unit}   goal <= {goal:g}{unit}   {verdict}"


# -- measuring in process (Django set up) ----------------------------------------------------------


def checkpoint(cursor) -> None:
    """CHECKPOINT, so the seed's dirty pages are flushed now, not during the timed rounds; skipped in a smoke run
    (seconds on a busy shared server, for figures that mean nothing)."""
    if not _smoke:
        cursor.execute("CHECKPOINT")


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[Sequence[object]]) -> int:
    """COPY rows into table on Django's connection; returns how many were written.

    Seeding a large state is one long statement: it lifts the service's statement_timeout for itself."""
    from django.db import connection, transaction

    n = 0
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL statement_timeout = 0")
        with cursor.cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
                n += 1
    return n


class QueryTimer:
    """An execute wrapper: the duration of each statement of the current call, in order."""

    def __init__(self):
        self.current: list[float] = []

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.current.append(time.perf_counter() - started)


class KindTimer(QueryTimer):
    """QueryTimer whose entries are (kind of statement, seconds), the kind given by ``kind(sql)``."""

    def __init__(self, kind: Callable[[str], str]):
        self.current: list[tuple[str, float]] = []  # type: ignore[assignment]
        self.kind = kind

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.current.append((self.kind(sql), time.perf_counter() - started))


def rotated(labels: Sequence[str], round_no: int) -> list[str]:
    """The labels in round round_no's order: rotated every round (two labels: swapped every pair)."""
    shift = round_no % len(labels)
    return [*labels[shift:], *labels[:shift]]


def interleave_calls(
    calls: dict[str, Callable[[], object]],
    rounds: int,
    warmup: int,
    timer: QueryTimer | None = None,
    *,
    keep_returned: bool = True,
) -> dict[str, list[tuple[float, object, list[float]]]]:
    """{label: [(seconds, returned, [seconds per statement]) per call]}; each round calls every label once, the
    order rotated every round. returned is None unless keep_returned; the statements are [] without a timer."""
    labels = list(calls)
    for _ in range(warmup):
        for label in labels:
            calls[label]()
    out: dict[str, list] = {label: [] for label in labels}
    gc.collect()
    for round_no in range(rounds):
        for label in rotated(labels, round_no):
            if timer is not None:
                timer.current = []
            started = time.perf_counter()
            returned = calls[label]()
            elapsed = time.perf_counter() - started
            out[label].append(
                (elapsed, returned if keep_returned else None, timer.current if timer is not None else [])
            )
    return out


def interleave(calls: dict[str, Callable[[], object]], rounds: int, warmup: int, timer: QueryTimer | None = None):
    """({label: [seconds per call]}, {label: [[seconds per statement] per call]}, empty without a timer); as
    interleave_calls, the calls' results not kept."""
    out = interleave_calls(calls, rounds, warmup, timer, keep_returned=False)
    samples = {label: [elapsed for elapsed, _, _ in values] for label, values in out.items()}
    per_statement = {
        label: [stmts for _, _, stmts in values] if timer is not None else [] for label, values in out.items()
    }
    return samples, per_statement


def http_rounds(requests: dict[str, Callable[[], float]], rounds: int, warmup: int) -> dict[str, list[float]]:
    """{label: [seconds]}: every request once a round, the order rotated every round."""
    for _ in range(warmup):
        for request in requests.values():
            request()
    samples: dict[str, list[float]] = {label: [] for label in requests}
    labels = list(requests)
    for round_no in range(rounds):
        for label in rotated(labels, round_no):
            samples[label].append(requests[label]())
    return samples


def captured(call: Callable[[], object]) -> list[str]:
    """The SQL a call runs (bound, as sent: EXPLAIN can run it again)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        call()
    return [q["sql"] for q in ctx.captured_queries]


def endpoint_sql(token: str, method: str, path: str, body: dict | None = None) -> list[str]:
    """The statements a request runs in process (Django's test client, the same settings), auth included."""
    from django.test import Client as DjangoClient

    client = DjangoClient(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Token {token}")
    if method == "GET":
        return captured(lambda: client.get(path, secure=True))
    return captured(lambda: client.post(path, json.dumps(body), content_type="application/json", secure=True))


def explain(sql: str) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of sql: the plan's lines."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
        return [row[0] for row in cursor.fetchall()]


def measure_cases(cases: dict[str, tuple[str, dict[str, Callable[[], object]]]], rounds: int, warmup: int):
    """({key: interleave(calls) with a QueryTimer}, wall seconds) for cases {key: (title, {label: call})}."""
    from django.db import connection

    timer = QueryTimer()
    results = {}
    started = time.perf_counter()
    with connection.execute_wrapper(timer):
        for key, (_, calls) in cases.items():
            results[key] = interleave(calls, rounds, warmup, timer)
    return results, time.perf_counter() - started


def statement_split(
    samples: dict[str, list[float]], per_statement: dict[str, list[list[float]]], n_statements: int, goal: float
) -> tuple[list[dict[str, list[float]]], dict[str, float], set[int]]:
    """(per statement: {label: [seconds per call]}; {label: the call's p50 minus its statements' p50s}; the
    statements over goal (LARGE/SMALL p50) that account for a quarter or more of the call's extra p50)."""
    labels = list(samples)
    totals = {label: percentile(samples[label], 50) for label in labels}
    in_sql = dict.fromkeys(labels, 0.0)
    by_statement, heavy = [], set()
    for index in range(n_statements):
        values = {label: [call[index] for call in per_statement[label]] for label in labels}
        p = {label: percentile(values[label], 50) for label in labels}
        for label in labels:
            in_sql[label] += p[label]
        extra, call_extra = p["LARGE"] - p["SMALL"], totals["LARGE"] - totals["SMALL"]
        if p["LARGE"] / p["SMALL"] > goal and call_extra > 0 and extra >= call_extra / 4:
            heavy.add(index)
        by_statement.append(values)
    return by_statement, {label: totals[label] - in_sql[label] for label in labels}, heavy


def print_full_plan(title: str, sql: str) -> None:
    print(f"\n  {title}: {sql}")
    for line in explain(sql):
        print(f"      {line}")
    print()


# -- ports and processes -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the benchmark dies, even by SIGKILL."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class Child:
    def __init__(self, name: str, process: subprocess.Popen, log_path: Path, port: int | None = None):
        self.name, self.process, self.log_path, self.port = name, process, log_path, port

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self, *, graceful: bool = True) -> None:
        """SIGTERM (graceful) or SIGQUIT (gunicorn's and Celery's quick shutdown: a run's measurements are over, and
        a graceful gunicorn waits seconds on idle keep-alive connections) to the child's own process group, then
        SIGKILL if it has not gone in time."""
        self.signal(signal.SIGTERM if graceful else signal.SIGQUIT)
        self.wait_stopped()

    def signal(self, sig: int) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)  # the group this process started (process_group=0)

    def wait_stopped(self) -> None:
        """Waits for the child signalled to stop; SIGKILL to its group if it has not gone in time."""
        try:
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5.0)


def spawn(name: str, argv: list[str], env: dict[str, str], *, port: int | None = None, cwd: Path = REPO) -> Child:
    """A child process in its own process group, its output in LOG_DIR/<name>.log. `cwd` is also where
    `python -m` imports from first (another checkout's code runs from its own tree)."""
    LOG_DIR.mkdir(parents=True, exist_ok=True)
    log_path = LOG_DIR / f"{name}.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            process_group=0, preexec_fn=_die_with_parent,
        )  # fmt: skip
    return Child(name, process, log_path, port)


# -- HTTP ------------------------------------------------------------------------------------------


class Client:
    """One keep-alive HTTP/1.1 connection; times each request from send to the body's last byte."""

    def __init__(self, port: int, token: str | None = None, *, timeout: float = 60.0):
        self.port, self.timeout = port, timeout
        self.headers = {
            "Host": "127.0.0.1",
            "Accept": "application/json",
            # The production profile redirects plain HTTP; TLS "ends at the proxy" in front of us.
            "X-Forwarded-Proto": "https",
        }
        if token:
            self.headers["Authorization"] = f"Token {token}"
        self.reconnects = 0
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def request(self, method: str, path: str, body=None, *, expect: Sequence[int] = (200,)) -> tuple[float, bytes]:
        """(seconds, response body). The JSON body is encoded before the clock starts."""
        data = json.dumps(body, separators=(",", ":")).encode() if body is not None else None
        headers = dict(self.headers)
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(2):
            try:
                started = time.perf_counter()
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                payload = response.read()
                elapsed = time.perf_counter() - started
                break
            except (
                http.client.RemoteDisconnected,
                ConnectionResetError,
                BrokenPipeError,
                http.client.CannotSendRequest,
            ):
                self.conn.close()
                self.reconnects += 1
                if attempt:
                    raise
        if response.status not in expect:
            raise BenchError(f"{method} {path}: HTTP {response.status}: {payload[:500]!r}")
        return elapsed, payload

    def close(self) -> None:
        self.conn.close()


def wait_until(predicate: Callable[[], bool], *, timeout: float, interval: float, what: str) -> float:
    """Poll until predicate() is true; returns the perf_counter() at which it was seen true."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return time.perf_counter()
        if time.monotonic() > deadline:
            raise BenchError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(interval)


# -- where the time goes: pg_stat_statements ----------------------------------------------------------


class StatementStats:
    """The run database's statements from pg_stat_statements: reset before a phase, report after it."""

    def __init__(self, owner_url: str, database: str):
        self.owner_url = owner_url
        self.database = database
        self.available: bool | None = None  # known after ensure()

    def ensure(self) -> None:
        import psycopg

        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            try:
                conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                conn.execute("SELECT 1 FROM pg_stat_statements LIMIT 1")
            except psycopg.Error as exc:  # not preloaded on an external server
                self.available = False
                self.why = str(exc).splitlines()[0]
            else:
                self.available = True

    def reset(self) -> None:
        if not self.available:
            return
        import psycopg

        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_stat_statements_reset(0, (SELECT oid FROM pg_database WHERE datname = %s), 0)",
                [self.database],
            )

    def top(self, limit: int = 8) -> list[tuple[str, int, float, float, float]]:
        """(query, calls, total ms, mean ms, share of the database's total) by total execution time."""
        import psycopg

        with psycopg.connect(self.owner_url, autocommit=True) as conn:
            return conn.execute(
                """
                SELECT query, calls, total_exec_time, mean_exec_time,
                       total_exec_time / NULLIF(sum(total_exec_time) OVER (), 0)
                FROM pg_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = %s)
                ORDER BY total_exec_time DESC LIMIT %s
                """,
                [self.database, limit],
            ).fetchall()

    def report(self, title: str, limit: int = 8, width: int = 110) -> None:
        print(f"\nwhere the database time went ({title}; pg_stat_statements, top {limit} by total):")
        if not self.available:
            print(f"  pg_stat_statements is not available on this server ({getattr(self, 'why', 'unknown')})")
            return
        rows = [
            [" ".join(query.split())[:width], calls, f"{total:.1f}", f"{mean:.3f}", f"{(share or 0) * 100:.1f}%"]
            for query, calls, total, mean, share in self.top(limit)
        ]
        print_table(["statement", "calls", "total ms", "mean ms", "share"], rows)


# -- the run ----------------------------------------------------------------------------------------


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


class BenchRun:
    """Servers, a fresh benchmark database, Django set up on it, and child processes to clean up."""

    def __init__(self, name: str):
        self.name = name
        self.database = f"memory_bench_{name}"
        self.services = EmbeddedServices.for_unset_urls(data_dir=DATA_DIR)
        self.children: list[Child] = []
        self.env: dict[str, str] = {}
        self._lock_handle = None
        self._previous_handlers: dict[int, object] = {}

    # context manager ---------------------------------------------------------------------------
    def __enter__(self) -> BenchRun:
        atexit.register(self.close)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            self._previous_handlers[sig] = signal.signal(sig, _raise_interrupt)
        try:
            self._open()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _open(self) -> None:
        DATA_DIR.mkdir(parents=True, exist_ok=True)
        self._lock_handle = open(DATA_DIR / f".{self.name}.lock", "a+")  # noqa: SIM115 (held for the run)
        try:
            fcntl.flock(self._lock_handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BenchError(f"another {self.name} benchmark is running on {DATA_DIR}") from None
        self.services.start()
        base = {**os.environ, **self.services.environment()}
        owner_url = base.get("DATABASE_MIGRATE_URL") or base["DATABASE_URL"]
        self.env = {
            **base,
            # Children (gunicorn, celery) connect as the app role, under row-level security.
            "DATABASE_URL": _with_database(base["DATABASE_URL"], self.database),
            "DATABASE_MIGRATE_URL": _with_database(owner_url, self.database),
            "DJANGO_SETTINGS_MODULE": SETTINGS_MODULE,
            # The production profile (what gunicorn runs behind the proxy), not the DEBUG one
            # that records every query in memory.
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(64),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "BENCH_QUEUE": f"bench-{self.name}-{os.getpid()}",
            "PYTHONUNBUFFERED": "1",
        }
        os.environ.update(self.env)
        import warnings

        warnings.filterwarnings("ignore", message="No directory at")  # STATIC_ROOT: the API serves no static files
        import django

        django.setup()
        from django.core.management import call_command

        admin_url = _with_database(owner_url, "postgres")
        template = TEMPLATE_PREFIX + _migrations_digest()
        cloned = self._recreate_database(admin_url, template)
        call_command("migrate", interactive=False, verbosity=0)  # on a clone: only the policies and the seal key
        if not cloned:
            self._keep_template(admin_url, template)
        # This process seeds rows in bulk (COPY, which row-level security refuses) and reads them
        # back to check: it stays the tables' owner. What is measured runs in the children.
        from access.roles import owner_credentials, swap_credentials

        swap_credentials("default", owner_credentials())
        self.statements = StatementStats(self.env["DATABASE_MIGRATE_URL"], self.database)
        self.statements.ensure()

    def _recreate_database(self, admin_url: str, template: str) -> bool:
        """The run's database, dropped and created again: a clone of template if there is one (True), else empty."""
        import psycopg

        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.database}" WITH (FORCE)')
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [template]).fetchone():
                try:
                    conn.execute(f'CREATE DATABASE "{self.database}" TEMPLATE "{template}"')
                    return True
                except psycopg.errors.ObjectInUse:  # another run is making it right now
                    pass
            conn.execute(f'CREATE DATABASE "{self.database}"')
            return False

    def _keep_template(self, admin_url: str, template: str) -> None:
        """Copy the freshly migrated database as the template later runs clone; drop older templates."""
        import psycopg
        from django.db import connections

        for conn in connections.all(initialized_only=True):  # a template must have no connections
            conn.close()
            if hasattr(conn, "close_pool"):
                conn.close_pool()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            try:
                conn.execute(f'CREATE DATABASE "{template}" TEMPLATE "{self.database}"')
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.ObjectInUse):
                return  # another run made it first
            stale = conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                [TEMPLATE_PREFIX.replace("_", r"\_") + "%", template],
            ).fetchall()
            for (name,) in stale:
                with contextlib.suppress(psycopg.Error):
                    conn.execute(f'DROP DATABASE IF EXISTS "{name}"')

    def close(self) -> None:
        """Idempotent: children first, then the database connections, then servers we started."""
        for sig in self._previous_handlers:  # a second Ctrl-C must not cut the clean-up short
            signal.signal(sig, signal.SIG_IGN)
        children, self.children = self.children[::-1], []
        for child in children:  # all at once: each takes seconds to exit
            with contextlib.suppress(Exception):
                child.signal(signal.SIGQUIT)
        for child in children:
            with contextlib.suppress(Exception):
                child.wait_stopped()
        if "django" in sys.modules:
            with contextlib.suppress(Exception):
                from django.db import connections

                for conn in connections.all(initialized_only=True):
                    conn.close()
                    if hasattr(conn, "close_pool"):
                        conn.close_pool()
        with contextlib.suppress(Exception):
            self.services.stop()
        if self._lock_handle is not None:
            self._lock_handle.close()
            self._lock_handle = None
        for sig, handler in self._previous_handlers.items():
            with contextlib.suppress(Exception):
                signal.signal(sig, handler)
        self._previous_handlers.clear()

    # children ------------------------------------------------------------------------------------
    def start_gunicorn(self, *, workers: int = 1, threads: int = 4) -> Child:
        """gunicorn on a free loopback port (retried on a bind race), healthy before it returns."""
        for attempt in range(3):
            port = free_port()
            argv = [
                sys.executable, "-m", "gunicorn", "memorysite.wsgi",
                "--bind", f"127.0.0.1:{port}",
                "--workers", str(workers), "--threads", str(threads),  # gthread: keep-alive works
                "--keep-alive", "75", "--graceful-timeout", "5", "--timeout", "120",
                "--log-level", "warning", "--error-logfile", "-",
            ]  # fmt: skip
            child = spawn(f"{self.name}-gunicorn", argv, self.env, port=port)
            self.children.append(child)
            try:
                self._wait_healthy(child)
                return child
            except BenchError:
                child.stop()
                self.children.remove(child)
                if attempt == 2 or "Address already in use" not in child.log_tail():
                    raise
        raise AssertionError("unreachable")

    def _wait_healthy(self, child: Child) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if not child.alive():
                raise BenchError(f"{child.name} exited with {child.process.returncode}:\n{child.log_tail()}")
            client = Client(child.port, timeout=5)
            try:
                client.request("GET", "/healthz")
                return
            except (OSError, BenchError, http.client.HTTPException):
                time.sleep(0.2)
            finally:
                client.close()
        raise BenchError(f"{child.name} not healthy after {READY_TIMEOUT_S:.0f}s:\n{child.log_tail()}")

    def run_queues(self, kinds: Sequence[str] | None = None) -> str:
        """This run's queues as -Q takes them: its default queue and every job kind's, or only `kinds`' queues."""
        from memorysite.queues import KINDS, queue_name

        prefix = f"{self.env['BENCH_QUEUE']}."
        if kinds is not None:
            return ",".join(queue_name(kind, prefix) for kind in kinds)
        return ",".join([self.env["BENCH_QUEUE"], *(queue_name(kind, prefix) for kind in KINDS)])

    def start_celery_worker(
        self, *, queues: str | None = None, name: str = "celery", concurrency: int = 1, env: dict | None = None
    ) -> Child:
        """A worker on this run's queues (all of them unless `queues`), ready (its log says so) before it returns:
        solo pool for one process, else prefork."""
        pool = ["--pool", "solo"] if concurrency == 1 else ["--pool", "prefork", "--concurrency", str(concurrency)]
        argv = [
            sys.executable, "-m", "celery", "-A", "memorysite", "worker", *pool,
            "-Q", queues or self.run_queues(), "-n", f"{self.env['BENCH_QUEUE']}-{name}@%h",
            "--without-mingle", "--without-gossip", "--without-heartbeat", "--loglevel", "INFO",
        ]  # fmt: skip
        child = spawn(f"{self.name}-{name}", argv, env or self.env)
        self.children.append(child)
        deadline = time.monotonic() + READY_TIMEOUT_S
        while "ready." not in child.log_path.read_text(errors="replace"):
            if not child.alive() or time.monotonic() > deadline:
                raise BenchError(f"celery worker did not start:\n{child.log_tail()}")
            time.sleep(0.1)
        return child


def _migrations_digest() -> str:
    """Names every migration Django would apply, and each migration file's bytes (Django set up)."""
    from django.db.migrations.loader import MigrationLoader

    digest = hashlib.sha256()
    for key, migration in sorted(MigrationLoader(None, ignore_no_migrations=True).disk_migrations.items()):
        digest.update(repr(key).encode())
        module = sys.modules.get(type(migration).__module__)
        if module is not None and getattr(module, "__file__", None):
            digest.update(Path(module.__file__).read_bytes())
    return digest.hexdigest()[:16]


def run_script(main: Callable[[], int]) -> None:
    """sys.exit(main()), with a one-line message instead of a traceback for an interrupt or a BenchError."""
    try:
        code = main()
    except KeyboardInterrupt as exc:
        print(f"interrupted ({exc or 'Ctrl-C'}); children and servers stopped", file=sys.stderr)
        code = 130
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        code = 1
    sys.exit(code)


def _raise_interrupt(signum, _frame):
    raise KeyboardInterrupt(f"signal {signum}")


def token_for(username: str) -> str:
    """A user (created) and a new account token of theirs (its key), in the benchmark database."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts.services import account_token_create

    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"email": f"{username}@example.com"})
    return account_token_create(owner=user, name="benchmark", now=timezone.now())[1]

"""What does a tick cost, materialization included, next to the cheapest authenticated write?

    .venv/bin/python bench/tick_ingest.py [--pairs 300] [--rounds 4] [--block 100] [--smoke]

gunicorn (1 worker x 4 threads) serves the app with bench/_floor_urls.py on top, and a real Celery
worker (solo pool, its own queue) materializes ticks against the same benchmark database. The
floor is POST /bench/floor/insert/: token auth, a tiny JSON body, one INSERT of one tiny row.

A tick is a realistic runner body: 2 positions (BTC comes and goes, ETH flips side, sizes vary,
so trades open, grow, shrink and close), marks, a proposal, the engine's verdict and 100
one-minute BTC bars (~10 KB of JSON); each tick is one minute after the previous one.

1. Latency: `--pairs` tick POSTs and floor POSTs alternate request by request (order swapped
   every pair) on one keep-alive connection; p50/p99 of each. Materialization runs in the
   worker meanwhile, so it is not in these figures.
2. Throughput, materialization included: `--rounds` rounds of a tick block (`--block` ticks
   posted back to back, then the deployment's row polled until materialized_through ==
   latest_tick_at) and a floor block (`--block` inserts), the two in alternating order.
   Tick cost per request = tick-block wall time / ticks; floor cost = floor-block wall time /
   inserts. Goal: tick cost / floor cost <= 4.
3. Reflection enabled vs off (skip with --reflection-rounds 0): two fresh deployments of the same
   skill, one with reflection off and one with reflection every 1,000 closed trades (enabled,
   never due during the run), get the same tick stream in alternating blocks (`--reflection-block`
   ticks posted, then polled until materialized), `--reflection-rounds` rounds, order swapped
   every round. Trades close in both (the trigger check runs on every batch that closes one);
   no reflection runs. Goal: cost per tick with reflection on / off <= 1.05.
4. Where a tick's time goes (skip with --no-breakdown): once the worker is stopped, ticks of a
   fresh deployment alternate between gunicorn (over HTTP) and the same view in this process
   (Django's test client, same settings and database) with the view's steps wrapped in timers,
   each in-process tick next to an in-process floor request; materialize_pending then runs in
   this process once per tick (the worker's task body). Diagnostic only: no goal.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import itertools
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    BenchRun,
    Client,
    ms,
    parse_args,
    percentile,
    print_table,
    ratio_line,
    run_script,
    token_for,
    wait_until,
)

T0 = dt.datetime(2026, 6, 4, 0, 0, tzinfo=dt.UTC)
BARS = 100
POLL_S = 0.01
GOAL = 4.0
REFLECTION_GOAL = 1.05
WARMUP = 20
SMOKE = {
    "warmup": 3, "pairs": 5, "rounds": 2, "block": 5, "reflection_rounds": 1, "reflection_block": 5, "breakdown": 3,
}  # fmt: skip


def _price(symbol: str, minute: int) -> float:
    if symbol == "BTC":
        return round(65200 + 180 * math.sin(minute / 37) + ((minute * 37) % 23 - 11) * 3, 2)
    return round(3410 + 25 * math.sin(minute / 23 + 1) + ((minute * 13) % 17 - 8) * 0.4, 2)


def _stamp(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def tick_body(i: int) -> dict:
    """Tick number i (minute i after T0)."""
    btc, eth = _price("BTC", i), _price("ETH", i)
    positions = []
    btc_phase = i % 16  # long 6 ticks, flat 2, short 6, flat 2
    if btc_phase < 6:
        positions.append({"symbol": "BTC", "side": "long", "size": 0.004 + 0.001 * (btc_phase % 3), "mark_price": btc})
    elif 8 <= btc_phase < 14:
        positions.append({"symbol": "BTC", "side": "short", "size": 0.003, "mark_price": btc, "leverage": 2})
    eth_side = "long" if i % 18 < 9 else "short"  # flips every 9 ticks: a close and an open in one tick
    positions.append(
        {"symbol": "ETH", "side": eth_side, "size": 0.08 if eth_side == "long" else 0.06, "mark_price": eth}
    )
    if btc_phase in (0, 8):
        action = {"kind": "propose_order", "symbol": "BTC", "reason": "breakout above prior swing high"}
        engine = {"kind": "executed"}
    elif btc_phase in (6, 14):
        action = {"kind": "close_position", "symbol": "BTC", "reason": "target reached"}
        engine = {"kind": "executed"}
    elif i % 13 == 0:
        action = {"kind": "propose_order", "symbol": "SOL", "reason": "mean reversion: RSI below 25"}
        engine = {"kind": "rejected", "rule": "max_positions"}
    else:
        action = {"kind": "hold", "reason": "no setup"}
        engine = {"kind": "skipped"}
    tick_at = T0 + dt.timedelta(minutes=i)
    bars = []
    for m in range(i - BARS + 1, i + 1):
        close = _price("BTC", m)
        bars.append({
            "t": _stamp(T0 + dt.timedelta(minutes=m)), "o": _price("BTC", m - 1), "h": round(close + 22.5, 2),
            "l": round(close - 27.25, 2), "c": close, "v": round(10 + (m * 7) % 13 * 0.37, 2),
        })  # fmt: skip
    return {
        "tick_at": _stamp(tick_at),
        "equity_usd": 10_000 + (i % 50) * 1.5,
        "positions": positions,
        "marks": {"BTC": btc, "ETH": eth},
        "proposed_action": action,
        "engine": engine,
        "bars": {"BTC": bars},
    }


def seed() -> tuple[str, int]:
    from django.contrib.auth import get_user_model

    from bench._floor_urls import create_floor_table
    from ledger.models import Deployment, DeploymentMode, Skill, SkillVersion

    token = token_for("bench-runner")
    owner = get_user_model().objects.get(username="bench-runner")
    skill = Skill.objects.create(owner=owner, name="BTC breakout, ETH swing")
    version = SkillVersion.objects.create(
        owner=owner,
        skill=skill,
        version=1,
        strategy_text="Breakouts on BTC; swing ETH.",
        bars_window=BARS,
        reflection_cadence="off",  # sections 1-2 measure ticks alone; section 3 compares reflection on/off
    )
    deployment = Deployment.objects.create(owner=owner, skill_version=version, mode=DeploymentMode.PAPER)
    create_floor_table()
    return token, deployment.pk


class Cursor:
    """Reads the deployment's ingest and materialization marks over one autocommit connection, as the tables'
    owner (row-level security shows the app role no rows outside a trader's scope)."""

    def __init__(self, database_url: str, deployment_id: int):
        import psycopg

        self.conn = psycopg.connect(database_url, autocommit=True)
        self.deployment_id = deployment_id

    def caught_up(self) -> bool:
        row = self.conn.execute(
            "SELECT latest_tick_at IS NOT NULL AND materialized_through = latest_tick_at"
            " FROM deployments WHERE id = %s",
            [self.deployment_id],
        ).fetchone()
        return bool(row[0])

    def summary(self) -> dict:
        snapshots, pending = self.conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE materialized_at IS NULL) FROM decision_snapshots"
            " WHERE deployment_id = %s",
            [self.deployment_id],
        ).fetchone()
        trades = dict(
            self.conn.execute(
                "SELECT status, count(*) FROM trade_history WHERE deployment_id = %s GROUP BY status",
                [self.deployment_id],
            ).fetchall()
        )
        floor_rows = self.conn.execute("SELECT count(*) FROM bench_floor").fetchone()[0]
        return {"snapshots": snapshots, "unmaterialized": pending, "trades": trades, "floor_rows": floor_rows}

    def close(self) -> None:
        self.conn.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warmup", type=int, default=WARMUP, help="tick/floor pairs (and ticks per deployment) first")
    parser.add_argument("--pairs", type=int, default=300, help="interleaved tick/floor request pairs (latency)")
    parser.add_argument("--rounds", type=int, default=4, help="tick-block + floor-block rounds (throughput)")
    parser.add_argument("--block", type=int, default=100, help="requests per block")
    parser.add_argument("--reflection-rounds", type=int, default=10, help="reflection on/off block rounds")
    parser.add_argument("--reflection-block", type=int, default=60, help="ticks per reflection on/off block")
    parser.add_argument("--breakdown", type=int, default=100, help="ticks for the in-process breakdown")
    parser.add_argument("--no-breakdown", dest="breakdown", action="store_const", const=0)
    args = parse_args(parser, argv, SMOKE)

    total_ticks = args.warmup + args.pairs + args.rounds * args.block
    bodies = [tick_body(i) for i in range(total_ticks)]  # built before any clock starts
    body_kb = len(json.dumps(bodies[-1], separators=(",", ":"))) / 1024
    next_tick = iter(bodies)

    with BenchRun("tick_ingest") as run:
        token, deployment_id = seed()
        worker = run.start_celery_worker()
        web = run.start_gunicorn(workers=1, threads=4)
        client = Client(web.port, token)
        marks = Cursor(run.env["DATABASE_MIGRATE_URL"], deployment_id)
        ticks_path = f"/api/v1/deployments/{deployment_id}/ticks/"
        floor_path = "/bench/floor/insert/"
        floor_no = 0

        def post_tick() -> float:
            return client.request("POST", ticks_path, next(next_tick), expect=(201,))[0]

        def post_floor() -> float:
            nonlocal floor_no
            floor_no += 1
            return client.request("POST", floor_path, {"v": floor_no}, expect=(201,))[0]

        def catch_up(what: str) -> float:
            return wait_until(marks.caught_up, timeout=120, interval=POLL_S, what=what)

        try:
            for _ in range(args.warmup):
                post_tick()
                post_floor()
            catch_up("warm-up materialization")
            run.statements.reset()

            # 1. per-request latency, interleaved request by request
            latency = {"tick": [], "floor": []}
            for pair in range(args.pairs):
                order = (("tick", post_tick), ("floor", post_floor))
                for name, post in order if pair % 2 == 0 else order[::-1]:
                    latency[name].append(post())
            catch_up("materialization after the latency phase")

            # 2. throughput with materialization, block by block, alternating order
            walls = {"tick": [], "floor": []}
            tails = []
            for round_no in range(args.rounds):
                for kind in ("tick", "floor") if round_no % 2 == 0 else ("floor", "tick"):
                    started = time.perf_counter()
                    if kind == "tick":
                        for _ in range(args.block):
                            post_tick()
                        posted = time.perf_counter()
                        done = catch_up(f"materialization of round {round_no}")
                        tails.append(done - posted)
                    else:
                        for _ in range(args.block):
                            post_floor()
                        done = time.perf_counter()
                    walls[kind].append(done - started)
            summary = marks.summary()
            run.statements.report("latency and throughput phases: posts, materialization, floor inserts")
            reflection = (
                reflection_on_vs_off(run, client, args.reflection_rounds, args.reflection_block, args.warmup)
                if args.reflection_rounds
                else None
            )
        finally:
            marks.close()
        tasks = worker.log_path.read_text(errors="replace").count("succeeded in")
        worker.stop()  # from here on nothing consumes the queue; the breakdown materializes in process
        breakdown = in_process_breakdown(token, args.breakdown, client) if args.breakdown else None
        client.close()

    n = args.rounds * args.block
    tick_cost = sum(walls["tick"]) / n
    floor_cost = sum(walls["floor"]) / n
    print(
        f"tick body {body_kb:.1f} KB (2 positions, marks, proposal, engine, {BARS} bars);"
        " gunicorn 1 worker x 4 threads;"
        f" celery worker --pool solo; one keep-alive connection, reconnects={client.reconnects}"
    )
    print(f"\n1. per-request latency, {args.pairs} tick/floor pairs interleaved (after {args.warmup} warm-up pairs):")
    print_table(
        ["request", "p50 ms", "p99 ms", "mean ms"],
        [
            ["POST ticks/ (materialization not included)", *_stats(latency["tick"])],
            ["POST bench/floor/insert/ (one-row insert)", *_stats(latency["floor"])],
        ],
    )
    print(
        f"{'tick p50 / floor p50 (no goal)':<52}"
        f" {percentile(latency['tick'], 50) / percentile(latency['floor'], 50):7.2f}"
    )

    print(
        f"\n2. throughput incl. materialization, {args.rounds} rounds x {args.block} (tick block until"
        f" materialized_through == latest_tick_at, polled every {POLL_S * 1000:.0f} ms):"
    )
    print_table(
        ["block", "requests", "wall s", "per second", "cost/request ms"],
        [
            [
                "ticks (post + materialize)",
                n,
                f"{sum(walls['tick']):.2f}",
                f"{n / sum(walls['tick']):.1f}",
                ms(tick_cost),
            ],
            ["floor inserts", n, f"{sum(walls['floor']):.2f}", f"{n / sum(walls['floor']):.1f}", ms(floor_cost)],
        ],
    )
    print(
        f"   tick blocks: {', '.join(f'{w:.2f}s' for w in walls['tick'])}; materialization tail after the last"
        f" POST: {', '.join(f'{t * 1000:.0f}ms' for t in tails)}"
    )
    print(
        f"   ledger: {summary['snapshots']} snapshots ({summary['unmaterialized']} unmaterialized),"
        f" trades {summary['trades']}, {tasks} materialize tasks run, {summary['floor_rows']} floor rows"
    )
    print()
    print(ratio_line("tick cost / floor cost per request (incl. materialization)", tick_cost / floor_cost, GOAL))
    if reflection:
        print_reflection(*reflection, args.reflection_rounds, args.reflection_block)
    if breakdown:
        print_breakdown(*breakdown)
    return 0


# -- 3. reflection on vs off --------------------------------------------------------------------------


def reflection_on_vs_off(run: BenchRun, client: Client, rounds: int, block: int, warmup: int):
    """Alternating tick blocks to a reflection-off and a reflection-on (never due) deployment."""
    from ledger.models import Deployment, DeploymentMode, SkillVersion

    source = Deployment.objects.filter(owner__username="bench-runner").order_by("pk").first()
    skill, owner = source.skill_version.skill, source.owner
    ids = {}
    for number, (kind, cadence) in enumerate((("off", "off"), ("on", "per_n_trades")), start=2):
        version = SkillVersion.objects.create(
            owner=owner,
            skill=skill,
            version=number,
            strategy_text=source.skill_version.strategy_text,
            bars_window=BARS,
            reflection_cadence=cadence,
            reflection_every_n_trades=1000,
        )
        ids[kind] = Deployment.objects.create(owner=owner, skill_version=version, mode=DeploymentMode.PAPER).pk
    cursors = {kind: Cursor(run.env["DATABASE_MIGRATE_URL"], deployment_id) for kind, deployment_id in ids.items()}
    bodies = [tick_body(i) for i in range(warmup + rounds * block)]  # both deployments get this stream
    position = {"off": 0, "on": 0}
    walls: dict[str, list[float]] = {"off": [], "on": []}

    def post_block(kind: str, count: int) -> float:
        started = time.perf_counter()
        for _ in range(count):
            body = bodies[position[kind]]
            position[kind] += 1
            client.request("POST", f"/api/v1/deployments/{ids[kind]}/ticks/", body, expect=(201,))
        wait_until(cursors[kind].caught_up, timeout=120, interval=POLL_S, what=f"reflection-{kind} block")
        return time.perf_counter() - started

    try:
        for kind in ("off", "on"):
            post_block(kind, warmup)
        for round_no in range(rounds):
            for kind in ("off", "on") if round_no % 2 == 0 else ("on", "off"):
                walls[kind].append(post_block(kind, block))
        summaries = {kind: cursor.summary() for kind, cursor in cursors.items()}
        notes = cursors["on"].conn.execute("SELECT count(*) FROM reflection_notes").fetchone()[0]
    finally:
        for cursor in cursors.values():
            cursor.close()
    return walls, summaries, notes


def print_reflection(walls, summaries, notes, rounds: int, block: int) -> None:
    n = rounds * block
    cost = {kind: sum(values) / n for kind, values in walls.items()}
    print(
        f"\n3. reflection enabled (every 1,000 closed trades: never due) vs off, {rounds} rounds x {block} ticks"
        " each, alternating, materialization included:"
    )
    print_table(
        ["deployment", "ticks", "wall s", "cost/tick ms", "trades (after warm-up + blocks)"],
        [
            [f"reflection {kind}", n, f"{sum(walls[kind]):.2f}", ms(cost[kind]), summaries[kind]["trades"]]
            for kind in ("off", "on")
        ],
    )
    per_round = [on / off for on, off in zip(walls["on"], walls["off"], strict=True)]
    print(f"   per-round on/off: {', '.join(f'{r:.2f}' for r in per_round)}; reflection notes written: {notes}")
    print(ratio_line("cost per tick, reflection on (not due) / off", cost["on"] / cost["off"], REFLECTION_GOAL))


# -- 4. in-process breakdown -------------------------------------------------------------------------


def _timed(steps: dict[str, list[float]], name: str, function):
    """The function, recording each call's wall time under a step name (a plain function, so it binds as a method)."""

    @functools.wraps(function)
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            steps[name].append(time.perf_counter() - started)

    return timed


STEPS = (
    "tick request over HTTP, worker stopped",
    "tick request, in process",
    "  token authentication (key-hash lookup)",
    "  TickInput validation (100 bars)",
    "  tick_ingest (owner-scoped lock, insert, update, commit, enqueue)",
    "    of which enqueue (on commit: apply_async to Redis)",
    "floor request, in process",
    "materialize_pending, once per tick (worker's task body)",
)


def in_process_breakdown(token: str, count: int, http: Client):
    """The same view in this process, each step timed inside real requests; the worker is stopped.

    Tick by tick it alternates with the same view over HTTP (gunicorn still serving), so the
    served tick's latency without a worker competing for the two cores is measured alongside.
    """
    from contextlib import ExitStack
    from unittest import mock

    import redis
    from django.conf import settings
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    from accounts.auth import AccountTokenAuthentication
    from ledger import services
    from ledger.models import Deployment
    from ledger.serializers import TickInput

    source = Deployment.objects.filter(owner__username="bench-runner").order_by("pk").first()
    deployment = Deployment.objects.create(owner=source.owner, skill_version=source.skill_version, mode=source.mode)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    extra = {"secure": True, "HTTP_HOST": "127.0.0.1"}
    path = f"/api/v1/deployments/{deployment.pk}/ticks/"
    bodies = [tick_body(i) for i in range(2 * count)]
    steps: dict[str, list[float]] = {name: [] for name in STEPS}
    sql: dict[str, list[str]] = {}
    wrapped = [
        (AccountTokenAuthentication, "authenticate", "  token authentication (key-hash lookup)"),
        (TickInput, "is_valid", "  TickInput validation (100 bars)"),
        (services, "tick_ingest", "  tick_ingest (owner-scoped lock, insert, update, commit, enqueue)"),
        (services, "_enqueue_materialization", "    of which enqueue (on commit: apply_async to Redis)"),
    ]
    clock = time.perf_counter
    with ExitStack() as stack:
        for owner, attribute, name in wrapped:
            stack.enter_context(mock.patch.object(owner, attribute, _timed(steps, name, getattr(owner, attribute))))
        for i in range(count):
            steps["tick request over HTTP, worker stopped"].append(
                http.request("POST", path, bodies[2 * i], expect=(201,))[0]
            )
            assert services.materialize_pending(deployment_id=deployment.pk) == 1
            raw = json.dumps(bodies[2 * i + 1], separators=(",", ":"))
            with CaptureQueriesContext(connection) as floor_sql:
                started = clock()
                response = client.post("/bench/floor/insert/", {"v": i}, format="json", **extra)
                steps["floor request, in process"].append(clock() - started)
            assert response.status_code == 201, response.content
            with CaptureQueriesContext(connection) as tick_sql:
                started = clock()
                response = client.post(path, raw, content_type="application/json", **extra)
                steps["tick request, in process"].append(clock() - started)
            assert response.status_code == 201, response.content
            with CaptureQueriesContext(connection) as materialize_sql:
                started = clock()
                applied = services.materialize_pending(deployment_id=deployment.pk)
                steps["materialize_pending, once per tick (worker's task body)"].append(clock() - started)
            assert applied == 1, applied
    for name, captured in (("floor", floor_sql), ("tick", tick_sql), ("materialize", materialize_sql)):
        sql[name] = [query["sql"] for query in captured.captured_queries]
    # the enqueued messages have no consumer any more: drop this run's queue
    queues = {settings.CELERY_TASK_DEFAULT_QUEUE, *(route["queue"] for route in settings.CELERY_TASK_ROUTES.values())}
    redis.Redis.from_url(settings.REDIS_URL).delete(*queues)
    return steps, sql, count


def _sql_summary(statements: list[str]) -> str:
    words = []
    for statement in statements:
        head = statement.split()
        verb = head[0].upper()
        table = next((w.strip('"') for w_prev, w in itertools.pairwise(head)
                      if w_prev.upper() in {"FROM", "INTO", "UPDATE"}), "?")  # fmt: skip
        if verb == "SELECT" and "FOR UPDATE" in statement.upper():
            verb = "SELECT..FOR UPDATE"
        words.append(f"{verb} {table}")
    return f"{len(statements)}: " + ", ".join(words)


def print_breakdown(steps, sql, count) -> None:
    request = percentile(steps["tick request, in process"], 50)
    print(
        f"\n4. where a tick's time goes, worker stopped ({count} ticks over HTTP alternating with {count} in process;"
        " each step timed inside the in-process request):"
    )
    print_table(
        ["step", "p50 ms", "mean ms", "p50 / tick request"],
        [
            [name, ms(percentile(values, 50)), ms(sum(values) / len(values)), f"{percentile(values, 50) / request:.0%}"]
            for name, values in steps.items()
        ],
    )
    print(f"   SQL per floor request   {_sql_summary(sql['floor'])}")
    print(f"   SQL per tick request    {_sql_summary(sql['tick'])}")
    print(f"   SQL per materialization {_sql_summary(sql['materialize'])} (last tick's)")


def _stats(values: list[float]) -> list[str]:
    return [ms(percentile(values, 50)), ms(percentile(values, 99)), ms(sum(values) / len(values))]


if __name__ == "__main__":
    run_script(main)

"""What a tick costs in bytes and CPU, and what a fleet of 100,000 deployments ticking once a minute would need.

    .venv/bin/python bench/capacity.py [--ticks 2000] [--fleet 100000] [--per-minute 1] [--smoke]

gunicorn (1 worker x 4 threads) serves the API and a Celery worker (solo pool, every queue of the run) materializes,
against the benchmark database, as in bench/tick_ingest.py. Two deployments of one trader get the same `--ticks`
tick stream (bench/tick_ingest.py's runner body: 2 positions that open, grow, shrink, flip and close trades, marks,
a proposal, the engine's verdict), one without bars and one with 100 one-minute bars, posted back to back over one
keep-alive connection, each block followed by polling until materialized.

1. Bytes stored per tick: the growth of every table of the database (pg_total_relation_size: heap, TOAST and
   indexes, as the files on disk hold them) over a block / its ticks, with the tables that grew most. WAL and a
   replica's copy are not in it (the fleet's disk below adds the replica).
2. CPU per tick, the tick cost measured: the CPU time (user + system, /proc) that gunicorn's processes, the worker's,
   the PostgreSQL server's (every process of it: backends, WAL writer, checkpointer, autovacuum) and Redis's spent
   over a block / its ticks; ticks/s per core = 1 / that. The benchmark's own client is left out (it is the runners'
   side). Run it alone on its servers: whatever else the PostgreSQL server does meanwhile is counted as ticks'.
   The wall-clock figure (ticks / block wall time, one client posting back to back on this machine) is printed
   beside it, as bench/tick_ingest.py measures it.
3. The fleet: `--fleet` deployments ticking `--per-minute` times a minute, spread evenly over the minute; machines
   of `--cores` cores each kept at `--utilization`; the disk a day, a month and a year with bars kept, with bars
   pruned after `--bars-days` days (the retention job of issue 22), and without bars, times `--copies` (primary +
   replicas). Printed with its assumptions.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import BenchRun, Client, parse_args, print_table, run_script, token_for, wait_until

SMOKE = {"ticks": 15, "warmup": 3}
GIB = 1024**3
TIB = 1024**4


def table_sizes(conn) -> dict[str, int]:
    """Bytes on disk of every table of the public schema: heap, TOAST and indexes."""
    rows = conn.execute(
        "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')"
    ).fetchall()
    return dict(rows)


class CpuMeter:
    """CPU seconds (user + system) of process trees, read from /proc through psutil, by component."""

    def __init__(self, roots: dict[str, int]):
        self.roots = roots

    def _trees(self) -> dict[str, dict[int, float]]:
        import psutil

        out: dict[str, dict[int, float]] = {}
        for name, pid in self.roots.items():
            seconds: dict[int, float] = {}
            try:
                root = psutil.Process(pid)
                for process in [root, *root.children(recursive=True)]:
                    try:
                        times = process.cpu_times()
                        seconds[process.pid] = times.user + times.system
                    except psutil.NoSuchProcess:
                        pass
            except psutil.NoSuchProcess:
                pass
            out[name] = seconds
        return out

    def start(self) -> None:
        self.before = self._trees()

    def stop(self) -> dict[str, float]:
        after = self._trees()
        return {
            name: sum(cpu - self.before[name].get(pid, 0.0) for pid, cpu in after[name].items()) for name in self.roots
        }


def tick_stream(count: int, bars: bool) -> list[dict]:
    from bench.tick_ingest import tick_body

    bodies = [tick_body(i) for i in range(count)]
    if not bars:
        for body in bodies:
            body.pop("bars")
    return bodies


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ticks", type=int, default=2000, help="ticks per block (one block without, one with bars)")
    parser.add_argument("--warmup", type=int, default=30, help="ticks to a third deployment first")
    parser.add_argument("--fleet", type=int, default=100_000, help="deployments in the fleet")
    parser.add_argument("--per-minute", type=float, default=1.0, help="ticks per deployment per minute")
    parser.add_argument("--cores", type=int, default=16, help="cores per machine")
    parser.add_argument("--utilization", type=float, default=0.5, help="CPU share a machine is planned to")
    parser.add_argument("--bars-days", type=int, default=7, help="days a snapshot keeps its bars (retention)")
    parser.add_argument("--copies", type=int, default=2, help="copies of the database (primary + replicas)")
    args = parse_args(parser, argv, SMOKE)

    streams = {"no bars": tick_stream(args.warmup + args.ticks, bars=False)}
    streams["100 bars"] = tick_stream(args.warmup + args.ticks, bars=True)
    measured: dict[str, dict] = {}
    with BenchRun("capacity") as run:
        import psutil
        import psycopg
        import redis
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from ledger.models import Deployment, DeploymentMode, Skill, SkillVersion

        token = token_for("bench-runner")
        owner = get_user_model().objects.get(username="bench-runner")
        skill = Skill.objects.create(owner=owner, name="BTC breakout, ETH swing")
        version = SkillVersion.objects.create(
            owner=owner, skill=skill, version=1, strategy_text="Breakouts.", bars_window=100, reflection_cadence="off"
        )
        worker = run.start_celery_worker()
        web = run.start_gunicorn(workers=1, threads=4)
        client = Client(web.port, token)
        conn = psycopg.connect(run.env["DATABASE_MIGRATE_URL"], autocommit=True)
        postmaster = psutil.Process(conn.info.backend_pid).parent().pid
        redis_pid = redis.Redis.from_url(settings.REDIS_URL).info("server")["process_id"]
        meter = CpuMeter({"web": web.pid, "worker": worker.pid, "postgres": postmaster, "redis": redis_pid})

        def post_block(deployment_id: int, bodies: list[dict]) -> float:
            started = time.perf_counter()
            for body in bodies:
                client.request("POST", f"/api/v1/deployments/{deployment_id}/ticks/", body, expect=(201,))

            def caught_up() -> bool:
                row = conn.execute(
                    "SELECT materialized_through = latest_tick_at FROM deployments WHERE id = %s", [deployment_id]
                ).fetchone()
                return bool(row[0])

            return wait_until(caught_up, timeout=600, interval=0.01, what="materialization") - started

        try:
            warm = Deployment.objects.create(owner=owner, skill_version=version, mode=DeploymentMode.PAPER)
            post_block(warm.pk, streams["100 bars"][: args.warmup])
            for kind, bodies in streams.items():
                deployment = Deployment.objects.create(owner=owner, skill_version=version, mode=DeploymentMode.PAPER)
                post_block(deployment.pk, bodies[: args.warmup])  # its first trades opened: a running deployment
                conn.execute("CHECKPOINT")
                before = table_sizes(conn)
                meter.start()
                wall = post_block(deployment.pk, bodies[args.warmup :])
                cpu = meter.stop()
                after = table_sizes(conn)
                growth = {table: after[table] - before.get(table, 0) for table in after}
                measured[kind] = {"growth": growth, "cpu": cpu, "wall": wall}
            trades = conn.execute("SELECT count(*) FROM trade_history").fetchone()[0]
        finally:
            conn.close()
            client.close()

    n = args.ticks
    body_bytes = {kind: len(json.dumps(bodies[-1], separators=(",", ":"))) for kind, bodies in streams.items()}
    print(
        f"{n} ticks per block (after {args.warmup} warm-up ticks), posted back to back over one connection to gunicorn"
        " 1 worker x 4 threads; celery --pool solo materializes; polled until materialized_through = latest_tick_at;"
        f" {trades} trades in the ledger at the end"
    )

    print("\n1. bytes stored per tick (growth of every table: heap + TOAST + indexes, / ticks):")
    rows = []
    per_tick: dict[str, float] = {}
    for kind, result in measured.items():
        total = sum(result["growth"].values())
        per_tick[kind] = total / n
        top = sorted(result["growth"].items(), key=lambda item: -item[1])[:4]
        rows.append(
            [
                kind,
                f"{body_bytes[kind]:,}",
                f"{per_tick[kind]:,.0f}",
                ", ".join(f"{table} {size / n:,.0f}" for table, size in top if size > 0),
            ]
        )
    print_table(["tick", "JSON body B", "stored B/tick", "of which (B/tick)"], rows)

    print("\n2. CPU per tick (user + system seconds of each component over the block / ticks):")
    rows = []
    cpu_per_tick: dict[str, float] = {}
    for kind, result in measured.items():
        cpu = result["cpu"]
        cpu_per_tick[kind] = sum(cpu.values()) / n
        rows.append(
            [
                kind,
                *(f"{cpu[name] / n * 1000:.2f}" for name in ("web", "worker", "postgres", "redis")),
                f"{cpu_per_tick[kind] * 1000:.2f}",
                f"{1 / cpu_per_tick[kind]:.0f}",
                f"{n / result['wall']:.0f}",
            ]
        )
    print_table(
        ["tick", "web ms", "worker ms", "postgres ms", "redis ms", "total ms", "ticks/s/core", "wall ticks/s"], rows
    )
    for kind, ratio in ((k, per_tick[k]) for k in measured):
        print(f"bytes per tick, {kind}: {ratio:,.0f} B")
    print(f"ticks/s per core (100 bars, every component): {1 / cpu_per_tick['100 bars']:.0f}")

    # 3. the fleet
    rate = args.fleet * args.per_minute / 60
    print(
        f"\n3. a fleet of {args.fleet:,} deployments ticking {args.per_minute:g}x a minute = {rate:,.0f} ticks/s"
        f" (assumed spread evenly over the minute; ticks aligned on the minute would queue and drain within it)."
    )
    print(
        f"   assumptions: every tick costs what a 100-bar tick cost here (CPU of this machine's cores); machines of"
        f" {args.cores} cores planned to {args.utilization:.0%} CPU; {args.copies} copies of the database (primary +"
        f" {args.copies - 1} replica); bars kept {args.bars_days} days, then pruned (the snapshot keeps everything"
        " else); WAL, backups, reads of pages and the agents' context/recall requests not counted (they add to web and"
        " the replicas, not to the tick path)."
    )
    cpu = measured["100 bars"]["cpu"]
    app_cores = rate * (cpu["web"] + cpu["worker"]) / n / args.utilization
    db_cores = rate * (cpu["postgres"] + cpu["redis"]) / n / args.utilization
    print_table(
        ["tier", "CPU s per tick", "cores needed", f"machines of {args.cores}"],
        [
            [
                "web + workers (gunicorn, celery)",
                f"{(cpu['web'] + cpu['worker']) / n * 1000:.2f} ms",
                f"{app_cores:.0f}",
                math.ceil(app_cores / args.cores),
            ],
            [
                "database + broker (postgres, redis)",
                f"{(cpu['postgres'] + cpu['redis']) / n * 1000:.2f} ms",
                f"{db_cores:.0f}",
                math.ceil(db_cores / args.cores),
            ],
        ],
    )
    day = rate * 86400
    with_bars, without = per_tick["100 bars"], per_tick["no bars"]

    def stored(days: int, bars_days: int | None) -> str:
        """Bytes held after `days` of ticks (all copies): bars kept `bars_days` days (None: always, 0: never)."""
        kept = days if bars_days is None else min(days, bars_days)
        total = (kept * with_bars + (days - kept) * without) * day * args.copies
        return f"{total / GIB:,.0f} GiB" if total < TIB else f"{total / TIB:,.1f} TiB"

    print_table(
        ["stored (all copies)", "a day", "30 days", "a year"],
        [
            [label, *(stored(days, bars_days) for days in (1, 30, 365))]
            for label, bars_days in (
                ("every tick keeps its 100 bars", None),
                (f"bars pruned after {args.bars_days} days", args.bars_days),
                ("ticks without bars", 0),
            )
        ],
    )
    print(f"   ticks a day {day:,.0f}; rows a day in decision_snapshots {day:,.0f} (one per tick)")
    return 0


if __name__ == "__main__":
    run_script(main)

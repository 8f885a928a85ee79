"""Materialization lag while 1,000 long documents are being embedded: one shared queue (the routing before queues
per job kind) against a queue and a worker pool per kind (memorysite/queues.py), side by side in one run.

    .venv/bin/python bench/queue_isolation.py [--documents 1000] [--sections 3] [--ticks 30] [--smoke]

Two phases on the same benchmark database, the same documents' text and the same tick stream (bench/tick_ingest.py's
runner body: 2 positions, marks, a proposal, the engine's verdict, 100 bars), each with workers and a gunicorn
(1 worker x 4 threads) of its own:

- shared (BENCH_ROUTING=shared, bench/_floor_settings.py): every task on the default queue, one worker with a
  prefork pool of 2 processes taking it: `make run`'s worker before queues per kind.
- per kind: `make run`'s pools today (memorysite/launcher.py): ticks 1 process, embeddings 1, reflection + sweeps
  + the default queue 1.

A phase writes `--documents` documents of `--sections` ~500-token sections each (a chunk per section) without
queueing, then queues one `recall.embed_pending` per document on the queue the phase's routing gives it (what
each upsert queues on commit), waits until the first chunk has its vector (the flood is under way), then posts
`--ticks` ticks over HTTP, one every `--interval` seconds, to a fresh deployment. A thread polls the deployment's
row (as the tables' owner, every 10 ms) and notes when each tick is materialized (materialized_through >= its
tick_at): lag = that moment - the moment its POST returned. The phase ends when every tick is materialized and
every chunk embedded (the flood's wall time and chunks/s are printed too: one embedding process against two).
Reads never wait on this lag (they catch up inline); what waits is everything fed by materialization (the
trades page's data without a read, situations, reflection triggers).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    BenchRun,
    Client,
    parse_args,
    percentile,
    print_table,
    ratio_line,
    run_script,
    token_for,
    wait_until,
)

GOAL = 0.1  # per-kind lag p95 at most a tenth of the shared queue's
POLL_S = 0.01
WORDS = ("price", "stop", "entry", "exit", "trend", "funding", "volume", "candle", "breakout", "risk", "size", "equity")
SMOKE = {"documents": 8, "sections": 1, "ticks": 3, "interval": 0.2}


def long_document(n: int, sections: int) -> str:
    """Sections of ~500 tokens, each its own chunk (tests/recall/test_worker.py's long document, numbered)."""
    parts = [f"# Research note {n}", ""]
    for s in range(sections):
        parts.append(f"## Section {s} of note {n}")
        parts += [" ".join(WORDS[(n + s + line + i) % len(WORDS)] for i in range(12)) + "." for line in range(40)]
        parts.append("")
    return "\n".join(parts)


class Materialized:
    """A thread noting, for each tick_at, when the deployment's materialized_through first reached it."""

    def __init__(self, database_url: str, deployment_id: int):
        import psycopg

        self.conn = psycopg.connect(database_url, autocommit=True)
        self.deployment_id = deployment_id
        self.watched: list = []  # tick_at values posted, in order
        self.seen: dict = {}  # tick_at -> perf_counter() when seen materialized
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def watch(self, tick_at) -> None:
        with self.lock:
            self.watched.append(tick_at)

    def _poll(self) -> None:
        while not self.stop.is_set():
            through = self.conn.execute(
                "SELECT materialized_through FROM deployments WHERE id = %s", [self.deployment_id]
            ).fetchone()[0]
            now = time.perf_counter()
            with self.lock:
                for tick_at in self.watched:
                    if through is not None and tick_at <= through and tick_at not in self.seen:
                        self.seen[tick_at] = now
            time.sleep(POLL_S)

    def all_seen(self) -> bool:
        with self.lock:
            return len(self.seen) == len(self.watched)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.conn.close()


def pending_chunks(conn, prefix: str) -> int:
    return conn.execute(
        "SELECT count(*) FROM recall_chunks WHERE embedding IS NULL AND path LIKE %s", [f"{prefix}%"]
    ).fetchone()[0]


def run_phase(run: BenchRun, routing: str, args, owner, version, token: str) -> dict:
    import datetime as dt

    import psycopg
    from django.conf import settings

    from bench.tick_ingest import tick_body
    from ledger.models import Deployment, DeploymentMode
    from memorysite.celery import app
    from memorysite.queues import EMBEDDINGS, queue_name
    from recall.services import document_upsert

    prefix = f"flood-{routing}/"
    for n in range(args.documents):
        document_upsert(
            owner=owner,
            path=f"{prefix}note-{n:04d}.md",
            content=long_document(n, args.sections),
            source="workspace",
            queue_embedding=False,
        )
    deployment = Deployment.objects.create(owner=owner, skill_version=version, mode=DeploymentMode.PAPER)
    env = {**run.env, "BENCH_ROUTING": routing}
    if routing == "shared":
        workers = [run.start_celery_worker(queues=run.env["BENCH_QUEUE"], name="shared", concurrency=2, env=env)]
        embed_queue = settings.CELERY_TASK_DEFAULT_QUEUE
    else:
        from memorysite.queues import DEFAULT_QUEUE_POOL, LAUNCHER_POOLS

        workers = []
        for pool, kinds in LAUNCHER_POOLS.items():
            queues = run.run_queues(kinds) + (f",{run.env['BENCH_QUEUE']}" if pool == DEFAULT_QUEUE_POOL else "")
            workers.append(run.start_celery_worker(queues=queues, name=pool, env=env))
        embed_queue = queue_name(EMBEDDINGS, f"{settings.CELERY_TASK_DEFAULT_QUEUE}.")
    saved_env = run.env
    run.env = env  # the phase's gunicorn routes its ticks' tasks as the phase says
    try:
        web = run.start_gunicorn(workers=1, threads=4)
    finally:
        run.env = saved_env
    client = Client(web.port, token)
    chunks_conn = psycopg.connect(run.env["DATABASE_MIGRATE_URL"], autocommit=True)
    marks = Materialized(run.env["DATABASE_MIGRATE_URL"], deployment.pk)
    try:
        total = pending_chunks(chunks_conn, prefix)
        flood_started = time.perf_counter()
        for _ in range(args.documents):  # what each document's upsert queues on commit
            app.send_task("recall.embed_pending", queue=embed_queue, retry=False)
        wait_until(
            lambda: pending_chunks(chunks_conn, prefix) < total, timeout=120, interval=0.05, what="the flood to start"
        )
        posted: dict = {}
        path = f"/api/v1/deployments/{deployment.pk}/ticks/"
        for i in range(args.ticks):
            body = tick_body(i)
            tick_at = dt.datetime.fromisoformat(body["tick_at"].replace("Z", "+00:00"))
            marks.watch(tick_at)
            client.request("POST", path, body, expect=(201,))
            posted[tick_at] = time.perf_counter()
            time.sleep(args.interval)
        pending_after_ticks = pending_chunks(chunks_conn, prefix)
        wait_until(marks.all_seen, timeout=3600, interval=0.05, what=f"{routing}: every tick materialized")
        flood_done = wait_until(
            lambda: pending_chunks(chunks_conn, prefix) == 0, timeout=3600, interval=0.2, what=f"{routing}: the flood"
        )
        lags = [marks.seen[tick_at] - posted[tick_at] for tick_at in posted]
    finally:
        marks.close()
        chunks_conn.close()
        client.close()
        for child in (web, *workers):
            child.stop(graceful=False)
            run.children.remove(child)
    return {
        "lags": lags,
        "chunks": total,
        "flood_s": flood_done - flood_started,
        "pending_after_ticks": pending_after_ticks,
        "processes": sum(2 if child.name.endswith("shared") else 1 for child in workers),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--documents", type=int, default=1000, help="long documents in each phase's flood")
    parser.add_argument("--sections", type=int, default=3, help="~500-token sections (chunks) per document")
    parser.add_argument("--ticks", type=int, default=30, help="ticks posted during each phase's flood")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between two ticks")
    parser.add_argument("--order", choices=("shared-first", "kinds-first"), default="shared-first")
    args = parse_args(parser, argv, SMOKE)

    with BenchRun("queue_isolation") as run:
        from django.contrib.auth import get_user_model

        from ledger.models import Skill, SkillVersion

        token = token_for("bench-runner")
        owner = get_user_model().objects.get(username="bench-runner")
        skill = Skill.objects.create(owner=owner, name="BTC breakout, ETH swing")
        version = SkillVersion.objects.create(
            owner=owner, skill=skill, version=1, strategy_text="Breakouts.", bars_window=100, reflection_cadence="off"
        )
        order = ("shared", "kinds") if args.order == "shared-first" else ("kinds", "shared")
        results = {routing: run_phase(run, routing, args, owner, version, token) for routing in order}

    print(
        f"{args.documents} documents x {args.sections} sections (~500 tokens each) per phase; {args.ticks} ticks"
        f" (100 bars each) posted {args.interval:g} s apart once the flood is under way; phases in order {order}"
    )
    print_table(
        ["routing", "worker processes", "lag p50 s", "p95 s", "max s", "chunks", "flood s", "chunks/s", "pending@last"],
        [
            [
                "one shared queue (before)" if routing == "shared" else "a queue per kind (after)",
                result["processes"],
                f"{percentile(result['lags'], 50):.3f}",
                f"{percentile(result['lags'], 95):.3f}",
                f"{max(result['lags']):.3f}",
                result["chunks"],
                f"{result['flood_s']:.1f}",
                f"{result['chunks'] / result['flood_s']:.1f}",
                result["pending_after_ticks"],
            ]
            for routing, result in results.items()
        ],
    )
    shared, kinds = results["shared"]["lags"], results["kinds"]["lags"]
    print(f"lag p50, one shared queue / a queue per kind: {percentile(shared, 50) / percentile(kinds, 50):.1f}x")
    print(
        ratio_line("lag p95, a queue per kind / one shared queue", percentile(kinds, 95) / percentile(shared, 95), GOAL)
    )
    return 0


if __name__ == "__main__":
    run_script(main)

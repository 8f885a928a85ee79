"""Celery queues per job kind, so a flood of one kind never delays another: 1,000 documents waiting to be
embedded hold up neither a tick's materialization nor a reflection.

Each kind has its own queue and its own worker pool (`make run`: memorysite/launcher.py; docker-compose.yml).
A task not named here (the heartbeat, a job added later without a route) goes to the default queue, which
the sweeps pool also consumes. Queue names carry a prefix so a test run or a benchmark keeps its traffic on
queues of its own (tests/settings.py, bench/_floor_settings.py); the service's prefix is empty.

Routing changes no ordering rule: a deployment's ticks are applied in tick order under its row lock
(ledger.services.materialize_pending), whichever process of whichever pool runs the task.
"""

from __future__ import annotations

TICKS = "ticks"
EMBEDDINGS = "embeddings"
REFLECTION = "reflection"
SWEEPS = "sweeps"
KINDS = (TICKS, EMBEDDINGS, REFLECTION, SWEEPS)
# Where a task with no route goes (Celery's task_default_queue in the service's settings).
DEFAULT_QUEUE = "celery"

# Task name -> its kind. Beat's periodic jobs are sweeps: each only looks for work and queues it on its kind.
TASK_KINDS = {
    "ledger.materialize_deployment": TICKS,
    "recall.embed_pending": EMBEDDINGS,
    "recall.embed_situations": EMBEDDINGS,
    "reflection.run_reflection": REFLECTION,
    "reflection.daily_sweep": SWEEPS,
    "recall.scheduled_sync": SWEEPS,
    "recall.owner_graphs_sync": SWEEPS,
    # Retention (memorysite/retention.py): hourly batched deletes.
    "memorysite.expire_idempotency_keys": SWEEPS,
    "signals.expire_retrieval_audits": SWEEPS,
    "ledger.prune_snapshot_bars": SWEEPS,
    "ledger.prune_served_contexts": SWEEPS,
}


# `make run`'s pools on 2 cores (memorysite/launcher.py): pool name -> the kinds it takes, one process each.
# Ticks and embeddings have a process of their own; reflection (minutes apart, mostly waiting on the model's
# API) and the sweeps share one, which also takes the default queue.
LAUNCHER_POOLS = {
    "ticks": (TICKS,),
    "embeddings": (EMBEDDINGS,),
    "sweeps": (REFLECTION, SWEEPS),
}
DEFAULT_QUEUE_POOL = "sweeps"


def queue_name(kind: str, prefix: str = "") -> str:
    """The queue of a job kind under a prefix (the service's is empty: `ticks`, `embeddings`, ...)."""
    if kind not in KINDS:
        raise ValueError(f"unknown job kind {kind!r}; one of {', '.join(KINDS)}")
    return f"{prefix}{kind}"


def task_routes(prefix: str = "") -> dict[str, dict[str, str]]:
    """Celery's task_routes: every task of TASK_KINDS on its kind's queue."""
    return {task: {"queue": queue_name(kind, prefix)} for task, kind in TASK_KINDS.items()}


def worker_queues(kinds: tuple[str, ...], *, prefix: str = "", default_queue: str | None = None) -> str:
    """A worker's `-Q` argument: the queues of `kinds`, then the default queue when given (the sweeps pool's)."""
    names = [queue_name(kind, prefix) for kind in kinds]
    if default_queue is not None:
        names.append(default_queue)
    return ",".join(names)

"""Queues per job kind (memorysite/queues.py) through the real Redis broker and real worker processes: every task
lands on its kind's queue, and a tick is materialized while an embedding flood is still queued."""

from __future__ import annotations

import contextlib
import json

import pytest
from django.conf import settings

from ledger.tasks import materialize_deployment, prune_served_contexts, prune_snapshot_bars
from memorysite.celery import app, expire_idempotency_keys, heartbeat
from memorysite.queues import DEFAULT_QUEUE_POOL, EMBEDDINGS, KINDS, LAUNCHER_POOLS, TASK_KINDS, TICKS
from memorysite.redis import client as redis_client
from recall.models import Chunk
from recall.tasks import embed_pending, embed_situations, owner_graphs_sync, scheduled_sync
from reflection.tasks import daily_sweep, run_reflection
from signals.tasks import expire_retrieval_audits
from tests.ledger.test_materialize_ordering import actual_rows, caught_up, expected_rows, post_all, tick_bodies
from tests.recall.test_worker import long_document, post_document
from tests.workers import celery_worker, kind_queue, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("empty_queue")]


def queued_tasks(queue: str) -> list[str]:
    """The task names of the messages waiting on a queue (kombu's Redis transport: one JSON message per item)."""
    return [json.loads(raw)["headers"]["task"] for raw in redis_client().lrange(queue, 0, -1)]


def test_every_task_lands_on_its_kinds_queue_and_the_rest_on_the_default(deployment):
    tasks = {
        materialize_deployment: [deployment.pk],
        embed_pending: [],
        embed_situations: [deployment.pk],
        run_reflection: [deployment.pk],
        daily_sweep: [],
        scheduled_sync: [],
        owner_graphs_sync: [],
        expire_idempotency_keys: [],
        expire_retrieval_audits: [],
        prune_snapshot_bars: [],
        prune_served_contexts: [],
    }
    assert sorted(task.name for task in tasks) == sorted(TASK_KINDS)
    for task, args in tasks.items():
        task.apply_async(args=args, retry=False)
    heartbeat.apply_async(retry=False)
    expected = {kind: sorted(name for name, of in TASK_KINDS.items() if of == kind) for kind in KINDS}
    assert {kind: sorted(queued_tasks(kind_queue(kind))) for kind in KINDS} == expected
    assert queued_tasks(settings.CELERY_TASK_DEFAULT_QUEUE) == ["memorysite.heartbeat"]
    # Beat's entries are sent by name, through the same routes.
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        kind = TASK_KINDS.get(entry["task"])
        expected_queue = kind_queue(kind) if kind else settings.CELERY_TASK_DEFAULT_QUEUE
        assert app.amqp.router.route({}, entry["task"])["queue"].name == expected_queue


def test_a_posted_tick_and_a_posted_document_queue_on_their_own_kinds(owner_api, deployment):
    post_all(owner_api, deployment, tick_bodies(1))
    post_document(owner_api, "notes/flood.md", long_document())
    assert queued_tasks(kind_queue(TICKS)) == ["ledger.materialize_deployment"]
    assert queued_tasks(kind_queue(EMBEDDINGS)) == ["recall.embed_pending"]
    assert queued_tasks(settings.CELERY_TASK_DEFAULT_QUEUE) == []


def test_a_tick_is_materialized_while_an_embedding_flood_is_still_queued(owner_api, deployment, tmp_path):
    """`make run`'s pools (one process each) with a flood of long documents waiting to be embedded: the ticks
    posted after it are applied while chunks still wait for their vectors and embed tasks still wait in line."""
    for n in range(60):  # 180 chunks of ~500 tokens: seconds of work for the one embedding process
        post_document(owner_api, f"notes/flood-{n}.md", long_document(sections=3))
    flood = Chunk.objects.filter(embedding__isnull=True).count()
    assert flood == 180 and redis_client().llen(kind_queue(EMBEDDINGS)) == 60
    with contextlib.ExitStack() as stack:
        for pool, kinds in LAUNCHER_POOLS.items():
            queues = [kind_queue(kind) for kind in kinds]
            if pool == DEFAULT_QUEUE_POOL:
                queues.append(settings.CELERY_TASK_DEFAULT_QUEUE)
            stack.enter_context(celery_worker(tmp_path / f"{pool}.log", queue=",".join(queues)))
        log = tmp_path / "embeddings.log"
        wait_until(
            lambda: "recall.embed_pending" in log.read_text(), message="the flood to start", details=log.read_text
        )
        bodies = tick_bodies(10)
        post_all(owner_api, deployment, bodies)
        wait_until(lambda: caught_up(deployment), interval=0.02, message="the ticks to be materialized")
        still_pending = Chunk.objects.filter(embedding__isnull=True).count()
        still_queued = redis_client().llen(kind_queue(EMBEDDINGS))
        assert still_pending > 0, "the flood was over before the ticks were applied: nothing was measured"
        assert still_queued > 0
        wait_until(
            lambda: not Chunk.objects.filter(embedding__isnull=True).exists(),
            timeout=180,
            message="the flood to be embedded",
            details=log.read_text,
        )
    assert actual_rows(deployment) == expected_rows(bodies)

"""A task goes through the real Redis broker to a real worker process (no eager mode)."""

import os

import pytest

from memorysite.celery import app, heartbeat
from tests.workers import celery_worker

pytestmark = pytest.mark.slow


@pytest.fixture
def worker(db, tmp_path):
    with celery_worker(tmp_path / "worker.log") as process:
        yield process


def test_it_runs_a_task_in_a_worker_process_through_redis(worker):
    process = worker
    assert not app.conf.task_always_eager
    assert app.conf.broker_url.startswith(("redis://", "rediss://", "redis+socket://"))
    result = heartbeat.delay().get(timeout=60)
    assert result["pid"] == process.pid  # ran in the worker, not in this process
    assert result["pid"] != os.getpid()
    assert result["database"] == "ok"
    assert result["pgvector"].count(".") == 2  # e.g. "0.6.2": the worker reached PostgreSQL with pgvector
    assert result["redis"] == "ok"

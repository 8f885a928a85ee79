"""A task goes through the real Redis broker to a real worker process (no eager mode)."""

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memorysite.celery import app, heartbeat

pytestmark = pytest.mark.slow
BASE_DIR = Path(settings.BASE_DIR)


def _database_url_of_test_database() -> str:
    database = connection.settings_dict
    credentials = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    if database["HOST"].startswith("/"):
        return f"postgresql://{credentials}@/{database['NAME']}?host={database['HOST']}"
    return f"postgresql://{credentials}@{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"


@pytest.fixture
def worker(db, tmp_path):
    """A real `celery worker` process on a queue of its own, pointed at the test database."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": _database_url_of_test_database(),
        "REDIS_URL": settings.REDIS_URL,
    }
    log = tmp_path / "worker.log"
    with log.open("w") as log_handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "memorysite", "worker", "--pool", "solo", "-Q", queue,
             "--without-mingle", "--without-gossip", "--loglevel", "INFO"],
            cwd=BASE_DIR, env=env, stdout=log_handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        yield queue, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_it_runs_a_task_in_a_worker_process_through_redis(worker):
    queue, process = worker
    assert not app.conf.task_always_eager
    assert app.conf.broker_url.startswith(("redis://", "rediss://", "redis+socket://"))
    result = heartbeat.apply_async(queue=queue).get(timeout=60)
    assert result["pid"] == process.pid  # ran in the worker, not in this process
    assert result["pid"] != os.getpid()
    assert result["database"] == "ok"
    assert result["pgvector"].count(".") == 2  # e.g. "0.6.2": the worker reached PostgreSQL with pgvector
    assert result["redis"] == "ok"

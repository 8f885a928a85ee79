"""Real Celery worker processes for tests, on the test database and this test run's own queue."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.db import connection

BASE_DIR = Path(settings.BASE_DIR)


def database_url_of_test_db() -> str:
    database = connection.settings_dict
    credentials = database["USER"] + (f":{database['PASSWORD']}" if database["PASSWORD"] else "")
    if database["HOST"].startswith("/"):
        return f"postgresql://{credentials}@/{database['NAME']}?host={database['HOST']}"
    return f"postgresql://{credentials}@{database['HOST']}:{database['PORT'] or 5432}/{database['NAME']}"


@contextlib.contextmanager
def celery_worker(log_path: Path, *, queue: str | None = None, concurrency: int = 1):
    """A `celery worker` subprocess (prefork when concurrency > 1); stopped on exit, killed if it hangs."""
    queue = queue or settings.CELERY_TASK_DEFAULT_QUEUE
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "TEST_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
    }
    pool = ["--pool", "solo"] if concurrency == 1 else ["--pool", "prefork", "--concurrency", str(concurrency)]
    with log_path.open("a") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "memorysite", "worker", *pool, "-Q", queue,
             "--without-mingle", "--without-gossip", "--loglevel", "INFO", "-n", f"test-{time.monotonic_ns()}@%h"],
            cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        _wait_ready(log_path, process)
        yield process
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        purge(queue)  # what this test left queued is not the next test's work


def purge(queue: str | None = None) -> None:
    queue = queue or settings.CELERY_TASK_DEFAULT_QUEUE
    from memorysite.celery import app

    with app.connection_for_write() as connection_:
        connection_.default_channel.queue_purge(queue)


def _wait_ready(log_path: Path, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while "ready." not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"celery worker did not start:\n{log_path.read_text()}")
        time.sleep(0.1)


def wait_until(predicate, *, timeout: float = 60.0, interval: float = 0.1, message: str = "condition", details=str):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message}\n{details()}")
        time.sleep(interval)

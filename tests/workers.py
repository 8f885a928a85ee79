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
def celery_worker(log_path: Path, **options):
    """A `celery worker` subprocess; stopped on exit, killed if it hangs. Options: see celery_workers."""
    with celery_workers([log_path], **options) as [process]:
        yield process


@contextlib.contextmanager
def celery_workers(
    log_paths: list[Path],
    *,
    queue: str | None = None,  # comma-separated, as -Q takes them; every queue of this run by default
    concurrency: int = 1,
    pool: str | None = None,
    extra_env: dict[str, str] | None = None,
):
    """One `celery worker` subprocess per log file, started side by side; stopped on exit.

    The pool is solo for one process and prefork for more, unless `pool` says otherwise (a
    prefork pool of one has a parent that survives its child: what reject_on_worker_lost needs).
    `extra_env` adds to (or overrides) the workers' environment, e.g. another settings module.
    """
    queue = queue or ",".join(run_queues())
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "TEST_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        **(extra_env or {}),
    }
    pool = pool or ("solo" if concurrency == 1 else "prefork")
    pool = ["--pool", "solo"] if pool == "solo" else ["--pool", pool, "--concurrency", str(concurrency)]
    processes: list[subprocess.Popen] = []
    try:
        for log_path in log_paths:
            with log_path.open("a") as log:
                process = subprocess.Popen(
                    [sys.executable, "-m", "celery", "-A", "memorysite", "worker", *pool, "-Q", queue,
                     "--without-mingle", "--without-gossip", "--loglevel", "INFO", "-n", f"test-{time.monotonic_ns()}@%h"],
                    cwd=BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
                )  # fmt: skip
            processes.append(process)
        for log_path, process in zip(log_paths, processes, strict=True):
            _wait_ready(log_path, process)
        yield processes
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        purge(queue)  # what this test left queued is not the next test's work


def run_queues() -> list[str]:
    """This test run's queues: its default queue, then one per job kind (memorysite/queues.py)."""
    from memorysite.queues import KINDS

    return [settings.CELERY_TASK_DEFAULT_QUEUE, *(kind_queue(kind) for kind in KINDS)]


def kind_queue(kind: str) -> str:
    """This test run's queue of a job kind (`test-<pid>.ticks`, ...)."""
    from memorysite.queues import queue_name

    return queue_name(kind, prefix=f"{settings.CELERY_TASK_DEFAULT_QUEUE}.")


def purge(queue: str | None = None) -> None:
    """Empty the queues named (comma-separated, as a worker's -Q), or every queue of this run."""
    from memorysite.celery import app

    with app.connection_for_write() as connection_:
        for name in queue.split(",") if queue else run_queues():
            connection_.default_channel.queue_purge(name)


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

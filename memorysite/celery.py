"""The Celery app. Tasks live in each app's tasks.py; configuration comes from CELERY_* settings."""

import os
import socket

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memorysite.settings")

# Tasks run in the scope of the trader who queued them (row-level security; access/celery.py).
app = Celery("memorysite", task_cls="access.celery:ScopedTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.task(name="memorysite.heartbeat")
def heartbeat() -> dict:
    """Proves a worker can reach both servers; beat runs it every minute."""
    from datetime import UTC, datetime

    from memorysite.health import check_database, check_redis

    database = check_database()
    return {
        "worker": socket.gethostname(),
        "pid": os.getpid(),
        "at": datetime.now(UTC).isoformat(),
        "database": database.status,
        "pgvector": database.detail,
        "redis": check_redis().status,
    }


@app.task(name="memorysite.expire_idempotency_keys", ignore_result=True)
def expire_idempotency_keys() -> int:
    """Beat: every trader's Idempotency-Key rows past their 24 h, in batches. Returns how many were deleted."""
    from django.utils import timezone

    from access import scope
    from memorysite.idempotency import idempotency_keys_expire

    with scope.elevated("memorysite.expire_idempotency_keys: keys older than 24 h", atomic=False):
        return idempotency_keys_expire(now=timezone.now())

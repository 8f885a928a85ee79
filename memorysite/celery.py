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

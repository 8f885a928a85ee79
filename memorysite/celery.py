"""The Celery app. Tasks live in each app's tasks.py; configuration comes from CELERY_* settings."""

import logging
import os
import socket
import time

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memorysite.settings")

# Tasks run in the scope of the trader who queued them (row-level security; access/celery.py).
app = Celery("memorysite", task_cls="access.celery:ScopedTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _connect_log_context() -> None:
    """Each task's log lines name its deployment (memorysite/logs.py); its id comes from Celery itself."""
    from memorysite.logs import task_finished, task_started

    task_prerun.connect(task_started, weak=False)
    task_postrun.connect(task_finished, weak=False)


_connect_log_context()


@worker_process_shutdown.connect
def _metrics_process_dead(pid=None, **kwargs) -> None:
    """prometheus-client's multiprocess mode (memorysite/metrics.py): a pool process that exits stops counting."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid())


logger = logging.getLogger(__name__)
HEARTBEAT_TTL_S = 24 * 3600  # older than this, the age reads +Inf (never seen): the alert fires either way


@app.task(name="memorysite.heartbeat")
def heartbeat() -> dict:
    """Proves a worker can reach both servers; beat runs it every minute."""
    from datetime import UTC, datetime

    from memorysite.health import check_database, check_redis
    from memorysite.metrics import HEARTBEAT_KEY
    from memorysite.redis import client as redis_client

    database = check_database()
    try:  # GET /metrics serves its age (memory_worker_heartbeat_age_seconds): the alert on a stopped worker
        redis_client().set(HEARTBEAT_KEY, f"{time.time():.3f}", ex=HEARTBEAT_TTL_S)
    except Exception:
        logger.warning("heartbeat: not recorded in Redis", exc_info=True)
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

"""One Redis client per process for the service's own keys (Celery keeps its own connections), and the
one "enqueue once" rule every debounced task follows."""

import contextlib
import logging
from collections.abc import Callable
from functools import cache

import redis
from django.conf import settings
from django.db import connection

logger = logging.getLogger(__name__)


@cache
def client() -> redis.Redis:
    """Short timeouts: callers treat an unreachable Redis as "fall back", never as "wait"."""
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)


def queued_key(purpose: str, subject: object) -> str:
    """``queued:<database>:<purpose>:<subject>``, the mark of a queued run. Named after the database:
    services (or test runs) sharing one Redis never suppress each other's runs."""
    return f"queued:{connection.settings_dict['NAME']}:{purpose}:{subject}"


def enqueue_once(purpose: str, subject: object, *, ttl_s: int, enqueue: Callable[[], object]) -> bool:
    """Call ``enqueue()`` unless a run of ``purpose`` for ``subject`` is already queued (SET NX EX of
    ``queued_key``): a burst of events queues one task. True when it enqueued, False when one was queued.

    The task calls ``queued_done`` when it starts, so events during its run queue the next one; the
    mark expires after ``ttl_s`` in case a task is lost. Errors propagate (the caller picks its
    fallback); when ``enqueue()`` fails the mark is removed first, so the next event tries again."""
    key = queued_key(purpose, subject)
    if not client().set(key, "1", nx=True, ex=ttl_s):
        return False
    try:
        enqueue()
    except Exception:
        with contextlib.suppress(redis.RedisError):
            client().delete(key)
        raise
    return True


def queued_done(purpose: str, subject: object) -> None:
    """A queued task's first step: forget its mark, so what happens while it runs queues the next run.
    An unreachable Redis is logged, not raised: the task still runs, and the mark expires on its own (at
    worst an event during the run waits for the expiry, or a redundant run follows)."""
    try:
        client().delete(queued_key(purpose, subject))
    except redis.RedisError:
        logger.warning("queued mark %s:%s not cleared (Redis unreachable)", purpose, subject, exc_info=True)

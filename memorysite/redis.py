"""One Redis client per process for the service's own keys (Celery keeps its own connections)."""

from functools import cache

import redis
from django.conf import settings


@cache
def client() -> redis.Redis:
    """Short timeouts: callers treat an unreachable Redis as "fall back", never as "wait"."""
    return redis.Redis.from_url(settings.REDIS_URL, socket_timeout=2, socket_connect_timeout=2)

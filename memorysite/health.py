"""GET /healthz: is the database (with pgvector) and Redis reachable from this process?"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import redis
from django.db import DatabaseError, connection
from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from access.middleware import without_transaction
from memorysite.redis import client as redis_client

logger = logging.getLogger(__name__)

OK = "ok"
DOWN = "down"


@dataclass(frozen=True)
class Check:
    status: str
    detail: str = ""


def check_database() -> Check:
    """Status of the database; detail carries the pgvector extension version."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
    except DatabaseError as exc:
        logger.warning("healthz: database unreachable: %s", exc)
        return Check(DOWN, "unknown")
    if row is None:
        return Check(OK, "missing")
    return Check(OK, row[0])


def check_redis() -> Check:
    try:
        redis_client().ping()
    except (redis.RedisError, OSError) as exc:
        logger.warning("healthz: redis unreachable: %s", exc)
        return Check(DOWN)
    return Check(OK)


@without_transaction  # answers 503 with the database down, rather than failing to open a transaction
@never_cache
@require_GET
def healthz(request):
    database = check_database()
    redis_check = check_redis()
    body: dict[str, object] = {"database": database.status, "pgvector": database.detail, "redis": redis_check.status}
    down = [name for name, value in (("database", database.status), ("redis", redis_check.status)) if value != OK]
    if database.detail == "missing":
        down.append("pgvector")
    if down:
        body["down"] = down
        return JsonResponse(body, status=503)
    return JsonResponse(body)

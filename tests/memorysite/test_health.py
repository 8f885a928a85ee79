import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memorysite.redis import client as redis_client


@pytest.fixture
def fresh_redis_client():
    redis_client.cache_clear()
    yield
    redis_client.cache_clear()


def _pgvector_version() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        return cursor.fetchone()[0]


def test_it_reports_everything_ok(client, db, fresh_redis_client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "pgvector": _pgvector_version(), "redis": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_it_needs_no_login(client, db):
    assert client.get("/healthz").status_code == 200


def test_it_answers_503_naming_redis_when_redis_is_down(client, db, settings, tmp_path, fresh_redis_client):
    settings.REDIS_URL = f"unix://{tmp_path}/no-such-redis.sock?db=0"
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"database": "ok", "pgvector": _pgvector_version(), "redis": "down", "down": ["redis"]}


@pytest.mark.slow
def test_it_answers_503_naming_the_database_when_postgres_is_down(tmp_path):
    """A separate process whose DATABASE_URL points at a socket where no server listens."""
    script = (
        "import django, json; django.setup();"
        "from django.test import Client; r = Client().get('/healthz', HTTP_HOST='localhost');"
        "print(r.status_code, json.dumps(r.json(), sort_keys=True))"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memorysite.settings",
        "DATABASE_URL": f"postgresql://postgres@/memory?host={tmp_path}",
        "REDIS_URL": settings.REDIS_URL,
    }
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=Path(settings.BASE_DIR), env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == (
        '503 {"database": "down", "down": ["database"], "pgvector": "unknown", "redis": "ok"}'
    )


def test_it_only_answers_get(client, db):
    assert client.post("/healthz").status_code == 405

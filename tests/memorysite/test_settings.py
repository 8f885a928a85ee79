"""Settings read the environment once, fail loudly, and have a production profile."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from tests.memorysite.test_compose import settings_variables

BASE_DIR = Path(settings.BASE_DIR)
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "k" * 20 + "-production-secret-that-is-long-enough-0123456789",
    "ALLOWED_HOSTS": "memory.example.com",
    # External servers named, so manage.py starts no embedded ones; `check` does not connect.
    "DATABASE_URL": "postgres://memory:pw@db.internal:5432/memory",
    "REDIS_URL": "redis://cache.internal:6379/0",
}


def _manage(*args, **env_overrides):
    env = {k: v for k, v in os.environ.items() if k not in {*PRODUCTION, "DJANGO_SETTINGS_MODULE"}}
    env.update(env_overrides)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_the_production_profile_passes_check_deploy():
    result = _manage("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DEBUG": "perhaps"}, "DEBUG='perhaps': must be one of true/false"),
        ({"SECRET_KEY": ""}, "SECRET_KEY: must be set when DEBUG=false"),
        ({"SECRET_KEY": "short"}, "SECRET_KEY: must be 50+ random characters when DEBUG=false"),
        ({"ALLOWED_HOSTS": ""}, "ALLOWED_HOSTS: must list the served host names when DEBUG=false"),
        ({"ALLOWED_HOSTS": "a,,b"}, "ALLOWED_HOSTS='a,,b': must be a comma-separated list"),
        ({"DATABASE_URL": "mysql://u@h/db"}, "DATABASE_URL: scheme must be postgres://"),
        ({"REDIS_URL": "http://cache/0"}, "REDIS_URL: scheme must be redis://, rediss:// or unix://"),
        ({"CLIENT_TIMEOUT_S": "0"}, "CLIENT_TIMEOUT_S='0': must be a whole number of at least 1"),
        ({"DATABASE_STATEMENT_TIMEOUT_MS": "5s"}, "DATABASE_STATEMENT_TIMEOUT_MS='5s': must be a whole number"),
        ({"SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS": "30"}, "must be a whole number of at least 90"),
        ({"SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS": "365"}, "must be 90 to 180 (the seed's retention)"),
    ],
)
def test_it_fails_loudly_on_a_malformed_environment(overrides, message):
    result = _manage("check", **{**PRODUCTION, **overrides})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_settings_read_every_documented_variable_and_no_other():
    documented = set(re.findall(r"^([A-Z_]+)=", (BASE_DIR / ".env.example").read_text(), re.MULTILINE))
    read = settings_variables()
    assert read == {
        "DATABASE_URL",
        "DATABASE_MIGRATE_URL",
        "REDIS_URL",
        "SECRET_KEY",
        "DEBUG",
        "ALLOWED_HOSTS",
        "ANTHROPIC_API_KEY",
        "REFLECTION_MODEL",
        "CHAT_MODEL",
        "EMBEDDINGS_PROVIDER",
        "EMBEDDINGS_MODEL_DIR",
        "EMBEDDINGS_MODEL_NAME",
        "EMBEDDINGS_CACHE_DIR",
        "EMBEDDINGS_PRECISION",
        "RECALL_BACKEND",
        "AUTH_CLIENT_IP_HEADER",
        "CLIENT_TIMEOUT_S",
        "MCP_REQUEST_TIMEOUT_S",
        "DATABASE_STATEMENT_TIMEOUT_MS",
        "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS",
        "SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS",
        "SNAPSHOT_BARS_RETENTION_DAYS",
        "SERVED_CONTEXT_RETENTION_DAYS",
        "SIGNALS_MEMORY_ENABLED",
        "SIGNALS_MEMORY_MAX_SIGNALS",
        "SIGNALS_QUERY_TIMEOUT_MS",
        "SIGNALS_MEMORY_RETRIES",
        "METRICS_TOKEN",
        "PROMETHEUS_MULTIPROC_DIR",
        "LOG_FORMAT",
    }
    assert documented - {"POSTGRES_PASSWORD", "APP_DB_PASSWORD"} == read


def test_it_uses_the_native_psycopg_pool_through_the_scoping_backend():
    from django.db import connections
    from django.db.backends.postgresql.base import DatabaseWrapper

    database = settings.DATABASES["default"]
    assert database["ENGINE"] == "access.backend"
    assert isinstance(connections["default"], DatabaseWrapper)  # Django's PostgreSQL backend, one hook added
    assert database["OPTIONS"]["pool"]["max_size"] >= 1
    assert database["OPTIONS"]["pool"]["reset"].__name__ == "reset_scope"
    assert database["CONN_MAX_AGE"] == 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"DATABASE_MIGRATE_URL": "mysql://u@h/memory"}, "DATABASE_MIGRATE_URL: scheme must be postgres://"),
        ({"DATABASE_MIGRATE_URL": "postgres://u@h/other"}, "DATABASE_MIGRATE_URL: must name the same database"),
    ],
)
def test_a_bad_migrate_url_fails_loudly(overrides, message):
    result = _manage("check", **{**PRODUCTION, **overrides})
    assert result.returncode != 0
    assert message in result.stderr

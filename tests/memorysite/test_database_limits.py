"""The app role's limits (issue 16, §1): no statement runs, and no transaction sits idle, for ever.

The service's sessions take DATABASE_STATEMENT_TIMEOUT_MS / DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS
from settings; any other session as the app role gets the role's own (memorysite/embedded.py).
Over HTTP, a cancelled statement is a 503 (tests/memorysite/test_serving.py).
"""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from memorysite import embedded
from tests.workers import database_url_of_test_db

LIMITS = (
    "SELECT name, setting, source FROM pg_settings"
    " WHERE name IN ('idle_in_transaction_session_timeout', 'statement_timeout') ORDER BY name"
)


def test_the_service_sessions_carry_the_configured_limits(db):
    with connection.cursor() as cursor:
        cursor.execute(LIMITS)
        rows = cursor.fetchall()
    assert rows == [
        ("idle_in_transaction_session_timeout", str(settings.DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS), "client"),
        ("statement_timeout", str(settings.DATABASE_STATEMENT_TIMEOUT_MS), "client"),
    ]


def test_any_other_session_as_the_app_role_has_the_role_limits(db):
    database = connection.settings_dict
    conninfo = {"dbname": database["NAME"], "user": database["USER"], "password": database["PASSWORD"]}
    conninfo.update({"host": database["HOST"], "port": database["PORT"]})
    assert database["USER"] == embedded.APP_USER
    with psycopg.connect(**{key: value for key, value in conninfo.items() if value}) as conn:  # no options
        rows = conn.execute(LIMITS).fetchall()
    assert rows == [
        ("idle_in_transaction_session_timeout", str(embedded.APP_IDLE_IN_TRANSACTION_TIMEOUT_MS), "user"),
        ("statement_timeout", str(embedded.APP_STATEMENT_TIMEOUT_MS), "user"),
    ]


IDLE_SCRIPT = """
import time
from django.db import connection, transaction
try:
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        time.sleep(1.0)  # the client's pause inside the transaction: longer than the limit
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    print("still open")
except Exception as exc:
    print("ended:", exc)
"""


@pytest.mark.slow
def test_a_transaction_left_idle_past_the_limit_ends_its_session(db):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "memorysite.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS": "300",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", IDLE_SCRIPT],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "ended:" in result.stdout and "idle-in-transaction timeout" in result.stdout, result.stdout

"""A hostile or broken client cannot pin gunicorn's threads or a database transaction (issue 16, §1).

The service as served: gunicorn with the repository's gunicorn.conf.py (memorysite/serving.py's
worker) on the test database, with short limits (CLIENT_TIMEOUT_S=1, DATABASE_STATEMENT_TIMEOUT_MS=1000)
so each case takes about a second. Every client here has its own socket timeout, so a regression
fails instead of hanging.
"""

from __future__ import annotations

import os
import select
import socket
import time

import httpx
import pytest
from django.conf import settings

from tests.dbroles import owner_connection
from tests.errors import error_body
from tests.faults.test_postgres_restart import free_port, gunicorn
from tests.security.world import make_trader
from tests.workers import database_url_of_test_db

pytestmark = pytest.mark.slow

CLIENT_TIMEOUT_S = 1
STATEMENT_TIMEOUT_MS = 1000
PATIENCE_S = 6  # how long a client here waits for an answer: well past every limit, far short of "never"
TICK = b'{"tick_at": "2026-06-04T11:00:00Z", "equity_usd": 10000, "positions": []}'


@pytest.fixture(scope="module")
def web(django_db_setup, tmp_path_factory):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "TEST_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "CLIENT_TIMEOUT_S": str(CLIENT_TIMEOUT_S),
        "DATABASE_STATEMENT_TIMEOUT_MS": str(STATEMENT_TIMEOUT_MS),
    }
    port = free_port()
    with gunicorn(env, port, tmp_path_factory.mktemp("web") / "web.log"):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture
def trader(transactional_db, web):
    yield make_trader("owner")
    # A regression leaves a transaction of gunicorn's open for ever: end it, or emptying the tables
    # after the test (transactional_db) would wait on its locks and hang the run instead of failing it.
    with owner_connection() as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND state LIKE 'idle in transaction%'"
        )


def idle_transactions() -> list[tuple]:
    """Sessions on the test database sitting in an open transaction (as the owner sees every session)."""
    with owner_connection() as conn:
        return conn.execute(
            "SELECT pid, usename, state, query FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'"
        ).fetchall()


@pytest.mark.parametrize("token", ["account", "runner"])
def test_it_answers_get_on_mcp_with_405_at_once(web, trader, token):
    key = trader.token if token == "account" else trader.runner_key
    headers = {"Authorization": f"Token {key}", "Accept": "application/json, text/event-stream"}
    started = time.monotonic()
    response = httpx.get(f"{web}/mcp/", headers=headers, timeout=PATIENCE_S)
    assert time.monotonic() - started < 2
    assert response.status_code == 405, response.text
    assert response.headers["Allow"] == "POST, OPTIONS"
    assert error_body(response) == {"detail": 'Method "GET" not allowed.'}
    assert idle_transactions() == []
    # POST still serves MCP, for both kinds of token.
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx.post(f"{web}/mcp/", json=message, headers=headers, timeout=PATIENCE_S)
    assert response.status_code == 200 and "tools" in response.json()["result"], response.text


def _silent_client(web: str, request: bytes) -> socket.socket:
    port = int(web.rsplit(":", 1)[1])
    client = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE_S)
    client.sendall(request)
    return client


def _read_until_closed(client: socket.socket) -> bytes:
    received = b""
    while chunk := client.recv(65536):  # socket.timeout (a test failure) if the server never lets go
        received += chunk
    return received


@pytest.mark.parametrize(
    "sent",
    ["half the head", "the head, no body", "the head and half the body"],
)
def test_a_silent_client_is_cut_off_without_holding_a_transaction(web, trader, sent):
    path = f"/api/v1/deployments/{trader.deployment_id}/ticks/"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {trader.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(TICK)}\r\n\r\n"
    ).encode()
    request = {
        "half the head": head[: len(head) // 2],
        "the head, no body": head,
        "the head and half the body": head + TICK[: len(TICK) // 2],
    }[sent]
    started = time.monotonic()
    with _silent_client(web, request) as client:
        time.sleep(CLIENT_TIMEOUT_S / 2)
        assert idle_transactions() == []  # nothing waits on this client inside a transaction
        received = _read_until_closed(client)
    assert time.monotonic() - started < CLIENT_TIMEOUT_S + 2  # the thread was let go
    if sent == "half the head":
        assert received == b""  # gunicorn closes: there is no request to answer
    else:
        assert received.startswith(b"HTTP/1.1 408 "), received[:200]
        assert b'{"detail": "request body: not received within 1 s", "request_id": "' in received
    assert idle_transactions() == []


def test_a_client_trickling_its_body_is_cut_off_at_the_deadline(web, trader):
    path = f"/api/v1/deployments/{trader.deployment_id}/ticks/"
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token {trader.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(TICK)}\r\n\r\n"
    ).encode()
    started = time.monotonic()
    answer = None
    with _silent_client(web, head) as client:
        for byte in TICK:  # a byte every 0.2 s: the body would take 14 s
            if select.select([client], [], [], 0.2)[0]:
                try:
                    answer = _read_until_closed(client)
                except ConnectionResetError:  # closed with our latest bytes unread
                    answer = b"(reset)"
                break
            client.sendall(bytes([byte]))
    cut_off = time.monotonic() - started
    assert answer is not None, "the whole body was let in"
    assert answer.startswith(b"HTTP/1.1 408 ") or answer == b"(reset)", answer[:200]
    assert CLIENT_TIMEOUT_S <= cut_off < CLIENT_TIMEOUT_S + 1.5


def test_a_statement_over_the_limit_is_a_503_and_rolled_back(web, trader):
    with owner_connection() as blocker:
        blocker.autocommit = False
        blocker.execute("SELECT 1 FROM deployments WHERE id = %s FOR UPDATE", [trader.deployment_id])
        started = time.monotonic()
        response = httpx.post(
            f"{web}/api/v1/deployments/{trader.deployment_id}/ticks/",
            content=TICK,
            headers={"Authorization": f"Token {trader.token}", "Content-Type": "application/json"},
            timeout=PATIENCE_S,
        )
        elapsed = time.monotonic() - started
        blocker.rollback()
    assert response.status_code == 503, response.text
    assert error_body(response) == {
        "detail": f"the database did not answer within {STATEMENT_TIMEOUT_MS} ms; try again"
    }
    assert response.headers["Retry-After"] == "1"
    assert STATEMENT_TIMEOUT_MS / 1000 <= elapsed < STATEMENT_TIMEOUT_MS / 1000 + 2
    assert idle_transactions() == []
    # Nothing was written, and the same tick goes through once the row is free.
    retried = httpx.post(
        f"{web}/api/v1/deployments/{trader.deployment_id}/ticks/",
        content=TICK,
        headers={"Authorization": f"Token {trader.token}", "Content-Type": "application/json"},
        timeout=PATIENCE_S,
    )
    assert retried.status_code == 201, retried.text

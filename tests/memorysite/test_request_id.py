"""X-Request-ID: accepted when usable, made otherwise, returned on every response, in JSON error bodies and in
the log lines of the request (issue 22, structured logs)."""

from __future__ import annotations

import json
import logging

import pytest

from memorysite.logs import ContextFilter, JsonLineFormatter, accepted_request_id
from tests.dbfaults import table_renamed
from tests.security.world import make_trader


def test_a_usable_id_is_returned_as_sent(client, db):
    response = client.get("/healthz", HTTP_X_REQUEST_ID="run-42.tick:7")
    assert response["X-Request-ID"] == "run-42.tick:7"


@pytest.mark.parametrize("sent", ["", "x" * 129, "a b", "id\u202e", "<script>", "a\nb"])
def test_an_unusable_id_is_replaced(client, db, sent):
    response = client.get("/healthz", HTTP_X_REQUEST_ID=sent)
    made = response["X-Request-ID"]
    assert made != sent and len(made) == 32 and made.isalnum()


def test_each_request_gets_its_own_id(client, db):
    assert client.get("/healthz")["X-Request-ID"] != client.get("/healthz")["X-Request-ID"]


def test_error_bodies_carry_the_id(client, owner_api, db):
    unauthenticated = client.get("/api/v1/skills/", HTTP_X_REQUEST_ID="abc-1")
    assert unauthenticated.status_code == 401
    assert unauthenticated.json()["request_id"] == "abc-1"
    invalid = owner_api.post("/api/v1/skills/", {"name": ""}, format="json", HTTP_X_REQUEST_ID="abc-2")
    assert invalid.status_code == 400
    body = invalid.json()
    assert body["request_id"] == "abc-2" and "name" in body["errors"]
    assert int(invalid["Content-Length"]) == len(invalid.content)
    missing = owner_api.get("/api/v1/no-such-endpoint/")
    assert missing.status_code == 404
    assert missing.json() == {"detail": "Not found.", "request_id": missing["X-Request-ID"]}


def test_a_success_body_is_left_alone(client, db):
    assert "request_id" not in client.get("/healthz").json()


@pytest.mark.django_db(transaction=True)
def test_log_lines_of_a_request_carry_its_request_trader_and_deployment():
    trader = make_trader("owner")  # a deployment with an open trade: the context reads similar situations
    context = f"/api/v1/deployments/{trader.deployment_id}/context/"
    assert trader.client.get(context).status_code == 200  # the tick materialized first (no table of it renamed)
    lines: list[str] = []
    handler = logging.Handler()
    handler.setFormatter(JsonLineFormatter())
    handler.addFilter(ContextFilter())
    handler.emit = lambda record: lines.append(handler.format(record))  # type: ignore[method-assign]
    logger = logging.getLogger("agentcontext.degrade")
    logger.addHandler(handler)
    try:
        with table_renamed("recall_trade_situations"):  # a section's read fails for real: logged, degraded
            response = trader.client.get(context, HTTP_X_REQUEST_ID="req-9")
    finally:
        logger.removeHandler(handler)
    assert response.status_code == 200 and response.json()["degraded"] == ["similar_situations"]
    record = json.loads(lines[-1])
    assert record["message"].startswith("context section ")
    assert record["request_id"] == "req-9"
    assert record["trader_id"] == trader.user.pk
    assert record["deployment_id"] == trader.deployment_id
    assert record["task_id"] is None
    assert record["level"] == "WARNING" and record["logger"] == "agentcontext.degrade"
    assert record["error_class"] == "UndefinedTable"  # the call's own `extra` fields are kept


def test_the_validation_rule():
    assert accepted_request_id("A-z_0.9:x") == "A-z_0.9:x"
    assert accepted_request_id(None) != accepted_request_id(None)

"""POST /mcp/ refuses bodies the API's JSON rules refuse (memorysite/json_body.py) before the SDK reads
them: a JSON-RPC parse error with a 400, naming the limit or the field, nothing run (issue 16)."""

from __future__ import annotations

import json

import pytest
from mcp.types import PARSE_ERROR

from memorysite.json_body import LONE_SURROGATE, MAX_JSON_DEPTH, NOT_FINITE, TOO_DEEP
from tests.security.world import CONTEXT, make_trader, row_counts

HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream"}


@pytest.fixture
def me(db):
    return make_trader("me")


def call(tool: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def post(me, raw: str):
    return me.client.generic("POST", "/mcp/", raw, content_type="application/json", **HEADERS)


def parse_error(message: str) -> dict:
    return {
        "jsonrpc": "2.0",
        "id": "server-error",
        "error": {"code": PARSE_ERROR, "message": f"Parse error: {message}"},
    }


def test_a_valid_call_still_reaches_the_server(me):
    response = post(me, json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    assert response.status_code == 200, response.content[:300]
    assert "remember" in {tool["name"] for tool in response.json()["result"]["tools"]}


def test_json_nested_deeper_than_the_limit_is_a_parse_error_naming_it(me):
    """Was a 500: the SDK's json.loads raised RecursionError."""
    deep = json.loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    before = row_counts()
    for raw in ('{"a":' * 5000, json.dumps(call("remember", {"fact": "I trade BTC.", "extra": deep}))):
        response = post(me, raw)
        assert (response.status_code, response.json()) == (400, parse_error(TOO_DEEP))
    assert row_counts() == before


@pytest.mark.parametrize(
    ("body", "field", "rule"),
    [
        (call("remember", {"fact": "I trade \ud800 BTC."}), "params.arguments.fact", LONE_SURROGATE),
        (
            call("record_experiment", {"id": "exp_9", "strategy_name": "rsi", "context": {**CONTEXT, "x": "<inf>"}}),
            "params.arguments.context.x",
            NOT_FINITE,
        ),
    ],
    ids=["surrogate", "1e309"],
)
def test_a_lone_surrogate_or_an_infinite_number_is_a_parse_error_naming_the_field(me, body, field, rule):
    before = row_counts()
    response = post(me, json.dumps(body).replace('"<inf>"', "1e309"))
    assert (response.status_code, response.json()) == (400, parse_error(f"{field}: {rule}"))
    assert row_counts() == before

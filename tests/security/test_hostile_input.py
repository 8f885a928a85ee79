"""Hostile input on every write endpoint (issue 9): an exact 4xx naming the field or rule, and no row written.

The table CASES has one entry per write operation (POST/PUT/PATCH/DELETE under /api/v1/) of the live
OpenAPI schema; `test_every_write_operation_of_the_schema_has_a_case` fails when an endpoint is added
without one. Each case knows a valid request for "me" and, where it applies, how to point it at another
trader's object (in the URL or in a body reference) and which free-text field to poison.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from access import scope
from ledger.models import RunnerToken
from memorysite.api import CONTROL_CHARACTERS, NO_CREDENTIALS, NUL_IN_JSON, UNKNOWN_FIELD, AwareDateTimeField
from memorysite.json_body import (
    LONE_SURROGATE,
    LONE_SURROGATE_IN_KEY,
    MAX_JSON_DEPTH,
    NOT_FINITE,
    NOT_TEXT,
    TOO_DEEP,
)
from memorysite.validators import DOCUMENT_TEXT_NUL
from tests.errors import error_body
from tests.factories import PASSWORD
from tests.openapi import openapi_schema
from tests.security.world import CONTEXT, TICK_AT, Trader, make_trader, row_counts

WRITE_METHODS = ("post", "put", "patch", "delete")
NOT_FOUND = {"detail": "Not found."}

Url = Callable[[Trader], str]
Body = Callable[[Trader], dict]


@dataclass(frozen=True)
class Case:
    url: Url
    body: Body | None  # None: the operation reads no body (DELETE)
    foreign_url: Callable[[Trader, Trader], str] | None = None  # (me, them) → my request on their object
    foreign_body: Callable[[Trader, Trader], tuple[str, dict]] | None = None  # (url, body) referencing theirs
    text: str | None = None  # dotted path of a free-text field in the body
    document_text: str | None = None  # dotted path of a document's text: anything but NUL is data
    json_field: str | None = None  # a free-form JSON field (stored as jsonb)
    authenticated: bool = True
    runner_scope: bool = False  # a runner token of the deployment may call it


def dep(me: Trader) -> str:
    return f"/api/v1/deployments/{me.deployment_id}"


def tick_body(me: Trader) -> dict:
    position = {"symbol": "BTC", "side": "long", "size": 0.02, "mark_price": 65300}
    return {
        "tick_at": "2026-06-04T10:01:00Z",
        "equity_usd": 10_000,
        "positions": [position],
        "proposed_action": {"kind": "hold", "reason": "wait for the close"},
    }


SIGNAL = {
    "agent_name": "microstructure",
    "agent_type": "analyst",
    "condition_id": "0xabc",
    "direction": "YES",
    "fair_probability": 0.62,
    "confidence": 0.7,
    "metadata": {"model": "m1"},
}
EXPERIMENT = {"id": "exp_2", "strategy_name": "rsi_di", "context": {**CONTEXT, "symbol": "GBPUSD"}}

CASES: dict[tuple[str, str], Case] = {
    ("POST", "/api/v1/auth/token/"): Case(
        url=lambda me: "/api/v1/auth/token/",
        body=lambda me: {"username": me.user.username, "password": PASSWORD},
        authenticated=False,
    ),
    ("POST", "/api/v1/auth/tokens/"): Case(
        url=lambda me: "/api/v1/auth/tokens/",
        body=lambda me: {"name": "notebook", "expires_at": "2099-01-01T00:00:00Z"},
        text="name",
    ),
    ("DELETE", "/api/v1/auth/tokens/{token_id}/"): Case(
        url=lambda me: f"/api/v1/auth/tokens/{me.spare_token_id}/",
        body=None,
        foreign_url=lambda me, them: f"/api/v1/auth/tokens/{them.spare_token_id}/",
    ),
    ("POST", "/api/v1/chat/"): Case(
        url=lambda me: "/api/v1/chat/",
        body=lambda me: {"messages": [{"role": "user", "content": "How am I doing?"}]},
        foreign_body=lambda me, them: (
            "/api/v1/chat/",
            {"messages": [{"role": "user", "content": "Hi"}], "focus": {"deployment_id": them.deployment_id}},
        ),
        text="messages.0.content",
    ),
    ("POST", "/api/v1/chat/tools/{name}/"): Case(
        url=lambda me: "/api/v1/chat/tools/remember/",
        body=lambda me: {"fact": "I never trade on Fridays."},
        foreign_body=lambda me, them: ("/api/v1/chat/tools/forget/", {"fact_id": them.fact_id}),
        text="fact",
    ),
    ("POST", "/api/v1/deployments/"): Case(
        url=lambda me: "/api/v1/deployments/",
        body=lambda me: {"skill_id": me.skill_id, "mode": "paper"},
        foreign_body=lambda me, them: ("/api/v1/deployments/", {"skill_id": them.skill_id, "mode": "paper"}),
    ),
    ("POST", "/api/v1/deployments/{deployment_id}/fills/"): Case(
        url=lambda me: f"{dep(me)}/fills/",
        body=lambda me: {"symbol": "BTC", "fees_usd": 1.5, "filled_at": "2026-06-04T10:00:30Z"},
        foreign_url=lambda me, them: f"{dep(them)}/fills/",
        text="symbol",
        runner_scope=True,
    ),
    ("POST", "/api/v1/deployments/{deployment_id}/runner-tokens/"): Case(
        url=lambda me: f"{dep(me)}/runner-tokens/",
        body=lambda me: {"name": "second runner"},
        foreign_url=lambda me, them: f"{dep(them)}/runner-tokens/",
        text="name",
    ),
    ("DELETE", "/api/v1/deployments/{deployment_id}/runner-tokens/{token_id}/"): Case(
        url=lambda me: f"{dep(me)}/runner-tokens/{me.runner_token_id}/",
        body=None,
        # their token under my deployment (their deployment is covered by the URL's first id the same way)
        foreign_url=lambda me, them: f"{dep(me)}/runner-tokens/{them.runner_token_id}/",
    ),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/"): Case(
        url=lambda me: f"{dep(me)}/ticks/",
        body=tick_body,
        foreign_url=lambda me, them: f"{dep(them)}/ticks/",
        text="proposed_action.reason",
        runner_scope=True,
    ),
    ("POST", "/api/v1/facts/"): Case(
        url=lambda me: "/api/v1/facts/",
        body=lambda me: {"fact": "I size positions at 1% risk."},
        text="fact",
    ),
    ("PATCH", "/api/v1/facts/{fact_id}/"): Case(
        url=lambda me: f"/api/v1/facts/{me.fact_id}/",
        body=lambda me: {"topic": "markets"},
        foreign_url=lambda me, them: f"/api/v1/facts/{them.fact_id}/",
        text="topic",
    ),
    ("DELETE", "/api/v1/facts/{fact_id}/"): Case(
        url=lambda me: f"/api/v1/facts/{me.fact_id}/",
        body=None,
        foreign_url=lambda me, them: f"/api/v1/facts/{them.fact_id}/",
    ),
    ("POST", "/api/v1/facts/{fact_id}/archive/"): Case(
        url=lambda me: f"/api/v1/facts/{me.fact_id}/archive/",
        body=lambda me: {},
        foreign_url=lambda me, them: f"/api/v1/facts/{them.fact_id}/archive/",
    ),
    ("POST", "/api/v1/facts/{fact_id}/unarchive/"): Case(
        url=lambda me: f"/api/v1/facts/{me.fact_id}/unarchive/",
        body=lambda me: {},
        foreign_url=lambda me, them: f"/api/v1/facts/{them.fact_id}/unarchive/",
    ),
    ("POST", "/api/v1/recall/documents/"): Case(
        url=lambda me: "/api/v1/recall/documents/",
        body=lambda me: {"path": "notes/more.md", "content": "# More\nSell rips.\n"},
        foreign_body=lambda me, them: (
            "/api/v1/recall/documents/",
            {"path": "notes/x.md", "content": "# X\n", "deployment_id": them.deployment_id},
        ),
        document_text="content",
        json_field="metadata",
    ),
    ("DELETE", "/api/v1/recall/documents/{document_id}/"): Case(
        url=lambda me: f"/api/v1/recall/documents/{me.document_id}/",
        body=None,
        foreign_url=lambda me, them: f"/api/v1/recall/documents/{them.document_id}/",
    ),
    ("POST", "/api/v1/recall/journal/"): Case(
        url=lambda me: "/api/v1/recall/journal/",
        body=lambda me: {"deployment_id": me.deployment_id, "content": "Bought BTC.", "run_id": "run-1"},
        foreign_body=lambda me, them: (
            "/api/v1/recall/journal/",
            {"deployment_id": them.deployment_id, "content": "Bought BTC.", "run_id": "run-1"},
        ),
        document_text="content",
    ),
    ("POST", "/api/v1/recall/proposals/"): Case(
        url=lambda me: "/api/v1/recall/proposals/",
        body=lambda me: {
            "document_id": me.document_id,
            "proposed_content": "# Strategy\nBuy breakouts.\n",
            "reason": "shorter",
            "run_id": "run-1",
        },
        foreign_body=lambda me, them: (
            "/api/v1/recall/proposals/",
            {"document_id": them.document_id, "proposed_content": "# Mine\n", "reason": "x", "run_id": "run-1"},
        ),
        text="reason",
        document_text="proposed_content",
    ),
    ("POST", "/api/v1/recall/search/"): Case(
        url=lambda me: "/api/v1/recall/search/",
        body=lambda me: {"query": "breakouts", "k": 5},
        foreign_body=lambda me, them: (
            "/api/v1/recall/search/",
            {"query": "breakouts", "snapshot_id": them.snapshot_id},
        ),
        text="query",
    ),
    ("POST", "/api/v1/research/experiments/"): Case(
        url=lambda me: "/api/v1/research/experiments/",
        body=lambda me: dict(EXPERIMENT),
        text="strategy_name",
        json_field="context",
    ),
    ("POST", "/api/v1/research/experiments/check/"): Case(
        url=lambda me: "/api/v1/research/experiments/check/",
        body=lambda me: {"context": dict(CONTEXT)},
        json_field="context",
    ),
    ("PATCH", "/api/v1/research/hypotheses/{hypothesis_id}/"): Case(
        url=lambda me: f"/api/v1/research/hypotheses/{me.hypothesis_ids[0]}/",
        body=lambda me: {"status": "testing"},
        foreign_url=lambda me, them: f"/api/v1/research/hypotheses/{them.hypothesis_ids[-1]}/",
    ),
    ("POST", "/api/v1/signals/"): Case(
        url=lambda me: "/api/v1/signals/",
        body=lambda me: dict(SIGNAL),
        text="agent_name",
        json_field="metadata",
    ),
    ("POST", "/api/v1/skills/"): Case(
        url=lambda me: "/api/v1/skills/",
        body=lambda me: {"name": "Mean reversion", "strategy_text": "Fade extremes."},
        text="name",
    ),
    ("POST", "/api/v1/skills/{skill_id}/versions/"): Case(
        url=lambda me: f"/api/v1/skills/{me.skill_id}/versions/",
        body=lambda me: {"strategy_text": "Fade extremes, smaller."},
        foreign_url=lambda me, them: f"/api/v1/skills/{them.skill_id}/versions/",
        text="strategy_text",
    ),
}


def _ids(predicate=lambda case: True):
    return [key for key, case in CASES.items() if predicate(case)]


def _name(key) -> str:
    return f"{key[0]} {key[1]}"


def cases(predicate=lambda case: True):
    return pytest.mark.parametrize("key", _ids(predicate), ids=_name)


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker):
    """The two traders, made once for the module's ~330 tests (40 requests of set-up each, most of
    the module's time), as Django's setUpTestData does: inside a transaction that each test runs in a
    savepoint of, rolled back after the last one. Nothing a test does outlives it, nothing is committed."""
    with django_db_blocker.unblock(), transaction.atomic():
        with scope.bound(scope.Scope(elevated=True, reason="test set-up")):
            scope.apply()
            traders = make_trader("me"), make_trader("them", hypotheses=2)  # H_002 is theirs alone
        yield traders
        transaction.set_rollback(True)


@pytest.fixture
def me(db, world) -> Trader:
    return world[0]


@pytest.fixture
def them(db, world) -> Trader:
    return world[1]


def send(client, method: str, url: str, body=None, **extra):
    if body is None:
        return getattr(client, method.lower())(url, **extra)
    return client.generic(method, url, json.dumps(body), content_type="application/json", **extra)


def set_path(body: dict, dotted: str, value) -> dict:
    body = json.loads(json.dumps(body))
    *parents, leaf = dotted.split(".")
    node = body
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[leaf] = value
    return body


def assert_unchanged(before: dict[str, int]) -> None:
    after = row_counts()
    assert {k: (before[k], after[k]) for k in before if before[k] != after[k]} == {}


# -- the table covers the schema --------------------------------------------------------------------


def test_every_write_operation_of_the_schema_has_a_case():
    schema = openapi_schema()
    operations = {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        if path.startswith("/api/v1/")
        for method in item
        if method in WRITE_METHODS
    }
    assert len(operations) >= 24
    assert operations == set(CASES), "add a Case for each new write endpoint (and drop the ones removed)"


def test_every_case_sends_a_body_the_schema_expects(me):
    """The table's bodies are what the schema calls a request body, so the rules below poison valid input."""
    schema = openapi_schema()
    for (method, path), case in CASES.items():
        operation = schema["paths"][path][method.lower()]
        takes_body = "requestBody" in operation or path == "/api/v1/facts/{fact_id}/unarchive/"
        assert (case.body is not None) == takes_body, (method, path)


def test_the_valid_requests_of_the_table_succeed(me, them):
    """Sanity for the table: each case's own request is accepted (so each refusal below is the poison's)."""
    for (method, path), case in sorted(CASES.items(), key=lambda item: item[0][0] == "DELETE"):  # deletes last
        if path == "/api/v1/chat/":
            continue  # no ANTHROPIC_API_KEY in tests: 503 after validation
        client = me.client if case.authenticated else APIClient()
        response = send(client, method, case.url(me), case.body(me) if case.body else None)
        assert 200 <= response.status_code < 300, (method, path, response.status_code, response.content[:300])


# -- another trader's objects -------------------------------------------------------------------------


@cases(lambda case: case.foreign_url is not None)
def test_another_traders_object_in_the_url_is_a_404(me, them, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    response = send(me.client, method, case.foreign_url(me, them), case.body(me) if case.body else None)
    assert (response.status_code, error_body(response)) == (404, NOT_FOUND)
    assert_unchanged(before)


@cases(lambda case: case.foreign_body is not None)
def test_another_traders_object_referenced_in_the_body_is_a_404(me, them, key):
    method, _ = key
    url, body = CASES[key].foreign_body(me, them)
    before = row_counts()
    response = send(me.client, method, url, body)
    assert response.status_code == 404, response.json()
    assert "detail" in response.json()
    assert_unchanged(before)


def test_another_traders_snapshot_in_a_journal_entry_is_a_404(me, them):
    before = row_counts()
    body = {"deployment_id": me.deployment_id, "content": "x", "run_id": "r", "snapshot_id": them.snapshot_id}
    response = send(me.client, "POST", "/api/v1/recall/journal/", body)
    assert (response.status_code, error_body(response)) == (404, NOT_FOUND)
    assert_unchanged(before)


def test_another_traders_runner_token_cannot_reach_my_deployment(me, them):
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Token {them.runner_key}")
    before = row_counts()
    response = send(runner, "POST", f"{dep(me)}/ticks/", tick_body(me))
    assert (response.status_code, error_body(response)) == (404, NOT_FOUND)
    assert_unchanged(before)


# -- owner fields ----------------------------------------------------------------------------------------


@cases(lambda case: case.body is not None and case.authenticated)
def test_an_owner_field_in_the_body_is_a_400(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    for owner_field in ("owner", "owner_id", "user", "user_id"):
        response = send(me.client, method, case.url(me), {**case.body(me), owner_field: me.user.pk + 1})
        assert response.status_code == 400, (owner_field, response.content[:300])
        errors = response.json()["errors"]
        assert list(errors) == [owner_field]
        assert errors[owner_field][0].startswith(UNKNOWN_FIELD.split("{")[0])
    assert_unchanged(before)


# -- control characters ----------------------------------------------------------------------------------

POISON = {
    "nul": "\x00",
    "rlo": "\u202e",  # right-to-left override
    "lri": "\u2066",  # left-to-right isolate
    "lrm": "\u200e",  # left-to-right mark
    "alm": "\u061c",  # Arabic letter mark
    "escape": "\x1b[31m",
    "bell": "\x07",
    "c1": "\x85",
    "del": "\x7f",
}


@cases(lambda case: case.text is not None)
def test_control_and_bidi_characters_in_a_text_field_are_a_400_naming_it(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    for name, poison in POISON.items():
        body = set_path(case.body(me), case.text, f"fine{poison}text")
        response = send(me.client, method, case.url(me), body)
        assert response.status_code == 400, (name, response.content[:300])
        errors = response.json()["errors"]
        assert case.text in errors, (name, errors)
    assert_unchanged(before)


@cases(lambda case: case.text is not None and case.text not in ("symbol", "fact"))
def test_the_text_rule_is_stated(me, key):
    """Fields built with memorysite.api.text() say the rule (symbol has its pattern, the remember tool's
    fact the fact rules: both checked above by field name)."""
    method, _ = key
    case = CASES[key]
    body = set_path(case.body(me), case.text, "fine\u202etext")
    response = send(me.client, method, case.url(me), body)
    assert response.json()["errors"][case.text] == [CONTROL_CHARACTERS]


@cases(lambda case: case.document_text is not None)
def test_a_nul_in_a_documents_text_is_a_400_naming_it(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    response = send(me.client, method, case.url(me), set_path(case.body(me), case.document_text, "fine\x00text"))
    assert response.status_code == 400, response.content[:300]
    assert response.json()["errors"] == {case.document_text: [DOCUMENT_TEXT_NUL]}
    assert_unchanged(before)


@cases(lambda case: case.document_text is not None)
def test_every_other_poison_in_a_documents_text_is_data(me, key):
    """Documents are what a trader or an agent wrote (issue 19): bidi marks, escapes and other control
    characters are accepted as written; they are neutralised where the text leaves the index."""
    method, _ = key
    case = CASES[key]
    for name, poison in POISON.items():
        if name == "nul":
            continue
        body = set_path(case.body(me), case.document_text, f"# Fine\nfine{poison}text {name}\n")
        response = send(me.client, method, case.url(me), body)
        assert response.status_code in (200, 201), (name, response.content[:300])


@cases(lambda case: case.json_field is not None)
def test_a_nul_in_a_json_field_is_a_400(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    body = {**case.body(me), case.json_field: {"note\x00": "a\x00b"}}
    response = send(me.client, method, case.url(me), body)
    assert response.status_code == 400
    assert response.json()["errors"][case.json_field] == [NUL_IN_JSON]
    assert_unchanged(before)


# -- transport: size, content type, malformed numbers ----------------------------------------------------


@cases()
def test_a_body_over_1_mib_is_413(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    raw = json.dumps({**(case.body(me) if case.body else {}), "padding": "x" * (1024 * 1024)})
    response = me.client.generic(method, case.url(me), raw, content_type="application/json")
    assert response.status_code == 413
    assert error_body(response) == {"detail": f"request body: must be at most 1048576 bytes, got {len(raw)}"}
    assert_unchanged(before)


@cases(lambda case: case.body is not None)
def test_a_form_body_is_415(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    response = me.client.generic(method, case.url(me), "a=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json()["detail"] == 'Unsupported media type "application/x-www-form-urlencoded" in request.'
    assert_unchanged(before)


@cases(lambda case: case.body is not None)
def test_nan_and_infinity_are_a_400(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    for literal in ("NaN", "Infinity", "-Infinity"):
        raw = json.dumps(case.body(me))[:-1] + (", " if case.body(me) else "") + f'"x": {literal}}}'
        response = me.client.generic(method, case.url(me), raw, content_type="application/json")
        assert response.status_code == 400, literal
        assert response.json()["detail"].startswith("JSON parse error")
    assert_unchanged(before)


# -- crafted JSON (issue 16): each was a 500 ------------------------------------------------------------

INFINITY = "<1e309>"  # json.dumps writes inf as Infinity: this placeholder becomes 1e309 in the raw body


def raw_json(body) -> str:
    """The body as sent: lone surrogates as their escapes (json.dumps writes \\ud800), INFINITY as 1e309."""
    return json.dumps(body).replace(json.dumps(INFINITY), "1e309")


@cases(lambda case: case.body is not None)
def test_json_nested_deeper_than_the_limit_is_a_400_naming_it(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    deep = {"x": json.loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)}  # one level below the body
    for raw in ('{"a":' * 5000, json.dumps({**case.body(me), **deep})):
        response = me.client.generic(method, case.url(me), raw, content_type="application/json")
        assert (response.status_code, error_body(response)) == (400, {"detail": TOO_DEEP})
    assert_unchanged(before)


@cases(lambda case: case.body is not None)
def test_a_lone_surrogate_or_an_infinite_number_anywhere_in_a_body_is_a_400_naming_the_field(me, key):
    """In the case's free-form JSON, else its text field, else a key of its own: the body's rules come first,
    so the field is named even where the serializer would not know it."""
    method, _ = key
    case = CASES[key]
    before = row_counts()
    for value, rule in (("fine\ud800text", LONE_SURROGATE), ("\udfff", LONE_SURROGATE), (INFINITY, NOT_FINITE)):
        if case.json_field:
            path, body = f"{case.json_field}.x", {**case.body(me), case.json_field: {"x": value}}
        elif case.text:
            path, body = case.text, set_path(case.body(me), case.text, value)
        else:
            path, body = "x", {**case.body(me), "x": value}
        response = me.client.generic(method, case.url(me), raw_json(body), content_type="application/json")
        assert (response.status_code, error_body(response)) == (
            400,
            {"detail": f"{path}: {rule}", "errors": {path: [rule]}},
        )
    assert_unchanged(before)


@cases(lambda case: case.body is not None)
def test_bytes_that_are_not_utf8_in_a_string_of_a_body_are_a_400_naming_the_field(me, key):
    """Invalid UTF-8 is the one thing besides NUL a document's text refuses: named like every other field."""
    method, _ = key
    case = CASES[key]
    before = row_counts()
    field = case.document_text or case.text or "x"
    raw = json.dumps(set_path(case.body(me), field, "fine BYTES text")).encode().replace(b"BYTES", b"\xff\xfe")
    response = me.client.generic(method, case.url(me), raw, content_type="application/json")
    rule = NOT_TEXT.format(encoding="UTF-8", byte=0xFF)
    assert (response.status_code, error_body(response)) == (
        400,
        {"detail": f"{field}: {rule}", "errors": {field: [rule]}},
    )
    assert_unchanged(before)


CRAFTED = [
    ("POST", "/api/v1/signals/", "metadata", {"x": "\ud800"}, "metadata.x", LONE_SURROGATE),
    ("POST", "/api/v1/signals/", "metadata", {"x": INFINITY}, "metadata.x", NOT_FINITE),
    ("POST", "/api/v1/recall/documents/", "metadata", {"x": ["\ud800"]}, "metadata.x.0", LONE_SURROGATE),
    ("POST", "/api/v1/recall/documents/", "metadata", {"x": INFINITY}, "metadata.x", NOT_FINITE),
    ("POST", "/api/v1/research/experiments/", "results", {"notes": "\ud800"}, "results.notes", LONE_SURROGATE),
    ("POST", "/api/v1/research/experiments/", "results", {"\ud800": 1}, "results", LONE_SURROGATE_IN_KEY),
    (
        "POST",
        "/api/v1/research/experiments/",
        "results",
        {"sharpe_ratio": INFINITY},
        "results.sharpe_ratio",
        NOT_FINITE,
    ),
    ("POST", "/api/v1/research/experiments/", "context", {**CONTEXT, "x": "\ud800"}, "context.x", LONE_SURROGATE),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "marks", {"\ud800": 1}, "marks", LONE_SURROGATE_IN_KEY),
    (
        "POST",
        "/api/v1/deployments/{deployment_id}/ticks/",
        "proposed_action",
        {"kind": "hold", "reason": "\udc00"},
        "proposed_action.reason",
        LONE_SURROGATE,
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "field", "value", "named", "rule"),
    CRAFTED,
    ids=[f"{c[1]}:{c[4]}:{'1e309' if c[5] == NOT_FINITE else 'surrogate'}" for c in CRAFTED],
)
def test_the_crafted_json_of_the_issue_is_a_400_naming_the_field(me, method, path, field, value, named, rule):
    """The cases of issue 16 as sent (escapes in the raw body): a 500 each (DataError; the rendering of a marks
    key's validation error; jsonb's `Token "Infinity"`)."""
    case = CASES[(method, path)]
    before = row_counts()
    raw = raw_json({**case.body(me), field: value})
    response = me.client.generic(method, case.url(me), raw, content_type="application/json")
    assert (response.status_code, error_body(response)) == (
        400,
        {"detail": f"{named}: {rule}", "errors": {named: [rule]}},
    )
    assert_unchanged(before)


def _plain(schema: dict) -> dict:
    """A parameter's schema without its description (the schema repeats it for generated clients)."""
    return {key: value for key, value in schema.items() if key != "description"}


def test_a_nul_in_a_path_parameter_is_not_found(me):
    """Every text path parameter of the schema (ids like exp_1, H_001, tool names): NUL was a 500 (DataError)."""
    schema = openapi_schema()
    checked = []
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            texts = [
                parameter["name"]
                for parameter in operation.get("parameters", [])
                if parameter["in"] == "path" and _plain(parameter["schema"]) == {"type": "string"}
            ]
            if not path.startswith("/api/v1/") or not texts or method not in ("get", *WRITE_METHODS):
                continue
            case = CASES.get((method.upper(), path))
            url = path
            for name in texts:
                url = url.replace(f"{{{name}}}", "%00")
            before = row_counts()
            response = send(me.client, method.upper(), url, case.body(me) if case and case.body else None)
            assert (response.status_code, error_body(response)) == (404, NOT_FOUND), (method, path)
            assert_unchanged(before)
            checked.append(f"{method.upper()} {path}")
    assert {
        "GET /api/v1/research/experiments/{experiment_id}/",
        "PATCH /api/v1/research/hypotheses/{hypothesis_id}/",
    } <= set(checked)


@pytest.mark.parametrize("debug", [False, True], ids=["production", "debug"])
@pytest.mark.parametrize("path", ["/api/v1/nope/", "/api/v1/skills/1/nope/", "/api/nope", "/api/", "/mcp/nope"])
def test_an_unknown_api_path_is_a_json_404(me, path, debug, settings):
    settings.DEBUG = debug  # `make run`'s default shows Django's technical 404 page unless we answer first
    for client in (me.client, APIClient()):
        for method in ("GET", "POST", "DELETE"):
            response = send(client, method, path)
            assert response.status_code == 404, (method, path)
            assert response["Content-Type"] == "application/json"
            assert error_body(response) == NOT_FOUND
    page = Client().get("/nope/")  # elsewhere, the page
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


NUMBERS = [
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "equity_usd", -1, "must be >= 0"),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "positions.0.size", -0.01, "must be > 0"),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "positions.0.mark_price", 0, "must be > 0"),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "equity_usd", "NaN", "must be a number"),
    ("POST", "/api/v1/deployments/{deployment_id}/ticks/", "equity_usd", 10**400, NOT_FINITE),  # digits: was a 500
    ("POST", "/api/v1/deployments/{deployment_id}/fills/", "fees_usd", -1.5, "must be >= 0"),
    ("POST", "/api/v1/deployments/{deployment_id}/fills/", "fees_usd", "Infinity", "must be a number"),
    ("POST", "/api/v1/skills/", "recent_trades_k", -1, "must be between 1 and 30"),
    ("POST", "/api/v1/recall/search/", "k", -5, "must be between 1 and 50"),
    ("POST", "/api/v1/signals/", "confidence", -0.1, "must be a number between 0 and 1"),
    ("POST", "/api/v1/signals/", "fair_probability", "NaN", "must be a number between 0 and 1"),
    ("POST", "/api/v1/research/experiments/", "results", {"total_trades": -3}, None),
    ("POST", "/api/v1/research/experiments/", "results", {"sharpe_ratio": "NaN"}, None),
    ("POST", "/api/v1/research/experiments/", "results", {"win_rate": "-Infinity"}, None),
]


@pytest.mark.parametrize(
    ("method", "path", "field", "value", "rule"), NUMBERS, ids=[f"{n[1]}:{n[2]}={str(n[3])[:12]}" for n in NUMBERS]
)
def test_negative_quantities_and_non_finite_numbers_are_a_400_naming_the_field(me, method, path, field, value, rule):
    case = CASES[(method, path)]
    before = row_counts()
    response = send(me.client, method, case.url(me), set_path(case.body(me), field, value))
    assert response.status_code == 400, response.content[:300]
    errors = response.json()["errors"]
    if rule is None:  # a nested object: the error names the inner field
        (inner,) = value
        assert list(errors) == [f"{field}.{inner}"], errors
    else:
        assert errors == {field: [rule]}
    assert_unchanged(before)


PRECISION = "must be at least 0.000000000001 (the ledger's precision)"


@pytest.mark.parametrize(
    ("position", "errors"),
    [
        ({"size": 1e-13}, {"positions.0.size": [PRECISION]}),
        ({"mark_price": 4e-13}, {"positions.0.mark_price": [PRECISION]}),
        (
            {"size": 0.000001, "mark_price": 0.001},
            {"positions.0.size": ["size × mark_price must be at least 0.00000001 USD (the ledger's precision)"]},
        ),
    ],
    ids=["size", "mark_price", "notional"],
)
def test_a_position_below_the_ledgers_precision_is_a_400_and_reads_keep_working(me, position, errors):
    """Found by the fuzzer: a size or price > 0 that rounds to 0 in the ledger's columns was stored, then
    failed the trade's check constraint at materialization — a 500 on every later read of the deployment."""
    body = tick_body(me)
    body["positions"][0].update(position)
    before = row_counts()
    response = send(me.client, "POST", f"{dep(me)}/ticks/", body)
    assert response.status_code == 400
    assert response.json()["errors"] == errors
    assert_unchanged(before)
    assert me.client.get(f"{dep(me)}/trades/").status_code == 200


NAIVE = [
    ("/api/v1/deployments/{deployment_id}/ticks/", "tick_at"),
    ("/api/v1/deployments/{deployment_id}/fills/", "filled_at"),
    ("/api/v1/research/experiments/", "timestamp"),
]


@pytest.mark.parametrize(("path", "field"), NAIVE, ids=[f"{p}:{f}" for p, f in NAIVE])
def test_a_naive_timestamp_is_a_400_naming_the_field(me, path, field):
    case = CASES[("POST", path)]
    before = row_counts()
    response = send(me.client, "POST", case.url(me), {**case.body(me), field: TICK_AT.removesuffix("Z")})
    assert response.status_code == 400
    assert response.json()["errors"] == {field: [AwareDateTimeField.NAIVE]}
    assert_unchanged(before)


# -- authentication ----------------------------------------------------------------------------------------


@cases(lambda case: case.authenticated)
def test_no_token_is_a_401(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    response = send(APIClient(), method, case.url(me), case.body(me) if case.body else None)
    assert response.status_code == 401
    assert error_body(response) == {"detail": NO_CREDENTIALS}
    assert_unchanged(before)


@cases(lambda case: case.authenticated)
def test_a_revoked_or_unknown_token_is_a_401(me, key):
    method, _ = key
    case = CASES[key]
    RunnerToken.objects.filter(pk=me.runner_token_id).update(revoked_at=timezone.now())
    revoked_runner, unknown = APIClient(), APIClient()
    revoked_runner.credentials(HTTP_AUTHORIZATION=f"Token {me.runner_key}")
    unknown.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    body = case.body(me) if case.body else None
    before = row_counts()
    for client, expected in ((revoked_runner, "runner token revoked at "), (unknown, "unknown token: ")):
        response = send(client, method, case.url(me), body)
        assert response.status_code == 401
        assert response.json()["detail"].startswith(expected)
    assert_unchanged(before)


@cases(lambda case: case.authenticated and not case.runner_scope)
def test_a_runner_token_outside_its_scope_is_a_403(me, key):
    method, _ = key
    case = CASES[key]
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Token {me.runner_key}")
    before = row_counts()
    response = send(runner, method, case.url(me), case.body(me) if case.body else None)
    assert response.status_code == 403
    assert response.json()["detail"].startswith("runner tokens may only")
    assert_unchanged(before)


@cases(lambda case: case.authenticated)
def test_a_session_post_without_a_csrf_token_is_a_403(me, key):
    method, _ = key
    case = CASES[key]
    before = row_counts()
    for client_class in (APIClient, Client):
        browser = client_class(enforce_csrf_checks=True)
        browser.force_login(me.user)
        response = send(browser, method, case.url(me), case.body(me) if case.body else None)
        assert response.status_code == 403, client_class
        assert response.json()["detail"].startswith("CSRF Failed: CSRF")
    assert_unchanged(before)


def test_a_session_post_with_its_csrf_token_passes(me):
    """The 403 above is CSRF's, not the session's: the same request with the token goes through."""
    browser = Client(enforce_csrf_checks=True)
    assert browser.post("/accounts/login/").status_code == 403  # no token yet: login is protected too
    browser.get("/accounts/login/")
    token = browser.cookies["csrftoken"].value
    login = browser.post("/accounts/login/", {"username": "me", "password": PASSWORD, "csrfmiddlewaretoken": token})
    assert login.status_code == 302
    body = {"name": "Session skill", "strategy_text": "x"}
    response = send(browser, "POST", "/api/v1/skills/", body, HTTP_X_CSRFTOKEN=browser.cookies["csrftoken"].value)
    assert response.status_code == 201, response.content

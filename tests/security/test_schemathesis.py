"""Property-based fuzzing of the whole /api/v1/ surface with schemathesis, from the live schema.

Two traders, each with one of everything (tests/security/world.py), send schema-generated requests —
valid ones and, in negative mode, ones that break the schema — to every operation, with path ids
that are often real: their own objects or the other trader's. No request may answer 5xx (the chat's
documented 503 without ANTHROPIC_API_KEY aside), and every answer must match the response schema
documented for its status. Bounded and derandomized: the same examples on every run.
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.specs.openapi.checks import response_schema_conformance

from signals.models import Market
from tests.openapi import openapi_schema
from tests.security.test_hostile_input import SIGNAL
from tests.security.world import Trader, make_trader

# Per operation and generation mode; the whole file stays well under a minute on two cores.
MAX_EXAMPLES = {GenerationMode.POSITIVE: 12, GenerationMode.NEGATIVE: 6}
ALLOWED_5XX = {("POST", "/api/v1/chat/"): {503}}  # documented: no ANTHROPIC_API_KEY, no offline engine


@pytest.fixture
def wsgi_app():
    """The service's WSGI app, on the test's connection (as Django's test client does: no connection
    is closed at the end of a request, so every request sees the test's transaction)."""
    django_app = get_wsgi_application()

    def app(environ, start_response):
        # Django's test client connects these again after each of its requests (make_trader uses it).
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        return django_app(environ, start_response)

    try:
        yield app
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _ids(trader: Trader) -> dict[str, object]:
    """Real values for every path parameter name of the schema."""
    return {
        "deployment_id": trader.deployment_id,
        "skill_id": trader.skill_id,
        "snapshot_id": trader.snapshot_id,
        "token_id": trader.runner_token_id,
        "fact_id": trader.fact_id,
        "document_id": trader.document_id,
        "hypothesis_id": trader.hypothesis_ids[-1],
        "experiment_id": "exp_1",
        "market_id": None,  # markets exist only once a signal is stored: left to the generator
        "name": "remember",
    }


def _operations(schema):
    for result in schema.get_all_operations():
        operation = result.ok()
        if operation.path.startswith("/api/v1/"):
            yield operation


@pytest.mark.django_db
def test_no_operation_answers_5xx_and_every_answer_matches_the_schema(wsgi_app):
    me, them = make_trader("me"), make_trader("them", hypotheses=2)
    schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", wsgi_app)
    operations = list(_operations(schema))
    assert len(operations) >= 40, [f"{op.method} {op.path}" for op in operations]
    failures: list[str] = []

    for operation in operations:
        for mode, examples in MAX_EXAMPLES.items():
            _fuzz(operation, mode, examples, wsgi_app, me, them, failures)

    assert failures == [], "\n".join(failures[:20])


def _fuzz(operation, mode, examples, wsgi_app, me: Trader, them: Trader, failures: list[str]) -> None:
    allowed = ALLOWED_5XX.get((operation.method.upper(), operation.path), set())

    @settings(
        max_examples=examples,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(
        case=operation.as_strategy(generation_mode=mode),
        caller=st.sampled_from([me, them]),
        target=st.sampled_from(["mine", "theirs", "generated"]),
    )
    def run(case, caller, target):
        if target != "generated":
            owner = caller if target == "mine" else (them if caller is me else me)
            real = _ids(owner)
            for name in case.path_parameters or {}:
                if real.get(name) is not None:
                    case.path_parameters[name] = real[name]
        response = case.call(app=wsgi_app, headers={"Authorization": f"Token {caller.token}"})
        where = f"{mode.value} {operation.method.upper()} {case.formatted_path}"
        if response.status_code >= 500 and response.status_code not in allowed:
            failures.append(f"{where}: {response.status_code} {response.text[:300]}")
            return
        try:
            case.validate_response(response, checks=[response_schema_conformance])
        except Exception as exc:
            failures.append(f"{where}: {str(exc)[:600]}")

    try:
        run()
    except Unsatisfiable:
        # Negative mode has nothing to break in an operation without parameters or body.
        assert mode is GenerationMode.NEGATIVE, f"{operation.method.upper()} {operation.path}"


@pytest.mark.django_db
def test_every_documented_limit_and_offset_is_accepted():
    """Found by the fuzzer: GET /api/v1/facts/ and …/evolution/ documented the pagination's limit and
    offset but refused them as unknown query fields."""
    me = make_trader("me")
    me.client.post("/api/v1/signals/", SIGNAL, format="json")
    real = {**_ids(me), "market_id": Market.objects.get(owner=me.user).pk}
    checked = []
    for path, item in openapi_schema()["paths"].items():
        names = {
            parameter["name"] for parameter in item.get("get", {}).get("parameters", []) if parameter["in"] == "query"
        }
        if not path.startswith("/api/v1/") or not {"limit", "offset"} <= names:
            continue
        url = re.sub(r"{(\w+)}", lambda match: str(real[match.group(1)]), path)
        query = "limit=1&offset=0" + ("&agents=microstructure" if "agents" in names else "")
        response = me.client.get(f"{url}?{query}")
        assert response.status_code == 200, (path, response.json())
        checked.append(path)
    assert "/api/v1/facts/" in checked and "/api/v1/markets/{market_id}/evolution/" in checked
    assert len(checked) >= 12


@pytest.mark.django_db
def test_an_empty_patch_of_a_hypothesis_changes_nothing():
    """Found by the fuzzer: the schema documents PATCH fields as optional (as for facts), but an empty
    PATCH of a hypothesis was a 400 "status: This field is required."."""
    me = make_trader("me")
    url = f"/api/v1/research/hypotheses/{me.hypothesis_ids[0]}/"
    response = me.client.patch(url, {}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "untested"

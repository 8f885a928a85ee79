import json
import re
from collections import Counter

import pytest
from django.core.management import call_command
from django.test import Client
from jsonschema import Draft202012Validator

from tests.openapi import assert_matches_schema, openapi_schema


def test_the_schema_validates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yml"))


def test_every_api_v1_operation_requires_authentication_except_the_token_exchange():
    schema = openapi_schema()
    for path, operations in schema["paths"].items():
        if not path.startswith("/api/v1/"):
            continue
        for method, operation in operations.items():
            securities = {name for entry in operation.get("security", []) for name in entry}
            if path == "/api/v1/auth/token/":
                assert securities == set(), (method, path)
            else:
                assert securities == {"tokenAuth", "cookieAuth"}, (method, path)


def test_happy_paths_match_the_schema(owner_api):
    created = owner_api.post("/api/v1/skills/", {"name": "Schema", "strategy_text": "Follow the trend."}, format="json")
    assert_matches_schema(created)
    skill_id = created.json()["id"]
    assert_matches_schema(owner_api.get("/api/v1/skills/"))
    assert_matches_schema(owner_api.get(f"/api/v1/skills/{skill_id}/"))
    assert_matches_schema(
        owner_api.post(f"/api/v1/skills/{skill_id}/versions/", {"strategy_text": "v2"}, format="json")
    )
    assert_matches_schema(owner_api.get(f"/api/v1/skills/{skill_id}/versions/"))
    deployment = owner_api.post("/api/v1/deployments/", {"skill_id": skill_id, "mode": "sim"}, format="json")
    assert_matches_schema(deployment)
    assert_matches_schema(owner_api.get("/api/v1/deployments/"))
    assert_matches_schema(owner_api.get(f"/api/v1/deployments/{deployment.json()['id']}/"))


def test_documented_errors_are_what_the_api_answers(owner_api, anon_api, other):
    assert_matches_schema(owner_api.post("/api/v1/skills/", {"name": ""}, format="json"))  # 400
    assert_matches_schema(owner_api.get("/api/v1/deployments/424242/"))  # 404
    assert_matches_schema(owner_api.post("/api/v1/deployments/", "x=1", content_type="text/plain"))  # 415
    assert_matches_schema(anon_api.get("/api/v1/deployments/1/"))  # 401


# -- the schema documents itself (issue 23): what a runner author and a generated client read ------------------


SNAKE_CASE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
PLACEHOLDER_ENUMS = {"BlankEnum", "NullEnum"}


@pytest.fixture(scope="module")
def served(django_db_setup, django_db_blocker):
    """The schema as /api/schema/ serves it (what clients are generated from)."""
    with django_db_blocker.unblock():  # the request's middleware opens a transaction; the schema reads no rows
        response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def operations(schema):
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            yield f"{method.upper()} {path}", operation


def undescribed_properties(schema, where: str):
    """Dotted names of the properties under `schema` (nested objects, arrays, combinators) with no description."""
    if not isinstance(schema, dict):
        return
    for name, prop in (schema.get("properties") or {}).items():
        if not prop.get("description"):
            yield f"{where}.{name}"
        yield from undescribed_properties(prop, f"{where}.{name}")
    for key in ("items", "additionalProperties"):
        yield from undescribed_properties(schema.get(key), f"{where}[]")
    for key in ("allOf", "oneOf", "anyOf"):
        for part in schema.get(key) or []:
            yield from undescribed_properties(part, where)


def test_every_operation_has_a_summary_and_its_own_description(served):
    missing = [name for name, op in operations(served) if not op.get("summary") or not op.get("description")]
    assert not missing, f"operations without a summary or a description: {missing}"
    descriptions = Counter(op["description"] for _, op in operations(served))
    shared = [text[:60] for text, count in descriptions.items() if count > 1]
    assert not shared, f"descriptions shared by several operations (a docstring leaking?): {shared}"


def test_operation_ids_are_stable_unique_snake_case_method_names(served):
    ids = [op["operationId"] for _, op in operations(served)]
    assert len(ids) == len(set(ids)), [name for name, count in Counter(ids).items() if count > 1]
    bad = [i for i in ids if not SNAKE_CASE.match(i) or i.startswith("api_")]
    assert not bad, f"operation ids a client cannot use as method names (set operation_id=...): {bad}"
    assert {"post_tick", "get_context", "list_trades", "post_fill"} <= set(ids)


def test_every_field_and_parameter_is_described(served):
    missing = [
        field
        for name, component in served["components"]["schemas"].items()
        for field in undescribed_properties(component, name)
    ]
    for name, op in operations(served):
        missing += [f"{name} {p['in']} {p['name']}" for p in op.get("parameters", []) if not p.get("description")]
        for code, response in op["responses"].items():
            schema = response.get("content", {}).get("application/json", {}).get("schema")
            missing += list(undescribed_properties(schema, f"{name} {code}"))
    assert not missing, f"{len(missing)} fields without a description (help_text=...): {missing}"


def test_every_response_is_described(served):
    missing = [
        f"{name} {code}"
        for name, op in operations(served)
        for code, r in op["responses"].items()
        if not r["description"]
    ]
    assert not missing, missing


def test_every_4xx_has_the_error_body(served):
    components = served["components"]["schemas"]
    assert set(components["ErrorBody"]["required"]) == {"detail", "request_id"}
    bodiless = []
    for name, op in operations(served):
        for code, response in op["responses"].items():
            if code.startswith("4"):
                ref = response.get("content", {}).get("application/json", {}).get("schema", {}).get("$ref", "")
                component = components.get(ref.removeprefix("#/components/schemas/"), {})
                if "detail" not in component.get("required", []):  # ErrorBody, or a 409 that says more
                    bodiless.append(f"{name} {code}")
    assert not bodiless, bodiless


def test_no_placeholder_enum_names(served):
    assert not PLACEHOLDER_ENUMS & set(served["components"]["schemas"])


def test_the_tick_body_and_the_context_response_have_examples(served):
    paths = served["paths"]
    tick = paths["/api/v1/deployments/{deployment_id}/ticks/"]["post"]
    context = paths["/api/v1/deployments/{deployment_id}/context/"]["get"]
    tick_examples = tick["requestBody"]["content"]["application/json"]["examples"]
    context_examples = context["responses"]["200"]["content"]["application/json"]["examples"]
    body_schema = {"$ref": "#/components/schemas/TickInputRequest", "components": served["components"]}
    for example in tick_examples.values():
        assert not list(Draft202012Validator(body_schema).iter_errors(example["value"]))
    context_schema = {"$ref": "#/components/schemas/ContextOutput", "components": served["components"]}
    for example in context_examples.values():
        assert not list(Draft202012Validator(context_schema).iter_errors(example["value"]))

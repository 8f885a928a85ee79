"""Transport-level bad input on every write endpoint: a clear 4xx and nothing written."""

import json

import pytest

from accounts.models import AccountToken
from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion
from tests.errors import error_body
from tests.factories import SkillFactory, SkillVersionFactory


@pytest.fixture
def skill(owner):
    return SkillVersionFactory(skill=SkillFactory(owner=owner), version=1).skill


@pytest.fixture(params=["skills", "versions", "deployments", "token"])
def write_endpoint(request, skill):
    """(url, a valid body) for each POST endpoint."""
    return {
        "skills": ("/api/v1/skills/", {"name": "New", "strategy_text": "Buy low."}),
        "versions": (f"/api/v1/skills/{skill.pk}/versions/", {"strategy_text": "Sell high."}),
        "deployments": ("/api/v1/deployments/", {"skill_id": skill.pk, "mode": "paper"}),
        "token": ("/api/v1/auth/token/", {"username": "owner", "password": "wrong"}),
    }[request.param]


def _rows():
    models = (Skill, SkillVersion, Deployment, DecisionSnapshot, AccountToken)
    return {model.__name__: model.objects.count() for model in models}


def test_a_form_body_is_415(owner_api, write_endpoint):
    url, body = write_endpoint
    before = _rows()
    response = owner_api.post(url, body)  # multipart/form-data
    assert response.status_code == 415
    assert response.json()["detail"].startswith('Unsupported media type "multipart/form-data')
    assert _rows() == before


def test_a_body_over_1_mib_is_413(owner_api, write_endpoint):
    url, body = write_endpoint
    before = _rows()
    raw = json.dumps({**body, "padding": "x" * (1024 * 1024)})
    response = owner_api.generic("POST", url, raw, content_type="application/json")
    assert response.status_code == 413
    assert error_body(response) == {"detail": f"request body: must be at most 1048576 bytes, got {len(raw)}"}
    assert _rows() == before


@pytest.mark.parametrize(
    "raw",
    ['{"name": "x",', "not json", '{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}'],
    ids=["truncated", "text", "nan", "infinity", "minus-infinity"],
)
def test_malformed_json_is_400(owner_api, write_endpoint, raw):
    url, _ = write_endpoint
    before = _rows()
    response = owner_api.generic("POST", url, raw, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error")
    assert _rows() == before


@pytest.mark.parametrize("raw", ["[]", '"a string"', "42", "null"])
def test_a_json_body_that_is_not_an_object_is_400(owner_api, write_endpoint, raw):
    url, _ = write_endpoint
    before = _rows()
    response = owner_api.generic("POST", url, raw, content_type="application/json")
    assert response.status_code == 400
    assert _rows() == before


def test_a_non_numeric_content_length_is_400(owner_api, write_endpoint):
    url, body = write_endpoint
    response = owner_api.generic("POST", url, json.dumps(body), content_type="application/json", CONTENT_LENGTH="ten")
    assert response.status_code == 400
    assert error_body(response) == {"detail": "Content-Length: must be a non-negative integer"}

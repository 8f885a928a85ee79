from django.core.management import call_command

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

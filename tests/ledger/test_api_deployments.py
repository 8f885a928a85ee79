import pytest

from ledger.models import Deployment
from tests.errors import error_body
from tests.factories import DeploymentFactory, SkillFactory, SkillVersionFactory

DEPLOYMENTS = "/api/v1/deployments/"


@pytest.fixture
def skill(owner):
    skill = SkillFactory(owner=owner, name="Mean reversion")
    SkillVersionFactory(skill=skill, version=1)
    SkillVersionFactory(skill=skill, version=2)
    return skill


class TestDeploymentCreate:
    def test_it_deploys_the_latest_version_when_none_is_given(self, owner_api, owner, skill):
        response = owner_api.post(DEPLOYMENTS, {"skill_id": skill.pk, "mode": "paper"}, format="json")
        assert response.status_code == 201, response.json()
        body = response.json()
        assert body["version"] == 2
        assert body["skill_id"] == skill.pk
        assert body["skill_name"] == "Mean reversion"
        assert body["mode"] == "paper"
        assert body["status"] == "running"
        assert body["day_start_equity_usd"] is None
        assert Deployment.objects.get(pk=body["id"]).owner_id == owner.pk

    def test_it_deploys_the_version_asked_for(self, owner_api, skill):
        response = owner_api.post(DEPLOYMENTS, {"skill_id": skill.pk, "version": 1, "mode": "live"}, format="json")
        assert response.status_code == 201
        assert response.json()["version"] == 1

    def test_it_names_a_missing_version(self, owner_api, skill):
        response = owner_api.post(DEPLOYMENTS, {"skill_id": skill.pk, "version": 7, "mode": "sim"}, format="json")
        assert response.status_code == 400
        assert response.json()["detail"] == "version: this skill has no version 7; its latest is 2"
        assert Deployment.objects.count() == 0

    @pytest.mark.parametrize(
        ("body", "field", "message"),
        [
            ({"mode": "paper"}, "skill_id", "This field is required."),
            ({"skill_id": "abc", "mode": "paper"}, "skill_id", "must be an integer skill id"),
            ({"skill_id": 1}, "mode", "This field is required."),
            ({"skill_id": 1, "mode": "yolo"}, "mode", "must be one of sim, paper, live"),
            ({"skill_id": 1, "mode": "sim", "version": 0}, "version", "must be at least 1"),
            ({"skill_id": 1, "mode": "sim", "status": "stopped"}, "status", None),
            ({"skill_id": 1, "mode": "sim", "owner": 2}, "owner", None),
        ],
    )
    def test_it_refuses_bad_input_and_writes_nothing(self, owner_api, skill, body, field, message):
        response = owner_api.post(DEPLOYMENTS, body, format="json")
        assert response.status_code == 400
        errors = response.json()["errors"]
        assert list(errors) == [field]
        if message is not None:
            assert errors[field] == [message]
        else:
            assert errors[field][0].startswith("unknown field")
        assert Deployment.objects.count() == 0

    def test_it_404s_another_traders_skill(self, owner_api, other):
        theirs = SkillVersionFactory(skill=SkillFactory(owner=other)).skill
        response = owner_api.post(DEPLOYMENTS, {"skill_id": theirs.pk, "mode": "paper"}, format="json")
        assert response.status_code == 404
        assert Deployment.objects.count() == 0

    def test_it_refuses_anonymous_requests(self, anon_api, skill):
        assert anon_api.post(DEPLOYMENTS, {"skill_id": skill.pk, "mode": "paper"}, format="json").status_code == 401
        assert Deployment.objects.count() == 0


class TestDeploymentRead:
    def test_it_lists_only_the_traders_deployments_newest_first(self, owner_api, owner, other):
        first = DeploymentFactory(skill_version__skill__owner=owner)
        second = DeploymentFactory(skill_version__skill__owner=owner)
        DeploymentFactory(skill_version__skill__owner=other)
        body = owner_api.get(DEPLOYMENTS).json()
        assert body["count"] == 2
        assert [d["id"] for d in body["results"]] == [second.pk, first.pk]

    def test_it_paginates(self, owner_api, owner):
        deployments = [DeploymentFactory(skill_version__skill__owner=owner) for _ in range(3)]
        body = owner_api.get(DEPLOYMENTS, {"limit": 2}).json()
        assert body["count"] == 3
        assert [d["id"] for d in body["results"]] == [deployments[2].pk, deployments[1].pk]
        assert body["next"] is not None

    def test_it_shows_one_deployment(self, owner_api, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner, mode="sim")
        body = owner_api.get(f"{DEPLOYMENTS}{deployment.pk}/").json()
        assert body["id"] == deployment.pk
        assert body["mode"] == "sim"

    def test_it_404s_another_traders_deployment(self, owner_api, other):
        theirs = DeploymentFactory(skill_version__skill__owner=other)
        response = owner_api.get(f"{DEPLOYMENTS}{theirs.pk}/")
        assert response.status_code == 404
        assert error_body(response) == error_body(owner_api.get(f"{DEPLOYMENTS}999999/"))  # identical but for its id

    def test_it_refuses_anonymous_requests(self, anon_api, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        assert anon_api.get(DEPLOYMENTS).status_code == 401
        assert anon_api.get(f"{DEPLOYMENTS}{deployment.pk}/").status_code == 401

    def test_it_accepts_a_logged_in_browser_session(self, client, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        client.force_login(owner)
        assert client.get(f"{DEPLOYMENTS}{deployment.pk}/").status_code == 200

    def test_it_refuses_a_session_post_without_csrf(self, owner, skill):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(owner)
        response = client.post(DEPLOYMENTS, {"skill_id": skill.pk, "mode": "paper"}, content_type="application/json")
        assert response.status_code == 403
        assert Deployment.objects.count() == 0

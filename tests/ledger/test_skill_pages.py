"""Skills and deployments from the pages: the API's serializers and services, the same messages, errors under
their fields with the input kept, nothing half-written, another trader's objects a 404."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from ledger.models import Deployment, DeploymentStatus, Skill, SkillVersion
from ledger.services import SKILL_NAME_TAKEN
from tests.factories import DeploymentFactory, SkillVersionFactory

SKILLS_API = "/api/v1/skills/"

FORM = {
    "name": "Breakout ETH",
    "strategy_text": "Buy the breakout above the 20-bar high.",
    "avoid_rules": "No trades on Sunday\nNever more than 3x leverage",
    "memory_enabled": "true",
    "recent_trades_k": "7",
    "reflection_cadence": "daily",
    "reflection_every_n_trades": "5",
    "reflection_model_override": "",
    "bars_window": "120",
    "manual_enabled": "true",
    "manual_k": "3",
    "manual_token_cap": "400",
}


def _rows() -> tuple[int, int, int]:
    return Skill.objects.count(), SkillVersion.objects.count(), Deployment.objects.count()


def _field_errors(content: str, prefix: str, name: str) -> str:
    """The text of the error paragraph right under one field."""
    marker = f'id="{prefix}-{name}-errors">'
    start = content.index(marker) + len(marker)
    return html.unescape(content[start : content.index("</p>", start)])


@pytest.fixture
def trader(client, owner):
    client.force_login(owner)
    return client


class TestSkillCreate:
    def test_it_creates_the_skill_with_version_1_and_lands_on_it(self, trader, owner):
        response = trader.post(reverse("skill-new"), FORM)

        skill = Skill.objects.get(owner=owner)
        assert response.status_code == 302
        assert response["Location"] == reverse("skill", args=[skill.pk])
        version = skill.versions.get()
        assert version.version == 1
        assert version.avoid_rules == "No trades on Sunday\nNever more than 3x leverage"
        assert (version.recent_trades_k, version.reflection_cadence, version.bars_window) == (7, "daily", 120)
        assert version.reflection_model_override is None  # blank means the service's default, as null does
        page = trader.get(response["Location"]).content.decode()
        assert "Created skill Breakout ETH with its version 1." in page

    def test_it_turns_the_browsers_crlf_into_line_breaks(self, trader, owner):
        trader.post(reverse("skill-new"), {**FORM, "avoid_rules": "one\r\ntwo"})
        assert SkillVersion.objects.get(owner=owner).avoid_rules == "one\ntwo"

    def test_an_unticked_box_is_off(self, trader, owner):
        form = {key: value for key, value in FORM.items() if key != "memory_enabled"}
        trader.post(reverse("skill-new"), form)
        assert SkillVersion.objects.get(owner=owner).memory_enabled is False

    @pytest.mark.parametrize(
        ("field", "value"),
        [
            ("recent_trades_k", "0"),
            ("recent_trades_k", "31"),
            ("recent_trades_k", "ten"),
            ("reflection_every_n_trades", "0"),
            ("bars_window", "1001"),
            ("reflection_cadence", "hourly"),
            ("name", ""),
            ("name", "x" * 101),
            ("name", "two\nlines"),
            ("strategy_text", ""),
            ("strategy_text", "bad \u202e override"),
            ("manual_k", "11"),
            ("manual_token_cap", "49"),
            ("reflection_model_override", "gpt-4o"),
            ("reflection_model_override", "claude-" + "x" * 58),
        ],
    )
    def test_it_shows_the_apis_message_under_the_field_keeps_the_input_and_writes_nothing(
        self, trader, owner_api, field, value
    ):
        api_body = {**FORM, field: value, "memory_enabled": True, "manual_enabled": True}
        for name in ("recent_trades_k", "reflection_every_n_trades", "bars_window", "manual_k", "manual_token_cap"):
            if name != field:
                api_body[name] = int(api_body[name])
        api_body["reflection_model_override"] = api_body["reflection_model_override"] or None
        before = _rows()

        response = trader.post(reverse("skill-new"), {**FORM, field: value})
        api = owner_api.post(SKILLS_API, api_body, format="json")

        assert response.status_code == 200
        assert api.status_code == 400
        content = response.content.decode()
        assert _field_errors(content, "skill", field) == " ".join(api.json()["errors"][field])
        # Shown again as typed; but a select shows only its options, and no page renders a bidi override.
        if field != "reflection_cadence" and "\u202e" not in value:
            assert html.escape(value) in content
        assert 'aria-invalid="true"' in content
        assert _rows() == before

    def test_it_keeps_every_other_field_as_typed(self, trader):
        content = trader.post(reverse("skill-new"), {**FORM, "recent_trades_k": "99"}).content.decode()
        assert 'value="Breakout ETH"' in content
        assert "No trades on Sunday\nNever more than 3x leverage</textarea>" in content
        assert 'value="99"' in content
        assert '<option value="daily" selected>' in content

    def test_a_taken_name_is_the_services_message_under_name(self, trader, owner):
        trader.post(reverse("skill-new"), FORM)
        before = _rows()
        content = trader.post(reverse("skill-new"), FORM).content.decode()
        assert _field_errors(content, "skill", "name") == SKILL_NAME_TAKEN
        assert _rows() == before

    def test_it_sends_an_anonymous_visitor_to_log_in(self, client, db):
        response = client.post(reverse("skill-new"), FORM)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
        assert Skill.objects.count() == 0


class TestSkillEdit:
    def test_it_shows_the_latest_versions_settings(self, trader, owner):
        version = SkillVersionFactory(skill__owner=owner, version=1, strategy_text="Fade the open.", recent_trades_k=4)
        content = trader.get(reverse("skill-edit", args=[version.skill_id])).content.decode()
        assert "Fade the open.</textarea>" in content
        assert 'name="recent_trades_k" value="4"' in content
        assert "Save as v2" in content

    def test_saving_makes_the_next_version_and_leaves_the_old_one(self, trader, owner):
        version = SkillVersionFactory(skill__owner=owner, version=1, strategy_text="Fade the open.")
        form = {key: value for key, value in FORM.items() if key != "name"}

        response = trader.post(
            reverse("skill-edit", args=[version.skill_id]), {**form, "strategy_text": "Fade the close."}
        )

        assert response.status_code == 302
        versions = list(SkillVersion.objects.filter(skill_id=version.skill_id).order_by("version"))
        assert [(v.version, v.strategy_text) for v in versions] == [(1, "Fade the open."), (2, "Fade the close.")]
        assert "Saved " in trader.get(response["Location"]).content.decode()

    def test_an_error_saves_nothing_and_stays_under_its_field(self, trader, owner):
        version = SkillVersionFactory(skill__owner=owner, version=1)
        form = {key: value for key, value in FORM.items() if key != "name"}
        before = _rows()
        content = trader.post(reverse("skill-edit", args=[version.skill_id]), {**form, "bars_window": "0"}).content
        assert _field_errors(content.decode(), "skill", "bars_window") == "must be between 1 and 1000"
        assert _rows() == before

    def test_another_traders_skill_is_a_404(self, trader, other):
        theirs = SkillVersionFactory(skill__owner=other, version=1)
        before = _rows()
        assert trader.get(reverse("skill-edit", args=[theirs.skill_id])).status_code == 404
        assert trader.post(reverse("skill-edit", args=[theirs.skill_id]), FORM).status_code == 404
        assert trader.get(reverse("skill", args=[theirs.skill_id])).status_code == 404
        assert _rows() == before


class TestDeploy:
    def test_it_deploys_the_chosen_version(self, trader, owner):
        v1 = SkillVersionFactory(skill__owner=owner, version=1)
        SkillVersionFactory(skill=v1.skill, version=2)

        response = trader.post(reverse("skill-deploy", args=[v1.skill_id]), {"version": "1", "mode": "sim"})

        assert response.status_code == 302
        deployment = Deployment.objects.get(owner=owner)
        assert (deployment.skill_version_id, deployment.mode, deployment.status) == (v1.pk, "sim", "running")
        page = trader.get(response["Location"]).content.decode()
        assert f"as deployment #{deployment.pk} (sim)" in page

    def test_a_blank_version_deploys_the_latest(self, trader, owner):
        v1 = SkillVersionFactory(skill__owner=owner, version=1)
        v2 = SkillVersionFactory(skill=v1.skill, version=2)
        trader.post(reverse("skill-deploy", args=[v1.skill_id]), {"version": "", "mode": "paper"})
        assert Deployment.objects.get(owner=owner).skill_version_id == v2.pk

    @pytest.mark.parametrize(
        ("form", "field", "message"),
        [
            ({"version": "7", "mode": "sim"}, "version", "this skill has no version 7; its latest is 1"),
            ({"version": "0", "mode": "sim"}, "version", "must be at least 1"),
            ({"version": "one", "mode": "sim"}, "version", "must be an integer; must be at least 1"),
            ({"version": "1", "mode": "yolo"}, "mode", "must be one of sim, paper, live"),
        ],
    )
    def test_it_shows_the_error_under_the_field_and_writes_nothing(
        self, trader, owner, owner_api, form, field, message
    ):
        version = SkillVersionFactory(skill__owner=owner, version=1)
        api = owner_api.post(
            "/api/v1/deployments/",
            {
                "skill_id": version.skill_id,
                "version": int(form["version"]) if form["version"].isdigit() else form["version"],
                "mode": form["mode"],
            },
            format="json",
        )
        response = trader.post(reverse("skill-deploy", args=[version.skill_id]), form)

        assert response.status_code == 200
        content = response.content.decode()
        assert _field_errors(content, "deploy", field) == message == " ".join(api.json()["errors"][field])
        assert f'value="{form["version"]}"' in content
        assert Deployment.objects.count() == 0

    def test_another_traders_skill_is_a_404(self, trader, other):
        theirs = SkillVersionFactory(skill__owner=other, version=1)
        response = trader.post(reverse("skill-deploy", args=[theirs.skill_id]), {"version": "1", "mode": "sim"})
        assert response.status_code == 404
        assert Deployment.objects.count() == 0


class TestPauseResume:
    def test_it_pauses_and_resumes_and_returns_to_the_page(self, trader, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        skill_page = reverse("skill", args=[deployment.skill_version.skill_id])

        paused = trader.post(reverse("deployment-pause", args=[deployment.pk]), {"next": skill_page})
        deployment.refresh_from_db()
        assert (paused.status_code, paused["Location"], deployment.status) == (
            302,
            skill_page,
            DeploymentStatus.STOPPED,
        )
        assert f"Paused deployment #{deployment.pk}." in trader.get(skill_page).content.decode()

        resumed = trader.post(reverse("deployment-resume", args=[deployment.pk]))
        deployment.refresh_from_db()
        assert (resumed["Location"], deployment.status) == (reverse("home"), DeploymentStatus.RUNNING)

    def test_the_home_page_offers_pause_for_a_running_deployment_and_resume_for_a_stopped_one(self, trader, owner):
        running = DeploymentFactory(skill_version__skill__owner=owner)
        stopped = DeploymentFactory(skill_version__skill__owner=owner, status=DeploymentStatus.STOPPED)
        content = trader.get(reverse("home")).content.decode()
        assert f'aria-label="Pause deployment #{running.pk}"' in content
        assert f'aria-label="Resume deployment #{stopped.pk}"' in content
        assert "it does not stop your runner" in content

    def test_it_never_returns_to_another_site(self, trader, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        for target in ("https://evil.example/", "//evil.example/"):
            response = trader.post(reverse("deployment-pause", args=[deployment.pk]), {"next": target})
            assert response["Location"] == reverse("home")

    def test_another_traders_deployment_is_a_404(self, trader, other):
        theirs = DeploymentFactory(skill_version__skill__owner=other)
        assert trader.post(reverse("deployment-pause", args=[theirs.pk])).status_code == 404
        assert trader.post(reverse("deployment-resume", args=[theirs.pk])).status_code == 404
        theirs.refresh_from_db()
        assert theirs.status == DeploymentStatus.RUNNING

    def test_a_get_changes_nothing(self, trader, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        assert trader.get(reverse("deployment-pause", args=[deployment.pk])).status_code == 405


class TestSkillsList:
    def test_it_lists_only_the_traders_skills(self, trader, owner, other):
        SkillVersionFactory(skill__owner=owner, skill__name="Mine", version=1)
        SkillVersionFactory(skill__owner=other, skill__name="Theirs", version=1)
        content = trader.get(reverse("skills")).content.decode()
        assert "Mine" in content
        assert "Theirs" not in content

    def test_the_skill_page_lists_only_the_traders_deployments_of_it(self, trader, owner):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        other_skill = DeploymentFactory(skill_version__skill__owner=owner)
        content = trader.get(reverse("skill", args=[deployment.skill_version.skill_id])).content.decode()
        assert f'id="deployment-{deployment.pk}"' in content
        assert f'id="deployment-{other_skill.pk}"' not in content


def test_the_form_has_exactly_the_apis_fields():
    from ledger.forms import VERSION_FIELDS, form_fields
    from ledger.serializers import SkillCreateInput, SkillVersionInput

    assert set(VERSION_FIELDS) == set(SkillVersionInput().fields)
    shown = {field["name"] for field in form_fields({}, {}, names=("name", *VERSION_FIELDS))}
    assert shown == set(SkillCreateInput().fields)

"""The preview's "what if" turned into a saved skill version: the edited avoid rules in the leash, the before/after
token table, the save through the API's own serializer and service, and what "memory off" leaves in."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from agentcontext.prompt import LEASH_HEADING, NO_AVOID_RULES
from ledger.models import SkillVersion
from memorysite.text import estimate_tokens
from tests.agentcontext.test_preview_page import (  # noqa: F401 (fixtures)
    HTMX,
    api_context,
    deployment,
    pre,
    preview_url,
    text_of,
    traded,
    with_lessons,
)
from tests.factories import DeploymentFactory


def save_url(deployment_) -> str:
    return reverse("deployment-preview-save", args=[deployment_.pk])


def compare_row(content: str, slug: str) -> tuple[str, str, str]:
    match = re.search(
        rf'id="compare-{slug}">\s*<th scope="row">[^<]*</th><td class="num">(\d+)</td><td class="num">(\d+)</td>\s*'
        r'<td class="num[^"]*">([^<]*)</td>',
        content,
    )
    assert match, f"row {slug} missing"
    return match.group(1), match.group(2), match.group(3)


SAVED_SETTINGS = {"recent_trades_k": "3", "memory": "on", "manual": "on", "manual_k": "3", "manual_cap": "400"}


class TestWhatIfAvoidRules:
    def test_the_edited_rules_are_the_leash_of_the_what_if(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        content = client.get(preview_url(deployment), {"avoid_rules": "No SOL\r\n\r\nNo trades after 20:00 UTC"})
        content = content.content.decode()
        assert pre(content, "segment-leash-text") == f"{LEASH_HEADING}\n- No SOL\n- No trades after 20:00 UTC"
        assert "what if" in text_of(content, "preview-mode")

    def test_the_saved_rules_sent_back_unchanged_are_not_a_what_if(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        saved = deployment.skill_version.avoid_rules
        content = client.get(preview_url(deployment), {"avoid_rules": saved.replace("\n", "\r\n") + "\r\n"})
        assert 'id="save-version"' not in content.content.decode()

    def test_an_empty_box_is_no_rules(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        content = client.get(preview_url(deployment), {"avoid_rules": ""}).content.decode()
        assert pre(content, "segment-leash-text") == f"{LEASH_HEADING}\n{NO_AVOID_RULES}"

    def test_rules_the_api_refuses_are_a_400_in_the_apis_words(self, client, owner, owner_api, deployment):  # noqa: F811
        client.force_login(owner)
        response = client.get(preview_url(deployment), {"avoid_rules": "x" * 5001})
        api = owner_api.post(
            f"/api/v1/skills/{deployment.skill_version.skill_id}/versions/",
            {"strategy_text": "s", "avoid_rules": "x" * 5001},
            format="json",
        )
        assert response.status_code == 400
        assert f"Invalid “avoid_rules”: {api.json()['errors']['avoid_rules'][0]}." in response.content.decode()


class TestBeforeAndAfter:
    def test_it_shows_the_saved_and_the_what_if_estimates_side_by_side(self, client, owner, owner_api, traded):  # noqa: F811
        client.force_login(owner)
        saved = api_context(owner_api, traded)
        content = client.get(preview_url(traded), {"recent_trades_k": "1", "avoid_rules": "No SOL"}).content.decode()

        leash_after = estimate_tokens(f"{LEASH_HEADING}\n- No SOL")
        assert compare_row(content, "leash-hard-avoid-rules") == (
            str(estimate_tokens(saved["system_prompt"]["segments"]["leash"])),
            str(leash_after),
            str(leash_after - estimate_tokens(saved["system_prompt"]["segments"]["leash"])),
        )
        before, after, _ = compare_row(content, "memory-sections")
        assert int(before) == saved["token_estimate"]["total"]
        assert int(after) < int(before)  # one recent trade instead of three
        assert compare_row(content, "total")[0] == str(
            estimate_tokens(saved["system_prompt"]["text"]) + saved["token_estimate"]["total"]
        )
        assert f"Save as v{traded.skill_version.version + 1}" in content

    def test_the_saved_settings_offer_no_save(self, client, owner, traded):  # noqa: F811
        client.force_login(owner)
        content = client.get(preview_url(traded)).content.decode()
        assert 'id="save-version"' not in content
        assert 'id="token-compare"' not in content


class TestSave:
    def test_it_saves_the_what_if_as_the_next_version_and_changes_nothing_else(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        v1 = deployment.skill_version
        response = client.post(
            save_url(deployment),
            {**SAVED_SETTINGS, "recent_trades_k": "12", "memory": "off", "avoid_rules": "No SOL\r\nNo ETH"},
        )

        assert response.status_code == 302
        assert response["Location"] == reverse("skill", args=[v1.skill_id])
        v2 = SkillVersion.objects.get(skill_id=v1.skill_id, version=v1.version + 1)
        assert (v2.recent_trades_k, v2.memory_enabled, v2.avoid_rules) == (12, False, "No SOL\nNo ETH")
        fields = ("strategy_text", "reflection_cadence", "reflection_every_n_trades", "bars_window", "manual_k")
        assert [getattr(v2, name) for name in fields] == [getattr(v1, name) for name in fields]
        deployment.refresh_from_db()
        assert deployment.skill_version_id == v1.pk  # the deployment keeps running v1
        page = client.get(response["Location"]).content.decode()
        assert f"which still runs v{v1.version}: deploy v{v2.version} to use it" in page

    def test_the_next_number_follows_the_skills_latest_not_the_deployments(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        later = deployment.skill_version.version + 5
        SkillVersion.objects.create(skill=deployment.skill_version.skill, owner=owner, version=later, strategy_text="x")
        content = client.get(preview_url(deployment), {"recent_trades_k": "5"}).content.decode()
        assert f"Save as v{later + 1}" in content
        client.post(save_url(deployment), {**SAVED_SETTINGS, "recent_trades_k": "5"})
        v3 = SkillVersion.objects.get(skill=deployment.skill_version.skill, version=later + 1)
        assert (v3.strategy_text, v3.recent_trades_k) == (deployment.skill_version.strategy_text, 5)

    @pytest.mark.parametrize(
        ("param", "value", "message"),
        [
            ("recent_trades_k", "31", "must be between 1 and 30"),
            ("manual_k", "0", "must be between 1 and 10"),
            ("memory", "maybe", "must be true or false"),
            ("avoid_rules", "bad \u202e rule", "must not contain control characters or bidirectional overrides"),
        ],
    )
    def test_a_refused_value_is_the_apis_message_under_its_control_and_saves_nothing(
        self,
        client,
        owner,
        deployment,  # noqa: F811
        param,
        value,
        message,
    ):
        client.force_login(owner)
        before = SkillVersion.objects.count()
        response = client.post(save_url(deployment), {**SAVED_SETTINGS, "avoid_rules": "No SOL", param: value})
        assert SkillVersion.objects.count() == before
        content = response.content.decode()
        assert message in text_of(content, f"save-{param}-errors")

    def test_another_traders_deployment_is_a_404(self, client, other, deployment):  # noqa: F811
        client.force_login(other)
        assert client.post(save_url(deployment), {**SAVED_SETTINGS, "recent_trades_k": "5"}).status_code == 404
        assert SkillVersion.objects.count() == 1

    def test_anonymous_is_sent_to_log_in(self, client, deployment):  # noqa: F811
        response = client.post(save_url(deployment), SAVED_SETTINGS)
        assert response.status_code == 302
        assert SkillVersion.objects.count() == 1


class TestMemoryOff:
    def test_it_says_what_stays_lessons_included(self, client, owner, owner_api, with_lessons):  # noqa: F811
        client.force_login(owner)
        lessons = api_context(owner_api, with_lessons)["system_prompt"]["segments"]["lessons"]
        content = client.get(preview_url(with_lessons), {"memory": "off"}).content.decode()
        note = re.sub(
            r"\s+", " ", re.sub(r"<[^>]+>", "", content.split('id="memory-off-note"')[1].split("</section>")[0])
        )
        assert (
            "removes ## Recent trades on this skill (closed), ## Open positions (memory view), ## Similar past" in note
        )
        assert f"lessons included ({estimate_tokens(lessons)} tok): memory off does not remove the lessons" in note
        assert "## Last decision (" in note
        assert "## Recent activity (this session) (" in note

    def test_a_saved_version_with_memory_off_says_it_too(self, client, owner):
        memoryless = DeploymentFactory(skill_version__skill__owner=owner, skill_version__memory_enabled=False)
        client.force_login(owner)
        content = client.get(preview_url(memoryless)).content.decode()
        assert 'id="memory-off-note"' in content
        assert "lessons included" not in content  # no lessons yet: nothing to say about them

    def test_memory_on_has_no_note(self, client, owner, deployment):  # noqa: F811
        client.force_login(owner)
        assert 'id="memory-off-note"' not in client.get(preview_url(deployment)).content.decode()

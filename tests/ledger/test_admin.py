import datetime as dt

import pytest
from django.urls import reverse

from ledger.models import DecisionSnapshot
from tests.factories import DeploymentFactory


@pytest.fixture
def deployment(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Findable skill")
    DecisionSnapshot.objects.create(
        deployment=deployment,
        owner=owner,
        tick_at=dt.datetime(2026, 11, 2, tzinfo=dt.UTC),
        equity_usd=1000,
        engine_kind="rejected",
        engine_rule="R3_POSITION_CAP",
    )
    return deployment


@pytest.mark.parametrize("model", ["skill", "skillversion", "deployment", "decisionsnapshot"])
def test_every_model_has_a_searchable_filterable_changelist(staff_client, deployment, model):
    url = reverse(f"admin:ledger_{model}_changelist")
    response = staff_client.get(url)
    assert response.status_code == 200
    assert response.context["cl"].result_count == 1
    searched = staff_client.get(url, {"q": "owner"})
    assert searched.status_code == 200
    assert searched.context["cl"].result_count == 1


def test_snapshots_filter_by_engine_verdict(staff_client, deployment):
    url = reverse("admin:ledger_decisionsnapshot_changelist")
    assert staff_client.get(url, {"engine_kind__exact": "rejected"}).context["cl"].result_count == 1
    assert staff_client.get(url, {"engine_kind__exact": "executed"}).context["cl"].result_count == 0


def test_change_pages_render(staff_client, deployment):
    for model, pk in [("skill", deployment.skill_version.skill_id), ("deployment", deployment.pk)]:
        assert staff_client.get(reverse(f"admin:ledger_{model}_change", args=[pk])).status_code == 200


def test_a_trader_without_staff_rights_cannot_enter_admin(client, owner):
    client.force_login(owner)
    response = client.get(reverse("admin:ledger_deployment_changelist"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_the_manual_sections_settings_are_shown_on_the_version_and_its_skill(staff_client, deployment):
    version = deployment.skill_version
    version.manual_k, version.manual_token_cap = 7, 1234
    version.save()
    changelist = staff_client.get(reverse("admin:ledger_skillversion_changelist"))
    assert {"manual_enabled", "manual_k", "manual_token_cap"} <= set(changelist.context["cl"].list_display)
    assert "1234" in changelist.content.decode()
    page = staff_client.get(reverse("admin:ledger_skillversion_change", args=[version.pk]))
    assert page.status_code == 200
    content = page.content.decode()
    assert "Manual token cap" in content and "1234" in content
    skill_page = staff_client.get(reverse("admin:ledger_skill_change", args=[version.skill_id])).content.decode()
    assert "Manual k" in skill_page and "1234" in skill_page


def test_the_reflection_model_override_is_shown_on_the_version_and_its_skill(staff_client, deployment):
    version = deployment.skill_version
    version.reflection_model_override = "claude-opus-4-5-20251101"
    version.save()
    changelist = staff_client.get(reverse("admin:ledger_skillversion_changelist"))
    assert "reflection_model_override" in changelist.context["cl"].list_display
    assert "claude-opus-4-5-20251101" in changelist.content.decode()
    page = staff_client.get(reverse("admin:ledger_skillversion_change", args=[version.pk])).content.decode()
    assert "Reflection model override" in page and "claude-opus-4-5-20251101" in page
    skill_page = staff_client.get(reverse("admin:ledger_skill_change", args=[version.skill_id])).content.decode()
    assert "Reflection model override" in skill_page and "claude-opus-4-5-20251101" in skill_page

"""Staff in admin (issue 21): rows that belong to a trader filter by owner (and deployment); trade history
newest first with money to the cent and no Delete; lessons with owner and a preview; labels and plurals
written for staff; a new global playbook lands on its own page; a reindex of unchanged content keeps the
version."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib import admin
from django.urls import reverse

from access.admin import OWNER_FILTER
from chatmemory import services as chat_services
from chatmemory.models import ArchivedReason, FactSource, UserFact
from ledger.models import DecisionSnapshot, TradeHistory
from recall import services as recall_services
from recall.models import Document
from reflection import services as reflection_services
from tests.factories import DeploymentFactory
from tests.ledger.test_pages_browser import browser, console_errors, page  # noqa: F401 (fixtures)
from tests.reflection.support import CannedEngine, RoundTrip, trades

T0 = dt.datetime(2026, 6, 1, 9, tzinfo=dt.UTC)


def owned_models():
    """Every admin-registered model with an owner column (rows that belong to a trader)."""
    return [
        model
        for model in admin.site._registry
        if any(field.name == "owner" for field in model._meta.fields) and model._meta.app_label != "auth"
    ]


def test_every_owned_model_filters_by_owner_and_those_with_a_deployment_by_deployment_too():
    models = owned_models()
    assert len(models) >= 15
    for model in models:
        filters = admin.site._registry[model].list_filter
        assert OWNER_FILTER in filters or ("owner", admin.EmptyFieldListFilter) in filters, model
        if model._meta.label in {"ledger.DecisionSnapshot", "ledger.TradeHistory", "recall.JournalEntry"}:
            assert ("deployment", admin.RelatedOnlyFieldListFilter) in filters, model


@pytest.fixture
def traded(owner, other):
    mine = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Mine")
    theirs = DeploymentFactory(skill_version__skill__owner=other, skill_version__skill__name="Theirs")
    trades(mine, [RoundTrip(exit=102), RoundTrip(exit=99)])
    trades(theirs, [RoundTrip(exit=101)])
    return mine, theirs


def test_trade_history_filters_by_owner_and_deployment_newest_first_to_the_cent(staff_client, owner, traded):
    _mine, theirs = traded
    url = reverse("admin:ledger_tradehistory_changelist")
    answer = staff_client.get(url)
    assert answer.context["cl"].result_count == 3
    content = answer.content.decode()
    assert f'?owner__id__exact={owner.pk}"' in content and f'?deployment__id__exact={theirs.pk}"' in content
    assert staff_client.get(url, {"owner__id__exact": owner.pk}).context["cl"].result_count == 2
    assert staff_client.get(url, {"deployment__id__exact": theirs.pk}).context["cl"].result_count == 1
    rows = list(answer.context["cl"].result_list)
    assert [row.entry_tick_at for row in rows] == sorted((row.entry_tick_at for row in rows), reverse=True)

    TradeHistory.objects.filter(pk=rows[0].pk).update(realized_pnl_usd=Decimal("12345.678901"))
    content = staff_client.get(url).content.decode()
    assert "$12,345.68" in content and "12345.678901" not in content
    assert 'value="delete_selected"' not in content  # no Delete action on a read-only table
    trade = rows[0]
    assert staff_client.get(reverse("admin:ledger_tradehistory_delete", args=[trade.pk])).status_code == 403


def test_snapshots_and_skill_versions_cannot_be_deleted(staff_client, traded):
    mine, _ = traded
    snapshot = DecisionSnapshot.objects.filter(deployment=mine).first()
    assert staff_client.get(reverse("admin:ledger_decisionsnapshot_delete", args=[snapshot.pk])).status_code == 403
    version = mine.skill_version
    assert staff_client.get(reverse("admin:ledger_skillversion_delete", args=[version.pk])).status_code == 403
    content = staff_client.get(reverse("admin:ledger_decisionsnapshot_changelist")).content.decode()
    assert 'value="delete_selected"' not in content


def test_lessons_list_their_owner_and_a_preview_of_the_text(staff_client, owner, traded):
    mine, _ = traded
    long_lessons = "### Entry timing\n- breakouts won 2 of 3\n- " + "fade the open " * 20
    reflection_services.reflection_run(deployment_id=mine.pk, engine=CannedEngine(long_lessons))
    url = reverse("admin:reflection_reflectionnote_changelist")
    answer = staff_client.get(url, {"owner__id__exact": owner.pk})
    assert answer.context["cl"].result_count == 1
    content = answer.content.decode()
    assert '<td class="field-owner nowrap">owner</td>' in content
    assert (
        '<td class="field-text_preview">### Entry timing - breakouts won 2 of 3 - fade the open fade the open fade the…</td>'
        in content
    )


def test_facts_say_archived_by_the_trader_to_staff(staff_client, owner):
    fact = chat_services.fact_create(owner=owner, fact="Lives in Lisbon.", source=FactSource.PROFILE)
    chat_services.fact_archive(fact=fact, reason=ArchivedReason.USER_DELETED)
    assert UserFact(archived_reason="user_deleted").get_archived_reason_display() == "archived by the trader"
    answer = staff_client.get(reverse("admin:chatmemory_userfact_change", args=[fact.pk])).content.decode()
    assert "archived by the trader" in answer and "deleted by you" not in answer
    changelist = staff_client.get(reverse("admin:chatmemory_userfact_changelist")).content.decode()
    assert "archived by the trader" in changelist  # the reason filter's choice


def test_model_names_are_pluralised_right(staff_client):
    index = staff_client.get(reverse("admin:index")).content.decode()
    assert ">Journal entries<" in index and ">Hypotheses<" in index
    assert "entrys" not in index.lower() and "hypothesiss" not in index.lower()


def test_adding_a_global_playbook_lands_on_it(staff_client):
    response = staff_client.post(
        reverse("admin:recall_document_add"),
        {"path": "playbooks/gap-fill.md", "source": "playbook", "content": "# Gap fill\nFade the open.\n"},
        follow=True,
    )
    document = Document.objects.get(path="playbooks/gap-fill.md")
    assert response.redirect_chain == [(reverse("admin:recall_document_change", args=[document.pk]), 302)]
    assert "Added the global playbook playbooks/gap-fill.md." in response.content.decode()


def test_reindex_keeps_the_version_when_nothing_changed(staff_client, owner):
    document = recall_services.document_upsert(
        owner=owner, path="notes.md", content="# Notes\nOne.\n", source="workspace"
    ).document
    assert document.version == 1
    response = staff_client.post(
        reverse("admin:recall_document_changelist"),
        {"action": "reindex", "_selected_action": [document.pk]},
        follow=True,
    )
    assert "1 document queued for re-embedding" in response.content.decode()
    document.refresh_from_db()
    assert document.version == 1
    changed = recall_services.document_upsert(
        owner=owner, path="notes.md", content="# Notes\nTwo.\n", source="workspace"
    )
    assert changed.document.version == 2


@pytest.mark.slow
def test_staff_filter_trades_by_trader_and_retire_a_note_after_confirming_in_chromium(
    page,  # noqa: F811
    console_errors,  # noqa: F811
    curator,
    owner,
    traded,
):
    from pathlib import Path

    from django.conf import settings
    from playwright import sync_api

    from reflection.models import NoteStatus, ReflectionNote
    from tests.factories import PASSWORD

    artifacts = Path(settings.BASE_DIR) / "test-artifacts" / "pages-browser"
    artifacts.mkdir(parents=True, exist_ok=True)
    mine, _ = traded
    note = reflection_services.reflection_run(
        deployment_id=mine.pk, engine=CannedEngine("### Exits\n- let winners run")
    )
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(reverse("admin:login"))
    page.get_by_label("Username").fill(curator.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.goto(reverse("admin:ledger_tradehistory_changelist"))
    sync_api.expect(page.locator("#result_list tbody tr")).to_have_count(3)
    page.locator("#changelist-filter").get_by_role("link", name=owner.username, exact=True).first.click()
    sync_api.expect(page.locator("#result_list tbody tr")).to_have_count(2)
    sync_api.expect(page.locator('select[name="action"] option[value="delete_selected"]')).to_have_count(0)
    page.screenshot(path=str(artifacts / "admin-trades-by-owner-1280.png"), full_page=True)

    page.goto(reverse("admin:reflection_reflectionnote_changelist"))
    row = page.locator("#result_list tbody tr", has_text=note.content_hash)
    sync_api.expect(row.locator("td.field-text_preview")).to_have_text("### Exits - let winners run")
    row.locator("input.action-select").check()
    page.locator('select[name="action"]').select_option("retire")
    page.locator('button[name="index"]').click()
    sync_api.expect(page.get_by_role("heading", name="Retire these lessons?")).to_be_visible()
    assert ReflectionNote.objects.get(pk=note.pk).status == NoteStatus.ACTIVE  # nothing yet
    confirm = page.locator("#confirm-retire")
    assert confirm.evaluate("b => getComputedStyle(b).backgroundColor") != "rgba(0, 0, 0, 0)"
    page.screenshot(path=str(artifacts / "admin-retire-confirm-1280.png"), full_page=True)
    confirm.click()
    sync_api.expect(page.locator(".messagelist")).to_contain_text(f"{note.content_hash}: retired")
    assert ReflectionNote.objects.get(pk=note.pk).status == NoteStatus.RETIRED
    assert console_errors == []

"""Staff curation of lessons in Django admin: list, filter, edit as a new revision, promote, retire."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from reflection import services
from reflection.models import NoteSource, NoteStatus, ReflectionNote
from tests.factories import DeploymentFactory
from tests.reflection.support import CannedEngine, RoundTrip, trades

LESSONS = "### Entry timing\n- breakouts won 2 of 3"
CHANGELIST = "admin:reflection_reflectionnote_changelist"


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Breakout skill")


@pytest.fixture
def note(deployment):
    trades(deployment, [RoundTrip(exit=102), RoundTrip(exit=99, reason="fade <b>the</b> top")])
    return services.reflection_run(deployment_id=deployment.pk, engine=CannedEngine(LESSONS))


def change_url(note) -> str:
    return reverse("admin:reflection_reflectionnote_change", args=[note.pk])


def test_the_changelist_lists_and_filters_by_skill_deployment_and_status(staff_client, note, deployment):
    other = DeploymentFactory()
    trades(other, [RoundTrip()])
    services.reflection_run(deployment_id=other.pk, engine=CannedEngine("- other"))
    url = reverse(CHANGELIST)
    assert staff_client.get(url).context["cl"].result_count == 2
    assert (
        staff_client.get(url, {"skill__id__exact": deployment.skill_version.skill_id}).context["cl"].result_count == 1
    )
    assert staff_client.get(url, {"deployment__id__exact": other.pk}).context["cl"].result_count == 1
    assert staff_client.get(url, {"status__exact": "superseded"}).context["cl"].result_count == 0
    assert staff_client.get(url, {"q": note.content_hash}).context["cl"].result_count == 1
    assert staff_client.get(url, {"q": "Breakout skill"}).context["cl"].result_count == 1


def test_the_change_page_shows_the_trade_window_and_ab_figures_escaped(staff_client, note):
    content = staff_client.get(change_url(note)).content.decode()
    assert "Trade window" in content and "A/B figures" in content
    assert "<td>-$1.00</td>" in content
    assert "fade &lt;b&gt;the&lt;/b&gt; top" in content and "fade <b>the</b> top" not in content
    assert len(re.findall(r'href="/admin/ledger/tradehistory/[0-9a-f-]{36}/change/"', content)) == 2
    assert "no lessons" in content


def test_editing_the_text_saves_a_new_active_revision_and_keeps_the_old(staff_client, note, curator, deployment):
    form = {"lessons_text": "### Sizing\n- size down after two losses"}
    response = staff_client.post(change_url(note), form)
    revised = ReflectionNote.objects.get(status=NoteStatus.ACTIVE)
    assert response.status_code == 302 and response["Location"] == change_url(revised)
    assert revised.pk != note.pk
    assert (revised.source, revised.author, revised.revises_id) == (NoteSource.STAFF_EDIT, curator, note.pk)
    assert revised.lessons_text == "### Sizing\n- size down after two losses"
    note.refresh_from_db()
    assert (note.status, note.lessons_text, note.status_changed_by) == (NoteStatus.SUPERSEDED, LESSONS, curator)
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == revised.content_hash


def test_an_edit_over_2000_chars_is_a_form_error_and_changes_nothing(staff_client, note):
    response = staff_client.post(change_url(note), {"lessons_text": "x" * 2001})
    assert response.status_code == 200
    assert "at most 2000 characters" in response.content.decode()
    assert list(ReflectionNote.objects.values_list("pk", "status")) == [(note.pk, NoteStatus.ACTIVE)]


def test_superseded_notes_are_read_only(staff_client, note, curator):
    services.note_revise(note=note, lessons_text="- newer", by=curator)
    response = staff_client.get(change_url(note))
    assert 'name="lessons_text"' not in response.content.decode()
    staff_client.post(change_url(note), {"lessons_text": "- sneaky"})
    note.refresh_from_db()
    assert note.lessons_text == LESSONS and ReflectionNote.objects.count() == 2


def test_promote_and_retire_actions_go_through_the_services(staff_client, note, deployment):
    sibling = DeploymentFactory(skill_version=deployment.skill_version, owner=deployment.owner)
    url = reverse(CHANGELIST)
    response = staff_client.post(url, {"action": "promote_to_skill_scope", "_selected_action": [note.pk]}, follow=True)
    assert "promoted to skill scope" in response.content.decode()
    promoted = ReflectionNote.objects.get(deployment__isnull=True)
    assert (promoted.status, promoted.source, promoted.content_hash) == ("active", "promotion", note.content_hash)
    sibling.refresh_from_db()
    assert sibling.active_lessons_hash == note.content_hash

    # Retire asks first: a page naming the note and what retiring does; nothing changes yet.
    asked = staff_client.post(url, {"action": "retire", "_selected_action": [note.pk]})
    assert asked.status_code == 200
    page = asked.content.decode()
    assert "Retire these lessons?" in page and note.content_hash in page and "cannot be undone" in page
    assert 'name="confirmed" value="yes"' in page and 'id="confirm-retire" value="Yes, retire 1 note"' in page
    assert "delete-confirmation" in page  # the admin's red confirm button and its cancel link
    note.refresh_from_db()
    assert note.status == NoteStatus.ACTIVE
    response = staff_client.post(
        url, {"action": "retire", "_selected_action": [note.pk], "confirmed": "yes"}, follow=True
    )
    assert "retired" in response.content.decode()
    note.refresh_from_db()
    assert note.status == NoteStatus.RETIRED
    # retiring twice is refused with a message, not an error page
    response = staff_client.post(
        url, {"action": "retire", "_selected_action": [note.pk], "confirmed": "yes"}, follow=True
    )
    assert response.status_code == 200
    assert "only the active note can be retired; this one is retired" in response.content.decode()


def test_notes_cannot_be_added_or_deleted_in_admin(staff_client, note):
    assert staff_client.get(reverse("admin:reflection_reflectionnote_add")).status_code == 403
    assert staff_client.get(reverse("admin:reflection_reflectionnote_delete", args=[note.pk])).status_code == 403


def test_a_trader_without_staff_rights_cannot_curate(client, owner, note):
    client.force_login(owner)
    response = client.post(change_url(note), {"lessons_text": "- mine now"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    note.refresh_from_db()
    assert note.lessons_text == LESSONS

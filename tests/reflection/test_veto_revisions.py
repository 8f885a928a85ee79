"""A trader's veto makes a new lessons revision (issue 21): the active note's text without the vetoed bullet,
a new content hash the ticks and trades after it carry, so the lessons A/B splits on it. Taking the veto back
makes a revision with the bullet back in its place; a pin changes no text and makes none."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse

from ledger.domain import hash_lessons_text
from ledger.models import DecisionSnapshot, Deployment, TradeHistory
from reflection import selectors, services
from reflection.core import EMPTY_SLOT, lessons_without
from reflection.models import LessonVerdict, NoteSource, NoteStatus, ReflectionNote
from tests.agentcontext.test_preview_page import materialized
from tests.reflection.test_lesson_verdicts import NOTE, VETOED, lessons_segment, make_lessoned, verdict
from tests.reflection.test_lessons_page import ab_row, minutes, note_block, round_trips

WITHOUT = (
    "### Entry timing\n- BTC breakouts won 2/2 (+$15 total)\n### Sizing\n"
    + EMPTY_SLOT
    + "\n### Exit timing\n- cut at -2%"
)


@pytest.fixture
def lessoned(owner, owner_api):
    return make_lessoned(owner, owner_api)


def active(deployment) -> ReflectionNote:
    return ReflectionNote.objects.get(deployment=deployment, status=NoteStatus.ACTIVE)


class TestLessonsWithout:
    def test_it_drops_the_vetoed_line_and_marks_a_slot_it_empties(self):
        assert lessons_without(NOTE, {VETOED}) == WITHOUT

    def test_nothing_vetoed_in_it_is_the_same_text(self):
        assert lessons_without(NOTE, {"never written"}) is NOTE

    def test_every_bullet_vetoed_leaves_the_slots_marked_empty_and_prose_the_marker(self):
        every = {"BTC breakouts won 2/2 (+$15 total)", VETOED, "cut at -2%"}
        assert lessons_without(NOTE, every).count(EMPTY_SLOT) == 3
        assert lessons_without("only line", {"only line"}) == EMPTY_SLOT


class TestVeto:
    def test_a_veto_makes_a_new_active_revision_and_the_next_trades_carry_its_hash(
        self, client, owner, owner_api, lessoned
    ):
        before = active(lessoned)
        client.force_login(owner)
        assert verdict(client, lessoned, VETOED, "veto").status_code == 302

        after = active(lessoned)
        assert after.pk != before.pk
        assert (after.lessons_text, after.source, after.revises_id, after.author) == (
            WITHOUT, NoteSource.TRADER, before.pk, owner
        )  # fmt: skip
        assert after.content_hash == hash_lessons_text(WITHOUT) != before.content_hash
        assert ReflectionNote.objects.get(pk=before.pk).status == NoteStatus.SUPERSEDED
        assert Deployment.objects.get(pk=lessoned.pk).active_lessons_hash == after.content_hash
        # The prompt reads as it did under the render-time filter, byte for byte.
        assert lessons_segment(owner_api, lessoned).endswith("- BTC breakouts won 2/2 (+$15 total)\n- cut at -2%")

        round_trips(owner_api, lessoned, 20, [("SOL", 1, 100, 120)])
        materialized(lessoned)
        snapshot = DecisionSnapshot.objects.filter(deployment=lessoned).order_by("-tick_at")[1]  # the opening tick
        assert snapshot.lessons_hash == after.content_hash
        assert TradeHistory.objects.get(deployment=lessoned, symbol="SOL").entry_lessons_hash == after.content_hash

        page = client.get(reverse("skill-lessons", args=[lessoned.skill_version.skill_id])).content.decode()
        assert ab_row(page, after.content_hash)["n"] == "1"
        assert ab_row(page, before.content_hash)["n"] == "0"
        assert ab_row(page, "no-lessons")["n"] == "1"  # the BTC trade, opened before any lessons
        head = note_block(page, after)
        assert re.search(r"Revision 2</strong>.*?trader&#x27;s verdict.*?· you vetoed 1 bullet", head, re.S), head
        # The vetoed bullet stays listed in its place, struck out, with its Undo.
        assert "<del>halve size on ETH</del>" in head and f'aria-label="Take back the verdict on: {VETOED}"' in head

    def test_taking_the_veto_back_makes_a_revision_with_the_bullet_back_in_its_place(
        self, client, owner, owner_api, lessoned
    ):
        first = active(lessoned)
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        vetoed = active(lessoned)

        assert verdict(client, lessoned, VETOED, "clear").status_code == 302

        back = active(lessoned)
        assert (back.lessons_text, back.source, back.revises_id) == (NOTE, NoteSource.TRADER, vetoed.pk)
        assert back.content_hash == first.content_hash  # the same text: the same A/B revision as the first
        assert Deployment.objects.get(pk=lessoned.pk).active_lessons_hash == first.content_hash
        page = client.get(reverse("skill-lessons", args=[lessoned.skill_version.skill_id])).content.decode()
        assert "· you took back 1 veto" in note_block(page, back)
        # Named as the first (the same text, the same A/B row), and said to be so; the first is not.
        number = re.search(r'<strong class="revision-name">Revision (\d+)</strong>', note_block(page, back)).group(1)
        assert f"Revision {number}’s text again" in note_block(page, back)
        assert f'<strong class="revision-name">Revision {number}</strong>' in note_block(page, first)
        assert "text again" not in note_block(page, first) + note_block(page, vetoed)

    def test_a_vetoed_bullet_can_be_pinned_instead_which_brings_it_back(self, client, owner, lessoned):
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        assert verdict(client, lessoned, VETOED, "pin").status_code == 302
        assert active(lessoned).lessons_text == NOTE
        assert list(LessonVerdict.objects.values_list("verdict", flat=True)) == ["pin"]

    def test_a_pin_makes_no_revision(self, client, owner, lessoned):
        before = active(lessoned)
        client.force_login(owner)
        assert verdict(client, lessoned, "cut at -2%", "pin").status_code == 302
        assert active(lessoned).pk == before.pk
        assert ReflectionNote.objects.count() == 1

    def test_another_traders_skill_is_a_404_and_makes_no_revision(self, client, other, lessoned):
        client.force_login(other)
        assert verdict(client, lessoned, VETOED, "veto").status_code == 404
        assert verdict(client, lessoned, VETOED, "clear").status_code == 404
        assert ReflectionNote.objects.count() == 1

    def test_a_bad_verdict_makes_no_revision(self, client, owner, lessoned):
        client.force_login(owner)
        assert verdict(client, lessoned, "never written", "veto").status_code == 400
        assert ReflectionNote.objects.count() == 1


class TestScopes:
    def test_every_active_note_of_the_skill_holding_the_bullet_is_revised(self, client, owner, owner_api, lessoned):
        """The note promoted to skill scope, read by a second deployment: one veto revises both active notes
        (and the second deployment's hash follows); taking it back restores both, the skill-scope copy's text
        found through its promotion."""
        promoted = services.note_promote(note=active(lessoned), by=owner, now=minutes(7))
        other_deployment = Deployment.objects.create(
            owner=owner, skill_version=lessoned.skill_version, mode="paper"
        )  # no note of its own: it reads the skill-scope note
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")

        skill_note = ReflectionNote.objects.get(deployment__isnull=True, status=NoteStatus.ACTIVE)
        assert (skill_note.lessons_text, skill_note.revises_id) == (WITHOUT, promoted.pk)
        assert active(lessoned).lessons_text == WITHOUT
        assert Deployment.objects.get(pk=other_deployment.pk).active_lessons_hash == hash_lessons_text(WITHOUT)

        verdict(client, lessoned, VETOED, "clear")
        skill_note = ReflectionNote.objects.get(deployment__isnull=True, status=NoteStatus.ACTIVE)
        assert selectors.verdict_base(skill_note).source == NoteSource.REFLECTION
        assert skill_note.lessons_text == active(lessoned).lessons_text == NOTE


def test_a_veto_does_not_count_as_the_days_reflection(owner_api, lessoned):
    """The daily cadence counts from the last note a reflection (or staff) wrote, not from a veto's revision."""
    version = lessoned.skill_version
    version.reflection_cadence = "daily"
    version.save(update_fields=["reflection_cadence"])
    round_trips(owner_api, lessoned, 30, [("ETH", 1, 100, 90)])
    next_day = minutes(6) + dt.timedelta(days=1)
    services.lesson_verdict_set(skill=version.skill, bullet=VETOED, verdict="veto", now=next_day)
    assert active(lessoned).generated_at == next_day
    deployment = materialized(lessoned)
    assert selectors.latest_reflection_note(deployment=deployment).source == NoteSource.REFLECTION
    assert services.daily_reflection_due(deployment=deployment, now=next_day + dt.timedelta(hours=1))

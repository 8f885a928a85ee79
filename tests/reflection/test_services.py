"""Reflection runs, supersede atomicity, staff curation and the lessons hash, on the real database."""

from __future__ import annotations

import datetime as dt
import logging
import re
import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction

from access import scope
from ledger.models import TradeHistory
from reflection import selectors, services
from reflection.core import LESSONS_MAX_CHARS, ReflectionResult
from reflection.models import NoteSource, NoteStatus, ReflectionNote
from tests.factories import DeploymentFactory, UserFactory
from tests.reflection.support import T0, CannedEngine, RoundTrip, trade, trades

pytestmark = pytest.mark.django_db

LESSONS_A = "### Entry timing\n- breakouts won 2 of 3"
LESSONS_B = "### Entry timing\n- breakouts won 3 of 5\n### Sizing\n- halve size after two losses"


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__strategy_text="Buy breakouts.",
        skill_version__avoid_rules="never trade DOGE\nno leverage above 3x",
    )


def run(deployment, text=LESSONS_A, **kwargs):
    return services.reflection_run(deployment_id=deployment.pk, engine=CannedEngine(text), **kwargs)


def test_a_run_distils_the_closed_trades_into_the_active_note(deployment):
    last_exit = trades(deployment, [RoundTrip(), RoundTrip(exit=99), RoundTrip(symbol="ETH", entry=10, exit=12)])
    engine = CannedEngine(LESSONS_A)
    note = services.reflection_run(deployment_id=deployment.pk, engine=engine)
    assert (note.status, note.source, note.lessons_text) == (NoteStatus.ACTIVE, NoteSource.REFLECTION, LESSONS_A)
    assert (note.window_start, note.window_end, note.trades_considered) == (T0, last_exit, 3)
    assert (note.skill_id, note.skill_version) == (deployment.skill_version.skill_id, deployment.skill_version.version)
    assert note.owner_id == deployment.owner_id
    [inp] = engine.inputs
    assert [t.symbol for t in inp.trades] == ["BTC", "BTC", "ETH"]  # oldest exit first
    assert inp.strategy_text == "Buy breakouts."
    assert inp.avoid_rules == ("never trade DOGE", "no leverage above 3x")
    assert inp.active_lessons is None
    deployment.refresh_from_db()
    assert (
        deployment.active_lessons_hash == note.content_hash == selectors.active_note(deployment=deployment).content_hash
    )


def test_the_next_run_is_incremental_and_supersedes_the_prior_note(deployment):
    last = trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    first = run(deployment)
    trades(deployment, [RoundTrip(exit=103)], start=last + dt.timedelta(hours=1))
    engine = CannedEngine(LESSONS_B)
    second = services.reflection_run(deployment_id=deployment.pk, engine=engine)
    assert engine.inputs[0].active_lessons == LESSONS_A  # reflection builds on what it knew
    assert engine.inputs[0].trades[-1].exit_price == 103
    first.refresh_from_db()
    assert first.status == NoteStatus.SUPERSEDED
    assert second.status == NoteStatus.ACTIVE
    assert ReflectionNote.objects.filter(deployment=deployment).count() == 2  # history stays for audit


def test_the_same_window_twice_is_one_note_and_one_engine_call(deployment):
    trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    assert run(deployment) is not None
    engine = CannedEngine(LESSONS_B)
    assert services.reflection_run(deployment_id=deployment.pk, engine=engine) is None
    assert engine.inputs == []
    assert ReflectionNote.objects.filter(deployment=deployment).count() == 1


def test_through_limits_the_window_to_trades_closed_by_then(deployment):
    first_exit = trades(deployment, [RoundTrip(), RoundTrip(exit=99), RoundTrip(exit=98)])
    note = run(deployment, through=T0 + dt.timedelta(hours=1, minutes=30))
    assert note.trades_considered == 2 and note.window_end < first_exit


def test_the_window_is_the_most_recent_fifty_trades(deployment):
    for n in range(52):
        trade(deployment, T0 + dt.timedelta(hours=n), RoundTrip(exit=100 + n % 3), materialize=False)
    from ledger.services import materialize_pending

    materialize_pending(deployment_id=deployment.pk)
    engine = CannedEngine(LESSONS_A)
    note = services.reflection_run(deployment_id=deployment.pk, engine=engine)
    assert note.trades_considered == 50 and len(engine.inputs[0].trades) == 50
    assert note.window_start == T0 + dt.timedelta(hours=2)


def test_nothing_to_distil_without_closed_trades(deployment):
    assert run(deployment) is None
    trade(deployment, T0, RoundTrip())  # closed…
    assert run(deployment, through=T0 + dt.timedelta(minutes=5)) is None  # …but not by then


def test_rejected_output_keeps_the_prior_note_and_logs_a_warning(deployment, caplog):
    last = trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    prior = run(deployment)
    trades(deployment, [RoundTrip(exit=101)], start=last + dt.timedelta(hours=1))
    with caplog.at_level(logging.WARNING, logger="reflection.services"):
        assert run(deployment, text="### Symbol selection\n- Never trade DOGE again") is None
        assert run(deployment, text="   ") is None
        assert run(deployment, text="x" * 4001) is None
    assert caplog.text.count("rejected") == 3
    assert "avoid rule 'never trade DOGE'" in caplog.text
    prior.refresh_from_db()
    assert prior.status == NoteStatus.ACTIVE
    assert ReflectionNote.objects.count() == 1


def test_long_output_is_trimmed_before_insert(deployment):
    trades(deployment, [RoundTrip()])
    note = run(deployment, text="\n".join(f"- lesson {n:04d} with numbers: +$1.00" for n in range(100)))
    assert 0 < len(note.lessons_text) <= LESSONS_MAX_CHARS


def test_trades_opened_under_a_note_carry_its_hash_and_join_it_in_the_ab_figures(deployment):
    last = trades(deployment, [RoundTrip(exit=99), RoundTrip(exit=98)])  # no lessons yet: both lose
    note = run(deployment)
    after = trades(deployment, [RoundTrip(exit=102), RoundTrip(exit=99)], start=last + dt.timedelta(hours=1))
    hashes = list(TradeHistory.objects.order_by("entry_tick_at").values_list("entry_lessons_hash", flat=True))
    assert hashes == [None, None, note.content_hash, note.content_hash]
    ab = selectors.lessons_ab(skill=deployment.skill_version.skill)
    [revision] = ab.revisions
    assert revision.content_hash == note.content_hash
    assert (revision.figures.n_closed, revision.figures.win_rate) == (2, 0.5)
    assert revision.figures.avg_realized_pnl_usd == (2 - 1) / 2
    assert (ab.no_lessons.n_closed, ab.no_lessons.win_rate, ab.no_lessons.avg_realized_pnl_usd) == (2, 0, -1.5)
    assert after > last


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_runs_for_the_same_window_leave_exactly_one_new_note(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    both_reflected = threading.Barrier(2, timeout=30)

    class RacingEngine:
        def reflect(self, inp):
            both_reflected.wait()  # both runs passed the "already distilled?" check before either inserts
            return ReflectionResult(text=LESSONS_A, model_used="race")

    results, errors = [], []

    def worker():
        try:
            with scope.bound(scope.owner_scope_of(owner)):  # as the task runs it: in the trader's scope
                results.append(services.reflection_run(deployment_id=deployment.pk, engine=RacingEngine()))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert sorted(result is None for result in results) == [False, True]
    assert ReflectionNote.objects.filter(deployment=deployment).count() == 1
    assert ReflectionNote.objects.filter(deployment=deployment, status=NoteStatus.ACTIVE).count() == 1


# -- database rules --------------------------------------------------------------------------------


def _note(of, **fields) -> ReflectionNote:
    values = {
        "owner_id": of.owner_id,
        "skill_id": of.skill_version.skill_id,
        "skill_version": of.skill_version.version,
        "deployment": of,
        "generated_at": T0,
        "window_start": T0,
        "window_end": T0,
        "trades_considered": 1,
        "lessons_text": "- x",
        "model_used": "m",
        "content_hash": "0123456789abcdef",
        **fields,
    }
    return ReflectionNote(**values)


@pytest.mark.parametrize(
    "fields",
    [
        {"lessons_text": "x" * (LESSONS_MAX_CHARS + 1)},
        {"lessons_text": ""},
        {"content_hash": ""},
        {"status": "deleted"},
        {"window_start": T0 + dt.timedelta(hours=1)},
    ],
)
def test_the_database_refuses_a_broken_note(deployment, fields):
    with pytest.raises(IntegrityError), transaction.atomic():
        _note(deployment, **fields).save()


def test_the_database_allows_one_active_note_per_deployment_and_per_skill_version(deployment):
    _note(deployment).save()
    _note(deployment, status=NoteStatus.SUPERSEDED).save()
    with pytest.raises(IntegrityError), transaction.atomic():
        _note(deployment).save()
    _note(deployment, deployment=None).save()
    with pytest.raises(IntegrityError), transaction.atomic():
        _note(deployment, deployment=None).save()


# -- staff curation --------------------------------------------------------------------------------


@pytest.fixture
def curator(db):
    return UserFactory(username="curator", is_staff=True)


def test_a_staff_edit_is_a_new_active_revision(deployment, curator):
    trades(deployment, [RoundTrip()])
    note = run(deployment)
    revised = services.note_revise(note=note, lessons_text="### Sizing\r\n- smaller\x1b[0m  ", by=curator)
    note.refresh_from_db()
    assert note.status == NoteStatus.SUPERSEDED and note.status_changed_by == curator
    assert (revised.status, revised.source, revised.revises, revised.author) == (
        NoteStatus.ACTIVE,
        NoteSource.STAFF_EDIT,
        note,
        curator,
    )
    assert revised.lessons_text == "### Sizing\n- smaller[0m"
    assert (revised.window_start, revised.window_end, revised.trades_considered) == (
        note.window_start,
        note.window_end,
        note.trades_considered,
    )
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == revised.content_hash != note.content_hash


@pytest.mark.parametrize(
    ("text", "message"),
    [("  \n ", "lessons text cannot be empty"), ("x" * 2001, "at most 2000 characters (got 2001)")],
)
def test_a_staff_edit_with_bad_text_changes_nothing(deployment, curator, text, message):
    trades(deployment, [RoundTrip()])
    note = run(deployment)
    with pytest.raises(ValidationError, match=re.escape(message)):
        services.note_revise(note=note, lessons_text=text, by=curator)
    assert list(ReflectionNote.objects.values_list("status", flat=True)) == [NoteStatus.ACTIVE]


def test_only_the_active_note_can_be_edited_or_retired(deployment, curator):
    trades(deployment, [RoundTrip()])
    note = run(deployment)
    services.note_revise(note=note, lessons_text="- new", by=curator)
    with pytest.raises(ValidationError, match="only the active note can be edited; this one is superseded"):
        services.note_revise(note=note, lessons_text="- again", by=curator)
    with pytest.raises(ValidationError, match="only the active note can be retired"):
        services.note_retire(note=note, by=curator)


def test_retiring_takes_the_lessons_out_of_the_prompt(deployment, curator):
    trades(deployment, [RoundTrip()])
    note = run(deployment)
    services.note_retire(note=note, by=curator)
    note.refresh_from_db()
    assert (note.status, note.status_changed_by) == (NoteStatus.RETIRED, curator)
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == ""
    assert selectors.active_note(deployment=deployment) is None


def test_a_promoted_note_reaches_sibling_deployments_without_their_own(deployment, curator):
    sibling = DeploymentFactory(skill_version=deployment.skill_version, owner=deployment.owner)
    other_version = DeploymentFactory(skill_version__skill=deployment.skill_version.skill, owner=deployment.owner)
    trades(deployment, [RoundTrip()])
    note = run(deployment)
    promoted = services.note_promote(note=note, by=curator)
    assert (promoted.deployment_id, promoted.source, promoted.status) == (None, NoteSource.PROMOTION, "active")
    assert promoted.content_hash == note.content_hash
    for row in (deployment, sibling, other_version):
        row.refresh_from_db()
    assert sibling.active_lessons_hash == promoted.content_hash
    assert selectors.active_note(deployment=sibling) == promoted
    assert selectors.active_note(deployment=deployment) == note  # its own note wins
    assert other_version.active_lessons_hash == ""  # another version's agent never sees it
    with pytest.raises(ValidationError, match="already skill-scoped"):
        services.note_promote(note=promoted, by=curator)
    # retiring the deployment's own note falls back to the skill-scoped one
    services.note_retire(note=note, by=curator)
    deployment.refresh_from_db()
    assert selectors.active_note(deployment=deployment) == promoted
    assert deployment.active_lessons_hash == promoted.content_hash


# -- triggers --------------------------------------------------------------------------------------


def test_per_n_trades_trigger_counts_closes_since_the_last_note(deployment):
    skill_version = deployment.skill_version
    skill_version.reflection_cadence, skill_version.reflection_every_n_trades = "per_n_trades", 2
    skill_version.save()
    first = trades(deployment, [RoundTrip()])
    assert not services.reflection_due(deployment_id=deployment.pk, closed_this_tick=1, through=first)
    second = trade(deployment, first + dt.timedelta(hours=1), RoundTrip())
    assert services.reflection_due(deployment_id=deployment.pk, closed_this_tick=1, through=second)
    run(deployment, through=second)
    third = trade(deployment, second + dt.timedelta(hours=1), RoundTrip())
    assert not services.reflection_due(deployment_id=deployment.pk, closed_this_tick=1, through=third)
    fourth = trade(deployment, third + dt.timedelta(hours=1), RoundTrip())
    assert services.reflection_due(deployment_id=deployment.pk, closed_this_tick=1, through=fourth)
    for cadence in ("off", "daily"):  # daily runs from beat, never from a close
        skill_version.reflection_cadence = cadence
        skill_version.save()
        assert not services.reflection_due(deployment_id=deployment.pk, closed_this_tick=1, through=fourth)


def test_daily_trigger_needs_a_new_utc_day_and_new_closed_trades(deployment):
    skill_version = deployment.skill_version
    skill_version.reflection_cadence = "daily"
    skill_version.save()
    deployment.refresh_from_db()
    assert not services.daily_reflection_due(deployment=deployment, now=T0)  # nothing materialized yet
    last = trades(deployment, [RoundTrip()])
    deployment.refresh_from_db()
    assert services.daily_reflection_due(deployment=deployment, now=last)  # no note yet
    run(deployment, now=last)
    next_day = last + dt.timedelta(days=1)
    assert not services.daily_reflection_due(deployment=deployment, now=last + dt.timedelta(hours=1))
    assert not services.daily_reflection_due(deployment=deployment, now=next_day)  # nothing new to learn
    trade(deployment, last + dt.timedelta(hours=1), RoundTrip())
    deployment.refresh_from_db()
    assert services.daily_reflection_due(deployment=deployment, now=next_day)

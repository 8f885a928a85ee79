"""Writes for reflection: runs, staff revisions, promotion, retirement. One transaction each.

Every change of which note is active also rewrites ``Deployment.active_lessons_hash`` for the
deployments it affects, in the same transaction: the ledger stamps new trades from that column.
"""

from __future__ import annotations

import datetime as dt
import logging

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from ledger.domain import hash_lessons_text
from ledger.models import Deployment, Skill, SkillVersion
from memorysite.metrics import REFLECTION_COST, REFLECTION_RUNS
from memorysite.text import clean_text_block
from reflection import selectors
from reflection.backtest import SimReflection
from reflection.core import (
    CADENCE_DAILY,
    CADENCE_PER_N_TRADES,
    LESSONS_MAX_CHARS,
    ReflectionCadence,
    ReflectionFailed,
    ReflectionInput,
    ReflectionTriggerState,
    RejectedLessons,
    bullet_key,
    lesson_bullet_texts,
    lessons_without,
    should_run_reflection,
    validate_reflection_output,
)
from reflection.engines import ReflectionEngine, default_engine
from reflection.models import LESSON_BULLET_MAX, LessonVerdict, NoteSource, NoteStatus, ReflectionNote, VerdictKind

logger = logging.getLogger(__name__)

LESSONS_EMPTY = "lessons text cannot be empty"
LESSONS_TOO_LONG = f"lessons text is at most {LESSONS_MAX_CHARS} characters (got {{length}})"
NOT_ACTIVE = "only the active note can be {action}; this one is {status}"
ALREADY_SKILL_SCOPED = "this note is already skill-scoped"
NOT_AN_ACTIVE_BULLET = "is not a bullet of this skill's active lessons"
VERDICT_RULE = "must be one of " + ", ".join(VerdictKind.values)


def reflection_due(*, deployment_id: int, closed_this_tick: int, through: dt.datetime) -> bool:
    """The seed's trigger for a materialization pass that closed `closed_this_tick` trades up to `through`.

    Only the per-N cadence is driven by closes: the daily cadence runs from beat on the wall clock
    (daily_reflection_due), since tick times (a backfill, a simulation) need not be today."""
    deployment = Deployment.objects.select_related("skill_version").get(pk=deployment_id)
    skill_version = deployment.skill_version
    cadence = ReflectionCadence(skill_version.reflection_cadence, skill_version.reflection_every_n_trades)
    if cadence.cadence != CADENCE_PER_N_TRADES:
        return False
    latest = selectors.latest_reflection_note(deployment=deployment)
    state = ReflectionTriggerState(
        now=through,
        closed_since_last_note=selectors.closed_trades_between(
            deployment=deployment, after=latest.window_end if latest else None, through=through
        ),
        closed_this_tick=closed_this_tick,
        last_note_generated_at=latest.generated_at if latest else None,
    )
    return should_run_reflection(state, cadence)


def daily_reflection_due(*, deployment: Deployment, now: dt.datetime) -> bool:
    """Daily cadence: a new UTC day since the last note, and trades closed since its window."""
    skill_version = deployment.skill_version
    cadence = ReflectionCadence(skill_version.reflection_cadence, skill_version.reflection_every_n_trades)
    latest = selectors.latest_reflection_note(deployment=deployment)
    last_generated_at = latest.generated_at if latest else None
    state = ReflectionTriggerState(
        now=now, closed_since_last_note=0, closed_this_tick=0, last_note_generated_at=last_generated_at
    )
    if not should_run_reflection(state, cadence) or deployment.materialized_through is None:
        return False
    after = latest.window_end if latest else None
    return selectors.closed_trades_between(deployment=deployment, after=after, through=now) > 0


def reflection_keep_up(
    *, deployment_id: int, through: dt.datetime, engine: ReflectionEngine | None = None
) -> ReflectionNote | None:
    """Reflection keeping up with a simulation, after it materialized the tick at `through`: when the
    skill version's cadence says a reflection is due at that tick, run it now, its clock the tick's time
    (`generated_at` = `through`). Per N trades: this tick's closes cross a multiple of N. Daily: the
    tick's UTC date differs from the last note's and trades closed since its window (live, beat decides
    on the wall clock). Returns the new note, or None."""
    with transaction.atomic():
        deployment = Deployment.objects.select_related("skill_version").get(pk=deployment_id)
        cadence = deployment.skill_version.reflection_cadence
        if cadence == CADENCE_PER_N_TRADES:
            closed_now = selectors.closed_trades_at(deployment=deployment, at=through)
            due = closed_now > 0 and reflection_due(
                deployment_id=deployment_id, closed_this_tick=closed_now, through=through
            )
        elif cadence == CADENCE_DAILY:
            due = daily_reflection_due(deployment=deployment, now=through)
        else:
            due = False
    if not due:
        return None
    return reflection_run(deployment_id=deployment_id, through=through, engine=engine, now=through)


def sim_reflection(*, skill_version: SkillVersion, engine: ReflectionEngine | None = None) -> SimReflection:
    """Reflection for a backtest of this skill version (pass it to ``ledger.sim.SimLedger(reflection=…)``):
    its cadence, strategy, avoid rules and model override; the engine ``default_engine()`` gives unless
    one is passed (the statistical engine offline, Anthropic when a key is configured). The trader's vetoes
    and pins of the skill's bullets are told to every run, as live reflection_run tells them."""
    vetoed, pinned = selectors.vetoed_and_pinned(selectors.lesson_verdicts(skill_id=skill_version.skill_id))
    return SimReflection(
        cadence=ReflectionCadence(skill_version.reflection_cadence, skill_version.reflection_every_n_trades),
        engine=engine or default_engine(),
        strategy_text=skill_version.strategy_text,
        avoid_rules=tuple(skill_version.avoid_rule_list),
        model_override=skill_version.reflection_model_override,
        vetoed_bullets=vetoed,
        pinned_bullets=pinned,
    )


def reflection_run(
    *,
    deployment_id: int,
    through: dt.datetime | None = None,
    engine: ReflectionEngine | None = None,
    now: dt.datetime | None = None,
) -> ReflectionNote | None:
    """Distil the trades closed up to `through` (default: the materialized cursor) into a new active note.

    Returns the new note, or None when there was nothing to do (no closed trades, or this window
    is already distilled: a redelivered or concurrent run) or the run failed or its output was
    rejected (logged as a warning; the prior note stays active). The engine runs outside any
    transaction; the insert and the supersede run in one, under the deployment's row lock.
    """
    with transaction.atomic():  # the reads, in a transaction of their own (row-level security scopes them)
        prepared = _reflection_input(deployment_id=deployment_id, through=through)
    if prepared is None:
        return None
    skill_version, trades, inp = prepared
    avoid_rules = inp.avoid_rules
    window_start = min(trade.entry_tick_at for trade in trades)
    window_end = trades[-1].exit_tick_at
    try:
        result = (engine or default_engine()).reflect(inp)
    except ReflectionFailed as exc:
        REFLECTION_RUNS.labels("failed").inc()
        logger.warning("reflection for deployment %s failed; prior lessons stay active: %s", deployment_id, exc)
        return None
    if result.cost_usd:
        REFLECTION_COST.inc(float(result.cost_usd))
    verdict = validate_reflection_output(result.text, avoid_rules)
    if isinstance(verdict, RejectedLessons):
        REFLECTION_RUNS.labels("rejected").inc()
        logger.warning("reflection for deployment %s rejected (%s); prior lessons stay active", deployment_id, verdict)
        return None
    with transaction.atomic():
        locked = Deployment.objects.select_for_update().get(pk=deployment_id)
        if _already_distilled(locked, window_end):
            REFLECTION_RUNS.labels("skipped").inc()
            return None
        note = _activate(
            ReflectionNote(
                owner_id=locked.owner_id,
                skill_id=skill_version.skill_id,
                skill_version=skill_version.version,
                deployment=locked,
                generated_at=now or timezone.now(),
                window_start=window_start,
                window_end=window_end,
                trades_considered=len(trades),
                lessons_text=verdict.text,
                model_used=result.model_used,
                input_tokens=result.input_tokens,
                output_tokens=result.output_tokens,
                cache_read_input_tokens=result.cache_read_input_tokens,
                cache_creation_input_tokens=result.cache_creation_input_tokens,
                cost_usd=result.cost_usd,
                source=NoteSource.REFLECTION,
            )
        )
    REFLECTION_RUNS.labels("ok").inc()
    logger.info("reflection for deployment %s: note %s (%s trades)", deployment_id, note.content_hash, len(trades))
    return note


def _reflection_input(*, deployment_id: int, through: dt.datetime | None):
    """(skill version, the window's trades, the engine's input), or None when there is nothing to distil."""
    deployment = Deployment.objects.select_related("skill_version").get(pk=deployment_id)
    through = through or deployment.materialized_through
    if through is None:
        return None
    trades = selectors.reflection_window(deployment=deployment, through=through)
    if not trades or _already_distilled(deployment, trades[-1].exit_tick_at):
        return None
    skill_version = deployment.skill_version
    active = selectors.active_note(deployment=deployment)
    vetoed, pinned = selectors.vetoed_and_pinned(selectors.lesson_verdicts(skill_id=skill_version.skill_id))
    inp = ReflectionInput(
        trades=trades,
        strategy_text=skill_version.strategy_text,
        avoid_rules=tuple(skill_version.avoid_rule_list),
        active_lessons=active.lessons_text if active else None,
        model_override=skill_version.reflection_model_override,
        vetoed_bullets=vetoed,
        pinned_bullets=pinned,
    )
    return skill_version, trades, inp


def _already_distilled(deployment: Deployment, window_end: dt.datetime) -> bool:
    latest = (
        ReflectionNote.objects.filter(deployment=deployment)
        .order_by("-window_end")
        .values_list("window_end", flat=True)
        .first()
    )
    return latest is not None and latest >= window_end


@transaction.atomic
def note_revise(*, note: ReflectionNote, lessons_text: str, by, now: dt.datetime | None = None) -> ReflectionNote:
    """A staff edit: a new active revision of the note's scope with this text; the old one is superseded."""
    text = clean_text_block(lessons_text)
    if not text:
        raise ValidationError({"lessons_text": [LESSONS_EMPTY]})
    if len(text) > LESSONS_MAX_CHARS:
        raise ValidationError({"lessons_text": [LESSONS_TOO_LONG.format(length=len(text))]})
    _lock_scope(note)
    note.refresh_from_db(fields=["status"])
    if note.status != NoteStatus.ACTIVE:
        raise ValidationError({"status": [NOT_ACTIVE.format(action="edited", status=note.status)]})
    return _activate(_copy(note, lessons_text=text, source=NoteSource.STAFF_EDIT, by=by, now=now), by=by)


@transaction.atomic
def note_promote(*, note: ReflectionNote, by, now: dt.datetime | None = None) -> ReflectionNote:
    """A skill-scoped copy of the note (deployment null), active for every deployment of its skill
    version that has no active note of its own; a previous skill-scoped note is superseded."""
    if note.deployment_id is None:
        raise ValidationError({"deployment": [ALREADY_SKILL_SCOPED]})
    Skill.objects.select_for_update().get(pk=note.skill_id)
    copy = _copy(note, lessons_text=note.lessons_text, source=NoteSource.PROMOTION, by=by, now=now)
    copy.deployment = None
    return _activate(copy, by=by)


@transaction.atomic
def note_retire(*, note: ReflectionNote, by, now: dt.datetime | None = None) -> ReflectionNote:
    """Take an active note out of the prompt with no replacement (kept for audit)."""
    _lock_scope(note)
    note.refresh_from_db(fields=["status"])
    if note.status != NoteStatus.ACTIVE:
        raise ValidationError({"status": [NOT_ACTIVE.format(action="retired", status=note.status)]})
    note.status = NoteStatus.RETIRED
    note.status_changed_at = now or timezone.now()
    note.status_changed_by = by
    note.save(update_fields=["status", "status_changed_at", "status_changed_by"])
    _sync_lessons_hash(note)
    return note


def _lock_scope(note: ReflectionNote) -> None:
    """Serialise changes to one scope's active note: the deployment row, or the skill row."""
    if note.deployment_id is not None:
        Deployment.objects.select_for_update().filter(pk=note.deployment_id).get()
    else:
        Skill.objects.select_for_update().filter(pk=note.skill_id).get()


def _copy(note: ReflectionNote, *, lessons_text: str, source: str, by, now) -> ReflectionNote:
    return ReflectionNote(
        owner_id=note.owner_id,
        skill_id=note.skill_id,
        skill_version=note.skill_version,
        deployment_id=note.deployment_id,
        generated_at=now or timezone.now(),
        window_start=note.window_start,
        window_end=note.window_end,
        trades_considered=note.trades_considered,
        lessons_text=lessons_text,
        model_used=note.model_used,
        source=source,
        revises=note,
        author=by,
    )


def _activate(note: ReflectionNote, *, by=None) -> ReflectionNote:
    """Insert `note` as the active one of its scope; the prior active note becomes superseded.

    The caller holds the scope's lock and an open transaction."""
    note.content_hash = hash_lessons_text(note.lessons_text)
    note.status = NoteStatus.ACTIVE
    scope = ReflectionNote.objects.filter(status=NoteStatus.ACTIVE)
    if note.deployment_id is not None:
        scope = scope.filter(deployment_id=note.deployment_id)
    else:
        scope = scope.filter(deployment__isnull=True, skill_id=note.skill_id, skill_version=note.skill_version)
    scope.update(status=NoteStatus.SUPERSEDED, status_changed_at=note.generated_at, status_changed_by=by)
    note.full_clean(exclude=["revises", "author", "status_changed_by", "deployment", "skill", "owner"])
    note.save(force_insert=True)
    _sync_lessons_hash(note)
    return note


def _sync_lessons_hash(note: ReflectionNote) -> None:
    """Rewrite active_lessons_hash on the deployments whose active lessons `note` may have changed."""
    deployments = Deployment.objects.select_related("skill_version")
    if note.deployment_id is not None:
        deployments = deployments.filter(pk=note.deployment_id)
    else:
        deployments = deployments.filter(
            skill_version__skill_id=note.skill_id, skill_version__version=note.skill_version
        )
    for deployment in deployments:
        active = selectors.active_note(deployment=deployment)
        content_hash = active.content_hash if active else ""
        if deployment.active_lessons_hash != content_hash:
            Deployment.objects.filter(pk=deployment.pk).update(active_lessons_hash=content_hash)


# -- the trader's verdicts on lessons bullets (the lessons page) ----------------------------------------


@transaction.atomic
def lesson_verdict_set(
    *, skill: Skill, bullet: str, verdict: str, by=None, now: dt.datetime | None = None
) -> LessonVerdict:
    """Veto or pin one bullet of the skill's active lessons (its bullet_key), replacing an earlier verdict on it.
    Both are told to the next reflection run.

    A veto (or a pin in place of a veto) changes what the agent reads, so it makes a new revision of every
    active note of the skill whose text changes (``_verdict_revisions``): a new content hash, stamped on the
    ticks and trades that follow, so the lessons A/B credits them to the text the agent saw. A pin changes no
    text: no revision. ``by``: the trader (the revisions' author; None: the skill's owner)."""
    key = bullet_key(bullet)
    if verdict not in VerdictKind.values:
        raise ValidationError({"verdict": [VERDICT_RULE]})
    _lock_skill_scopes(skill)
    # The bullets of the texts the active notes were cut from: a vetoed bullet can still be pinned or vetoed.
    active_keys = {
        bullet_key(line)
        for note in selectors.active_skill_notes(skill=skill)
        for line in note_bullets(selectors.verdict_base(note))
    }
    if not key or len(key) > LESSON_BULLET_MAX or key not in active_keys:
        raise ValidationError({"bullet": [NOT_AN_ACTIVE_BULLET]})
    row, _ = LessonVerdict.objects.update_or_create(
        skill=skill, bullet=key, defaults={"verdict": verdict, "owner_id": skill.owner_id}
    )
    _verdict_revisions(skill=skill, by=by, now=now)
    return row


@transaction.atomic
def lesson_verdict_clear(*, skill: Skill, bullet: str, by=None, now: dt.datetime | None = None) -> int:
    """Take back the verdict on one bullet (nothing to take back: 0). Taking back a veto makes a new revision
    with the bullet back in its place (``_verdict_revisions``)."""
    _lock_skill_scopes(skill)
    deleted, _ = LessonVerdict.objects.filter(skill=skill, bullet=bullet_key(bullet)).delete()
    if deleted:
        _verdict_revisions(skill=skill, by=by, now=now)
    return deleted


def _lock_skill_scopes(skill: Skill) -> None:
    """Every scope a verdict may revise, in ``_lock_scope``'s order of kinds (note_promote's: the skill row, then
    the deployments its writes touch): the skill row, which serialises verdicts on the skill, then the
    deployments with an active note of the skill, by id. A deployment whose first note became active meanwhile
    is locked on the next pass."""
    Skill.objects.select_for_update().filter(pk=skill.pk).get()
    locked: set[int] = set()
    while True:
        active = ReflectionNote.objects.filter(skill=skill, status=NoteStatus.ACTIVE, deployment__isnull=False)
        pending = sorted(set(active.values_list("deployment_id", flat=True)) - locked)
        if not pending:
            return
        list(Deployment.objects.select_for_update().filter(pk__in=pending).order_by("pk").values_list("pk"))
        locked.update(pending)


def _verdict_revisions(*, skill: Skill, by, now: dt.datetime | None) -> list[ReflectionNote]:
    """A new active revision (source ``trader``) of each active note of the skill whose text the vetoes change:
    the text of the revision it was cut from (``selectors.verdict_base``) without the bullets vetoed now
    (``reflection.core.lessons_without``). The caller holds ``_lock_skill_scopes`` and a transaction."""
    vetoed = frozenset(selectors.vetoed_and_pinned(selectors.lesson_verdicts(skill_id=skill.pk))[0])
    author = by if by is not None else skill.owner
    made = []
    for note in selectors.active_skill_notes(skill=skill):
        text = lessons_without(selectors.verdict_base(note).lessons_text, vetoed)
        if text != note.lessons_text:
            revision = _copy(note, lessons_text=text, source=NoteSource.TRADER, by=author, now=now)
            made.append(_activate(revision, by=author))
    return made


def note_bullets(note: ReflectionNote) -> list[str]:
    """The note's bullets as the agent's prompt lists them (reflection.core.lesson_bullet_texts)."""
    return lesson_bullet_texts(note.lessons_text)

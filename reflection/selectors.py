"""Reads for reflection: active lessons, note history, the trades window, A/B figures."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import Avg, Count, F, OuterRef, Q, QuerySet, StdDev

from ledger.models import Deployment, Skill, TradeHistory, TradeStatus
from reflection.ab_stats import DifferenceEstimate, GroupEstimate, TradeSample, compare_with_baseline, estimate_group
from reflection.core import WINDOW_TRADES, ReflectionTrade
from reflection.diffing import LineDiff, line_diff, pair_with_previous
from reflection.models import LessonVerdict, NoteSource, NoteStatus, ReflectionNote, VerdictKind


def active_note(*, deployment: Deployment) -> ReflectionNote | None:
    """The note whose lessons the deployment's agent sees: its own active note, else the active
    skill-scoped note of its skill version (a staff promotion), else none."""
    skill_version = deployment.skill_version
    return (
        ReflectionNote.objects.filter(status=NoteStatus.ACTIVE)
        .filter(
            Q(deployment=deployment)
            | Q(deployment__isnull=True, skill_id=skill_version.skill_id, skill_version=skill_version.version)
        )
        .order_by("deployment_id")  # the deployment's own note first (NULLs sort last)
        .first()
    )


def active_note_and_vetoes(*, deployment: Deployment) -> tuple[ReflectionNote | None, frozenset[str]]:
    """``active_note`` and the bullets the trader vetoed on its skill, in the same one query (the per-tick
    context reads it): the note carries them as an array subquery."""
    vetoes = LessonVerdict.objects.filter(skill_id=OuterRef("skill_id"), verdict=VerdictKind.VETO).values("bullet")
    skill_version = deployment.skill_version
    note = (
        ReflectionNote.objects.filter(status=NoteStatus.ACTIVE)
        .filter(
            Q(deployment=deployment)
            | Q(deployment__isnull=True, skill_id=skill_version.skill_id, skill_version=skill_version.version)
        )
        .annotate(vetoed_bullets=ArraySubquery(vetoes))
        .order_by("deployment_id")  # the deployment's own note first (NULLs sort last), as active_note
        .first()
    )
    return note, frozenset(note.vetoed_bullets) if note is not None else frozenset()


def lesson_verdicts(*, skill_id: int) -> dict[str, str]:
    """The trader's verdicts on the skill's lessons bullets: bullet_key → "veto" or "pin" (row-level security
    keeps them the skill owner's)."""
    return dict(LessonVerdict.objects.filter(skill_id=skill_id).values_list("bullet", "verdict"))


def vetoed_and_pinned(verdicts: dict[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(vetoed, pinned) bullets, each sorted: what the next reflection is told."""
    vetoed = tuple(sorted(bullet for bullet, verdict in verdicts.items() if verdict == VerdictKind.VETO))
    pinned = tuple(sorted(bullet for bullet, verdict in verdicts.items() if verdict == VerdictKind.PIN))
    return vetoed, pinned


def active_skill_notes(*, skill: Skill) -> list[ReflectionNote]:
    """The skill's active notes (per deployment, and skill-scoped ones), newest skill version first."""
    notes = ReflectionNote.objects.filter(skill=skill, status=NoteStatus.ACTIVE)
    return list(notes.order_by("-skill_version", "deployment_id"))


def latest_reflection_note(*, deployment: Deployment) -> ReflectionNote | None:
    """The deployment's most recent note of any status: where the trigger counts from. A revision a trader's
    veto made is not one (its window is the revised note's; today's veto must not stand for today's run)."""
    notes = ReflectionNote.objects.filter(deployment=deployment).exclude(source=NoteSource.TRADER)
    return notes.order_by("-generated_at", "-id").first()


# A revision made from another with the same text (a promotion) or by a trader's verdict: not a text of its own.
_NOT_A_TEXT_OF_ITS_OWN = (NoteSource.TRADER, NoteSource.PROMOTION)


def verdict_base(note: ReflectionNote) -> ReflectionNote:
    """The revision whose text a trader's verdicts cut `note`'s from: the nearest note of its ``revises`` chain,
    itself included, that neither a verdict (source ``trader``) nor a promotion (the same text as the note it
    copies) made. A veto's revision is its text without the bullets vetoed now (``reflection.services``), so
    taking a veto back brings the bullet back in its place. One query a step; the chain is short."""
    seen = {note.pk}
    while note.source in _NOT_A_TEXT_OF_ITS_OWN and note.revises_id is not None and note.revises_id not in seen:
        revised = ReflectionNote.objects.filter(pk=note.revises_id).first()
        if revised is None:
            break
        seen.add(revised.pk)
        note = revised
    return note


def note_history(*, deployment: Deployment) -> QuerySet[ReflectionNote]:
    """The deployment's notes and its skill version's skill-scoped notes, newest first."""
    skill_version = deployment.skill_version
    return (
        ReflectionNote.objects.filter(
            Q(deployment=deployment)
            | Q(deployment__isnull=True, skill_id=skill_version.skill_id, skill_version=skill_version.version)
        )
        .select_related("author", "status_changed_by")
        .order_by("-generated_at", "-id")
    )


def skill_notes(*, skill: Skill) -> QuerySet[ReflectionNote]:
    return ReflectionNote.objects.filter(skill=skill).select_related("author").order_by("generated_at", "id")


def closed_trades_between(*, deployment: Deployment, after: dt.datetime | None, through: dt.datetime) -> int:
    """Closed trades with exit_tick_at in (after, through]."""
    closed = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.CLOSED, exit_tick_at__lte=through)
    if after is not None:
        closed = closed.filter(exit_tick_at__gt=after)
    return closed.count()


def closed_trades_at(*, deployment: Deployment, at: dt.datetime) -> int:
    """Trades the tick at `at` closed (their exit_tick_at is that tick's time)."""
    return TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.CLOSED, exit_tick_at=at).count()


def reflection_window(*, deployment: Deployment, through: dt.datetime, limit: int = WINDOW_TRADES):
    """The last `limit` trades closed at or before `through`, oldest exit first."""
    rows = TradeHistory.objects.filter(
        deployment=deployment, status=TradeStatus.CLOSED, exit_tick_at__lte=through
    ).order_by("-exit_tick_at", "-entry_tick_at", "-symbol")[:limit]
    return tuple(reversed([_reflection_trade(row) for row in rows]))


def window_trades(*, note: ReflectionNote, limit: int = WINDOW_TRADES) -> list[TradeHistory]:
    """The trades a note distilled (its deployment's closed trades inside its window), newest first."""
    trades = TradeHistory.objects.filter(
        status=TradeStatus.CLOSED,
        exit_tick_at__gte=note.window_start,
        exit_tick_at__lte=note.window_end,
        entry_tick_at__gte=note.window_start,
    )
    if note.deployment_id is not None:
        trades = trades.filter(deployment_id=note.deployment_id)
    else:
        trades = trades.filter(skill_id=note.skill_id, skill_version=note.skill_version)
    return list(trades.order_by("-exit_tick_at", "-entry_tick_at")[:limit])


def _reflection_trade(row: TradeHistory) -> ReflectionTrade:
    return ReflectionTrade(
        symbol=row.symbol,
        side=row.side,
        entry_tick_at=row.entry_tick_at,
        exit_tick_at=row.exit_tick_at,
        entry_price=row.entry_price,
        exit_price=row.exit_price,
        entry_size_usd=row.entry_size_usd,
        entry_leverage=row.entry_leverage,
        entry_reason=row.entry_reason,
        exit_reason=row.exit_reason or "",
        entry_regime_tag=row.entry_regime_tag,
        realized_pnl_usd=row.realized_pnl_usd,
        fees_usd=row.fees_usd,
        mfe_usd=row.mfe_usd,
        mae_usd=row.mae_usd,
        holding_minutes=row.holding_minutes,
    )


# -- A/B telemetry ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TradeFigures:
    n_closed: int
    avg_realized_pnl_usd: Decimal | None
    win_rate: Decimal | None  # 0..1, None without trades
    wins: int = 0
    sd_realized_pnl_usd: Decimal | None = None  # sample standard deviation; None below two trades

    def sample(self) -> TradeSample:
        return TradeSample(
            n=self.n_closed,
            wins=self.wins,
            mean_pnl=None if self.avg_realized_pnl_usd is None else float(self.avg_realized_pnl_usd),
            sd_pnl=None if self.sd_realized_pnl_usd is None else float(self.sd_realized_pnl_usd),
        )


@dataclass(frozen=True)
class LessonsRevisionFigures:
    content_hash: str
    generated_at: dt.datetime
    first_note_id: object
    statuses: tuple[str, ...]
    figures: TradeFigures
    estimate: GroupEstimate  # the figures with their 95% intervals (reflection.ab_stats)
    vs_no_lessons: DifferenceEstimate  # this revision minus "no lessons"
    # Each note holding this text: (status, deployment id or None for skill scope, skill version), active first.
    # One text can be active in a deployment and retired as its promoted skill-scope copy: a status is a note's.
    scopes: tuple[tuple[str, int | None, int], ...] = ()
    number: int = 0  # "revision N" of the skill: the order of first appearance over all its versions

    @property
    def active(self) -> bool:
        return NoteStatus.ACTIVE in self.statuses


@dataclass(frozen=True)
class LessonsAB:
    revisions: tuple[LessonsRevisionFigures, ...]  # by first appearance, oldest first
    no_lessons: TradeFigures
    no_lessons_estimate: GroupEstimate


def lessons_ab(*, skill: Skill, version: int | None = None) -> LessonsAB:
    """Closed trades of the skill grouped by the lessons revision they were opened under, each
    revision with 95% intervals and its difference against the trades opened with no lessons.

    Two queries whatever the history size: trades aggregated by entry_lessons_hash (count, wins,
    average and sample standard deviation of realized PnL: all the intervals need), and the
    skill's notes (a handful per day at most) grouped by content_hash. A revision without trades
    yet shows n_closed 0. Identical text in two deployments is one revision (same hash, same join key).
    """
    trades = TradeHistory.objects.filter(skill=skill, status=TradeStatus.CLOSED)
    notes = ReflectionNote.objects.filter(skill=skill)
    if version is not None:
        trades = trades.filter(skill_version=version)
        notes = notes.filter(skill_version=version)
    by_hash = {
        row["entry_lessons_hash"]: TradeFigures(
            n_closed=row["n"],
            avg_realized_pnl_usd=row["avg_pnl"],
            win_rate=Decimal(row["wins"]) / Decimal(row["n"]) if row["n"] else None,
            wins=row["wins"],
            sd_realized_pnl_usd=row["sd_pnl"],
        )
        for row in trades.values("entry_lessons_hash").annotate(
            n=Count("id"),
            avg_pnl=Avg("realized_pnl_usd"),
            sd_pnl=StdDev("realized_pnl_usd", sample=True),
            wins=Count("id", filter=Q(realized_pnl_usd__gt=0)),
        )
    }
    empty = TradeFigures(0, None, None)
    no_lessons = by_hash.get(None, empty)
    baseline = no_lessons.sample()
    groups: dict[str, dict] = {}
    for note_id, content_hash, status, generated_at, deployment_id, skill_version in notes.order_by(
        "generated_at", "id"
    ).values_list("id", "content_hash", "status", "generated_at", "deployment_id", "skill_version"):
        group = groups.setdefault(content_hash, {"first": generated_at, "id": note_id, "statuses": set(), "scopes": []})
        group["statuses"].add(status)
        group["scopes"].append((status, deployment_id, skill_version))
    numbers = revision_numbers(skill=skill) if version is not None else {h: n for n, h in enumerate(groups, 1)}
    revisions = []
    for content_hash, group in groups.items():
        figures = by_hash.get(content_hash, empty)
        revisions.append(
            LessonsRevisionFigures(
                content_hash=content_hash,
                generated_at=group["first"],
                first_note_id=group["id"],
                statuses=tuple(sorted(group["statuses"])),
                figures=figures,
                estimate=estimate_group(figures.sample()),
                vs_no_lessons=compare_with_baseline(figures.sample(), baseline),
                scopes=tuple(sorted(group["scopes"], key=lambda scope: scope[0] != NoteStatus.ACTIVE)),
                number=numbers.get(content_hash, 0),
            )
        )
    return LessonsAB(revisions=tuple(revisions), no_lessons=no_lessons, no_lessons_estimate=estimate_group(baseline))


def revision_numbers(*, skill: Skill) -> dict[str, int]:
    """Each lessons text (content_hash) of the skill numbered by its first appearance, 1 first, over all
    versions and scopes: the names the lessons page gives revisions ("revision 3"), stable under its filters."""
    numbers: dict[str, int] = {}
    for content_hash in (
        ReflectionNote.objects.filter(skill=skill).order_by("generated_at", "id").values_list("content_hash", flat=True)
    ):
        numbers.setdefault(content_hash, len(numbers) + 1)
    return numbers


# -- lessons history page (reflection/views.py) -------------------------------------------------------


@dataclass(frozen=True)
class LessonsHistoryEntry:
    note: ReflectionNote
    previous: ReflectionNote | None  # the revision this one replaced in its scope; None for the first
    diff: LineDiff | None  # `previous` → `note`, None for the first revision of its scope
    copied_from: ReflectionNote | None = None  # a promotion's source note (another scope), when listed


def note_scope(note: ReflectionNote) -> tuple[str, int]:
    """The scope whose active note a new note replaces: its deployment, or its skill version."""
    if note.deployment_id is not None:
        return ("deployment", note.deployment_id)
    return ("skill", note.skill_version)


def skill_lessons_history(*, skill: Skill, version: int | None = None) -> list[LessonsHistoryEntry]:
    """Every note of the skill (all deployments and skill scope; one version when given): the active ones
    (what agents see now) first, then the rest, each part newest first; each with a line diff against the
    previous note of its scope by generated_at.

    One query. Scopes never span versions, so filtering by version keeps every diff."""
    notes = skill_notes(skill=skill)
    if version is not None:
        notes = notes.filter(skill_version=version)
    pairs = pair_with_previous(notes, scope=note_scope)
    by_id = {note.pk: note for note, _ in pairs}
    entries = [
        LessonsHistoryEntry(
            note=note,
            previous=previous,
            diff=line_diff(previous.lessons_text, note.lessons_text) if previous is not None else None,
            copied_from=by_id.get(note.revises_id) if note.source == NoteSource.PROMOTION else None,
        )
        for note, previous in reversed(pairs)
    ]
    return sorted(entries, key=lambda entry: entry.note.status != NoteStatus.ACTIVE)  # stable: newest first in each


def skill_deployments_behind(*, skill: Skill) -> QuerySet[Deployment]:
    """The skill's deployments whose ticks are not all materialized yet: a page showing the skill's
    trades catches them up first (read-your-writes, as the journal does). One query; usually empty."""
    return Deployment.objects.filter(skill_version__skill=skill, latest_tick_at__isnull=False).filter(
        Q(materialized_through__isnull=True) | Q(materialized_through__lt=F("latest_tick_at"))
    )

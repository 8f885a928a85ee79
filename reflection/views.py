"""HTMX pages of reflection: a skill's lessons history with diffs and A/B figures. Pages read through selectors only."""

from __future__ import annotations

from typing import cast

from django import forms
from django.conf import settings as django_settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from ledger import selectors as ledger_selectors
from ledger import services as ledger_services
from memorysite.pages import bad_request, rules_broken, trader_required, wants_partial
from reflection import selectors, services, statistical
from reflection.ab_stats import (
    MIN_TRADES_TO_TELL,
    VERDICT_HIGHER,
    VERDICT_LOWER,
    VERDICT_NO_CLEAR_DIFFERENCE,
    VERDICT_TOO_FEW_TRADES,
    DifferenceEstimate,
    GroupEstimate,
)
from reflection.core import bullet_key, lesson_bullet_texts
from reflection.models import NoteSource, NoteStatus, VerdictKind
from reflection.selectors import TradeFigures

NO_LESSONS = "no lessons"
TOO_FEW_TRADES = "too few trades to tell"
VERDICT_LABELS = {
    VERDICT_TOO_FEW_TRADES: TOO_FEW_TRADES,
    VERDICT_HIGHER: "higher",
    VERDICT_LOWER: "lower",
    VERDICT_NO_CLEAR_DIFFERENCE: "no clear difference",
}
BAD_VERSION = (
    "Invalid query parameter “version”: {value!r} is not a version of this skill."
    " Use one of {choices}, or leave it empty for all versions."
)


class LessonsFilterForm(forms.Form):
    """The page's version filter; choices are the skill's versions. Blank means "all versions"."""

    version = forms.TypedChoiceField(required=False, coerce=int, empty_value=None)

    def __init__(self, data, *, versions: list[int]):
        super().__init__(data)
        self.versions = versions
        cast(forms.ChoiceField, self.fields["version"]).choices = [
            ("", "all versions"),
            *((str(v), f"v{v}") for v in versions),
        ]

    def error_message(self) -> str:
        choices = ", ".join(str(v) for v in self.versions) or "(none yet)"
        return BAD_VERSION.format(value=self.data.get("version", ""), choices=choices)


def _page_url(skill_id: int, version: int | None) -> str:
    """The page's canonical URL: the version only when one is chosen."""
    url = reverse("skill-lessons", args=[skill_id])
    return f"{url}?version={version}" if version is not None else url


def _figures_row(label: str, figures: TradeFigures, estimate: GroupEstimate, **extra) -> dict:
    win_rate = figures.win_rate
    avg_ci, win_ci = estimate.avg_pnl_interval, estimate.win_rate_interval
    return {
        "label": label,
        "n_closed": figures.n_closed,
        "avg_pnl": figures.avg_realized_pnl_usd,
        "win_rate": win_rate,  # a fraction: the page writes it with |percent
        "too_few_trades": estimate.too_few_trades,
        "avg_ci": avg_ci,
        "win_ci": win_ci,
        **extra,
    }


def _difference(vs: DifferenceEstimate) -> dict:
    """A revision against no lessons, as the page shows it."""
    win_ci = vs.win_rate_interval
    return {
        "avg": vs.avg_pnl,
        "avg_ci": vs.avg_pnl_interval,
        "win_change": vs.win_rate,  # a difference of fractions: the page writes it with |pp
        "win_ci": win_ci,
        "too_few_trades": vs.too_few_trades,
        "verdict": vs.verdict,
        "verdict_label": VERDICT_LABELS[vs.verdict],
    }


def _chart_bar(row: dict, kind: str = "revision") -> dict:
    """One bar of the A/B chart (static/js/charts.js, "revision-bars"): no average without trades; its
    95% interval from the minimum sample on."""
    avg, ci = row["avg_pnl"], row["avg_ci"]
    bar = {
        "label": f"Revision {row['number']}" if row.get("number") else row["label"],  # as the table names it
        "n": row["n_closed"],
        "avg": float(avg) if avg is not None and row["n_closed"] else None,
        "kind": kind,
    }
    if ci is not None:
        bar.update(low=ci.low, high=ci.high)
    return bar


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def skill_lessons(request, skill_id: int):
    skill = ledger_selectors.skill_get(user=request.user, skill_id=skill_id)
    versions = list(skill.versions.all())  # prefetched by skill_get, newest first
    form = LessonsFilterForm(request.GET, versions=[v.version for v in versions])
    if not form.is_valid():
        return bad_request(request, form.error_message(), back_url=request.path, back_label="Show all versions")
    version = form.cleaned_data["version"]
    for deployment in selectors.skill_deployments_behind(skill=skill):
        ledger_services.materialize_if_behind(deployment)

    ab = selectors.lessons_ab(skill=skill, version=version)
    ab_rows = [
        _figures_row(
            revision.content_hash,
            revision.figures,
            revision.estimate,
            vs=_difference(revision.vs_no_lessons),
            content_hash=revision.content_hash,
            generated_at=revision.generated_at,
            statuses=revision.statuses,
            note_id=revision.first_note_id,
            number=revision.number,
            scopes=[{"status": status, "deployment_id": d, "skill_version": v} for status, d, v in revision.scopes],
        )
        for revision in ab.revisions
    ]
    no_lessons = _figures_row(NO_LESSONS, ab.no_lessons, ab.no_lessons_estimate)
    numbers = {revision.content_hash: revision.number for revision in ab.revisions}
    verdicts = selectors.lesson_verdicts(skill_id=skill.pk)
    context = {
        "skill": skill,
        "versions": [v for v in versions if version is None or v.version == version],
        "form": form,
        "version": version,
        "version_value": "" if version is None else str(version),
        "page_url": reverse("skill-lessons", args=[skill.pk]),
        "history": _history_rows(selectors.skill_lessons_history(skill=skill, version=version), numbers, verdicts),
        "verdicts": sorted(verdicts.items(), key=lambda item: (item[1], item[0])),
        "verdict_url": reverse("skill-lesson-verdict", args=[skill.pk]),
        "default_model": django_settings.REFLECTION_MODEL,
        "llm_configured": bool(django_settings.ANTHROPIC_API_KEY),  # without it the statistical engine reflects
        "statistical_model": statistical.MODEL_USED,
        "ab_rows": ab_rows,
        "no_lessons": no_lessons,
        "min_trades_to_tell": MIN_TRADES_TO_TELL,
        "chart_data": {"revisions": [*(_chart_bar(row) for row in ab_rows), _chart_bar(no_lessons, "none")]},
    }
    if wants_partial(request):
        response = render(request, "reflection/_lessons_body.html", context)
        return push_url(response, _page_url(skill.pk, version))
    return render(request, "reflection/lessons.html", context)


def _bullets(note, verdicts: dict[str, str]) -> list[dict] | None:
    """An active note's bullets, each with the trader's verdict; None for the other notes (no one sees them any
    more: nothing to veto or pin). A revision a veto made lists the bullets of the text it was cut from
    (``selectors.verdict_base``), so a vetoed bullet stays in its place, struck out, with its Undo."""
    if note.status != NoteStatus.ACTIVE:
        return None
    return [
        {"text": text, "key": bullet_key(text), "verdict": verdicts.get(bullet_key(text), "")}
        for text in lesson_bullet_texts(selectors.verdict_base(note).lessons_text)
    ]


def _history_rows(entries, numbers: dict[str, int], verdicts: dict[str, str]) -> list[tuple]:
    """(entry, revision number, bullets, what a verdict's revision did) for each listed note. A text that comes
    back (a veto taken back restores the revision it was cut from) keeps its number, the A/B's join key: its
    later entries say so ("Revision 3's text again"), so two entries named alike are not taken for a mistake."""
    earlier: dict[str, object] = {}
    for entry in sorted(entries, key=lambda entry: (entry.note.generated_at, str(entry.note.pk))):
        earlier.setdefault(entry.note.content_hash, entry.note.pk)
    rows = []
    for entry in entries:
        number = numbers.get(entry.note.content_hash)
        change = _verdict_change(entry)
        if earlier[entry.note.content_hash] != entry.note.pk and number is not None:
            change = "; ".join(filter(None, [change, f"Revision {number}’s text again"]))
        rows.append((entry, number, _bullets(entry.note, verdicts), change))
    return rows


def _verdict_change(entry) -> str:
    """What a revision made by the trader's verdict did to the one it replaced ("you vetoed 1 bullet"); empty
    for any other revision."""
    note, previous = entry.note, entry.previous
    if note.source != NoteSource.TRADER or previous is None:
        return ""
    before = {bullet_key(text) for text in lesson_bullet_texts(previous.lessons_text)}
    after = {bullet_key(text) for text in lesson_bullet_texts(note.lessons_text)}
    parts = []
    if vetoed := len(before - after):
        parts.append(f"you vetoed {vetoed} bullet{pluralize(vetoed)}")
    if restored := len(after - before):
        parts.append(f"you took back {restored} veto{pluralize(restored, 'es')}")
    return "; ".join(parts)


VERDICT_SAVED = {
    VerdictKind.VETO: (
        "Vetoed “{bullet}”: it leaves the prompt from the next tick (a new lessons revision, so the A/B counts "
        "the trades after it apart), and the next reflection is told."
    ),
    VerdictKind.PIN: "Pinned “{bullet}”: the next reflection is told to keep it.",
}
VERDICT_CLEARED = "Took back your verdict on “{bullet}”."
CLEAR = "clear"


@trader_required
@require_POST
def skill_lesson_verdict(request, skill_id: int):
    """Veto, pin, or take back the verdict on one bullet of the skill's active lessons; back to the page."""
    skill = ledger_selectors.skill_get(user=request.user, skill_id=skill_id)
    bullet, verdict = request.POST.get("bullet", ""), request.POST.get("verdict", "")
    back = f"{reverse('skill-lessons', args=[skill.pk])}#lessons-history"
    if verdict == CLEAR:
        services.lesson_verdict_clear(skill=skill, bullet=bullet, by=request.user)
        messages.success(request, VERDICT_CLEARED.format(bullet=bullet_key(bullet)))
        return redirect(back)
    try:
        row = services.lesson_verdict_set(skill=skill, bullet=bullet, verdict=verdict, by=request.user)
    except ValidationError as exc:
        return bad_request(request, rules_broken(exc), back_url=back, back_label="Lessons")
    messages.success(request, VERDICT_SAVED[VerdictKind(row.verdict)].format(bullet=row.bullet))
    return redirect(back)

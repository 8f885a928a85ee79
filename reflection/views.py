"""HTMX pages of reflection: a skill's lessons history with diffs and A/B figures. Pages read through selectors only."""

from __future__ import annotations

from typing import cast

from django import forms
from django.conf import settings as django_settings
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from ledger import selectors as ledger_selectors
from ledger import services as ledger_services
from memorysite.pages import bad_request, trader_required, wants_partial
from reflection import selectors
from reflection.ab_stats import (
    MIN_TRADES_TO_TELL,
    VERDICT_HIGHER,
    VERDICT_LOWER,
    VERDICT_NO_CLEAR_DIFFERENCE,
    VERDICT_TOO_FEW_TRADES,
    DifferenceEstimate,
    GroupEstimate,
)
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
        "win_rate_pct": win_rate * 100 if win_rate is not None else None,
        "too_few_trades": estimate.too_few_trades,
        "avg_ci": avg_ci,
        "win_ci_pct": None if win_ci is None else (win_ci.low * 100, win_ci.high * 100),
        **extra,
    }


def _difference(vs: DifferenceEstimate) -> dict:
    """A revision against no lessons, as the page shows it."""
    win_ci = vs.win_rate_interval
    return {
        "avg": vs.avg_pnl,
        "avg_ci": vs.avg_pnl_interval,
        "win_pts": None if vs.win_rate is None else vs.win_rate * 100,
        "win_ci_pts": None if win_ci is None else (win_ci.low * 100, win_ci.high * 100),
        "too_few_trades": vs.too_few_trades,
        "verdict": vs.verdict,
        "verdict_label": VERDICT_LABELS[vs.verdict],
    }


def _chart_bar(row: dict, kind: str = "revision") -> dict:
    """One bar of the A/B chart (static/js/charts.js, "revision-bars"): no average without trades; its
    95% interval from the minimum sample on."""
    avg, ci = row["avg_pnl"], row["avg_ci"]
    bar = {
        "label": row["label"],
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
    context = {
        "skill": skill,
        "versions": [v for v in versions if version is None or v.version == version],
        "form": form,
        "version": version,
        "version_value": "" if version is None else str(version),
        "page_url": reverse("skill-lessons", args=[skill.pk]),
        "history": [
            (entry, numbers.get(entry.note.content_hash))
            for entry in selectors.skill_lessons_history(skill=skill, version=version)
        ],
        "default_model": django_settings.REFLECTION_MODEL,
        "ab_rows": ab_rows,
        "no_lessons": no_lessons,
        "min_trades_to_tell": MIN_TRADES_TO_TELL,
        "chart_data": {"revisions": [*(_chart_bar(row) for row in ab_rows), _chart_bar(no_lessons, "none")]},
    }
    if wants_partial(request):
        response = render(request, "reflection/_lessons_body.html", context)
        return push_url(response, _page_url(skill.pk, version))
    return render(request, "reflection/lessons.html", context)

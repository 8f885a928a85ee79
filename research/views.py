"""HTMX page of research memory: /research/, the trader's experiments (filterable, each expanding to its
assessment), the hypothesis board and the capability requests. Pages read through selectors only."""

from __future__ import annotations

from typing import cast
from urllib.parse import urlencode

from django import forms
from django.core.paginator import Paginator
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from memorysite.pages import bad_request, trader_required, wants_partial
from research import selectors
from research.models import HYPOTHESIS_STATUSES, VERDICTS
from research.rendering import format_context_line, format_results_line

RESEARCH_PAGE_SIZE = 50
FILTERS = ("indicator", "timeframe", "symbol", "verdict")
BAD_FILTER = (
    "Invalid query parameter “{name}”: {value!r} is not {what}. Use one of {choices}, or leave it empty for all."
)
WHAT = {
    "indicator": "an indicator of your experiments",
    "timeframe": "a timeframe of your experiments",
    "symbol": "a symbol of your experiments",
    "verdict": "a verdict",
}


class UpperChoiceField(forms.ChoiceField):
    """Indicators and symbols are stored upper-case (as the API filters them): `rsi` means `RSI`."""

    def to_python(self, value):
        return super().to_python(value).upper()


class ExperimentFilterForm(forms.Form):
    """The experiments table's filters; the choices are the trader's own values. Blank means all."""

    indicator = UpperChoiceField(required=False)
    timeframe = forms.ChoiceField(required=False)
    symbol = UpperChoiceField(required=False)
    verdict = forms.ChoiceField(required=False)

    def __init__(self, data, *, choices: selectors.ExperimentFilterChoices):
        super().__init__(data)
        values = {
            "indicator": choices.indicators,
            "timeframe": choices.timeframes,
            "symbol": choices.symbols,
            "verdict": list(VERDICTS),
        }
        for name, options in values.items():
            cast(forms.ChoiceField, self.fields[name]).choices = [
                ("", f"all {name}s"),
                *((value, value) for value in options),
            ]
        self.values = values

    def error_message(self) -> str:
        """One sentence per invalid parameter, each naming it, the value and the valid choices."""
        return " ".join(
            BAD_FILTER.format(
                name=name,
                value=self.data.get(name, ""),
                what=WHAT[name],
                choices=", ".join(self.values[name]) or "(none yet)",
            )
            for name in FILTERS
            if name in self.errors
        )

    def filters(self) -> dict[str, str]:
        return {name: self.cleaned_data[name] for name in FILTERS}


def _page_url(filters: dict[str, str], page: int = 1) -> str:
    """The page's canonical URL: only the filters that are set, and the page past the first."""
    query: dict[str, str | int] = {name: value for name, value in filters.items() if value}
    if page > 1:
        query["page"] = page
    url = reverse("research")
    return f"{url}?{urlencode(query)}" if query else url


def _experiment_row(experiment) -> dict:
    return {
        "experiment": experiment,
        "context_line": format_context_line(experiment.context),
        "results_line": format_results_line(experiment.results),
        "generated": list(experiment.hypotheses_generated.all()),
        "tested": list(experiment.hypotheses_tested.all()),
    }


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def research_home(request):
    choices = selectors.experiment_filter_choices(user=request.user)
    form = ExperimentFilterForm(request.GET, choices=choices)
    if not form.is_valid():
        return bad_request(request, form.error_message(), back_url=request.path, back_label="Show all experiments")
    filters = form.filters()
    experiments = selectors.experiment_list_with_assessments(
        user=request.user, **{name: value or None for name, value in filters.items()}
    )
    page = Paginator(experiments, RESEARCH_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "filtered": any(filters.values()),
        "filter_fields": [
            {"name": name, "choices": cast(forms.ChoiceField, form.fields[name]).choices, "selected": filters[name]}
            for name in FILTERS
        ],
        "choices": choices,
        "page": page,
        "rows": [_experiment_row(experiment) for experiment in page],
        "newer_url": _page_url(filters, page.previous_page_number()) if page.has_previous() else None,
        "older_url": _page_url(filters, page.next_page_number()) if page.has_next() else None,
    }
    if wants_partial(request):
        response = render(request, "research/_experiments.html", context)
        return push_url(response, _page_url(filters, page.number))

    hypotheses = list(selectors.hypothesis_list(user=request.user))
    context["board"] = [
        {"status": status, "hypotheses": [h for h in hypotheses if h.status == status]}
        for status in HYPOTHESIS_STATUSES
    ]
    context["hypothesis_count"] = len(hypotheses)
    context["requests"] = list(selectors.request_list(user=request.user))
    return render(request, "research/research.html", context)

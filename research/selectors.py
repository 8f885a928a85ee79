"""Reads of research memory (owner-scoped), and the prompt context for the research agent."""

from __future__ import annotations

from django.db.models import F, Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from research.assessment import OPEN_STATUSES
from research.models import CapabilityRequest, Experiment, Hypothesis, HypothesisTest
from research.rendering import (
    MAX_CAPABILITIES_SHOWN,
    MAX_OPEN_HYPOTHESES_SHOWN,
    CapabilityView,
    ExperimentView,
    HypothesisView,
    render_research_context,
)


def experiment_list(
    *, user, indicator: str | None = None, timeframe: str | None = None, symbol: str | None = None,
    verdict: str | None = None,
) -> QuerySet[Experiment]:  # fmt: skip
    experiments = Experiment.objects.owned_by(user)
    if indicator:
        experiments = experiments.filter(indicators__contains=[indicator.upper()])
    if timeframe:
        experiments = experiments.filter(timeframe=timeframe)
    if symbol:
        experiments = experiments.filter(symbol=symbol.upper())
    if verdict:
        experiments = experiments.filter(verdict=verdict)
    return experiments.order_by("-timestamp", "-id")


def experiment_get(*, user, experiment_id: str) -> Experiment:
    return get_object_or_404(Experiment.objects.owned_by(user), experiment_id=experiment_id)


def hypothesis_list(*, user, status: str | None = None) -> QuerySet[Hypothesis]:
    hypotheses = Hypothesis.objects.owned_by(user).select_related("source_experiment")
    if status:
        hypotheses = hypotheses.filter(status=status)
    return hypotheses.prefetch_related(
        Prefetch("tested_by", queryset=Experiment.objects.order_by("hypothesistest__added_at").only("experiment_id"))
    ).order_by("hypothesis_id")


def hypothesis_get(*, user, hypothesis_id: str) -> Hypothesis:
    return get_object_or_404(Hypothesis.objects.owned_by(user), hypothesis_id=hypothesis_id)


def tested_by_of(*, owner) -> dict[int, list[str]]:
    """Hypothesis pk → the experiment ids that tested it, in the order the tests were added (the seed's
    `tested_by`), for every hypothesis of the trader."""
    tested_by: dict[int, list[str]] = {}
    for hypothesis_pk, experiment_id in (
        HypothesisTest.objects.filter(hypothesis__owner=owner)
        .order_by("added_at", "id")
        .values_list("hypothesis_id", "experiment__experiment_id")
    ):
        tested_by.setdefault(hypothesis_pk, []).append(experiment_id)
    return tested_by


def request_list(*, user, status: str | None = None) -> QuerySet[CapabilityRequest]:
    requests = CapabilityRequest.objects.owned_by(user).select_related("requested_by")
    if status:
        requests = requests.filter(status=status)
    return requests.order_by("request_id")


def research_context(*, user, n: int) -> tuple[str, int, int]:
    """The research agent's context: the instructions for using the history, then the `## Experiment
    History`, `## Open Hypotheses` and `## Available Resources` blocks: the last n experiments, the open
    hypotheses and the capability requests marked implemented, read with bounded queries whatever the
    history size. Returns (text, token estimate, experiments shown)."""
    experiments = list(
        Experiment.objects.owned_by(user)
        .order_by("-timestamp", "-id")
        .only("experiment_id", "timestamp", "context", "results", "verdict", "observations")[:n]
    )
    generated: dict[int, list[tuple[str, str]]] = {}
    for source_id, text, status in (
        Hypothesis.objects.filter(source_experiment__in=experiments)
        .order_by("hypothesis_id")
        .values_list("source_experiment_id", "text", "status")
    ):
        generated.setdefault(source_id, []).append((text, status))
    views = [
        ExperimentView(
            id=experiment.experiment_id,
            timestamp=experiment.timestamp,
            context=experiment.context,
            results=experiment.results,
            verdict=experiment.verdict,
            observations=tuple(experiment.observations),
            hypotheses=tuple(generated.get(experiment.pk, ())),
        )
        for experiment in experiments
    ]
    open_rows = Hypothesis.objects.owned_by(user).filter(status__in=OPEN_STATUSES)
    open_hypotheses = [
        HypothesisView(
            id=hypothesis.hypothesis_id,
            text=hypothesis.text,
            status=hypothesis.status,
            source_experiment=hypothesis.source_experiment.experiment_id if hypothesis.source_experiment else None,
            tested_by=(),
        )
        for hypothesis in open_rows.prefetch_related(
            Prefetch("source_experiment", queryset=Experiment.objects.only("experiment_id"))
        ).order_by("-created", "-id")[:MAX_OPEN_HYPOTHESES_SHOWN]  # the newest open ones (hypothesis_open_recent)
    ]
    implemented = CapabilityRequest.objects.owned_by(user).filter(status="implemented")
    capabilities = [
        CapabilityView(id=request.request_id, capability=request.capability, implemented=request.implemented)
        for request in implemented.only("request_id", "capability", "implemented").order_by(
            F("implemented").desc(nulls_last=True), "-id"
        )[:MAX_CAPABILITIES_SHOWN]  # the most recently implemented
    ]
    text, tokens, shown = render_research_context(
        views,
        open_hypotheses,
        n=n,
        open_total=open_rows.count(),
        capabilities=capabilities,
        implemented_total=implemented.count() if len(capabilities) == MAX_CAPABILITIES_SHOWN else len(capabilities),
    )
    return text, tokens, shown


# --- The research page (/research/, research/views.py): its filter choices and the experiments table. ---
# Imported here so this block stays separate from the rest of the module.
import re  # noqa: E402
from dataclasses import dataclass  # noqa: E402

from django.contrib.postgres.aggregates import ArrayAgg  # noqa: E402
from django.db.models import CharField, Count, Func, Q  # noqa: E402

TIMEFRAME_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}


@dataclass(frozen=True)
class ExperimentFilterChoices:
    """The values the trader's experiments have, for the page's filters (timeframes shortest first)."""

    total: int
    indicators: list[str]
    timeframes: list[str]
    symbols: list[str]


def _timeframe_order(timeframe: str) -> tuple[int, float, str]:
    match = re.fullmatch(r"(\d+)\s*([mhdw])", timeframe.lower())
    return (0, int(match.group(1)) * TIMEFRAME_MINUTES[match.group(2)], timeframe) if match else (1, 0, timeframe)


def experiment_filter_choices(*, user) -> ExperimentFilterChoices:
    """At most two queries, whatever the history size: the count and distinct columns, the distinct indicators."""
    experiments = Experiment.objects.owned_by(user)
    summary = experiments.aggregate(
        total=Count("id"),
        timeframes=ArrayAgg("timeframe", distinct=True, filter=~Q(timeframe=""), default=[]),
        symbols=ArrayAgg("symbol", distinct=True, filter=~Q(symbol=""), order_by="symbol", default=[]),
    )
    indicators = (
        experiments.annotate(name=Func(F("indicators"), function="unnest", output_field=CharField()))
        .order_by("name")
        .values_list("name", flat=True)
        .distinct()
    )
    return ExperimentFilterChoices(
        total=summary["total"],
        indicators=list(indicators) if summary["total"] else [],
        timeframes=sorted(summary["timeframes"], key=_timeframe_order),
        symbols=summary["symbols"],
    )


def experiment_list_with_assessments(
    *, user, indicator: str | None = None, timeframe: str | None = None, symbol: str | None = None,
    verdict: str | None = None,
) -> QuerySet[Experiment]:  # fmt: skip
    """experiment_list with the hypotheses each experiment generated and tested: two more queries per page."""
    hypotheses = Hypothesis.objects.only("hypothesis_id", "text", "status", "source_experiment")
    return experiment_list(
        user=user, indicator=indicator, timeframe=timeframe, symbol=symbol, verdict=verdict
    ).prefetch_related(
        Prefetch("hypotheses_generated", queryset=hypotheses),
        Prefetch("hypotheses_tested", queryset=hypotheses),
    )

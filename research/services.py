"""Writes of research memory: recording an experiment (with the hypotheses and capability requests
its assessment generates, and the hypotheses it tests), hypothesis status, request reviews.

Ids follow the seed (`H_001`, `req_001`, research.ids): the next number per trader, assigned under a
per-trader advisory lock so concurrent recordings never collide. `experiment_create` is the one write of
an experiment row (the API, MCP, admin and the YAML importer all come through it).
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import IntegerField, Max
from django.db.models.functions import Cast, Substr
from django.utils import timezone

from research.assessment import (
    AssessmentError,
    ParsedAssessment,
    ParsedHypothesis,
    hypothesis_status_after,
    parse_assessment,
)
from research.experiment_context import ContextError, clean_context, context_fingerprint, experiment_columns
from research.ids import HYPOTHESIS_PREFIX, REQUEST_PREFIX, highest_number, numbered_id, numbered_id_pattern
from research.models import CapabilityRequest, Experiment, Hypothesis, HypothesisTest

EXPERIMENT_EXISTS = "an experiment with this id is already recorded"
NO_HYPOTHESIS = "no hypothesis {hypothesis_id} among yours"
BAD_TRANSITION = "a request that is {current} cannot become {target}"
REQUEST_TRANSITIONS = {
    "pending": {"approved", "rejected"},
    "approved": {"implemented", "rejected"},
    "implemented": set(),
    "rejected": set(),
}


class DuplicateExperiment(Exception):
    """The context was already tested: names the prior experiments (a 409 unless allow_repeat)."""

    def __init__(self, prior: Sequence[Experiment]):
        self.prior_ids = [experiment.experiment_id for experiment in prior]
        super().__init__(
            f"this context was already tested by {', '.join(self.prior_ids)}; "
            "set allow_repeat with a repeat_reason to record it again"
        )


@dataclass
class Recorded:
    experiment: Experiment
    hypotheses_created: list[Hypothesis] = field(default_factory=list)
    requests_created: list[CapabilityRequest] = field(default_factory=list)
    hypotheses_updated: list[Hypothesis] = field(default_factory=list)


def cleaned_context(raw: Mapping) -> dict:
    try:
        return clean_context(raw)
    except ContextError as exc:
        raise ValidationError({exc.field: [exc.message]}) from exc


ITEM_MAX_CHARS = 1000  # the API's limit on one observation, hypothesis, limitation or request


def parsed_assessment(markdown: str) -> ParsedAssessment:
    try:
        parsed = parse_assessment(markdown)
    except AssessmentError as exc:
        raise ValidationError({"assessment_markdown": [f"{exc.section}: {exc.message}"]}) from exc
    sections = {
        "Observations": parsed.observations,
        "Hypotheses Generated": [hypothesis.text for hypothesis in parsed.hypotheses],
        "Limitations": parsed.limitations,
        "Capability Requests": parsed.capability_requests,
    }
    for section, items in sections.items():
        if any(len(item) > ITEM_MAX_CHARS for item in items):
            message = f"{section}: an item is longer than {ITEM_MAX_CHARS} characters"
            raise ValidationError({"assessment_markdown": [message]})
    return parsed


def assessment_from_fields(fields: Mapping) -> ParsedAssessment:
    """The structured `assessment` object of the API/YAML as a ParsedAssessment."""
    return ParsedAssessment(
        verdict=fields["verdict"],
        observations=tuple(fields.get("observations") or ()),
        hypotheses=tuple(
            ParsedHypothesis(item["text"], item.get("status") or "untested") for item in fields.get("hypotheses") or ()
        ),
        limitations=tuple(fields.get("limitations") or ()),
        capability_requests=tuple(fields.get("capability_requests") or ()),
    )


def duplicates_of(*, owner, context: Mapping) -> list[Experiment]:
    fingerprint = context_fingerprint(cleaned_context(context))
    return list(Experiment.objects.filter(owner=owner, context_fingerprint=fingerprint).order_by("timestamp", "id"))


@transaction.atomic
def experiment_record(
    *,
    owner,
    experiment_id: str,
    strategy_name: str,
    context: Mapping,
    results: Mapping,
    assessment: ParsedAssessment | None,
    timestamp: dt.datetime | None = None,
    source: str = "",
    tests_hypotheses: Sequence[str] = (),
    allow_repeat: bool = False,
    repeat_reason: str = "",
) -> Recorded:
    """Record one experiment; register what its assessment generated; move the hypotheses it tested."""
    lock_owner(owner)
    context = cleaned_context(context)
    fingerprint = context_fingerprint(context)
    if Experiment.objects.filter(owner=owner, experiment_id=experiment_id).exists():
        raise ValidationError({"id": [EXPERIMENT_EXISTS]})
    prior = list(Experiment.objects.filter(owner=owner, context_fingerprint=fingerprint).order_by("timestamp", "id"))
    if prior and not allow_repeat:
        raise DuplicateExperiment(prior)
    tested = []
    for hypothesis_id in dict.fromkeys(tests_hypotheses):
        hypothesis = Hypothesis.objects.filter(owner=owner, hypothesis_id=hypothesis_id).first()
        if hypothesis is None:
            raise ValidationError({"tests_hypotheses": [NO_HYPOTHESIS.format(hypothesis_id=hypothesis_id)]})
        tested.append(hypothesis)
    timestamp = timestamp or timezone.now()
    experiment = experiment_create(
        owner=owner,
        experiment_id=experiment_id,
        timestamp=timestamp,
        strategy_name=strategy_name,
        source=source,
        context=context,
        results=results,
        verdict=assessment.verdict if assessment else None,
        observations=assessment.observations if assessment else (),
        limitations=assessment.limitations if assessment else (),
        repeat_reason=repeat_reason,
    )
    recorded = Recorded(experiment)
    if assessment is not None:
        hypothesis_ids = new_hypothesis_ids(owner=owner)
        request_ids = new_request_ids(owner=owner)
        for parsed in assessment.hypotheses:
            recorded.hypotheses_created.append(
                Hypothesis.objects.create(
                    owner=owner,
                    hypothesis_id=next(hypothesis_ids),
                    text=parsed.text,
                    source_experiment=experiment,
                    status=parsed.status,
                    created=timestamp.date(),
                )
            )
        for capability in assessment.capability_requests:
            recorded.requests_created.append(
                CapabilityRequest.objects.create(
                    owner=owner,
                    request_id=next(request_ids),
                    capability=capability,
                    requested_by=experiment,
                    requested=timestamp.date(),
                )
            )
    for hypothesis in tested:
        HypothesisTest.objects.get_or_create(hypothesis=hypothesis, experiment=experiment)
        if experiment.verdict:
            hypothesis.status = hypothesis_status_after(hypothesis.status, experiment.verdict)
            hypothesis.save(update_fields=["status"])
        recorded.hypotheses_updated.append(hypothesis)
    return recorded


def lock_owner(owner) -> None:
    """Serialise one trader's research writes (id numbering, duplicate checks)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('research'), %s)", [owner.pk])


def experiment_create(
    *,
    owner,
    experiment_id: str,
    timestamp: dt.datetime,
    strategy_name: str,
    context: Mapping,
    results: Mapping,
    verdict: str | None,
    observations: Sequence[str],
    limitations: Sequence[str],
    source: str = "",
    repeat_reason: str = "",
) -> Experiment:
    """The one write of an experiment row: the context cleaned, with its fingerprint and filter columns
    (research.experiment_context.experiment_columns). The callers check ids and duplicates first."""
    columns = experiment_columns(cleaned_context(context))
    return Experiment.objects.create(
        owner=owner,
        experiment_id=experiment_id,
        timestamp=timestamp,
        strategy_name=strategy_name,
        source=source,
        results=dict(results),
        verdict=verdict,
        observations=list(observations),
        limitations=list(limitations),
        repeat_reason=repeat_reason,
        **columns,
    )


def new_hypothesis_ids(*, owner, reserved: Iterable[str] = ()) -> Iterator[str]:
    """The trader's next `H_###` ids, in order: above every stored one and every id in `reserved` (ids
    about to be written, such as an import's registry). Call under lock_owner."""
    return _new_ids(owner, Hypothesis, "hypothesis_id", HYPOTHESIS_PREFIX, reserved)


def new_request_ids(*, owner, reserved: Iterable[str] = ()) -> Iterator[str]:
    """The trader's next `req_###` ids, as new_hypothesis_ids."""
    return _new_ids(owner, CapabilityRequest, "request_id", REQUEST_PREFIX, reserved)


def _new_ids(owner, model, field_name: str, prefix: str, reserved: Iterable[str]) -> Iterator[str]:
    """Lazy: the one aggregate runs when the first id is taken."""
    stored = model.objects.filter(owner=owner, **{f"{field_name}__regex": numbered_id_pattern(prefix)}).aggregate(
        highest=Max(Cast(Substr(field_name, len(prefix) + 1), IntegerField()))
    )["highest"]
    for number in itertools.count(max(stored or 0, highest_number(prefix, reserved)) + 1):
        yield numbered_id(prefix, number)


@transaction.atomic
def hypothesis_set_status(*, hypothesis: Hypothesis, status: str) -> Hypothesis:
    hypothesis.status = status
    hypothesis.full_clean(exclude=["owner", "source_experiment"])
    hypothesis.save(update_fields=["status"])
    return hypothesis


@transaction.atomic
def request_review(*, request: CapabilityRequest, status: str, by, today: dt.date | None = None) -> CapabilityRequest:
    """Staff move a capability request along pending → approved → implemented (or rejected)."""
    locked = CapabilityRequest.objects.select_for_update().get(pk=request.pk)
    if status not in REQUEST_TRANSITIONS[locked.status]:
        raise ValidationError({"status": [BAD_TRANSITION.format(current=locked.status, target=status)]})
    locked.status = status
    locked.reviewed_by = by
    if status == "implemented":
        locked.implemented = today or timezone.now().date()
    locked.save(update_fields=["status", "reviewed_by", "implemented"])
    return locked

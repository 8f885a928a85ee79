"""The answers research's REST endpoints and MCP tools share: the request validated by research's
serializers, then its services and selectors. The views and the tools only carry them."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from memorysite.api import Conflict, validated
from research.experiment_context import context_fingerprint
from research.serializers import ContextCheckInput, ContextCheckOutput, ExperimentInput, RecordedOutput
from research.services import (
    EXPERIMENT_EXISTS,
    DuplicateExperiment,
    assessment_from_fields,
    cleaned_context,
    duplicates_of,
    experiment_record,
    parsed_assessment,
)


def experiment_check_answer(*, user, data) -> dict:
    """POST /api/v1/research/experiments/check/'s answer to its request body, and the MCP tool
    `check_experiment`'s: the context's fingerprint and the experiments already run with it."""
    context = validated(ContextCheckInput, data)["context"]
    cleaned = cleaned_context(context)
    duplicates = duplicates_of(owner=user, context=cleaned)
    return ContextCheckOutput({"fingerprint": context_fingerprint(cleaned), "duplicates": duplicates}).data


def experiment_record_answer(*, owner, data) -> dict:
    """POST /api/v1/research/experiments/'s answer to its request body (a 201's), and the MCP tool
    `record_experiment`'s. A duplicate context or a taken id is a Conflict (409) naming the prior ids;
    other refusals raise ValidationError (400)."""
    values = validated(ExperimentInput, data)
    if "assessment_markdown" in values:
        assessment = parsed_assessment(values["assessment_markdown"])
    elif "assessment" in values:
        assessment = assessment_from_fields(values["assessment"])
    else:
        assessment = None
    try:
        recorded = experiment_record(
            owner=owner,
            experiment_id=values["id"],
            strategy_name=values["strategy_name"],
            context=values["context"],
            results=values["results"],
            assessment=assessment,
            timestamp=values.get("timestamp"),
            source=values.get("source", ""),
            tests_hypotheses=values["tests_hypotheses"],
            allow_repeat=values["allow_repeat"],
            repeat_reason=values.get("repeat_reason", ""),
        )
    except DuplicateExperiment as exc:
        raise Conflict({"detail": str(exc), "duplicates": exc.prior_ids}) from exc
    except ValidationError as exc:
        if hasattr(exc, "error_dict") and exc.message_dict.get("id") == [EXPERIMENT_EXISTS]:
            raise Conflict({"detail": f"id: {EXPERIMENT_EXISTS}"}) from exc
        raise
    return RecordedOutput(recorded).data

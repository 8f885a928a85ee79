"""Shapes of the research-memory API (the seed's field names)."""

from rest_framework import serializers

from memorysite.api import (
    AwareDateTimeField,
    PageQuery,
    StrictSerializer,
    boolean,
    bounded_int,
    choice,
    reject_nul_in_json,
    text,
)
from research.models import HYPOTHESIS_STATUSES, REQUEST_STATUSES, VERDICTS, CapabilityRequest, Experiment, Hypothesis
from research.rendering import DEFAULT_HISTORY, MAX_HISTORY

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$"


class HypothesisInput(StrictSerializer):
    text = text(max_length=1000)
    status = choice(HYPOTHESIS_STATUSES, required=False, default="untested")


class AssessmentInput(StrictSerializer):
    verdict = choice(VERDICTS)
    observations = serializers.ListField(child=text(max_length=1000), max_length=50, default=list)
    hypotheses = HypothesisInput(many=True, required=False, default=list, max_length=50)  # type: ignore[call-arg]  # ListSerializer takes max_length (DRF's stubs miss it)
    limitations = serializers.ListField(child=text(max_length=1000), max_length=50, default=list)
    capability_requests = serializers.ListField(child=text(max_length=1000), max_length=20, default=list)


class ResultsInput(serializers.Serializer):
    """Known result metrics are numbers in their ranges (or null); extra metrics are kept."""

    test_accuracy = serializers.FloatField(min_value=0, max_value=1, required=False, allow_null=True)
    val_accuracy = serializers.FloatField(min_value=0, max_value=1, required=False, allow_null=True)
    val_test_gap = serializers.FloatField(min_value=-1, max_value=1, required=False, allow_null=True)
    sharpe_ratio = serializers.FloatField(required=False, allow_null=True)
    total_trades = serializers.IntegerField(min_value=0, required=False, allow_null=True)
    win_rate = serializers.FloatField(min_value=0, max_value=1, required=False, allow_null=True)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("must be a JSON object")
        known = super().to_internal_value(data)
        return {**{k: v for k, v in data.items() if k not in self.fields}, **known}


class ExperimentInput(StrictSerializer):
    id = serializers.RegexField(ID_PATTERN, max_length=100, error_messages={"invalid": "letters, digits, _ . : -"})
    strategy_name = text(max_length=200)
    timestamp = AwareDateTimeField(required=False)
    source = text(max_length=200, required=False, allow_blank=True)  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
    context = serializers.DictField(  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
        validators=[reject_nul_in_json], error_messages={"not_a_dict": "must be a JSON object"}
    )
    results = ResultsInput(required=False, default=dict, validators=[reject_nul_in_json])
    assessment = AssessmentInput(required=False)
    assessment_markdown = text(max_length=20_000, multiline=True, required=False)
    tests_hypotheses = serializers.ListField(child=text(max_length=100), max_length=50, default=list)
    allow_repeat = boolean(required=False, default=False)
    repeat_reason = text(max_length=1000, required=False, allow_blank=True)

    def validate(self, data):
        if "assessment" in data and "assessment_markdown" in data:
            raise serializers.ValidationError(
                {"assessment_markdown": ["send assessment or assessment_markdown, not both"]}
            )
        if data.get("allow_repeat") and not (data.get("repeat_reason") or "").strip():
            raise serializers.ValidationError({"repeat_reason": ["say why this context is repeated"]})
        return data


class ContextCheckInput(StrictSerializer):
    context = serializers.DictField(  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
        validators=[reject_nul_in_json], error_messages={"not_a_dict": "must be a JSON object"}
    )


class PriorExperiment(serializers.ModelSerializer):
    id = serializers.CharField(source="experiment_id")

    class Meta:
        model = Experiment
        fields = ["id", "timestamp", "strategy_name", "verdict"]


class ContextCheckOutput(serializers.Serializer):
    fingerprint = serializers.CharField()
    duplicates = PriorExperiment(many=True)


class ExperimentOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="experiment_id")
    assessment = serializers.SerializerMethodField()

    class Meta:
        model = Experiment
        fields = ["id", "timestamp", "strategy_name", "source", "context", "results", "assessment",
                  "context_fingerprint", "repeat_reason", "created_at"]  # fmt: skip

    def get_assessment(self, experiment) -> dict | None:
        if experiment.verdict is None:
            return None
        return {"verdict": experiment.verdict, "observations": experiment.observations,
                "limitations": experiment.limitations}  # fmt: skip


class HypothesisOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="hypothesis_id")
    source_experiment: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id", read_only=True, allow_null=True
    )
    tested_by: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id", many=True, read_only=True
    )

    class Meta:
        model = Hypothesis
        fields = ["id", "text", "source_experiment", "rationale", "status", "tested_by", "created"]


class RequestOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="request_id")
    requested_by: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id", read_only=True, allow_null=True
    )

    class Meta:
        model = CapabilityRequest
        fields = ["id", "capability", "rationale", "requested_by", "requested", "status", "implemented"]


class RecordedOutput(serializers.Serializer):
    experiment = ExperimentOutput()
    hypotheses_created = HypothesisOutput(many=True)
    capability_requests_created = RequestOutput(many=True, source="requests_created")
    hypotheses_updated = HypothesisOutput(many=True)


class ExperimentListQuery(PageQuery):
    indicator = text(max_length=50, required=False)
    timeframe = text(max_length=16, required=False)
    symbol = text(max_length=32, required=False)
    verdict = choice(VERDICTS, required=False)


class StatusQuery(PageQuery):
    status = choice(HYPOTHESIS_STATUSES, required=False)


class RequestQuery(PageQuery):
    status = choice(REQUEST_STATUSES, required=False)


class HypothesisUpdateInput(StrictSerializer):
    status = choice(HYPOTHESIS_STATUSES)


class ContextQuery(StrictSerializer):
    n = bounded_int(1, MAX_HISTORY, required=False, default=DEFAULT_HISTORY)


class ResearchContextOutput(serializers.Serializer):
    text = serializers.CharField()
    token_estimate = serializers.IntegerField()
    experiments_shown = serializers.IntegerField()

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
    text = text(max_length=1000, help_text="The hypothesis in a line (at most 1,000 characters).")
    status = choice(
        HYPOTHESIS_STATUSES,
        required=False,
        default="untested",
        help_text="untested (default), testing, validated, refuted or inconclusive.",
    )


class AssessmentInput(StrictSerializer):
    verdict = choice(
        VERDICTS, help_text="What the experiment showed: `strong_signal`, `weak_signal`, `no_signal` or `overfit`."
    )
    observations = serializers.ListField(
        child=text(max_length=1000), max_length=50, default=list, help_text="What was seen, one a line (at most 50)."
    )
    hypotheses = HypothesisInput(  # type: ignore[call-arg]  # ListSerializer takes max_length (DRF's stubs miss it)
        many=True,
        required=False,
        default=list,
        max_length=50,
        help_text="New hypotheses to register (ids H_001, H_002, … are given to them).",
    )
    limitations = serializers.ListField(
        child=text(max_length=1000), max_length=50, default=list, help_text="What the experiment could not show."
    )
    capability_requests = serializers.ListField(
        child=text(max_length=1000),
        max_length=20,
        default=list,
        help_text="Data or tools the research agent needs (registered as requests for staff to review).",
    )


class ResultsInput(serializers.Serializer):
    """Known result metrics are numbers in their ranges (or null); extra metrics are kept."""

    test_accuracy = serializers.FloatField(
        min_value=0, max_value=1, required=False, allow_null=True, help_text="Accuracy on the test set, 0..1."
    )
    val_accuracy = serializers.FloatField(
        min_value=0, max_value=1, required=False, allow_null=True, help_text="Accuracy on the validation set, 0..1."
    )
    val_test_gap = serializers.FloatField(
        min_value=-1,
        max_value=1,
        required=False,
        allow_null=True,
        help_text="Validation minus test accuracy, -1..1 (a large gap suggests overfitting).",
    )
    sharpe_ratio = serializers.FloatField(
        required=False, allow_null=True, help_text="The backtest's Sharpe ratio (as your backtester computes it)."
    )
    total_trades = serializers.IntegerField(
        min_value=0, required=False, allow_null=True, help_text="Trades in the backtest; >= 0."
    )
    win_rate = serializers.FloatField(
        min_value=0, max_value=1, required=False, allow_null=True, help_text="Share of winning trades, 0..1."
    )

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError("must be a JSON object")
        known = super().to_internal_value(data)
        return {**{k: v for k, v in data.items() if k not in self.fields}, **known}


class ExperimentInput(StrictSerializer):
    id = serializers.RegexField(
        ID_PATTERN,
        max_length=100,
        error_messages={"invalid": "letters, digits, _ . : -"},
        help_text="Your id for the experiment, e.g. `exp_2026_06_04_rsi` (letters, digits, _ . : -; at most 100); "
        "unique among yours.",
    )
    strategy_name = text(max_length=200, help_text="The strategy tested, in a line (at most 200 characters).")
    timestamp = AwareDateTimeField(
        required=False, help_text="When it ran (ISO 8601 with an offset; stored in UTC); omitted: now."
    )
    source = text(  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
        max_length=200, required=False, allow_blank=True, help_text="Where it ran, e.g. the notebook or script."
    )
    context = serializers.DictField(  # type: ignore[assignment]  # a field named like a Field attribute (DRF's stubs)
        validators=[reject_nul_in_json],
        error_messages={"not_a_dict": "must be a JSON object"},
        help_text="What was tested: `indicators` (names), `indicator_params`, `composition` (solo, pair, trio, "
        "ensemble), `timeframe` (`5m`, `1h`, `1d`, …), `symbol`, and any other keys. Its fingerprint finds repeats.",
    )
    results = ResultsInput(
        required=False,
        default=dict,
        validators=[reject_nul_in_json],
        help_text="The metrics: the known ones checked for range, any others kept as sent.",
    )
    assessment = AssessmentInput(
        required=False, help_text="The verdict and what follows from it; or send `assessment_markdown` instead."
    )
    assessment_markdown = text(
        max_length=20_000,
        multiline=True,
        required=False,
        help_text="The assessment as markdown (`### Verdict`, `### Observations`, `### Hypotheses Generated`, "
        "`### Limitations`, `### Capability Requests`); not with `assessment`.",
    )
    tests_hypotheses = serializers.ListField(
        child=text(max_length=100),
        max_length=50,
        default=list,
        help_text="Ids of registered hypotheses this experiment tests (e.g. `H_003`).",
    )
    allow_repeat = boolean(
        required=False,
        default=False,
        help_text="Record it although the same context was already tested (else a 409 naming the prior ones).",
    )
    repeat_reason = text(
        max_length=1000,
        required=False,
        allow_blank=True,
        help_text="Why the context is tested again (with allow_repeat).",
    )

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
        validators=[reject_nul_in_json],
        error_messages={"not_a_dict": "must be a JSON object"},
        help_text="The context you would record (as `record_experiment`'s `context`).",
    )


class PriorExperiment(serializers.ModelSerializer):
    id = serializers.CharField(source="experiment_id", help_text="The experiment's id.")

    class Meta:
        model = Experiment
        fields = ["id", "timestamp", "strategy_name", "verdict"]
        extra_kwargs = {
            "timestamp": {"help_text": "When it ran (UTC)."},
            "strategy_name": {"help_text": "The strategy it tested."},
            "verdict": {
                "help_text": "Its verdict (`strong_signal`, `weak_signal`, `no_signal` or `overfit`); null: not "
                "assessed."
            },
        }


class ContextCheckOutput(serializers.Serializer):
    fingerprint = serializers.CharField(help_text="The context's fingerprint (a hash of its cleaned form).")
    duplicates = PriorExperiment(many=True, help_text="Experiments already recorded with it, oldest first.")


class ExperimentOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="experiment_id", help_text="Your id for the experiment.")
    assessment = serializers.SerializerMethodField(
        help_text="`verdict`, `observations` and `limitations`; null when it was not assessed."
    )

    class Meta:
        model = Experiment
        fields = ["id", "timestamp", "strategy_name", "source", "context", "results", "assessment",
                  "context_fingerprint", "repeat_reason", "created_at"]  # fmt: skip
        extra_kwargs = {
            "timestamp": {"help_text": "When it ran (UTC)."},
            "strategy_name": {"help_text": "The strategy it tested."},
            "source": {"help_text": "Where it ran (may be empty)."},
            "context": {"help_text": "The context, cleaned (names normalised, nulls dropped)."},
            "results": {"help_text": "The metrics as recorded."},
            "context_fingerprint": {"help_text": "The context's fingerprint (same context, same fingerprint)."},
            "repeat_reason": {"help_text": "Why the context was tested again; empty for a first test."},
            "created_at": {"help_text": "When it was recorded (UTC)."},
        }

    def get_assessment(self, experiment) -> dict | None:
        if experiment.verdict is None:
            return None
        return {"verdict": experiment.verdict, "observations": experiment.observations,
                "limitations": experiment.limitations}  # fmt: skip


class HypothesisOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="hypothesis_id", help_text="The hypothesis's id, e.g. `H_003`.")
    source_experiment: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id",
        read_only=True,
        allow_null=True,
        help_text="The experiment whose assessment raised it; null: none left.",
    )
    tested_by: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id", many=True, read_only=True, help_text="The experiments that tested it."
    )

    class Meta:
        model = Hypothesis
        fields = ["id", "text", "source_experiment", "rationale", "status", "tested_by", "created"]
        extra_kwargs = {
            "text": {"help_text": "The hypothesis."},
            "rationale": {"help_text": "Why it was raised (may be empty)."},
            "status": {"help_text": "untested, testing, validated, refuted or inconclusive."},
            "created": {"help_text": "The UTC date it was registered."},
        }


class RequestOutput(serializers.ModelSerializer):
    id = serializers.CharField(source="request_id", help_text="The request's id, e.g. `req_002`.")
    requested_by: serializers.SlugRelatedField[Experiment] = serializers.SlugRelatedField(
        slug_field="experiment_id",
        read_only=True,
        allow_null=True,
        help_text="The experiment whose assessment asked for it; null: none left.",
    )

    class Meta:
        model = CapabilityRequest
        fields = ["id", "capability", "rationale", "requested_by", "requested", "status", "implemented"]
        extra_kwargs = {
            "capability": {"help_text": "What was asked for (data, an indicator, a tool)."},
            "rationale": {"help_text": "Why (may be empty)."},
            "requested": {"help_text": "The UTC date it was asked for."},
            "status": {"help_text": "pending, approved, implemented or rejected (staff decide)."},
            "implemented": {"help_text": "The UTC date it was implemented; null: not yet."},
        }


class RecordedOutput(serializers.Serializer):
    experiment = ExperimentOutput(help_text="The experiment as recorded.")
    hypotheses_created = HypothesisOutput(many=True, help_text="Hypotheses its assessment registered.")
    capability_requests_created = RequestOutput(
        many=True, source="requests_created", help_text="Capability requests its assessment registered."
    )
    hypotheses_updated = HypothesisOutput(many=True, help_text="Hypotheses it tests (`tests_hypotheses`), updated.")


class ExperimentListQuery(PageQuery):
    indicator = text(max_length=50, required=False, help_text="Only experiments using this indicator.")
    timeframe = text(max_length=16, required=False, help_text="Only this timeframe, e.g. `1h`.")
    symbol = text(max_length=32, required=False, help_text="Only this symbol.")
    verdict = choice(VERDICTS, required=False, help_text="Only this verdict.")


class StatusQuery(PageQuery):
    status = choice(HYPOTHESIS_STATUSES, required=False, help_text="Only hypotheses in this status.")


class RequestQuery(PageQuery):
    status = choice(REQUEST_STATUSES, required=False, help_text="Only requests in this status.")


class HypothesisUpdateInput(StrictSerializer):
    status = choice(HYPOTHESIS_STATUSES, help_text="The new status.")


class ContextQuery(StrictSerializer):
    n = bounded_int(
        1,
        MAX_HISTORY,
        required=False,
        default=DEFAULT_HISTORY,
        help_text=f"At most this many experiments in the history (1-{MAX_HISTORY}, default {DEFAULT_HISTORY}).",
    )


class ResearchContextOutput(serializers.Serializer):
    text = serializers.CharField(help_text="The research agent's memory block (markdown).")
    token_estimate = serializers.IntegerField(help_text="Its estimated tokens (ceil(characters / 4)).")
    experiments_shown = serializers.IntegerField(help_text="How many experiments the history shows.")

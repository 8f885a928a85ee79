"""Shapes of the analyst-memory API (the seed's names in JSON)."""

from decimal import ROUND_HALF_EVEN

from rest_framework import serializers

from memorysite.api import PageQuery, StrictSerializer, bounded_int, choice, reject_nul_in_json, text
from signals.memory import DATE_FORMATS, DEFAULT_LIMIT, DEFAULT_MAX_LENGTH, MAX_SIGNALS, MEMORY_STEPS, STEP_EVOLUTION
from signals.models import AGENT_NAME_MAX, DIRECTIONS, KEY_DRIVERS_MAX, Market, SignalEvolutionEvent

KEY_DRIVER_MAX_CHARS = 500
METADATA_MAX_KEYS = 50
MAX_AGENTS = 20


class _UnitIntervalField(serializers.DecimalField):
    def validate_precision(self, value):
        # Extra decimals are rounded to the column's precision (quantize), not refused; a value out
        # of range is refused here, before quantize (1e30 cannot be quantized to 5 digits: a 500).
        if not 0 <= value <= 1:
            self.fail("invalid")
        return value


def _unit_interval(decimal_places: int) -> serializers.DecimalField:
    rule = "must be a number between 0 and 1"
    return _UnitIntervalField(
        max_digits=decimal_places + 1,
        decimal_places=decimal_places,
        min_value=0,
        max_value=1,
        rounding=ROUND_HALF_EVEN,  # 0.62500001 is stored as 0.6250, not refused
        coerce_to_string=False,
        error_messages={"invalid": rule, "min_value": rule, "max_value": rule, "max_digits": rule},
    )


class SignalInput(StrictSerializer):
    agent_name = text(max_length=AGENT_NAME_MAX)
    agent_type = text(max_length=AGENT_NAME_MAX)
    condition_id = text(max_length=200)
    question = text(max_length=2000, required=False, allow_blank=True, multiline=True)
    direction = choice(DIRECTIONS)
    fair_probability = _unit_interval(4)
    confidence = _unit_interval(2)
    key_drivers = serializers.ListField(
        child=text(max_length=KEY_DRIVER_MAX_CHARS),
        max_length=KEY_DRIVERS_MAX,
        default=list,
        error_messages={"max_length": f"at most {KEY_DRIVERS_MAX} key drivers"},
    )
    metadata = serializers.DictField(
        default=dict, validators=[reject_nul_in_json], error_messages={"not_a_dict": "must be a JSON object"}
    )
    recommendation_id = serializers.UUIDField(required=False, allow_null=True)

    def validate_metadata(self, value: dict) -> dict:
        if len(value) > METADATA_MAX_KEYS:
            raise serializers.ValidationError(f"at most {METADATA_MAX_KEYS} keys")
        return value


class EvolutionEventOutput(serializers.ModelSerializer):
    signal_id = serializers.UUIDField()
    market_id = serializers.IntegerField()
    previous_value = serializers.JSONField()
    current_value = serializers.JSONField()
    magnitude = serializers.FloatField()

    class Meta:
        model = SignalEvolutionEvent
        fields = [
            "id", "type", "agent_name", "market_id", "signal_id", "previous_value", "current_value", "magnitude",
            "description", "timestamp",
        ]  # fmt: skip


class SignalCreated(serializers.Serializer):
    id = serializers.UUIDField()
    market_id = serializers.IntegerField()
    evolution_events = EvolutionEventOutput(many=True)
    degraded = serializers.BooleanField(
        help_text="True when the evolution step failed (reading the agent's previous signal, comparing, storing the "
        "events: a database error or the query timeout) and was skipped: the signal is stored, its evolution "
        "events are not (and `evolution_events` is empty)."
    )
    degraded_steps = serializers.ListField(
        child=serializers.ChoiceField(choices=[STEP_EVOLUTION]),
        help_text='`["evolution"]` when that step was skipped, else empty.',
    )


class MarketOutput(serializers.ModelSerializer):
    class Meta:
        model = Market
        fields = ["id", "condition_id", "question", "metadata", "created_at"]


class HistoricalSignalOutput(serializers.Serializer):
    agent_name = serializers.CharField()
    market_id = serializers.CharField()
    timestamp = serializers.DateTimeField()
    direction = serializers.CharField()
    fair_probability = serializers.FloatField()
    confidence = serializers.FloatField()
    key_drivers = serializers.ListField(child=serializers.CharField())
    metadata = serializers.DictField()


class AgentMemoryOutput(serializers.Serializer):
    signals = HistoricalSignalOutput(many=True, help_text="This agent's own signals, newest first.")
    text = serializers.CharField(help_text="The formatted memory context (oldest first).")
    prompt = serializers.CharField(help_text="The seed's '## Your Previous Analysis' block with its instructions.")
    signal_count = serializers.IntegerField()
    truncated = serializers.BooleanField()


class MemoryOutput(serializers.Serializer):
    agents = serializers.DictField(child=AgentMemoryOutput())
    degraded = serializers.BooleanField(
        help_text="True when a step failed and memory is empty by fallback (the steps: `degraded_steps`)."
    )
    degraded_steps = serializers.ListField(
        child=serializers.ChoiceField(choices=MEMORY_STEPS),
        help_text="The steps that failed, in this order: market (the market lookup: a database error or the query "
        "timeout; every agent gets empty memory), signals (the signals query: the same, audited), formatting (an "
        "agent's memory could not be formatted: that agent gets empty memory). Empty when nothing failed.",
    )


class MemoryQuery(StrictSerializer):
    agents = text(max_length=AGENT_NAME_MAX * MAX_AGENTS + MAX_AGENTS, help_text="Comma-separated agent names.")
    limit = bounded_int(1, MAX_SIGNALS, required=False, default=DEFAULT_LIMIT)
    max_length = bounded_int(100, 20_000, required=False, default=DEFAULT_MAX_LENGTH)
    date_format = choice(DATE_FORMATS, required=False, default="human")
    include_metadata = serializers.BooleanField(required=False, default=False)

    def validate_agents(self, value: str) -> list[str]:
        names = [name.strip() for name in value.split(",") if name.strip()]
        if not names:
            raise serializers.ValidationError("name at least one agent")
        if len(names) > MAX_AGENTS:
            raise serializers.ValidationError(f"at most {MAX_AGENTS} agents")
        return names


class EvolutionQuery(PageQuery):
    agent = text(max_length=AGENT_NAME_MAX, required=False)

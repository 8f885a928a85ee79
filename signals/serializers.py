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


def _unit_interval(decimal_places: int, **kwargs) -> serializers.DecimalField:
    rule = "must be a number between 0 and 1"
    return _UnitIntervalField(
        **kwargs,
        max_digits=decimal_places + 1,
        decimal_places=decimal_places,
        min_value=0,
        max_value=1,
        rounding=ROUND_HALF_EVEN,  # 0.62500001 is stored as 0.6250, not refused
        coerce_to_string=False,
        error_messages={"invalid": rule, "min_value": rule, "max_value": rule, "max_digits": rule},
    )


class SignalInput(StrictSerializer):
    agent_name = text(
        max_length=AGENT_NAME_MAX,
        help_text="The analyst agent's name (at most 100 characters): its memory is its own signals only.",
    )
    agent_type = text(max_length=AGENT_NAME_MAX, help_text="The kind of analyst, e.g. `news` or `technical`.")
    condition_id = text(
        max_length=200, help_text="The prediction market's condition id: the market is created on first sight."
    )
    question = text(
        max_length=2000,
        required=False,
        allow_blank=True,
        multiline=True,
        help_text="The market's question (stored when the market is first seen).",
    )
    direction = choice(DIRECTIONS, help_text="`YES`, `NO` or `NEUTRAL`: which outcome the agent leans to.")
    fair_probability = _unit_interval(4, help_text="The agent's fair probability of YES, 0..1 (rounded to 4 decimals).")
    confidence = _unit_interval(2, help_text="How sure the agent is, 0..1 (rounded to 2 decimals).")
    key_drivers = serializers.ListField(
        child=text(max_length=KEY_DRIVER_MAX_CHARS),
        max_length=KEY_DRIVERS_MAX,
        default=list,
        error_messages={"max_length": f"at most {KEY_DRIVERS_MAX} key drivers"},
        help_text="The reasons, one line each (at most 50 of 500 characters).",
    )
    metadata = serializers.DictField(
        default=dict,
        validators=[reject_nul_in_json],
        error_messages={"not_a_dict": "must be a JSON object"},
        help_text="Free-form JSON (at most 50 keys), shown in memory with `include_metadata`.",
    )
    recommendation_id = serializers.UUIDField(
        required=False, allow_null=True, help_text="Your id of the recommendation the signal fed, if any."
    )

    def validate_metadata(self, value: dict) -> dict:
        if len(value) > METADATA_MAX_KEYS:
            raise serializers.ValidationError(f"at most {METADATA_MAX_KEYS} keys")
        return value


class EvolutionEventOutput(serializers.ModelSerializer):
    signal_id = serializers.UUIDField(help_text="The signal that showed the change.")
    market_id = serializers.IntegerField(help_text="The market.")
    previous_value = serializers.JSONField(help_text="The value in the agent's previous signal.")
    current_value = serializers.JSONField(help_text="The value in this one.")
    magnitude = serializers.FloatField(
        help_text="How large: |Δ| for probability and confidence, 1 for a direction change, 0.5 for reasoning."
    )

    class Meta:
        model = SignalEvolutionEvent
        fields = [
            "id", "type", "agent_name", "market_id", "signal_id", "previous_value", "current_value", "magnitude",
            "description", "timestamp",
        ]  # fmt: skip
        extra_kwargs = {
            "id": {"help_text": "The event's id."},
            "type": {
                "help_text": "`direction_change`, `probability_shift` (|Δ| > 0.1), `confidence_change` (|Δ| > 0.2) "
                "or `reasoning_evolution` (under half the key drivers shared)."
            },
            "agent_name": {"help_text": "The agent whose view changed."},
            "description": {"help_text": "The change in words, e.g. `Fair probability shifted by 12.0%`."},
            "timestamp": {"help_text": "When (UTC): the new signal's time."},
        }


class SignalCreated(serializers.Serializer):
    id = serializers.UUIDField(help_text="The stored signal's id.")
    market_id = serializers.IntegerField(help_text="Its market (created now if new).")
    evolution_events = EvolutionEventOutput(
        many=True, help_text="How it differs from the agent's previous signal on the market (empty: not much)."
    )
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
        extra_kwargs = {
            "id": {"help_text": "The market's id (`market_id` elsewhere)."},
            "condition_id": {"help_text": "The prediction market's condition id."},
            "question": {"help_text": "The market's question (may be empty)."},
            "metadata": {"help_text": "Free-form JSON kept with the market."},
            "created_at": {"help_text": "When it was first seen (UTC)."},
        }


class HistoricalSignalOutput(serializers.Serializer):
    agent_name = serializers.CharField(help_text="The agent that sent it.")
    market_id = serializers.CharField(help_text="The market's id (a string, as the seed has it).")
    timestamp = serializers.DateTimeField(help_text="When it was stored (UTC).")
    direction = serializers.CharField(help_text="`YES`, `NO` or `NEUTRAL`.")
    fair_probability = serializers.FloatField(help_text="Fair probability of YES, 0..1.")
    confidence = serializers.FloatField(help_text="Confidence, 0..1.")
    key_drivers = serializers.ListField(child=serializers.CharField(), help_text="The reasons given.")
    metadata = serializers.DictField(help_text="The JSON sent with it.")


class AgentMemoryOutput(serializers.Serializer):
    signals = HistoricalSignalOutput(many=True, help_text="This agent's own signals, newest first.")
    text = serializers.CharField(help_text="The formatted memory context (oldest first).")
    prompt = serializers.CharField(help_text="The seed's '## Your Previous Analysis' block with its instructions.")
    signal_count = serializers.IntegerField(help_text="Signals in the memory, those truncation dropped included.")
    truncated = serializers.BooleanField(help_text="True when signals were dropped or cut to fit `max_length`.")


class MemoryOutput(serializers.Serializer):
    agents = serializers.DictField(
        child=AgentMemoryOutput(), help_text="Each agent named in `agents`, by name: its own memory."
    )
    enabled = serializers.BooleanField(
        help_text="False when analyst memory is switched off (staff's setting, or SIGNALS_MEMORY_ENABLED): every "
        "agent gets empty memory and nothing was read; the agents run without it."
    )
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
    limit = bounded_int(
        1,
        MAX_SIGNALS,
        required=False,
        default=DEFAULT_LIMIT,
        help_text=f"Each agent's latest signals, at most this many (1-{MAX_SIGNALS}, default {DEFAULT_LIMIT}).",
    )
    max_length = bounded_int(
        100,
        20_000,
        required=False,
        default=DEFAULT_MAX_LENGTH,
        help_text=f"Each agent's `text` in at most this many characters (100-20,000, default {DEFAULT_MAX_LENGTH}).",
    )
    date_format = choice(
        DATE_FORMATS,
        required=False,
        default="human",
        help_text="Dates in `text`: `human` (`Jun 4, 2026, 09:05 AM UTC`), `iso` or `relative` (`3 hours ago`).",
    )
    include_metadata = serializers.BooleanField(
        required=False, default=False, help_text="Show each signal's metadata in `text`."
    )

    def validate_agents(self, value: str) -> list[str]:
        names = [name.strip() for name in value.split(",") if name.strip()]
        if not names:
            raise serializers.ValidationError("name at least one agent")
        if len(names) > MAX_AGENTS:
            raise serializers.ValidationError(f"at most {MAX_AGENTS} agents")
        return names


class EvolutionQuery(PageQuery):
    agent = text(max_length=AGENT_NAME_MAX, required=False, help_text="Only this agent's events.")

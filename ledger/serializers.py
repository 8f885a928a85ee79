"""Input and output shapes of the ledger API. Inputs are strict: unknown fields are refused."""

import re
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ledger.materializer import PRICE_QUANTUM, USD_QUANTUM, price, usd
from ledger.models import (
    AVOID_RULES_MAX,
    BARS_WINDOW_MAX,
    BARS_WINDOW_MIN,
    MANUAL_K_DEFAULT,
    MANUAL_K_MAX,
    MANUAL_K_MIN,
    MANUAL_TOKEN_CAP_DEFAULT,
    MANUAL_TOKEN_CAP_MAX,
    MANUAL_TOKEN_CAP_MIN,
    RECENT_TRADES_K_MAX,
    RECENT_TRADES_K_MIN,
    REFLECTION_EVERY_N_MAX,
    REFLECTION_EVERY_N_MIN,
    REFLECTION_MODEL_MAX,
    REFLECTION_MODEL_PATTERN,
    REFLECTION_MODEL_RULE,
    RUNNER_TOKEN_NAME_MAX,
    STRATEGY_TEXT_MAX,
    Deployment,
    DeploymentMode,
    EngineKind,
    ProposedActionKind,
    ReflectionCadence,
    RunnerToken,
    Skill,
    SkillVersion,
    TradeHistory,
    TradeSide,
    TradeStatus,
)
from memorysite.api import AwareDateTimeField, NumberField, StrictSerializer, boolean, bounded_int, choice, text

MAX_POSITIONS = 200
MAX_BARS = 1000
# Upper bounds keep every product (size × price, sums of PnL) inside the ledger's numeric columns.
MAX_PRICE = 10**9
MAX_SIZE = 10**10
MAX_LEVERAGE = 1000
MAX_EQUITY_USD = 10**11
MAX_FEES_USD = 10**9
MAX_VOLUME = 10**18


class SkillVersionInput(StrictSerializer):
    strategy_text = text(max_length=STRATEGY_TEXT_MAX, multiline=True)
    avoid_rules = text(max_length=AVOID_RULES_MAX, multiline=True, required=False, allow_blank=True, default="")
    memory_enabled = boolean(required=False, default=True)
    recent_trades_k = bounded_int(RECENT_TRADES_K_MIN, RECENT_TRADES_K_MAX, required=False, default=10)
    reflection_cadence = choice(ReflectionCadence, required=False, default=ReflectionCadence.PER_N_TRADES)
    reflection_every_n_trades = bounded_int(REFLECTION_EVERY_N_MIN, REFLECTION_EVERY_N_MAX, required=False, default=5)
    reflection_model_override = text(
        max_length=REFLECTION_MODEL_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="The model reflection uses for this version (seed: modelOverride), e.g. claude-sonnet-5; "
        f"null (default): the service's REFLECTION_MODEL. Pattern: {REFLECTION_MODEL_PATTERN}",
    )
    bars_window = bounded_int(BARS_WINDOW_MIN, BARS_WINDOW_MAX, required=False, default=100)
    manual_enabled = boolean(
        required=False,
        default=True,
        help_text="The context's `## From your manual and playbooks` section: on (default) or off.",
    )
    manual_k = bounded_int(
        MANUAL_K_MIN,
        MANUAL_K_MAX,
        required=False,
        default=MANUAL_K_DEFAULT,
        help_text="At most this many chunks of the manual and the staff playbooks/runbooks in that section.",
    )
    manual_token_cap = bounded_int(
        MANUAL_TOKEN_CAP_MIN,
        MANUAL_TOKEN_CAP_MAX,
        required=False,
        default=MANUAL_TOKEN_CAP_DEFAULT,
        help_text="That section's estimated tokens (ceil(chars / 4)) never exceed this.",
    )

    def validate_reflection_model_override(self, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(REFLECTION_MODEL_PATTERN, value):
            raise serializers.ValidationError(REFLECTION_MODEL_RULE)
        return value


class SkillCreateInput(SkillVersionInput):
    name = text(max_length=100)


class SkillVersionOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(read_only=True)
    avoid_rules_list = serializers.ListField(child=serializers.CharField(), source="avoid_rule_list", read_only=True)

    class Meta:
        model = SkillVersion
        fields = [
            "skill_id",
            "version",
            "strategy_text",
            "avoid_rules",
            "avoid_rules_list",
            "memory_enabled",
            "recent_trades_k",
            "reflection_cadence",
            "reflection_every_n_trades",
            "reflection_model_override",
            "bars_window",
            "manual_enabled",
            "manual_k",
            "manual_token_cap",
            "created_at",
        ]


class SkillOutput(serializers.ModelSerializer):
    latest_version = serializers.SerializerMethodField()
    versions = serializers.SerializerMethodField()

    class Meta:
        model = Skill
        fields = ["id", "name", "created_at", "latest_version", "versions"]

    @extend_schema_field(SkillVersionOutput)
    def get_latest_version(self, skill):
        versions = list(skill.versions.all())  # prefetched newest first by the selector
        latest = max(versions, key=lambda v: v.version, default=None)
        return SkillVersionOutput(latest).data if latest else None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_versions(self, skill):
        return sorted(v.version for v in skill.versions.all())


class DeploymentCreateInput(StrictSerializer):
    skill_id = serializers.IntegerField(min_value=1, error_messages={"invalid": "must be an integer skill id"})
    version = bounded_int(1, None, required=False, allow_null=True, default=None)
    mode = choice(DeploymentMode)


class DeploymentOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(source="skill_version.skill_id", read_only=True)
    skill_name = serializers.CharField(source="skill_version.skill.name", read_only=True)
    version = serializers.IntegerField(source="skill_version.version", read_only=True)

    class Meta:
        model = Deployment
        fields = ["id", "skill_id", "skill_name", "version", "mode", "status", "day_start_equity_usd", "created_at"]


# -- ticks, fills, trades, context ---------------------------------------------------------------

SYMBOL_RULE = "must be 1-32 characters of letters, digits and . _ - / :"
_SYMBOL_PATTERN = r"^[A-Za-z0-9._\-/:]{1,32}$"
ENGINE_RULE_RULE = "must be 1-64 characters of letters, digits and _ . -"


def symbol_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(_SYMBOL_PATTERN, error_messages={"invalid": SYMBOL_RULE}, **kwargs)


class PositionInput(StrictSerializer):
    symbol = symbol_field()
    side = choice(TradeSide)
    size = NumberField(greater_than=0, at_most=MAX_SIZE)
    mark_price = NumberField(greater_than=0, at_most=MAX_PRICE)
    leverage = NumberField(greater_than=0, at_most=MAX_LEVERAGE, required=False, allow_null=True)

    def validate(self, attrs):
        # The ledger stores sizes and prices to 12 decimal places and USD to 8: a position that rounds
        # to nothing there would fail the trade's constraints at materialization (a 500 on every read).
        size, mark = Decimal(str(attrs["size"])), Decimal(str(attrs["mark_price"]))  # as ledger.domain reads them
        errors = {}
        if price(mark) <= 0:
            errors["mark_price"] = [f"must be at least {PRICE_QUANTUM:f} (the ledger's precision)"]
        if price(size) <= 0:
            errors["size"] = [f"must be at least {PRICE_QUANTUM:f} (the ledger's precision)"]
        elif not errors and usd(size * mark) <= 0:
            errors["size"] = [f"size × mark_price must be at least {USD_QUANTUM:f} USD (the ledger's precision)"]
        if errors:
            raise serializers.ValidationError(errors)
        return attrs


class ProposedActionInput(StrictSerializer):
    kind = choice(ProposedActionKind)
    symbol = symbol_field(required=False, allow_null=True)
    reason = text(max_length=500, required=False, allow_blank=True)


class EngineInput(StrictSerializer):
    kind = choice(EngineKind)
    rule = serializers.RegexField(
        r"^[A-Za-z0-9_.\-]{1,64}$", required=False, allow_null=True, error_messages={"invalid": ENGINE_RULE_RULE}
    )


class BarInput(StrictSerializer):
    t = serializers.JSONField()
    o = NumberField(greater_than=0, at_most=MAX_PRICE)
    h = NumberField(greater_than=0, at_most=MAX_PRICE)
    l = NumberField(greater_than=0, at_most=MAX_PRICE)  # noqa: E741 (the runner's field name)
    c = NumberField(greater_than=0, at_most=MAX_PRICE)
    v = NumberField(at_least=0, at_most=MAX_VOLUME)

    def validate_t(self, value):
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise serializers.ValidationError("must be a timestamp string or number")
        return value


_BAR_FIELDS = frozenset("tohlcv")


@extend_schema_field(BarInput(many=True))
class BarsField(serializers.Field):
    """A symbol's bar window, validated in one pass (a serializer per bar costs ~2 ms per tick).

    Same rules and error paths as BarInput: bars.BTC.3.c: ["must be > 0"].
    """

    _rules = {name: field for name, field in BarInput().fields.items() if name != "t"}

    def to_internal_value(self, data):
        if not isinstance(data, list):
            raise serializers.ValidationError("must be a list of bars")
        if len(data) > MAX_BARS:
            raise serializers.ValidationError(f"must hold at most {MAX_BARS} bars")
        errors = {}
        for index, bar in enumerate(data):
            bar_errors = self._bar_errors(bar)
            if bar_errors:
                errors[index] = bar_errors
        if errors:
            raise serializers.ValidationError(errors)
        return data

    def _bar_errors(self, bar) -> dict:
        if not isinstance(bar, dict):
            return {"non_field_errors": ["must be an object with t, o, h, l, c, v"]}
        errors = {
            name: ["unknown field; accepted fields are: c, h, l, o, t, v"] for name in bar if name not in _BAR_FIELDS
        }
        t = bar.get("t")
        if t is None or isinstance(t, bool) or not isinstance(t, str | int | float):
            errors["t"] = ["must be a timestamp string or number"]
        for name, rule in self._rules.items():
            if name not in bar:
                errors[name] = ["This field is required."]
                continue
            try:
                rule.to_internal_value(bar[name])
            except serializers.ValidationError as exc:
                errors[name] = [str(message) for message in exc.detail]
        return errors

    def to_representation(self, value):
        return value


class _SymbolKeyedDict(serializers.DictField):
    def to_internal_value(self, data):
        if isinstance(data, dict):
            bad = [key for key in data if not re.match(_SYMBOL_PATTERN, key)]
            if bad:
                raise serializers.ValidationError({key: [f"symbol {SYMBOL_RULE}"] for key in bad})
        return super().to_internal_value(data)


class TickInput(StrictSerializer):
    tick_at = AwareDateTimeField()
    equity_usd = NumberField(at_least=0, at_most=MAX_EQUITY_USD)
    positions = serializers.ListField(child=PositionInput(), max_length=MAX_POSITIONS)
    marks = _SymbolKeyedDict(child=NumberField(greater_than=0, at_most=MAX_PRICE), required=False)
    proposed_action = ProposedActionInput(required=False, allow_null=True)
    engine = EngineInput(required=False, allow_null=True)
    bars = _SymbolKeyedDict(child=BarsField(), required=False)

    def validate_positions(self, positions):
        seen: set[str] = set()
        errors = {}
        for index, position in enumerate(positions):
            if position["symbol"] in seen:
                errors[index] = {"symbol": ["listed twice; one line per symbol"]}
            seen.add(position["symbol"])
        if errors:
            raise serializers.ValidationError(errors)
        return positions


class TickAccepted(serializers.Serializer):
    snapshot_id = serializers.UUIDField()
    duplicate = serializers.BooleanField()


class TickDetailOutput(serializers.Serializer):
    snapshot_id = serializers.UUIDField(source="id")
    tick_at = serializers.DateTimeField()
    materialized_at = serializers.DateTimeField(allow_null=True)
    ops = serializers.ListField(child=serializers.DictField(), source="materialized_ops", allow_null=True)


class FillInput(StrictSerializer):
    symbol = symbol_field()
    fees_usd = NumberField(at_least=0, at_most=MAX_FEES_USD)
    filled_at = AwareDateTimeField()


class TradeOutput(serializers.ModelSerializer):
    deployment_id = serializers.IntegerField()
    skill_id = serializers.IntegerField()
    entry_snapshot_id = serializers.UUIDField(allow_null=True)
    exit_snapshot_id = serializers.UUIDField(allow_null=True)

    class Meta:
        model = TradeHistory
        fields = [
            "id", "deployment_id", "skill_id", "skill_version", "symbol", "side", "status",
            "entry_tick_at", "entry_price", "entry_size_usd", "entry_leverage", "entry_reason",
            "entry_snapshot_id", "entry_lessons_hash", "entry_regime_tag",
            "exit_tick_at", "exit_price", "exit_price_carried", "exit_reason", "exit_snapshot_id",
            "holding_minutes", "realized_pnl_usd", "fees_usd", "last_filled_at", "mfe_usd", "mae_usd",
            "size_base", "avg_entry_price", "last_mark_price", "created_at", "updated_at",
        ]  # fmt: skip


class TradeListQuery(StrictSerializer):
    status = choice(TradeStatus, required=False)
    limit = bounded_int(1, 500, required=False, default=50)


# -- runner tokens -------------------------------------------------------------------------------


class RunnerTokenInput(StrictSerializer):
    name = text(max_length=RUNNER_TOKEN_NAME_MAX, help_text="What the token is for, e.g. the runner's host.")


class RunnerTokenOutput(serializers.ModelSerializer):
    class Meta:
        model = RunnerToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "revoked_at"]


class RunnerTokenCreated(serializers.ModelSerializer):
    key = serializers.SerializerMethodField(help_text="The whole key, shown this once: only its hash is stored.")

    class Meta:
        model = RunnerToken
        fields = ["id", "name", "key_prefix", "created_at", "key"]

    def get_key(self, token) -> str:
        return self.context["key"]

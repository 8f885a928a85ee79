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
    strategy_text = text(
        max_length=STRATEGY_TEXT_MAX,
        multiline=True,
        help_text="The strategy in words, as the agent's system prompt states it (markdown; newlines kept).",
    )
    avoid_rules = text(
        max_length=AVOID_RULES_MAX,
        multiline=True,
        required=False,
        allow_blank=True,
        default="",
        help_text="Things the agent must not do, one rule a line (empty: none); listed in its system prompt.",
    )
    memory_enabled = boolean(
        required=False,
        default=True,
        help_text="Whether the context carries the memory sections (recent trades, open positions, similar "
        "situations); off leaves them out.",
    )
    recent_trades_k = bounded_int(
        RECENT_TRADES_K_MIN,
        RECENT_TRADES_K_MAX,
        required=False,
        default=10,
        help_text="How many of the latest closed trades the context lists "
        f"({RECENT_TRADES_K_MIN}-{RECENT_TRADES_K_MAX}).",
    )
    reflection_cadence = choice(
        ReflectionCadence,
        required=False,
        default=ReflectionCadence.PER_N_TRADES,
        help_text="When reflection distils lessons from closed trades: every N closed trades, daily (UTC), or off.",
    )
    reflection_every_n_trades = bounded_int(
        REFLECTION_EVERY_N_MIN,
        REFLECTION_EVERY_N_MAX,
        required=False,
        default=5,
        help_text="N for `per_n_trades`: reflect after this many closed trades "
        f"({REFLECTION_EVERY_N_MIN}-{REFLECTION_EVERY_N_MAX}).",
    )
    reflection_model_override = text(
        max_length=REFLECTION_MODEL_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="The model reflection uses for this version (seed: modelOverride), e.g. claude-sonnet-5; "
        f"null (default): the service's REFLECTION_MODEL. Pattern: {REFLECTION_MODEL_PATTERN}",
    )
    bars_window = bounded_int(
        BARS_WINDOW_MIN,
        BARS_WINDOW_MAX,
        required=False,
        default=100,
        help_text=f"How many bars per symbol the runner is expected to send in a tick's `bars` "
        f"({BARS_WINDOW_MIN}-{BARS_WINDOW_MAX}); regime tagging reads them.",
    )
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
    name = text(max_length=100, help_text="The skill's name, unique among your skills (1-100 characters, one line).")


class SkillVersionOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(read_only=True, help_text="The skill this version belongs to.")
    avoid_rules_list = serializers.ListField(
        child=serializers.CharField(),
        source="avoid_rule_list",
        read_only=True,
        help_text="`avoid_rules` split into its non-empty lines.",
    )

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
        extra_kwargs = {
            "version": {"help_text": "The version number: 1 for the skill's first, then latest + 1."},
            "strategy_text": {"help_text": SkillVersionInput().fields["strategy_text"].help_text},
            "avoid_rules": {"help_text": "Things the agent must not do, one rule a line (empty: none)."},
            "memory_enabled": {"help_text": SkillVersionInput().fields["memory_enabled"].help_text},
            "recent_trades_k": {"help_text": SkillVersionInput().fields["recent_trades_k"].help_text},
            "reflection_cadence": {"help_text": SkillVersionInput().fields["reflection_cadence"].help_text},
            "reflection_every_n_trades": {
                "help_text": SkillVersionInput().fields["reflection_every_n_trades"].help_text
            },
            "reflection_model_override": {
                "help_text": "The model reflection uses for this version; null: the service's REFLECTION_MODEL."
            },
            "bars_window": {"help_text": SkillVersionInput().fields["bars_window"].help_text},
            "manual_enabled": {"help_text": SkillVersionInput().fields["manual_enabled"].help_text},
            "manual_k": {"help_text": SkillVersionInput().fields["manual_k"].help_text},
            "manual_token_cap": {"help_text": SkillVersionInput().fields["manual_token_cap"].help_text},
            "created_at": {"help_text": "When the version was created (UTC, ISO 8601)."},
        }


class SkillOutput(serializers.ModelSerializer):
    latest_version = serializers.SerializerMethodField(
        help_text="The newest version in full (what a deployment gets when it names no version)."
    )
    versions = serializers.SerializerMethodField(help_text="Every version number of the skill, oldest first.")

    class Meta:
        model = Skill
        fields = ["id", "name", "created_at", "latest_version", "versions"]
        extra_kwargs = {
            "id": {"help_text": "The skill's id (`skill_id` elsewhere)."},
            "name": {"help_text": "The skill's name, unique among your skills."},
            "created_at": {"help_text": "When the skill was created (UTC, ISO 8601)."},
        }

    @extend_schema_field(SkillVersionOutput)
    def get_latest_version(self, skill):
        versions = list(skill.versions.all())  # prefetched newest first by the selector
        latest = max(versions, key=lambda v: v.version, default=None)
        return SkillVersionOutput(latest).data if latest else None

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_versions(self, skill):
        return sorted(v.version for v in skill.versions.all())


class DeploymentCreateInput(StrictSerializer):
    skill_id = serializers.IntegerField(
        min_value=1,
        error_messages={"invalid": "must be an integer skill id"},
        help_text="One of your skills (`id` from `create_skill` or `list_skills`).",
    )
    version = bounded_int(
        1,
        None,
        required=False,
        allow_null=True,
        default=None,
        help_text="The skill version to run; omitted or null: the latest.",
    )
    mode = choice(
        DeploymentMode,
        help_text="Where the runner trades: `sim` (a simulation or backtest), `paper` (a broker's paper account) "
        "or `live` (real money).",
    )


class DeploymentOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(
        source="skill_version.skill_id", read_only=True, help_text="The skill the deployment runs."
    )
    skill_name = serializers.CharField(
        source="skill_version.skill.name", read_only=True, help_text="That skill's name."
    )
    version = serializers.IntegerField(
        source="skill_version.version", read_only=True, help_text="The skill version the deployment runs."
    )

    class Meta:
        model = Deployment
        fields = ["id", "skill_id", "skill_name", "version", "mode", "status", "day_start_equity_usd", "created_at"]
        extra_kwargs = {
            "id": {"help_text": "The deployment's id: the `deployment_id` of every runner call."},
            "mode": {"help_text": "`sim`, `paper` or `live`, as created."},
            "status": {"help_text": "`running`, or `stopped` (stopped by the trader)."},
            "day_start_equity_usd": {
                "help_text": "Equity in USD (a decimal string) at the first tick after the latest UTC midnight; "
                "null before the first tick."
            },
            "created_at": {"help_text": "When the deployment was created (UTC, ISO 8601)."},
        }


# -- ticks, fills, trades, context ---------------------------------------------------------------

SYMBOL_RULE = "must be 1-32 characters of letters, digits and . _ - / :"
_SYMBOL_PATTERN = r"^[A-Za-z0-9._\-/:]{1,32}$"
ENGINE_RULE_RULE = "must be 1-64 characters of letters, digits and _ . -"


def symbol_field(**kwargs) -> serializers.RegexField:
    return serializers.RegexField(_SYMBOL_PATTERN, error_messages={"invalid": SYMBOL_RULE}, **kwargs)


class PositionInput(StrictSerializer):
    symbol = symbol_field(help_text="The instrument, e.g. `BTC` or `ETH-PERP` (1-32 of letters, digits and . _ - / :).")
    side = choice(TradeSide, help_text="`long` or `short`.")
    size = NumberField(
        greater_than=0,
        at_most=MAX_SIZE,
        help_text="The position's size in base units (coins, shares, contracts), after this tick's fills; > 0.",
    )
    mark_price = NumberField(
        greater_than=0, at_most=MAX_PRICE, help_text="The symbol's mark price in USD at `tick_at`; > 0."
    )
    leverage = NumberField(
        greater_than=0,
        at_most=MAX_LEVERAGE,
        required=False,
        allow_null=True,
        help_text="The position's leverage (e.g. 3 for 3x), if the venue has one; omitted or null: none.",
    )

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
    kind = choice(
        ProposedActionKind,
        help_text="What the agent proposed this tick: open an order, close or adjust a position, hold, or flatten all.",
    )
    symbol = symbol_field(
        required=False, allow_null=True, help_text="The symbol it concerns; null for `hold` and `flatten`."
    )
    reason = text(
        max_length=500,
        required=False,
        allow_blank=True,
        help_text="The agent's reason in a line (at most 500 characters): becomes the trade's entry or exit reason "
        "when the engine executed it.",
    )


class EngineInput(StrictSerializer):
    kind = choice(
        EngineKind, help_text="What the execution engine did with the proposal: executed, rejected or skipped."
    )
    rule = serializers.RegexField(
        r"^[A-Za-z0-9_.\-]{1,64}$",
        required=False,
        allow_null=True,
        error_messages={"invalid": ENGINE_RULE_RULE},
        help_text="The engine's rule that rejected or skipped it, e.g. `max_leverage` "
        "(1-64 of letters, digits, _ . -).",
    )


class BarInput(StrictSerializer):
    t = serializers.JSONField(
        help_text="The bar's open time: an ISO 8601 string or epoch milliseconds, as the runner's feed has it."
    )
    o = NumberField(greater_than=0, at_most=MAX_PRICE, help_text="Open price, USD.")
    h = NumberField(greater_than=0, at_most=MAX_PRICE, help_text="High price, USD.")
    l = NumberField(greater_than=0, at_most=MAX_PRICE, help_text="Low price, USD.")  # noqa: E741 (the runner's field name)
    c = NumberField(greater_than=0, at_most=MAX_PRICE, help_text="Close price, USD.")
    v = NumberField(at_least=0, at_most=MAX_VOLUME, help_text="Volume in base units; >= 0.")

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
    tick_at = AwareDateTimeField(
        help_text="When the tick happened, ISO 8601 with an offset (e.g. `2026-06-04T10:00:00Z`); stored in UTC. "
        "The deployment's ticks go forward: an earlier one than its latest is a 409, the same one again a 200."
    )
    equity_usd = NumberField(
        at_least=0, at_most=MAX_EQUITY_USD, help_text="The account's equity in USD after this tick's fills; >= 0."
    )
    positions = serializers.ListField(
        child=PositionInput(),
        max_length=MAX_POSITIONS,
        help_text=f"Every open position after this tick's fills, one per symbol (at most {MAX_POSITIONS}); "
        "a symbol missing here that was open before is a close.",
    )
    marks = _SymbolKeyedDict(
        child=NumberField(greater_than=0, at_most=MAX_PRICE),
        required=False,
        help_text="Mark prices in USD by symbol, for symbols without a position line "
        "(e.g. one this tick closed: its exit price).",
    )
    proposed_action = ProposedActionInput(
        required=False, allow_null=True, help_text="What the agent proposed this tick; omitted or null: nothing."
    )
    engine = EngineInput(
        required=False,
        allow_null=True,
        help_text="What the execution engine did with the proposal; omitted or null: not reported.",
    )
    bars = _SymbolKeyedDict(
        child=BarsField(),
        required=False,
        help_text="Recent OHLCV bars by symbol, oldest first (at most 1000 each): a trade opened this tick is "
        "tagged with the regime they show.",
    )

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
    snapshot_id = serializers.UUIDField(
        help_text="The stored tick's id (for `get_tick`); on a duplicate, the id of the tick stored before."
    )
    duplicate = serializers.BooleanField(
        help_text="True when this `tick_at` was already stored (the answer is then a 200 and nothing was written)."
    )


class TickDetailOutput(serializers.Serializer):
    snapshot_id = serializers.UUIDField(source="id", help_text="The tick's id.")
    tick_at = serializers.DateTimeField(help_text="The tick's time as posted, in UTC (ISO 8601).")
    materialized_at = serializers.DateTimeField(
        allow_null=True, help_text="When the ledger applied the tick (UTC); null: not yet (reading this applies it)."
    )
    ops = serializers.ListField(
        child=serializers.DictField(),
        source="materialized_ops",
        allow_null=True,
        help_text="What the tick did to the trade ledger, in order: each op names itself in `op` (`open_trade`, "
        "`close_trade`, `update_mfe_mae`; a flip is a close then an open) with the trade's fields; null until applied.",
    )


class FillInput(StrictSerializer):
    symbol = symbol_field(help_text="The symbol of the open trade the fill belongs to.")
    fees_usd = NumberField(
        at_least=0, at_most=MAX_FEES_USD, help_text="The fill's fees in USD, added to the trade's `fees_usd`; >= 0."
    )
    filled_at = AwareDateTimeField(help_text="When the fill happened, ISO 8601 with an offset; stored in UTC.")


class TradeOutput(serializers.ModelSerializer):
    deployment_id = serializers.IntegerField(help_text="The deployment that made the trade.")
    skill_id = serializers.IntegerField(help_text="The skill the deployment ran.")
    entry_snapshot_id = serializers.UUIDField(allow_null=True, help_text="The tick that opened the trade.")
    exit_snapshot_id = serializers.UUIDField(allow_null=True, help_text="The tick that closed it; null while open.")

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
        # Money and prices are decimal strings (exact): USD to 8 places, prices and sizes to 12.
        extra_kwargs = {
            "id": {"help_text": "The trade's id (a UUID)."},
            "skill_version": {"help_text": "The skill version the deployment ran when the trade opened."},
            "symbol": {"help_text": "The instrument traded."},
            "side": {"help_text": "`long` or `short`."},
            "status": {"help_text": "`open` until a tick no longer lists the position, then `closed`."},
            "entry_tick_at": {"help_text": "The tick that opened the trade (UTC, ISO 8601)."},
            "entry_price": {"help_text": "The mark at the opening tick, USD (decimal string)."},
            "entry_size_usd": {"help_text": "size × entry price at the opening tick, USD (decimal string)."},
            "entry_leverage": {"help_text": "The position's leverage at entry; null: none reported."},
            "entry_reason": {"help_text": "The agent's reason, from the proposal the engine executed (may be empty)."},
            "entry_lessons_hash": {
                "help_text": "The lessons the agent saw when it opened the trade (their hash); null: none active."
            },
            "entry_regime_tag": {
                "help_text": "The market regime of the entry bars: trend_up, trend_down or chop, with hivol or "
                "lowvol (e.g. `trend_up_lowvol`), or `unknown` (under 12 bars); null: no bars sent."
            },
            "exit_tick_at": {"help_text": "The tick that closed the trade (UTC); null while open."},
            "exit_price": {"help_text": "The mark at the closing tick, USD (decimal string); null while open."},
            "exit_price_carried": {
                "help_text": "True when the closing tick had no mark for the symbol and the last known mark was used."
            },
            "exit_reason": {
                "help_text": "The agent's reason, `external_flatten` (a flatten command) or `liquidated` "
                "(the position vanished otherwise); null while open."
            },
            "holding_minutes": {"help_text": "Minutes from entry to exit tick (2 decimals); null while open."},
            "realized_pnl_usd": {
                "help_text": "Realized PnL in USD before fees (average cost at tick marks); null while open."
            },
            "fees_usd": {"help_text": "The fees of the fills posted to the trade, USD (decimal string)."},
            "last_filled_at": {"help_text": "The latest `filled_at` of those fills (UTC); null: none posted."},
            "mfe_usd": {"help_text": "Maximum favourable excursion: the best PnL seen at a tick mark, USD, >= 0."},
            "mae_usd": {"help_text": "Maximum adverse excursion: the worst PnL seen at a tick mark, USD, <= 0."},
            "size_base": {"help_text": "The position's size in base units now (at exit, for a closed trade)."},
            "avg_entry_price": {"help_text": "The average cost of the position, USD (adds move it)."},
            "last_mark_price": {"help_text": "The latest mark applied to the trade, USD."},
            "created_at": {"help_text": "When the row was written (UTC)."},
            "updated_at": {"help_text": "When the row last changed (UTC)."},
        }


class TradeListQuery(StrictSerializer):
    status = choice(TradeStatus, required=False, help_text="Only `open` or only `closed` trades; omitted: both.")
    limit = bounded_int(1, 500, required=False, default=50, help_text="At most this many trades (1-500, default 50).")


# -- runner tokens -------------------------------------------------------------------------------


class RunnerTokenInput(StrictSerializer):
    name = text(max_length=RUNNER_TOKEN_NAME_MAX, help_text="What the token is for, e.g. the runner's host.")


_TOKEN_FIELDS = {
    "id": {"help_text": "The token's id (to revoke it)."},
    "name": {"help_text": "What the token is for, as named at its creation."},
    "key_prefix": {
        "help_text": "The key's first characters, to tell tokens apart (the key itself is never shown again)."
    },
    "created_at": {"help_text": "When the token was created (UTC, ISO 8601)."},
    "last_used_at": {"help_text": "When a request last used it (UTC, to the minute); null: never."},
    "revoked_at": {"help_text": "When it was revoked (UTC); null: it works."},
}


class RunnerTokenOutput(serializers.ModelSerializer):
    class Meta:
        model = RunnerToken
        fields = ["id", "name", "key_prefix", "created_at", "last_used_at", "revoked_at"]
        extra_kwargs = _TOKEN_FIELDS


class RunnerTokenCreated(serializers.ModelSerializer):
    key = serializers.SerializerMethodField(help_text="The whole key, shown this once: only its hash is stored.")

    class Meta:
        model = RunnerToken
        fields = ["id", "name", "key_prefix", "created_at", "key"]
        extra_kwargs = _TOKEN_FIELDS

    def get_key(self, token) -> str:
        return self.context["key"]

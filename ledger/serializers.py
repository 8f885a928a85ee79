"""Input and output shapes of the ledger API. Inputs are strict: unknown fields are refused."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ledger.models import (
    AVOID_RULES_MAX,
    BARS_WINDOW_MAX,
    BARS_WINDOW_MIN,
    RECENT_TRADES_K_MAX,
    RECENT_TRADES_K_MIN,
    REFLECTION_EVERY_N_MAX,
    REFLECTION_EVERY_N_MIN,
    STRATEGY_TEXT_MAX,
    Deployment,
    DeploymentMode,
    ReflectionCadence,
    Skill,
    SkillVersion,
)
from memorysite.api import StrictSerializer, boolean, bounded_int, text


def _choice(choices, **kwargs) -> serializers.ChoiceField:
    rule = f"must be one of {', '.join(choices.values)}"
    return serializers.ChoiceField(choices=choices.choices, error_messages={"invalid_choice": rule}, **kwargs)


class SkillVersionInput(StrictSerializer):
    strategy_text = text(max_length=STRATEGY_TEXT_MAX, multiline=True)
    avoid_rules = text(max_length=AVOID_RULES_MAX, multiline=True, required=False, allow_blank=True, default="")
    memory_enabled = boolean(required=False, default=True)
    recent_trades_k = bounded_int(RECENT_TRADES_K_MIN, RECENT_TRADES_K_MAX, required=False, default=10)
    reflection_cadence = _choice(ReflectionCadence, required=False, default=ReflectionCadence.PER_N_TRADES)
    reflection_every_n_trades = bounded_int(REFLECTION_EVERY_N_MIN, REFLECTION_EVERY_N_MAX, required=False, default=5)
    bars_window = bounded_int(BARS_WINDOW_MIN, BARS_WINDOW_MAX, required=False, default=100)


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
            "bars_window",
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
    mode = _choice(DeploymentMode)


class DeploymentOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(source="skill_version.skill_id", read_only=True)
    skill_name = serializers.CharField(source="skill_version.skill.name", read_only=True)
    version = serializers.IntegerField(source="skill_version.version", read_only=True)

    class Meta:
        model = Deployment
        fields = ["id", "skill_id", "skill_name", "version", "mode", "status", "day_start_equity_usd", "created_at"]


class TokenInput(StrictSerializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False, style={"input_type": "password"})


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()

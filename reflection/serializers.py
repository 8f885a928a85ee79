"""Shapes of the reflection API: notes with the seed's fields, and the lessons A/B figures."""

from django.contrib.auth.models import User
from rest_framework import serializers

from memorysite.api import INTEGER_COLUMN_MAX, StrictSerializer, bounded_int
from reflection.models import ReflectionNote


class ReflectionNoteOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField()
    deployment_id = serializers.IntegerField(allow_null=True, help_text="Null for a skill-scoped note.")
    revises_id = serializers.UUIDField(allow_null=True, help_text="The note this revision replaced, if any.")
    author: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True, help_text="The staff member who wrote it, if any."
    )

    class Meta:
        model = ReflectionNote
        fields = [
            "id", "skill_id", "skill_version", "deployment_id", "status", "generated_at",
            "window_start", "window_end", "trades_considered", "lessons_text", "model_used",
            "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cost_usd",
            "content_hash", "source", "revises_id", "author",
        ]  # fmt: skip


class DeploymentLessonsOutput(serializers.Serializer):
    active = ReflectionNoteOutput(allow_null=True, help_text="The lessons the agent sees now, or null.")
    history = ReflectionNoteOutput(many=True, help_text="Every note of the deployment and its skill scope.")


class TradeFiguresOutput(serializers.Serializer):
    n_closed = serializers.IntegerField()
    avg_realized_pnl_usd = serializers.DecimalField(max_digits=28, decimal_places=8, allow_null=True)
    win_rate = serializers.DecimalField(
        max_digits=5, decimal_places=4, allow_null=True, help_text="Share of closed trades with PnL > 0."
    )


class LessonsRevisionOutput(TradeFiguresOutput):
    content_hash = serializers.CharField()
    generated_at = serializers.DateTimeField(help_text="When this text first became a note.")
    note_id = serializers.UUIDField(source="first_note_id")
    statuses = serializers.ListField(child=serializers.CharField())


class LessonsABOutput(serializers.Serializer):
    skill_id = serializers.IntegerField()
    skill_version = serializers.IntegerField(allow_null=True)
    revisions = LessonsRevisionOutput(many=True, help_text="One per lessons text (content_hash), oldest first.")
    no_lessons = TradeFiguresOutput(help_text="Closed trades opened while no lessons were active.")


class LessonsABQuery(StrictSerializer):
    version = bounded_int(  # a skill version is an integer column: a larger one names no version
        1, INTEGER_COLUMN_MAX, required=False, help_text="Only this skill version (default: all versions)."
    )

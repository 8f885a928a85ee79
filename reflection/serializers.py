"""Shapes of the reflection API: notes with the seed's fields, and the lessons A/B figures."""

from django.contrib.auth.models import User
from rest_framework import serializers

from memorysite.api import INTEGER_COLUMN_MAX, StrictSerializer, bounded_int
from reflection.ab_stats import MIN_TRADES_TO_TELL, VERDICTS
from reflection.models import ReflectionNote


class ReflectionNoteOutput(serializers.ModelSerializer):
    skill_id = serializers.IntegerField(help_text="The skill whose trades the note is about.")
    deployment_id = serializers.IntegerField(allow_null=True, help_text="Null for a skill-scoped note.")
    revises_id = serializers.UUIDField(allow_null=True, help_text="The note this revision replaced, if any.")
    author: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username",
        read_only=True,
        allow_null=True,
        help_text="The staff member who wrote it, or the trader whose verdict made it; null: none.",
    )

    class Meta:
        model = ReflectionNote
        fields = [
            "id", "skill_id", "skill_version", "deployment_id", "status", "generated_at",
            "window_start", "window_end", "trades_considered", "lessons_text", "model_used",
            "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "cost_usd",
            "content_hash", "source", "revises_id", "author",
        ]  # fmt: skip
        extra_kwargs = {
            "id": {"help_text": "The note's id (a UUID)."},
            "skill_version": {"help_text": "The skill version whose trades were considered."},
            "status": {
                "help_text": "`active` (in the agent's system prompt), `superseded` (a later note replaced it) or "
                "`retired` (taken out by staff)."
            },
            "generated_at": {"help_text": "When the note was written (UTC)."},
            "window_start": {"help_text": "The earliest entry among the trades considered (UTC)."},
            "window_end": {"help_text": "The latest exit among them (UTC): the next reflection starts after it."},
            "trades_considered": {"help_text": "How many closed trades reflection read."},
            "lessons_text": {"help_text": "The lessons, as the agent's system prompt shows them (markdown)."},
            "model_used": {"help_text": "The model that wrote them (or the staff edit's marker)."},
            "input_tokens": {"help_text": "Input tokens not read from or written to the prompt cache; null: no model."},
            "output_tokens": {"help_text": "Tokens the model wrote; null: no model call."},
            "cache_read_input_tokens": {"help_text": "Input tokens read from the prompt cache; null: no model call."},
            "cache_creation_input_tokens": {
                "help_text": "Input tokens written to the prompt cache; null: no model call."
            },
            "cost_usd": {"help_text": "What the model call cost, USD (decimal string); null: unknown or none."},
            "content_hash": {
                "help_text": "The lessons text's hash: trades opened under it carry it as `entry_lessons_hash`."
            },
            "source": {
                "help_text": "`reflection` (a reflection run), `staff_edit`, `promotion` (promoted to skill scope) or "
                "`trader` (the trader vetoed a bullet or took a veto back: the text of the revision it revises, "
                "back to the nearest one no verdict made, without the bullets vetoed now)."
            },
        }


class DeploymentLessonsOutput(serializers.Serializer):
    active = ReflectionNoteOutput(allow_null=True, help_text="The lessons the agent sees now, or null.")
    history = ReflectionNoteOutput(many=True, help_text="Every note of the deployment and its skill scope.")


class PnlIntervalOutput(serializers.Serializer):
    low = serializers.DecimalField(
        max_digits=28, decimal_places=8, help_text="The interval's lower end, USD (decimal string)."
    )
    high = serializers.DecimalField(
        max_digits=28, decimal_places=8, help_text="The interval's upper end, USD (decimal string)."
    )


class RateIntervalOutput(serializers.Serializer):
    low = serializers.DecimalField(
        max_digits=5, decimal_places=4, help_text="The interval's lower end, a share (decimal string, 4 places)."
    )
    high = serializers.DecimalField(
        max_digits=5, decimal_places=4, help_text="The interval's upper end, a share (decimal string, 4 places)."
    )


_TOO_FEW = f"Fewer than {MIN_TRADES_TO_TELL} closed trades: too few to tell; no interval is given."


class TradeFiguresOutput(serializers.Serializer):
    n_closed = serializers.IntegerField(help_text="Closed trades in the group.")
    avg_realized_pnl_usd = serializers.DecimalField(
        max_digits=28,
        decimal_places=8,
        allow_null=True,
        help_text="Average realized PnL per closed trade, USD (decimal string); null: no trades.",
    )
    win_rate = serializers.DecimalField(
        max_digits=5,
        decimal_places=4,
        allow_null=True,
        help_text="Share of closed trades with PnL > 0 (0..1, decimal string); null: no trades.",
    )
    too_few_trades = serializers.BooleanField(help_text=_TOO_FEW)
    avg_realized_pnl_usd_ci95 = PnlIntervalOutput(
        allow_null=True,
        help_text="95% interval on the average realized PnL per trade (Student's t); null when too few trades.",
    )
    win_rate_ci95 = RateIntervalOutput(
        allow_null=True, help_text="95% interval on the win rate (Wilson score); null when too few trades."
    )


class DifferenceOutput(serializers.Serializer):
    avg_realized_pnl_usd = serializers.DecimalField(
        max_digits=28,
        decimal_places=8,
        allow_null=True,
        help_text="This revision's average realized PnL per trade minus no lessons'; null when either has no trades.",
    )
    avg_realized_pnl_usd_ci95 = PnlIntervalOutput(
        allow_null=True, help_text="95% interval on that difference (Welch's t); null when too few trades."
    )
    win_rate = serializers.DecimalField(
        max_digits=5,
        decimal_places=4,
        allow_null=True,
        help_text="This revision's win rate minus no lessons' (-1..1); null when either has no trades.",
    )
    win_rate_ci95 = RateIntervalOutput(
        allow_null=True, help_text="95% interval on that difference (Newcombe's hybrid score); null when too few."
    )
    too_few_trades = serializers.BooleanField(
        help_text=f"Either side has fewer than {MIN_TRADES_TO_TELL} closed trades: too few to tell."
    )
    avg_pnl_verdict = serializers.ChoiceField(
        choices=VERDICTS,
        help_text="About the average PnL per trade: higher or lower when the difference's interval excludes 0,"
        " no_clear_difference when it contains 0, too_few_trades below the minimum sample.",
    )


class LessonsRevisionOutput(TradeFiguresOutput):
    content_hash = serializers.CharField(help_text="The lessons text's hash (`entry_lessons_hash` on trades).")
    generated_at = serializers.DateTimeField(help_text="When this text first became a note.")
    note_id = serializers.UUIDField(help_text="The first note with this text.")
    statuses = serializers.ListField(
        child=serializers.CharField(), help_text="The statuses of the notes with this text (active, superseded, …)."
    )
    vs_no_lessons = DifferenceOutput(help_text="This revision against the trades opened with no lessons.")


class LessonsABOutput(serializers.Serializer):
    skill_id = serializers.IntegerField(help_text="The skill.")
    skill_version = serializers.IntegerField(allow_null=True, help_text="The version asked for; null: all versions.")
    confidence = serializers.FloatField(help_text="The intervals' confidence level (0.95).")
    min_trades_to_tell = serializers.IntegerField(
        help_text="Closed trades a group needs (both groups, for a difference) before an interval is given."
    )
    revisions = LessonsRevisionOutput(many=True, help_text="One per lessons text (content_hash), oldest first.")
    no_lessons = TradeFiguresOutput(help_text="Closed trades opened while no lessons were active.")


class LessonsABQuery(StrictSerializer):
    version = bounded_int(  # a skill version is an integer column: a larger one names no version
        1, INTEGER_COLUMN_MAX, required=False, help_text="Only this skill version (default: all versions)."
    )

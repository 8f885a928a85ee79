"""Shapes of the chat-memory API: facts, and one chat turn."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from chatmemory.facts import FACT_MAX_CHARS, TOPIC_MAX_CHARS
from chatmemory.models import ArchivedReason, FactConfidence, UserFact
from chatmemory.prompt import MODES
from memorysite.api import PageQuery, StrictSerializer, bounded_int, choice, text


class FactOutput(serializers.ModelSerializer):
    class Meta:
        model = UserFact
        fields = [
            "id", "fact", "topic", "source", "confidence", "last_referenced_at", "created_at", "updated_at",
            "archived_at", "archived_reason",
        ]  # fmt: skip


class FactCreateInput(StrictSerializer):
    # Length rules (4..500 after trimming) are the service's, so every path states them the same way.
    fact = text(max_length=FACT_MAX_CHARS + 100, trim_whitespace=False)
    topic = text(max_length=TOPIC_MAX_CHARS, required=False, allow_null=True, allow_blank=True)
    confidence = choice(FactConfidence.values, required=False, default=FactConfidence.ASSERTED)


class FactUpdateInput(StrictSerializer):
    fact = text(max_length=FACT_MAX_CHARS + 100, trim_whitespace=False, required=False)
    topic = text(max_length=TOPIC_MAX_CHARS, required=False, allow_null=True, allow_blank=True)
    confidence = choice(FactConfidence.values, required=False)


class FactArchiveInput(StrictSerializer):
    reason = choice(
        [ArchivedReason.USER_DELETED, ArchivedReason.USER_CORRECTED],
        required=False,
        default=ArchivedReason.USER_DELETED,
    )


class FactListQuery(PageQuery):
    archived = choice(["false", "true", "all"], required=False, default="false")
    topic = text(max_length=TOPIC_MAX_CHARS, required=False)


class ChatMessage(StrictSerializer):
    role = choice(["user", "assistant"])
    content = text(max_length=20_000, multiline=True)


class ChatFocus(StrictSerializer):
    deployment_id = bounded_int(1, required=False)
    skill_id = bounded_int(1, required=False)


class ChatInput(StrictSerializer):
    messages = ChatMessage(many=True, allow_empty=False, max_length=100)
    mode = choice(MODES, required=False, default="coach")
    focus = ChatFocus(required=False)

    def validate_messages(self, messages):
        if messages[-1]["role"] != "user":
            raise serializers.ValidationError("the last message must be the trader's (role 'user')")
        return messages


class ToolCallOutput(serializers.Serializer):
    name = serializers.CharField()
    input = serializers.DictField(help_text="The tool input the model sent.")
    result = serializers.DictField(allow_null=True, help_text="The tool's result; null when it failed.")
    error = serializers.CharField(allow_null=True)


class ChatUsage(serializers.Serializer):
    """The turn's tokens over all its model calls, as the Messages API counts them: ``input_tokens`` are
    the ones neither read from nor written to the prompt cache; the total input is the sum of the three."""

    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cache_read_input_tokens = serializers.IntegerField(help_text="Input tokens read from the prompt cache.")
    cache_creation_input_tokens = serializers.IntegerField(help_text="Input tokens written to the prompt cache.")


class ChatOutput(serializers.Serializer):
    reply = serializers.CharField(allow_blank=True)
    tool_calls = ToolCallOutput(many=True)
    model = serializers.CharField()
    stop_reason = serializers.CharField(allow_null=True)
    usage = serializers.SerializerMethodField()

    @extend_schema_field(ChatUsage)
    def get_usage(self, turn) -> dict:
        return {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "cache_read_input_tokens": turn.cache_read_input_tokens,
            "cache_creation_input_tokens": turn.cache_creation_input_tokens,
        }

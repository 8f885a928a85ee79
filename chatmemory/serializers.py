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
        extra_kwargs = {
            "id": {"help_text": "The fact's id (a UUID)."},
            "fact": {
                "help_text": 'The fact in one sentence, e.g. "Trades only BTC and ETH perps." (4-500 characters).'
            },
            "topic": {"help_text": "A short label grouping facts, e.g. `risk` (at most 32 characters); null: none."},
            "source": {
                "help_text": "`chat` (the coach remembered it), `profile` (you wrote it) or `inferred` (from your "
                "behaviour)."
            },
            "confidence": {"help_text": "`asserted` (you said so) or `inferred` (the coach concluded it)."},
            "last_referenced_at": {"help_text": "When the coach last used it (UTC); null: never."},
            "created_at": {"help_text": "When it was recorded (UTC)."},
            "updated_at": {"help_text": "When it last changed (UTC)."},
            "archived_at": {"help_text": "When it was archived (UTC); null: in use."},
            "archived_reason": {
                "help_text": "Why: `user_deleted`, `user_corrected` or `agent_forget` (the coach forgot it); "
                "null while in use."
            },
        }


class FactCreateInput(StrictSerializer):
    # Length rules (4..500 after trimming) are the service's, so every path states them the same way.
    fact = text(
        max_length=FACT_MAX_CHARS + 100,
        trim_whitespace=False,
        help_text="The fact in one sentence: 4-500 characters after trimming.",
    )
    topic = text(
        max_length=TOPIC_MAX_CHARS,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="A short label grouping facts, e.g. `risk` (at most 32 characters); empty or null: none.",
    )
    confidence = choice(
        FactConfidence.values,
        required=False,
        default=FactConfidence.ASSERTED,
        help_text="`asserted` (default: you say so) or `inferred`.",
    )


class FactUpdateInput(StrictSerializer):
    fact = text(
        max_length=FACT_MAX_CHARS + 100,
        trim_whitespace=False,
        required=False,
        help_text="The new text: 4-500 characters after trimming.",
    )
    topic = text(
        max_length=TOPIC_MAX_CHARS,
        required=False,
        allow_null=True,
        allow_blank=True,
        help_text="The new label (at most 32 characters); empty or null: none.",
    )
    confidence = choice(FactConfidence.values, required=False, help_text="`asserted` (promote) or `inferred` (demote).")


class FactArchiveInput(StrictSerializer):
    reason = choice(
        [ArchivedReason.USER_DELETED, ArchivedReason.USER_CORRECTED],
        required=False,
        default=ArchivedReason.USER_DELETED,
        help_text="Why: `user_deleted` (default) or `user_corrected` (it was wrong).",
    )


class FactListQuery(PageQuery):
    archived = choice(
        ["false", "true", "all"],
        required=False,
        default="false",
        help_text="`false` (default): facts in use; `true`: archived ones; `all`: both.",
    )
    topic = text(max_length=TOPIC_MAX_CHARS, required=False, help_text="Only facts with this topic.")


class ChatMessage(StrictSerializer):
    role = choice(["user", "assistant"], help_text="`user` (the trader) or `assistant` (the coach's earlier reply).")
    content = text(max_length=20_000, multiline=True, help_text="The message's text (at most 20,000 characters).")


class ChatFocus(StrictSerializer):
    deployment_id = bounded_int(1, required=False, help_text="The deployment the trader has open, if any.")
    skill_id = bounded_int(1, required=False, help_text="The skill the trader has open, if any.")


class ChatInput(StrictSerializer):
    messages = ChatMessage(
        many=True,
        allow_empty=False,
        max_length=100,
        help_text="The conversation so far, oldest first (1-100 messages); the last one is the trader's.",
    )
    mode = choice(
        MODES,
        required=False,
        default="coach",
        help_text="`authoring` (writing a skill), `coach` (default: reviewing how the agents trade) or `ops` "
        "(checking running deployments).",
    )
    focus = ChatFocus(required=False, help_text="What the trader is looking at, so the coach can refer to it.")

    def validate_messages(self, messages):
        if messages[-1]["role"] != "user":
            raise serializers.ValidationError("the last message must be the trader's (role 'user')")
        return messages


class ToolCallOutput(serializers.Serializer):
    name = serializers.CharField(help_text="The tool the coach called (see `list_chat_tools`).")
    input = serializers.DictField(help_text="The tool input the model sent.")
    result = serializers.DictField(allow_null=True, help_text="The tool's result; null when it failed.")
    error = serializers.CharField(allow_null=True, help_text="Why the tool failed; null when it succeeded.")


class ChatUsage(serializers.Serializer):
    """The turn's tokens over all its model calls, as the Messages API counts them: ``input_tokens`` are
    the ones neither read from nor written to the prompt cache; the total input is the sum of the three."""

    input_tokens = serializers.IntegerField(help_text="Input tokens neither read from nor written to the prompt cache.")
    output_tokens = serializers.IntegerField(help_text="Tokens the model wrote, over all the turn's calls.")
    cache_read_input_tokens = serializers.IntegerField(help_text="Input tokens read from the prompt cache.")
    cache_creation_input_tokens = serializers.IntegerField(help_text="Input tokens written to the prompt cache.")


class ChatOutput(serializers.Serializer):
    reply = serializers.CharField(allow_blank=True, help_text="The coach's answer (markdown).")
    tool_calls = ToolCallOutput(many=True, help_text="The tools the coach called this turn, in order.")
    model = serializers.CharField(help_text="The id of the model that answered.")
    stop_reason = serializers.CharField(
        allow_null=True, help_text="Why the model stopped, as the Messages API says (`end_turn`, `max_tokens`, …)."
    )
    usage = serializers.SerializerMethodField(help_text="The turn's tokens over all its model calls.")

    @extend_schema_field(ChatUsage)
    def get_usage(self, turn) -> dict:
        return {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "cache_read_input_tokens": turn.cache_read_input_tokens,
            "cache_creation_input_tokens": turn.cache_creation_input_tokens,
        }

"""GET /api/v1/deployments/{id}/context/: the memory block a runner injects into the agent's user message."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from agentcontext.answers import context_answer
from agentcontext.degrade import DEGRADABLE_SECTIONS
from ledger import selectors as ledger_selectors
from memorysite.api import APIView


class ContextSections(serializers.Serializer):
    last_decision = serializers.CharField(allow_null=True)
    recent_activity = serializers.CharField(allow_null=True)
    recent_trades = serializers.CharField(allow_null=True)
    open_positions = serializers.CharField(allow_null=True)
    similar_situations = serializers.CharField(
        allow_null=True,
        help_text="Phase 3: for each open position, the nearest closed trades of this skill with the same symbol "
        "and side and their outcomes (~500 tokens at most); null when there are none.",
    )
    manual = serializers.CharField(
        allow_null=True,
        help_text="## From your manual and playbooks: the chunks of your TRADING_MANUAL.md and of the staff playbooks "
        "and runbooks most relevant to this tick (queried by the open positions, the last proposal and the last "
        "rejection code; keyword ranking), each row citing path:startLine-endLine, within the skill version's "
        "manual_token_cap; null when it is off or nothing clears the relevance floor.",
    )


class SectionTokens(serializers.Serializer):
    last_decision = serializers.IntegerField()
    recent_activity = serializers.IntegerField()
    recent_trades = serializers.IntegerField()
    open_positions = serializers.IntegerField()
    similar_situations = serializers.IntegerField()
    manual = serializers.IntegerField()


class TokenEstimate(serializers.Serializer):
    per_section = SectionTokens()
    total = serializers.IntegerField()


class SystemPromptSegmentsOutput(serializers.Serializer):
    header = serializers.CharField()
    leash = serializers.CharField()
    strategy = serializers.CharField()
    lessons = serializers.CharField(allow_null=True, help_text="Null when the deployment has no active lessons.")
    footer = serializers.CharField()


class SystemPromptOutput(serializers.Serializer):
    segments = SystemPromptSegmentsOutput()
    text = serializers.CharField(help_text="The segments that are not null, joined by one blank line.")


class ContextOutput(serializers.Serializer):
    text = serializers.CharField(allow_blank=True)
    sections = ContextSections()
    token_estimate = TokenEstimate()
    system_prompt = SystemPromptOutput()
    degraded = serializers.ListField(
        child=serializers.ChoiceField(choices=DEGRADABLE_SECTIONS),
        help_text="The sections whose read failed this time (a database error, or a statement past the per-section "
        "timeout): each is null (for `lessons`, the system prompt's lessons segment) and left out of `text`, and "
        "the rest is served. In this order, each at most once: " + ", ".join(DEGRADABLE_SECTIONS) + ". A section "
        "that needs a failed read is listed with it (when the latest tick cannot be read, every memory section but "
        "recent_trades). Empty when the context is complete. A degraded answer is not cached (Cache-Control: "
        "no-store): the next request reads every section afresh.",
    )


class ContextView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        responses={
            200: ContextOutput,
            401: OpenApiResponse(description="Missing or invalid token."),
            404: OpenApiResponse(description="No such deployment among yours."),
        },
        summary="The agent's memory block and system prompt for its next tick (null sections are suppressed)",
        description="A section whose read fails (a database error or its statement timeout) never fails the "
        "request: it is null and named in `degraded`, and the rest of the context is served.",
        tags=["context"],
    )
    def get(self, request, deployment_id: int):
        deployment = ledger_selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        answer = context_answer(deployment=deployment)
        # A degraded answer must not be served later as if complete: no cache keeps it.
        return Response(answer, headers={"Cache-Control": "no-store"} if answer["degraded"] else None)

"""GET /api/v1/deployments/{id}/context/: the memory block a runner injects into the agent's user message."""

import json
from pathlib import Path

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from agentcontext.answers import context_answer
from agentcontext.degrade import DEGRADABLE_SECTIONS
from ledger import selectors as ledger_selectors
from ledger.models import DeploymentStatus
from memorysite.api import UNAUTHORIZED, APIView


class ContextSections(serializers.Serializer):
    last_decision = serializers.CharField(
        allow_null=True,
        help_text="## Last decision: the previous tick's proposal and the engine's verdict (times in UTC); "
        "null before the first tick.",
    )
    recent_activity = serializers.CharField(
        allow_null=True,
        help_text="## Recent activity (this session): executed orders and realized PnL today (UTC day, against "
        "the day-start equity); null when there is nothing today.",
    )
    recent_trades = serializers.CharField(
        allow_null=True,
        help_text="## Recent trades on this skill (closed): the newest `recent_trades_k` closed trades, one a line "
        "(times UTC, sizes and PnL in USD); null when there are none.",
    )
    open_positions = serializers.CharField(
        allow_null=True,
        help_text="## Open positions (memory view): the ledger's open trades with entry, mark, MFE/MAE and time "
        "held; null when there are none.",
    )
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


_ESTIMATE = "Estimated tokens of the {} section (ceil(characters / 4)); 0 when it is null."


class SectionTokens(serializers.Serializer):
    last_decision = serializers.IntegerField(help_text=_ESTIMATE.format("last_decision"))
    recent_activity = serializers.IntegerField(help_text=_ESTIMATE.format("recent_activity"))
    recent_trades = serializers.IntegerField(help_text=_ESTIMATE.format("recent_trades"))
    open_positions = serializers.IntegerField(help_text=_ESTIMATE.format("open_positions"))
    similar_situations = serializers.IntegerField(help_text=_ESTIMATE.format("similar_situations"))
    manual = serializers.IntegerField(help_text=_ESTIMATE.format("manual"))


class TokenEstimate(serializers.Serializer):
    per_section = SectionTokens(help_text="Each section's estimate.")
    total = serializers.IntegerField(help_text="The estimate for `text` as a whole.")


class SystemPromptSegmentsOutput(serializers.Serializer):
    header = serializers.CharField(help_text="The service's fixed opening: the agent's role and its five actions.")
    leash = serializers.CharField(help_text="The skill version's avoid rules, stated as authoritative.")
    paused = serializers.CharField(
        allow_null=True,
        help_text="Null while the deployment runs. While the trader has paused it (`deployment_status` "
        "`stopped`): a fixed paragraph, right after the leash, telling the agent not to open new positions or add "
        "to open ones; it may hold, reduce, close or flatten.",
    )
    strategy = serializers.CharField(help_text="The skill version's strategy text, each line quoted with `> `.")
    lessons = serializers.CharField(allow_null=True, help_text="Null when the deployment has no active lessons.")
    footer = serializers.CharField(
        help_text="The service's fixed closing: avoid rules over lessons; when in doubt, hold."
    )


class SystemPromptOutput(serializers.Serializer):
    segments = SystemPromptSegmentsOutput(help_text="The prompt's parts, for a runner that assembles its own.")
    text = serializers.CharField(
        help_text="The segments that are not null, joined by one blank line, in this order: header, leash, paused, "
        "strategy, lessons, footer."
    )


class ContextOutput(serializers.Serializer):
    deployment_status = serializers.ChoiceField(
        choices=DeploymentStatus.values,
        help_text="`running`, or `stopped` while the trader has paused the deployment. Paused, keep posting ticks "
        "(fills, stops and exits at the venue still land in the ledger: it must follow the venue) but do not open "
        "new positions or add to open ones; holding, reducing, closing and flattening are fine. The system prompt "
        "says so too (its `paused` segment).",
    )
    text = serializers.CharField(
        allow_blank=True,
        help_text="The memory block to put in the agent's user message this tick: the non-null sections in order, "
        "separated by blank lines (empty when every section is null).",
    )
    sections = ContextSections(help_text="The same block section by section (null: nothing to say, or degraded).")
    token_estimate = TokenEstimate(help_text="Estimated tokens of `text` and of each section.")
    system_prompt = SystemPromptOutput(
        help_text="The agent's system prompt: the skill version's strategy and avoid rules, its active lessons, "
        "and while the deployment is paused the `paused` segment."
    )
    degraded = serializers.ListField(
        child=serializers.ChoiceField(choices=DEGRADABLE_SECTIONS),
        help_text="The sections whose read failed this time (a database error, or a statement past the per-section "
        "timeout): each is null (for `lessons`, the system prompt's lessons segment) and left out of `text`, and "
        "the rest is served. In this order, each at most once: " + ", ".join(DEGRADABLE_SECTIONS) + ". A section "
        "that needs a failed read is listed with it (when the latest tick cannot be read, every memory section but "
        "recent_trades). Empty when the context is complete. A degraded answer is not cached (Cache-Control: "
        "no-store): the next request reads every section afresh.",
    )


# A real answer (three ticks of a test deployment: a BTC long opened and closed, then an ETH short).
CONTEXT_EXAMPLE = json.loads((Path(__file__).parent / "examples" / "context.json").read_text(encoding="utf-8"))


class ContextView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        operation_id="get_context",
        responses={
            200: OpenApiResponse(ContextOutput, description="The context for the agent's next decision."),
            401: OpenApiResponse(description=UNAUTHORIZED),
            404: OpenApiResponse(description="No such deployment among yours (or not this runner token's)."),
        },
        examples=[
            OpenApiExample(
                "After three ticks",
                value=CONTEXT_EXAMPLE,
                response_only=True,
                description="A BTC long opened and closed at a profit, then an ETH short opened; no lessons yet.",
            )
        ],
        summary="The agent's memory block and system prompt for its next tick (null sections are suppressed)",
        description="Call it after `post_tick`, before asking the agent for its next action: put `system_prompt.text` "
        "in the system prompt and `text` in the user message, next to the market data. It reflects every tick "
        "posted so far (reading it applies any tick not yet in the ledger). A runner token of this deployment may "
        "call it.\n\nA section whose read fails (a database error or its statement timeout) never fails the "
        "request: it is null and named in `degraded`, and the rest of the context is served.",
        tags=["context"],
    )
    def get(self, request, deployment_id: int):
        deployment = ledger_selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        answer = context_answer(deployment=deployment)
        # A degraded answer must not be served later as if complete: no cache keeps it.
        return Response(answer, headers={"Cache-Control": "no-store"} if answer["degraded"] else None)

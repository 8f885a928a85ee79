"""REST views of reflection: a deployment's lessons, a skill's lessons A/B figures."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response

from ledger import selectors as ledger_selectors
from memorysite.api import UNAUTHORIZED, APIView
from reflection import selectors
from reflection.ab_stats import CONFIDENCE, MIN_TRADES_TO_TELL, GroupEstimate, Interval
from reflection.serializers import DeploymentLessonsOutput, LessonsABOutput, LessonsABQuery

_ERRORS = {
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such object among yours."),
}


class DeploymentLessonsView(APIView):
    @extend_schema(
        responses={200: DeploymentLessonsOutput, **_ERRORS},
        operation_id="get_deployment_lessons",
        description="Lessons are what reflection distilled from the deployment's closed trades; the active ones are "
        "in the agent's system prompt (`get_context`). This lists them and every earlier revision, "
        "newest first.",
        summary="The deployment's active lessons and every revision, newest first",
        tags=["lessons"],
    )
    def get(self, request, deployment_id: int):
        deployment = ledger_selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        history = list(selectors.note_history(deployment=deployment))
        active = selectors.active_note(deployment=deployment)
        return Response(DeploymentLessonsOutput({"active": active, "history": history}).data)


class LessonsABView(APIView):
    @extend_schema(
        parameters=[LessonsABQuery],
        responses={
            200: LessonsABOutput,
            400: OpenApiResponse(description="Invalid query: `detail` names the parameter and the rule."),
            **_ERRORS,
        },
        operation_id="get_lessons_ab",
        description="Whether lessons help: the skill's closed trades grouped by the lessons the agent saw when it "
        "opened them (and with none), with win rate and PnL per group and their intervals.",
        summary="Closed-trade outcomes per lessons revision, and with no lessons (A/B telemetry)",
        tags=["lessons"],
    )
    def get(self, request, skill_id: int):
        skill = ledger_selectors.skill_get(user=request.user, skill_id=skill_id)
        query = LessonsABQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        version = query.validated_data.get("version")
        ab = selectors.lessons_ab(skill=skill, version=version)
        body = {
            "skill_id": skill.pk,
            "skill_version": version,
            "confidence": CONFIDENCE,
            "min_trades_to_tell": MIN_TRADES_TO_TELL,
            "revisions": [
                {
                    **_figures(revision.figures, revision.estimate),
                    "content_hash": revision.content_hash,
                    "generated_at": revision.generated_at,
                    "note_id": revision.first_note_id,
                    "statuses": revision.statuses,
                    "vs_no_lessons": {
                        "avg_realized_pnl_usd": revision.vs_no_lessons.avg_pnl,
                        "avg_realized_pnl_usd_ci95": _interval(revision.vs_no_lessons.avg_pnl_interval),
                        "win_rate": revision.vs_no_lessons.win_rate,
                        "win_rate_ci95": _interval(revision.vs_no_lessons.win_rate_interval),
                        "too_few_trades": revision.vs_no_lessons.too_few_trades,
                        "avg_pnl_verdict": revision.vs_no_lessons.verdict,
                    },
                }
                for revision in ab.revisions
            ],
            "no_lessons": _figures(ab.no_lessons, ab.no_lessons_estimate),
        }
        return Response(LessonsABOutput(body).data)


def _interval(interval: Interval | None) -> dict | None:
    return None if interval is None else {"low": interval.low, "high": interval.high}


def _figures(figures: selectors.TradeFigures, estimate: GroupEstimate) -> dict:
    return {
        "n_closed": figures.n_closed,
        "avg_realized_pnl_usd": figures.avg_realized_pnl_usd,
        "win_rate": figures.win_rate,
        "too_few_trades": estimate.too_few_trades,
        "avg_realized_pnl_usd_ci95": _interval(estimate.avg_pnl_interval),
        "win_rate_ci95": _interval(estimate.win_rate_interval),
    }

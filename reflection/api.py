"""REST views of reflection: a deployment's lessons, a skill's lessons A/B figures."""

from __future__ import annotations

from dataclasses import asdict

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.response import Response

from ledger import selectors as ledger_selectors
from memorysite.api import APIView
from reflection import selectors
from reflection.serializers import DeploymentLessonsOutput, LessonsABOutput, LessonsABQuery

_ERRORS = {
    401: OpenApiResponse(description="Missing or invalid token."),
    404: OpenApiResponse(description="No such object among yours."),
}


class DeploymentLessonsView(APIView):
    @extend_schema(
        responses={200: DeploymentLessonsOutput, **_ERRORS},
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
            "revisions": [{**asdict(revision.figures), **asdict(revision)} for revision in ab.revisions],
            "no_lessons": asdict(ab.no_lessons),
        }
        return Response(LessonsABOutput(body).data)

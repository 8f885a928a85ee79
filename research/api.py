"""REST views of research memory: record and check experiments, hypotheses, requests, the prompt context."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from memorysite.api import UNAUTHORIZED, APIView, Page, paginated, validated
from research import answers, selectors, services
from research.serializers import (
    ContextCheckInput,
    ContextCheckOutput,
    ContextQuery,
    ExperimentInput,
    ExperimentListQuery,
    ExperimentOutput,
    HypothesisOutput,
    HypothesisUpdateInput,
    RecordedOutput,
    RequestOutput,
    RequestQuery,
    ResearchContextOutput,
    StatusQuery,
)

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such object among yours."),
}
TAGS = ["research"]


class ExperimentCheckView(APIView):
    @extend_schema(
        request=ContextCheckInput,
        responses={200: ContextCheckOutput, **_ERRORS},
        operation_id="check_experiment",
        description="Before running an experiment, ask whether one with the same context (its fingerprint: the "
        "cleaned experiment context) was already run, so the research agent does not repeat itself.",
        summary="Before designing: the experiments already run with this context (same fingerprint)",
        tags=TAGS,
    )
    def post(self, request):
        return Response(answers.experiment_check_answer(user=request.user, data=request.data))


class ExperimentListView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[ExperimentListQuery],
        responses={200: ExperimentOutput(many=True), **_ERRORS},
        operation_id="list_experiments",
        description="Your recorded experiments, newest first, filtered by the query's fields.",
        summary="Your experiments, newest first, filterable by indicator, timeframe, symbol and verdict",
        tags=TAGS,
    )
    def get(self, request):
        filters = validated(ExperimentListQuery, request.query_params.dict())
        filters.pop("limit", None), filters.pop("offset", None)
        return paginated(self, selectors.experiment_list(user=request.user, **filters), ExperimentOutput)

    @extend_schema(
        request=ExperimentInput,
        responses={
            201: RecordedOutput,
            **_ERRORS,
            409: OpenApiResponse(description="This context (or this id) was already recorded; names the prior ids."),
        },
        operation_id="record_experiment",
        summary="Record an experiment (assessment as an object or the seed's markdown)",
        description="Hypotheses and capability requests in the assessment are registered (H_###, req_###); "
        "hypotheses named in tests_hypotheses get this experiment in tested_by and a status from its verdict "
        "(strong_signal → validated, no_signal → refuted, weak_signal or overfit → inconclusive).",
        tags=TAGS,
    )
    def post(self, request):
        answer = answers.experiment_record_answer(owner=request.user, data=request.data)
        return Response(answer, status=status.HTTP_201_CREATED)


class ExperimentDetailView(APIView):
    @extend_schema(
        responses={200: ExperimentOutput, **_ERRORS},
        operation_id="get_experiment",
        description="One experiment: its context, results and assessment.",
        summary="One of your experiments",
        tags=TAGS,
    )
    def get(self, request, experiment_id: str):
        return Response(ExperimentOutput(selectors.experiment_get(user=request.user, experiment_id=experiment_id)).data)


class HypothesisListView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[StatusQuery],
        responses={200: HypothesisOutput(many=True), **_ERRORS},
        operation_id="list_hypotheses",
        description="The hypotheses your experiments' assessments raised, with their status.",
        summary="Your hypothesis registry",
        tags=TAGS,
    )
    def get(self, request):
        query = validated(StatusQuery, request.query_params.dict())
        return paginated(
            self, selectors.hypothesis_list(user=request.user, status=query.get("status")), HypothesisOutput
        )


class HypothesisDetailView(APIView):
    @extend_schema(
        request=HypothesisUpdateInput,
        responses={200: HypothesisOutput, **_ERRORS},
        operation_id="update_hypothesis",
        description="Set a hypothesis's status: untested, testing, validated, refuted or inconclusive.",
        summary="Set a hypothesis's status (e.g. testing while an experiment runs)",
        tags=TAGS,
    )
    def patch(self, request, hypothesis_id: str):
        hypothesis = selectors.hypothesis_get(user=request.user, hypothesis_id=hypothesis_id)
        data = validated(HypothesisUpdateInput, request.data, partial=True)  # as documented: PATCH fields are optional
        if "status" in data:
            hypothesis = services.hypothesis_set_status(hypothesis=hypothesis, status=data["status"])
        return Response(HypothesisOutput(hypothesis).data)


class RequestListView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[RequestQuery],
        responses={200: RequestOutput(many=True), **_ERRORS},
        operation_id="list_capability_requests",
        description="What the research agent asked for (data, indicators, tools) and where each request stands.",
        summary="Your capability requests (staff approve, implement or reject them in admin)",
        tags=TAGS,
    )
    def get(self, request):
        query = validated(RequestQuery, request.query_params.dict())
        return paginated(self, selectors.request_list(user=request.user, status=query.get("status")), RequestOutput)


class ResearchContextView(APIView):
    @extend_schema(
        parameters=[ContextQuery],
        responses={200: ResearchContextOutput, **_ERRORS},
        operation_id="get_research_context",
        description="The research agent's memory block: put `text` in its prompt before it designs the next "
        "experiment.",
        summary="The research agent's context: how to use the history, then '## Experiment History', "
        "'## Open Hypotheses' and '## Available Resources' (capabilities implemented at its request)",
        tags=TAGS,
    )
    def get(self, request):
        n = validated(ContextQuery, request.query_params.dict())["n"]
        text, tokens, shown = selectors.research_context(user=request.user, n=n)
        return Response({"text": text, "token_estimate": tokens, "experiments_shown": shown})

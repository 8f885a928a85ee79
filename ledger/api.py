"""REST views of the ledger: validate, call one service or selector, serialize."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from ledger import selectors, services
from ledger.serializers import (
    DeploymentCreateInput,
    DeploymentOutput,
    FillInput,
    RunnerTokenCreated,
    RunnerTokenInput,
    RunnerTokenOutput,
    SkillCreateInput,
    SkillOutput,
    SkillVersionInput,
    SkillVersionOutput,
    TickAccepted,
    TickDetailOutput,
    TickInput,
    TradeListQuery,
    TradeOutput,
)
from memorysite.api import UNAUTHORIZED, APIView, Page, paginated

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such object among yours."),
    413: OpenApiResponse(description="Body larger than 1 MiB."),
    415: OpenApiResponse(description="Content-Type is not application/json."),
}


class SkillListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: SkillOutput(many=True)},
        operation_id="list_skills",
        description="Every skill of yours, by name, each with its latest version in full and its version numbers.",
        summary="Your skills, by name",
        tags=["skills"],
    )
    def get(self, request):
        return paginated(self, selectors.skill_list(user=request.user), SkillOutput)

    @extend_schema(
        request=SkillCreateInput,
        responses={201: SkillOutput, **_ERRORS},
        operation_id="create_skill",
        description="A skill is a named strategy; its versions hold the strategy text, avoid rules and memory "
        "settings. This creates the skill and its version 1 from the same body; deploy it with "
        "`create_deployment`.",
        summary="Create a skill and its version 1 from the same body",
        tags=["skills"],
    )
    def post(self, request):
        data = SkillCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        skill = services.skill_create(owner=request.user, **data.validated_data)
        return Response(SkillOutput(selectors.skill_get(user=request.user, skill_id=skill.pk)).data, status=201)


class SkillDetailView(APIView):
    @extend_schema(
        responses={200: SkillOutput, **_ERRORS},
        operation_id="get_skill",
        description="The skill, its latest version in full and its version numbers.",
        summary="One of your skills",
        tags=["skills"],
    )
    def get(self, request, skill_id: int):
        return Response(SkillOutput(selectors.skill_get(user=request.user, skill_id=skill_id)).data)


class SkillVersionListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: SkillVersionOutput(many=True), **_ERRORS},
        operation_id="list_skill_versions",
        description="Every version of the skill, newest first. Versions never change: a new one is added instead.",
        summary="Versions of one of your skills, newest first",
        tags=["skills"],
    )
    def get(self, request, skill_id: int):
        versions = selectors.skill_version_list(user=request.user, skill_id=skill_id)
        return paginated(self, versions, SkillVersionOutput)

    @extend_schema(
        request=SkillVersionInput,
        responses={201: SkillVersionOutput, **_ERRORS},
        operation_id="create_skill_version",
        description="Adds version latest + 1 with the settings sent (defaults for those omitted, not the previous "
        "version's). Running deployments keep their version; deploy the new one to use it.",
        summary="Add the next version (latest + 1) to one of your skills",
        tags=["skills"],
    )
    def post(self, request, skill_id: int):
        skill = selectors.skill_get(user=request.user, skill_id=skill_id)
        data = SkillVersionInput(data=request.data)
        data.is_valid(raise_exception=True)
        version = services.skill_version_create(skill=skill, **data.validated_data)
        return Response(SkillVersionOutput(version).data, status=status.HTTP_201_CREATED)


class DeploymentListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: DeploymentOutput(many=True)},
        operation_id="list_deployments",
        description="Every deployment of yours, newest first: its id is the `deployment_id` a runner posts ticks to.",
        summary="Your deployments, newest first",
        tags=["deployments"],
    )
    def get(self, request):
        return paginated(self, selectors.deployment_list(user=request.user), DeploymentOutput)

    @extend_schema(
        request=DeploymentCreateInput,
        responses={201: DeploymentOutput, **_ERRORS},
        operation_id="create_deployment",
        description="A deployment is one run of a skill version: the runner posts its ticks and reads its context "
        "under `/api/v1/deployments/{id}/`. Then create a runner token for it (`create_runner_token`).",
        summary="Deploy a version of one of your skills (the latest when `version` is omitted)",
        tags=["deployments"],
    )
    def post(self, request):
        data = DeploymentCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        deployment = services.deployment_create(owner=request.user, **data.validated_data)
        output = selectors.deployment_get(user=request.user, deployment_id=deployment.pk)
        return Response(DeploymentOutput(output).data, status=status.HTTP_201_CREATED)


class DeploymentDetailView(APIView):
    @extend_schema(
        responses={200: DeploymentOutput, **_ERRORS},
        operation_id="get_deployment",
        description="The deployment, its skill and version, mode and status.",
        summary="One of your deployments",
        tags=["deployments"],
    )
    def get(self, request, deployment_id: int):
        return Response(DeploymentOutput(selectors.deployment_get(user=request.user, deployment_id=deployment_id)).data)


# -- runner endpoints: ticks, fills, trades ------------------------------------------------------

_TICK_ERRORS = {
    **_ERRORS,
    409: OpenApiResponse(
        description="`tick_at` is older than the deployment's latest tick (`errors.tick_at` says which that is): "
        "skip it. Without `errors.tick_at`: the Idempotency-Key was reused with another body, or its first "
        "request is still running."
    ),
}


TICK_EXAMPLES = [
    OpenApiExample(
        "An order executed",
        request_only=True,
        description="The agent proposed a BTC long; the engine executed it, so the position is there after the fills.",
        value={
            "tick_at": "2026-06-04T10:00:00Z",
            "equity_usd": 10000.0,
            "positions": [{"symbol": "BTC", "side": "long", "size": 0.05, "mark_price": 67250.5, "leverage": 2}],
            "proposed_action": {"kind": "propose_order", "symbol": "BTC", "reason": "breakout above the 20-bar high"},
            "engine": {"kind": "executed"},
            "bars": {
                "BTC": [
                    {"t": "2026-06-04T09:50:00Z", "o": 66980.0, "h": 67120.0, "l": 66950.0, "c": 67100.0, "v": 412.7},
                    {"t": "2026-06-04T09:55:00Z", "o": 67100.0, "h": 67290.0, "l": 67060.0, "c": 67250.5, "v": 530.2},
                ]
            },
        },
    ),
    OpenApiExample(
        "A position closed",
        request_only=True,
        description="BTC is no longer listed, so its trade closes at the mark in `marks`.",
        value={
            "tick_at": "2026-06-04T10:05:00Z",
            "equity_usd": 10052.3,
            "positions": [],
            "marks": {"BTC": 68296.5},
            "proposed_action": {"kind": "close_position", "symbol": "BTC", "reason": "take profit at 1.5R"},
            "engine": {"kind": "executed"},
        },
    ),
    OpenApiExample(
        "A proposal the engine rejected",
        request_only=True,
        value={
            "tick_at": "2026-06-04T10:10:00Z",
            "equity_usd": 10052.3,
            "positions": [],
            "marks": {"ETH": 3512.25},
            "proposed_action": {"kind": "propose_order", "symbol": "ETH", "reason": "lower high under resistance"},
            "engine": {"kind": "rejected", "rule": "max_leverage"},
        },
    ),
]


class TickListView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        request=TickInput,
        responses={
            201: OpenApiResponse(TickAccepted, description="Stored; materialization follows (see the tick's ops)."),
            200: OpenApiResponse(TickAccepted, description="This tick_at was stored before; nothing written."),
            **_TICK_ERRORS,
        },
        operation_id="post_tick",
        examples=TICK_EXAMPLES,
        description="Call it once a tick, after the broker's fills: the positions as they now are, equity, marks, "
        "what the agent proposed and what the engine did. The service stores the tick and derives the "
        "trade ledger from the change in positions (opens, closes, flips; see `get_tick`). Then read "
        "`get_context` for the next decision.\n\nTicks of a deployment go forward in time: the same "
        "`tick_at` again is a 200 with `duplicate: true` (nothing written, safe to retry), an earlier "
        "one than the latest is a 409. A runner token of this deployment may call it.",
        summary="Post one tick: positions after fills, marks, the agent's proposal, the engine's verdict",
        tags=["ticks"],
    )
    def post(self, request, deployment_id: int):
        data = TickInput(data=request.data)
        data.is_valid(raise_exception=True)
        payload = {key: value for key, value in request.data.items() if key != "tick_at"}
        try:
            result = services.tick_ingest(
                owner=request.user,
                deployment_id=deployment_id,
                tick_at=data.validated_data["tick_at"],
                payload=payload,
            )
        except services.TickConflict as conflict:
            return Response({"detail": f"tick_at: {conflict}", "errors": {"tick_at": [str(conflict)]}}, status=409)
        body = {"snapshot_id": str(result.snapshot.pk), "duplicate": result.duplicate}
        return Response(body, status=status.HTTP_200_OK if result.duplicate else status.HTTP_201_CREATED)


class TickDetailView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        responses={200: TickDetailOutput, **_ERRORS},
        operation_id="get_tick",
        description="The trade-ledger operations one tick caused, in order (a flip reads as a close then an open); "
        "reading it applies any tick not yet applied. A runner token of this deployment may call it.",
        summary="What materializing one tick did to the trade ledger (a flip shows as close then open)",
        tags=["ticks"],
    )
    def get(self, request, deployment_id: int, snapshot_id):
        deployment = selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        services.materialize_if_behind(deployment)
        snapshot = selectors.snapshot_get(deployment=deployment, snapshot_id=snapshot_id)
        return Response(TickDetailOutput(snapshot).data)


class FillView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        request=FillInput,
        responses={200: TradeOutput, **_ERRORS},
        operation_id="post_fill",
        description="Report a fill's fees: they are added to the open trade in that symbol (so its PnL after fees is "
        "right). Post the tick that opened the trade first. A runner token of this deployment may call "
        "it.",
        summary="Add a fill's fees to the open trade in that symbol",
        tags=["ticks"],
    )
    def post(self, request, deployment_id: int):
        deployment = selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        data = FillInput(data=request.data)
        data.is_valid(raise_exception=True)
        trade = services.fill_record(deployment=deployment, **data.validated_data)
        return Response(TradeOutput(trade).data)


class TradeListView(APIView):
    runner_scope = True  # a runner token of this deployment may call it (ledger.auth.RunnerTokenScope)

    @extend_schema(
        parameters=[TradeListQuery],
        responses={200: TradeOutput(many=True), **_ERRORS},
        operation_id="list_trades",
        description="The deployment's trades from the ledger, newest entry first: open ones with their running "
        "figures, closed ones with exit, PnL, fees and MFE/MAE. Money is in USD as decimal strings. A "
        "runner token of this deployment may call it.",
        summary="The deployment's trades, newest entry first",
        tags=["trades"],
    )
    def get(self, request, deployment_id: int):
        deployment = selectors.deployment_for_runner(user=request.user, deployment_id=deployment_id)
        query = TradeListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        services.materialize_if_behind(deployment)
        trades = selectors.trade_list(deployment=deployment, **query.validated_data)
        return Response(TradeOutput(trades, many=True).data)


# -- runner tokens: the trader manages them (a runner token cannot) ------------------------------

_RUNNER_TOKEN_ERRORS = {
    **_ERRORS,
    403: OpenApiResponse(description="Called with a runner token: only the trader manages runner tokens."),
}


class RunnerTokenListView(APIView):
    pagination_class = Page  # also tells the OpenAPI schema that GET is paginated

    @extend_schema(
        responses={200: RunnerTokenOutput(many=True), **_RUNNER_TOKEN_ERRORS},
        operation_id="list_runner_tokens",
        description="The deployment's runner tokens, newest first, with when each was last used; revoked ones stay "
        "listed. An account token or session only: a runner token gets a 403.",
        summary="The deployment's runner tokens, newest first, revoked ones included (never their keys)",
        tags=["runner tokens"],
    )
    def get(self, request, deployment_id: int):
        deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
        return paginated(self, selectors.runner_token_list(user=request.user, deployment=deployment), RunnerTokenOutput)

    @extend_schema(
        request=RunnerTokenInput,
        responses={201: RunnerTokenCreated, **_RUNNER_TOKEN_ERRORS},
        operation_id="create_runner_token",
        description="A key (`rt_…`) for the machine that runs the agent: it may post ticks and fills and read this "
        "deployment's context, ticks and trades, nothing else. Keep `key` now; it is never shown again.",
        summary="Create a runner token for this deployment: ticks, fills, its context and trades only. "
        "The key is in this response only",
        tags=["runner tokens"],
    )
    def post(self, request, deployment_id: int):
        deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
        data = RunnerTokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = services.runner_token_create(deployment=deployment, **data.validated_data)
        return Response(RunnerTokenCreated(token, context={"key": key}).data, status=status.HTTP_201_CREATED)


class RunnerTokenDetailView(APIView):
    @extend_schema(
        responses={204: OpenApiResponse(description="Revoked (again: nothing changes)."), **_RUNNER_TOKEN_ERRORS},
        operation_id="revoke_runner_token",
        description="The runner's requests with this key are refused (401) from now on; the deployment goes on. "
        "Revoking it again changes nothing.",
        summary="Revoke a runner token: its key stops working at once; the row stays listed",
        tags=["runner tokens"],
    )
    def delete(self, request, deployment_id: int, token_id: int):
        deployment = selectors.deployment_get(user=request.user, deployment_id=deployment_id)
        token = selectors.runner_token_get(user=request.user, deployment=deployment, token_id=token_id)
        services.runner_token_revoke(token=token, now=timezone.now())
        return Response(status=status.HTTP_204_NO_CONTENT)

"""REST views of analyst memory: store a signal, read each agent's memory, list evolution events."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response

from memorysite.api import UNAUTHORIZED, APIView, Page, paginated
from signals import answers, selectors, services
from signals.memory import STEP_EVOLUTION
from signals.serializers import (
    EvolutionEventOutput,
    EvolutionQuery,
    MarketOutput,
    MemoryOutput,
    MemoryQuery,
    SignalCreated,
    SignalInput,
)

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such market among yours."),
}


class SignalCreateView(APIView):
    @extend_schema(
        request=SignalInput,
        responses={201: SignalCreated, **_ERRORS},
        operation_id="post_signal",
        summary="Store an agent's signal (the market is created by condition_id on first sight)",
        description="Returns the evolution events the signal shows against the agent's previous signal on "
        "the market: direction_change, probability_shift (> 10 points), confidence_change (> 0.2), "
        "reasoning_evolution (key-driver overlap < 50%). When that evolution step fails (a database error or the "
        "query timeout) the signal is still stored: `degraded` is true and `evolution_events` empty.",
        tags=["signals"],
    )
    def post(self, request):
        data = SignalInput(data=request.data)
        data.is_valid(raise_exception=True)
        signal, events = services.signal_store(owner=request.user, **data.validated_data)
        body = {
            "id": signal.pk,
            "market_id": signal.market_id,
            "evolution_events": events or [],
            "degraded": events is None,
            "degraded_steps": [STEP_EVOLUTION] if events is None else [],
        }
        return Response(SignalCreated(body).data, status=status.HTTP_201_CREATED)


class MarketListView(APIView):
    pagination_class = Page

    @extend_schema(
        responses={200: MarketOutput(many=True), **_ERRORS},
        operation_id="list_markets",
        description="The markets your agents have posted signals on.",
        summary="Your markets",
        tags=["signals"],
    )
    def get(self, request):
        return paginated(self, selectors.market_list(user=request.user), MarketOutput)


class MarketMemoryView(APIView):
    @extend_schema(
        parameters=[MemoryQuery],
        responses={200: MemoryOutput, **_ERRORS},
        operation_id="get_market_memory",
        summary="Each named agent's own latest signals on the market, formatted for its prompt",
        description="One database round trip for all agents. Database trouble never fails the request: "
        "the market lookup or the signals query failing (an error or the query timeout) gives every agent empty "
        "memory, an agent's formatting failing gives that agent empty memory; `degraded` is true and "
        "`degraded_steps` names the steps (the retrieval is audited whenever the market was found).",
        tags=["signals"],
    )
    def get(self, request, market_id: int):
        return Response(
            answers.market_memory_answer(user=request.user, market_id=market_id, query=request.query_params.dict())
        )


class MarketEvolutionView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[EvolutionQuery],
        responses={200: EvolutionEventOutput(many=True), **_ERRORS},
        operation_id="list_market_evolution",
        description="How the agents' views of the market changed, signal to signal (direction changes, probability "
        "shifts, confidence changes, reasoning evolution), newest first.",
        summary="The evolution events detected on the market, newest first (optionally one agent's)",
        tags=["signals"],
    )
    def get(self, request, market_id: int):
        market = selectors.market_get(user=request.user, market_id=market_id)
        query = EvolutionQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        events = selectors.evolution_list(market=market, agent=query.validated_data.get("agent"))
        return paginated(self, events, EvolutionEventOutput)

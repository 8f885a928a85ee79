"""REST views of chat memory: the trader's facts, the chat tools, the chat endpoint."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.response import Response

from access.scope import transaction_unless_open
from chatmemory import chat, selectors, services
from chatmemory.models import FactSource
from chatmemory.serializers import (
    ChatInput,
    ChatOutput,
    FactArchiveInput,
    FactCreateInput,
    FactListQuery,
    FactOutput,
    FactUpdateInput,
)
from chatmemory.tool_errors import ToolInputError, ToolNotFound, ToolObjectNotFound
from chatmemory.tools import TOOLS, call_tool, tool_definitions
from ledger import selectors as ledger_selectors
from memorysite.api import UNAUTHORIZED, APIView, NoInput, Page, paginated

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such object among yours."),
}


def _django_errors(exc: DjangoValidationError) -> ValidationError:
    return ValidationError(exc.message_dict)


class FactListView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[FactListQuery],
        responses={200: FactOutput(many=True), **_ERRORS},
        operation_id="list_facts",
        description="What the coach knows about you (facts from chats and ones you added), most recently referenced "
        "first.",
        summary="Your facts, most recently referenced first (archived ones with ?archived=true or all)",
        tags=["facts"],
    )
    def get(self, request):
        query = FactListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        archived = {"false": False, "true": True, "all": None}[query.validated_data["archived"]]
        facts = selectors.fact_list(user=request.user, archived=archived, topic=query.validated_data.get("topic"))
        return paginated(self, facts, FactOutput)

    @extend_schema(
        request=FactCreateInput,
        responses={201: FactOutput, **_ERRORS},
        operation_id="create_fact",
        description="Add something the coach should know about you; it is in the coach's prompt from the next turn.",
        summary="Add a fact by hand (source 'profile'; asserted unless you say otherwise)",
        tags=["facts"],
    )
    def post(self, request):
        data = FactCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            fact = services.fact_create(owner=request.user, source=FactSource.PROFILE, **data.validated_data)
        except DjangoValidationError as exc:
            raise _django_errors(exc) from exc
        return Response(FactOutput(fact).data, status=status.HTTP_201_CREATED)


class FactDetailView(APIView):
    @extend_schema(
        responses={200: FactOutput, **_ERRORS},
        operation_id="get_fact",
        description="One fact, with where it came from and how sure the coach is.",
        summary="One of your facts",
        tags=["facts"],
    )
    def get(self, request, fact_id):
        return Response(FactOutput(selectors.fact_get(user=request.user, fact_id=fact_id)).data)

    @extend_schema(
        request=FactUpdateInput,
        responses={200: FactOutput, **_ERRORS},
        operation_id="update_fact",
        description="Change a fact's text, topic or confidence; fields not sent stay.",
        summary="Edit a fact's text, topic or confidence (promote inferred → asserted, or demote)",
        tags=["facts"],
    )
    def patch(self, request, fact_id):
        fact = selectors.fact_get(user=request.user, fact_id=fact_id)
        data = FactUpdateInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        try:
            fact = services.fact_update(fact, **data.validated_data)
        except DjangoValidationError as exc:
            raise _django_errors(exc) from exc
        return Response(FactOutput(fact).data)

    @extend_schema(
        responses={204: OpenApiResponse(description="Deleted for good."), **_ERRORS},
        operation_id="delete_fact",
        description="The fact is deleted and cannot be restored.",
        summary='Delete a fact for good ("forget me"); archiving keeps it, this does not',
        tags=["facts"],
    )
    def delete(self, request, fact_id):
        services.fact_delete(fact=selectors.fact_get(user=request.user, fact_id=fact_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class FactArchiveView(APIView):
    @extend_schema(
        request=FactArchiveInput,
        responses={200: FactOutput, **_ERRORS},
        operation_id="archive_fact",
        description="The coach stops using the fact; it stays listed (with `?archived=true`) and can be un-archived.",
        summary="Archive a fact: it leaves the coach's prompt and stays visible under Archived",
        tags=["facts"],
    )
    def post(self, request, fact_id):
        fact = selectors.fact_get(user=request.user, fact_id=fact_id)
        data = FactArchiveInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            fact = services.fact_archive(fact=fact, reason=data.validated_data["reason"])
        except DjangoValidationError as exc:
            raise _django_errors(exc) from exc
        return Response(FactOutput(fact).data)


class FactUnarchiveView(APIView):
    @extend_schema(
        request=None,
        responses={200: FactOutput, **_ERRORS},
        operation_id="unarchive_fact",
        description="The fact is back in the coach's prompt.",
        summary="Un-archive a fact",
        tags=["facts"],
    )
    def post(self, request, fact_id):
        fact = selectors.fact_get(user=request.user, fact_id=fact_id)
        NoInput(data=request.data).is_valid(raise_exception=True)
        try:
            fact = services.fact_unarchive(fact=fact)
        except DjangoValidationError as exc:
            raise _django_errors(exc) from exc
        return Response(FactOutput(fact).data)


# -- tools -----------------------------------------------------------------------------------------


class ToolListView(APIView):
    @extend_schema(
        responses={
            200: inline_serializer(
                "ToolList",
                {
                    "tools": serializers.ListField(
                        child=serializers.DictField(), help_text="name, description, input_schema (JSON Schema)"
                    )
                },
            ),
            401: _ERRORS[401],
        },
        operation_id="list_chat_tools",
        description="The tools the coach can call, each with its JSON-schema input: call one yourself with "
        "`call_chat_tool`.",
        summary="The chat tools and their JSON-schema inputs",
        tags=["chat"],
    )
    def get(self, request):
        return Response({"tools": tool_definitions()})


class ToolCallView(APIView):
    @extend_schema(
        request=OpenApiTypes.OBJECT,  # the tool's own input object (its JSON schema: GET /api/v1/chat/tools/)
        responses={
            200: OpenApiResponse(description="The tool's JSON result."),
            **_ERRORS,
            404: OpenApiResponse(description="No tool of that name."),
        },
        operation_id="call_chat_tool",
        summary="Run one chat tool for yourself with its JSON input (what the coach's tool calls run)",
        description="Tools: " + ", ".join(TOOLS) + ". See GET /api/v1/chat/tools/ for their input schemas.",
        tags=["chat"],
    )
    def post(self, request, name: str):
        try:
            return Response(call_tool(request.user, name, request.data))
        except ToolNotFound as exc:
            raise NotFound(f"no tool named {name!r}; tools: {', '.join(TOOLS)}") from exc
        except ToolObjectNotFound as exc:
            raise NotFound(str(exc)) from exc
        except ToolInputError as exc:
            raise ValidationError(exc.errors) from exc


# -- chat ------------------------------------------------------------------------------------------


class ChatView(APIView):
    @extend_schema(
        request=ChatInput,
        responses={
            200: ChatOutput,
            **_ERRORS,
            502: OpenApiResponse(description="The model could not be reached."),
            503: OpenApiResponse(description="No ANTHROPIC_API_KEY is configured: the chat has no offline engine."),
        },
        operation_id="chat",
        description="Send the conversation so far; the coach may call its tools on your data, then answers. Needs "
        "the service's ANTHROPIC_API_KEY (503 without it).",
        summary="One chat turn with the coach: it may call the chat tools for you, then answers",
        tags=["chat"],
    )
    def post(self, request):
        data = ChatInput(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction_unless_open():
            focus = _focus_lines(request.user, data.validated_data.get("focus") or {})
        try:
            turn = chat.chat_turn(
                user=request.user,
                messages=data.validated_data["messages"],
                mode=data.validated_data["mode"],
                focus=focus,
            )
        except chat.ChatUnavailable as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        except chat.ChatFailed as exc:
            return Response({"detail": f"the model could not be reached: {exc}"}, status=status.HTTP_502_BAD_GATEWAY)
        return Response(ChatOutput(turn).data)


def _focus_lines(user, focus: dict) -> tuple[str, ...]:
    """What the trader has open, as one-line text for the prompt's focus segment (owned objects only)."""
    lines = []
    if focus.get("deployment_id") is not None:
        deployment = ledger_selectors.deployment_get(user=user, deployment_id=focus["deployment_id"])
        version = deployment.skill_version
        lines.append(
            f"deployment {deployment.pk}: skill {version.skill.name!r} v{version.version}, {deployment.mode},"
            f" {deployment.status}"
        )
    if focus.get("skill_id") is not None:
        skill = ledger_selectors.skill_get(user=user, skill_id=focus["skill_id"])
        lines.append(f"skill {skill.pk}: {skill.name!r}")
    return tuple(lines)

"""What the MCP server does, transport aside: its tools and resources, run for one principal.

One implementation, two transports: the chat tools are `chatmemory.tools`' registry (same schemas,
serializers and handlers); the others call the owning app's answer (its `answers.py`) that the REST view
they share calls too (`get_trading_context` ↔ GET /api/v1/deployments/{id}/context/ ↔
`agentcontext.answers.context_answer`, `recall_search` ↔ POST /api/v1/recall/search/ ↔
`recall.answers.search_answer`, ...): it validates the input with the view's serializer and answers
with its body. Each tool takes that operation's OpenAPI input schema (mcpserver/schemas.py).
A refusal is an MCP tool error whose text is the REST 4xx body (`{"detail", "errors"?}`), produced by
the same exception handler (memorysite.api.exception_handler); another trader's object is "not
found", exactly like a missing one. Answers go to an agent: their text carries no invisible characters
(memorysite.text.strip_invisible_json).

Scope: every call runs in one transaction in the trader's scope (row-level security). Over stdio
that is `access.scope.owner_scope(user)` per call; over HTTP it is the request's own transaction
(scoped by DRF's authentication), and the call runs on the request's thread, in a savepoint, so a
refused call writes nothing. A runner token (`rt_…`) reaches what it may over REST: its own
deployment's context (tool `get_trading_context`, resource `memory://deployments/{id}/context`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import close_old_connections, connection, transaction
from django.http import Http404
from rest_framework import exceptions, serializers
from rest_framework.renderers import JSONRenderer

from access import scope
from agentcontext import answers as context_answers
from chatmemory import selectors as fact_selectors
from chatmemory import tools as chat_tools
from chatmemory.facts import render_facts_block
from chatmemory.tool_errors import ToolInputError, ToolObjectNotFound
from ledger import selectors as ledger_selectors
from ledger.auth import OUT_OF_SCOPE
from ledger.models import RunnerToken
from mcpserver.schemas import operation_description, operation_input_schema
from memorysite.api import NOT_FOUND, StrictSerializer, bounded_int, validated
from memorysite.api import exception_handler as rest_exception_handler
from memorysite.text import strip_invisible_json
from recall import answers as recall_answers
from research import answers as research_answers
from signals import answers as signal_answers

logger = logging.getLogger(__name__)

FACTS_URI = "memory://facts"
CONTEXT_URI = "memory://deployments/{deployment_id}/context"
_CONTEXT_URI = re.compile(r"^memory://deployments/(\d{1,18})/context$")
INTERNAL_ERROR = "internal error"


@dataclass(frozen=True)
class Principal:
    """Who is calling: a trader (account token or session) or a runner token bound to one deployment.

    `request_thread` is set over HTTP: the thread serving the request, whose transaction (already in
    the trader's scope) every call must run in."""

    user: User
    runner_deployment_id: int | None = None
    request_thread: int | None = None

    @classmethod
    def of(cls, user, auth, *, request_thread: int | None = None) -> Principal:
        deployment_id = auth.deployment_id if isinstance(auth, RunnerToken) else None
        return cls(user=user, runner_deployment_id=deployment_id, request_thread=request_thread)

    @property
    def is_runner(self) -> bool:
        return self.runner_deployment_id is not None


@dataclass(frozen=True)
class McpTool:
    name: str
    description: str
    input_schema: Callable[[], dict]
    handler: Callable[[Principal, dict], dict]
    runner: bool = False  # may a runner token call it (for its own deployment)?


# -- helpers -----------------------------------------------------------------------------------------


def _object(arguments) -> dict:
    """A tool's arguments are a JSON object (REST's own body check would word it differently)."""
    if not isinstance(arguments, dict):
        raise exceptions.ValidationError({"input": ["must be a JSON object"]})
    return arguments


def _json(data) -> dict:
    """Exactly what REST would send (DRF's renderer: decimals, dates and UUIDs as it writes them)."""
    return json.loads(JSONRenderer().render(data))


class DeploymentRef(StrictSerializer):
    deployment_id = bounded_int(1)


class MarketRef(serializers.Serializer):
    market_id = bounded_int(1)


def _owned_deployment(principal: Principal, deployment_id: int):
    """The deployment as the context endpoint finds it (RunnerTokenScope first for a runner token)."""
    if principal.is_runner and deployment_id != principal.runner_deployment_id:
        raise exceptions.NotFound(NOT_FOUND)
    return ledger_selectors.deployment_for_runner(user=principal.user, deployment_id=deployment_id)


# -- the tools sharing a REST operation ------------------------------------------------------------


def get_trading_context(principal: Principal, arguments: dict) -> dict:
    """GET /api/v1/deployments/{id}/context/ (agentcontext.api.ContextView)."""
    deployment_id = validated(DeploymentRef, _object(arguments))["deployment_id"]
    return context_answers.context_answer(deployment=_owned_deployment(principal, deployment_id))


def recall_search(principal: Principal, arguments: dict) -> dict:
    """POST /api/v1/recall/search/ (recall.api.SearchView)."""
    return recall_answers.search_answer(user=principal.user, data=_object(arguments))


def check_experiment(principal: Principal, arguments: dict) -> dict:
    """POST /api/v1/research/experiments/check/ (research.api.ExperimentCheckView)."""
    return research_answers.experiment_check_answer(user=principal.user, data=_object(arguments))


def record_experiment(principal: Principal, arguments: dict) -> dict:
    """POST /api/v1/research/experiments/ (research.api.ExperimentListView.post)."""
    return research_answers.experiment_record_answer(owner=principal.user, data=_object(arguments))


def get_analyst_memory(principal: Principal, arguments: dict) -> dict:
    """GET /api/v1/markets/{market_id}/memory/ (signals.api.MarketMemoryView): market_id plus its query."""
    query = dict(_object(arguments))
    market_id = validated(MarketRef, {"market_id": query.pop("market_id", None)})["market_id"]
    return signal_answers.market_memory_answer(user=principal.user, market_id=market_id, query=query)


# -- the chat tools --------------------------------------------------------------------------------


def _chat_tool(name: str) -> Callable[[Principal, dict], dict]:
    def run(principal: Principal, arguments: dict) -> dict:
        """As POST /api/v1/chat/tools/{name}/ (chatmemory.api.ToolCallView)."""
        try:
            return chat_tools.call_tool(principal.user, name, arguments)
        except ToolObjectNotFound as exc:
            raise exceptions.NotFound(str(exc)) from exc
        except ToolInputError as exc:
            raise exceptions.ValidationError(exc.errors) from exc

    return run


def _chat_schema(name: str) -> Callable[[], dict]:
    return lambda: chat_tools.TOOLS[name].input_schema


def _rest_schema(path: str, method: str) -> Callable[[], dict]:
    return lambda: operation_input_schema(path, method)


_CONTEXT_OP = ("/api/v1/deployments/{deployment_id}/context/", "get")
_REST_TOOLS = (
    ("get_trading_context", _CONTEXT_OP, get_trading_context, True),
    ("recall_search", ("/api/v1/recall/search/", "post"), recall_search, False),
    ("check_experiment", ("/api/v1/research/experiments/check/", "post"), check_experiment, False),
    ("record_experiment", ("/api/v1/research/experiments/", "post"), record_experiment, False),
    ("get_analyst_memory", ("/api/v1/markets/{market_id}/memory/", "get"), get_analyst_memory, False),
)
# Which REST operation each tool shares (tests compare the schemas; the chat tools share /api/v1/chat/tools/).
REST_OPERATIONS = {name: op for name, op, _handler, _runner in _REST_TOOLS}


TOOLS: dict[str, McpTool] = {
    **{
        name: McpTool(name, tool.description, _chat_schema(name), _chat_tool(name))
        for name, tool in chat_tools.TOOLS.items()
    },
    **{name: McpTool(name, "", _rest_schema(*op), handler, runner) for name, op, handler, runner in _REST_TOOLS},
}


def tool_description(tool: McpTool) -> str:
    if tool.name in REST_OPERATIONS:
        return operation_description(*REST_OPERATIONS[tool.name])
    return tool.description


def visible_tools(principal: Principal) -> list[McpTool]:
    return [tool for tool in TOOLS.values() if tool.runner or not principal.is_runner]


# -- running a call ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    body: dict
    is_error: bool = False
    status: int = 200


def error_body(exc: Exception) -> tuple[dict, int] | None:
    """The REST 4xx body and status for `exc` (memorysite.api.exception_handler), or None for a 5xx."""
    response = rest_exception_handler(exc, {})
    if response is None or response.status_code >= 500:
        return None
    return _json(response.data), response.status_code


def _in_scope(principal: Principal):
    """The call's transaction: its own in the trader's scope (stdio), or a savepoint of the request's."""
    if principal.request_thread is None:
        return scope.owner_scope(principal.user)
    current = scope.current()
    if (
        threading.get_ident() != principal.request_thread
        or not connection.in_atomic_block
        or current.owner_id != principal.user.pk
        or current.elevated
    ):
        raise RuntimeError("an MCP call over HTTP must run on its request's thread, in its scoped transaction")
    return transaction.atomic()


def run(principal: Principal, call: Callable[[], dict]) -> Outcome:
    """Run `call` in the principal's scope; a refusal rolls back what it wrote and becomes an error outcome."""
    if principal.request_thread is not None:
        return _run(principal, call)
    close_old_connections()  # stdio: each call is like a request (a dead pooled connection is replaced)
    try:
        return _run(principal, call)
    finally:
        close_old_connections()


def _run(principal: Principal, call: Callable[[], dict]) -> Outcome:
    with _in_scope(principal):
        try:
            return Outcome(strip_invisible_json(_json(call())))  # for an agent: no invisible characters
        except (exceptions.APIException, Http404, DjangoValidationError) as exc:
            transaction.set_rollback(True)
            body, status = error_body(exc) or ({"detail": INTERNAL_ERROR}, 500)
            return Outcome(body, is_error=True, status=status)
        except Exception:
            transaction.set_rollback(True)
            logger.exception("MCP call failed")
            return Outcome({"detail": INTERNAL_ERROR}, is_error=True, status=500)


def call_tool(principal: Principal, name: str, arguments) -> Outcome:
    tool = TOOLS.get(name)
    if tool is None:
        return Outcome({"detail": f"no tool named {name!r}; tools: {', '.join(TOOLS)}"}, is_error=True, status=404)
    if principal.is_runner and not tool.runner:
        return Outcome({"detail": OUT_OF_SCOPE}, is_error=True, status=403)
    return run(principal, lambda: tool.handler(principal, arguments if arguments is not None else {}))


# -- resources -----------------------------------------------------------------------------------


def facts_text(principal: Principal) -> str:
    """The trader's `## What I know about you` block, as the coach's prompt has it (no bump: a read)."""
    if principal.is_runner:
        raise exceptions.PermissionDenied(OUT_OF_SCOPE)
    facts = fact_selectors.facts_for_prompt(user=principal.user)
    return render_facts_block(fact_selectors.fact_lines(facts)) or ""


def deployment_context_resource(principal: Principal, deployment_id: int) -> dict:
    """The resource's text, and the sections that degraded (the server puts them in the contents' `_meta`, so
    a degraded text never reads as a complete one)."""
    answer = context_answers.context_answer(deployment=_owned_deployment(principal, deployment_id))
    return {"text": answer["text"], "degraded": answer["degraded"]}


def read_resource(principal: Principal, uri: str) -> Outcome:
    """A resource's text in `body["text"]` (for a context, its degraded sections in `body["degraded"]`), or the
    REST error body."""
    if uri == FACTS_URI:
        return run(principal, lambda: {"text": facts_text(principal)})
    match = _CONTEXT_URI.match(uri)
    if match is None:
        return Outcome({"detail": f"no resource {uri!r}"}, is_error=True, status=404)
    deployment_id = int(match.group(1))
    return run(principal, lambda: deployment_context_resource(principal, deployment_id))


def listed_deployments(principal: Principal) -> list[tuple[int, str]]:
    """The deployments whose context the principal may read, as (id, label): a runner token its own."""

    def deployments() -> dict:
        if principal.is_runner:
            ids = [principal.runner_deployment_id]
        else:
            deployments = ledger_selectors.deployment_list(user=principal.user)
            ids = list(deployments.values_list("id", flat=True)[: chat_tools.MAX_DEPLOYMENTS])
        return {"ids": ids}

    outcome = run(principal, deployments)
    return [] if outcome.is_error else [(pk, f"deployment {pk}: memory context") for pk in outcome.body["ids"]]

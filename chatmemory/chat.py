"""The chat coach's turn: compose the system prompt for a trader (facts included) and run the
Anthropic tool-use loop with the chat tools, executed server-side for that trader.

A turn waits on the model for seconds to minutes, so it holds no database transaction while it
does (the chat view runs without a request transaction): the prompt's reads, each tool call and
the closing bump of the injected facts are short transactions of their own. A tool's write (a fact
remembered or forgotten) stands even when a later model call fails; the facts are bumped only
when the turn answers."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from access.scope import transaction_unless_open
from chatmemory import selectors, services
from chatmemory.facts import FactLine
from chatmemory.prompt import ChatSystemSegments, compose_chat_system
from chatmemory.tool_errors import ToolInputError, ToolNotFound
from chatmemory.tools import call_tool, tool_definitions


@dataclass(frozen=True)
class ChatSystem:
    segments: ChatSystemSegments
    fact_ids: tuple  # the facts injected, in order
    fact_lines: tuple[FactLine, ...] = ()  # the same facts as the prompt states them


def chat_system(*, user, mode: str, focus: tuple[str, ...] = ()):
    """The chat system prompt for `user` (a read: previews change nothing; a chat turn that answers
    bumps last_referenced_at of exactly the injected facts, `fact_ids`)."""
    facts = selectors.facts_for_prompt(user=user)
    lines = selectors.fact_lines(facts)
    segments = compose_chat_system(facts=lines, mode=mode, focus=focus)
    return ChatSystem(segments=segments, fact_ids=tuple(fact.pk for fact in facts), fact_lines=tuple(lines))


def chat_available() -> bool:
    """Whether a chat turn can run here: the chat has no offline engine, it needs ANTHROPIC_API_KEY."""
    from django.conf import settings

    return bool(settings.ANTHROPIC_API_KEY)


# -- the tool-use loop ------------------------------------------------------------------------------

MAX_TOOL_ROUNDS = 8  # model calls per chat turn; the last one may not call tools any more
MAX_OUTPUT_TOKENS = 2048
TIMEOUT_S = 60.0
MAX_RETRIES = 2


CHAT_UNAVAILABLE = "chat needs a model: set ANTHROPIC_API_KEY (and optionally CHAT_MODEL)"


class ChatUnavailable(Exception):
    """No ANTHROPIC_API_KEY: the chat has no offline engine."""


class ChatFailed(Exception):
    """The model could not be reached (after the SDK's retries)."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    input: object
    result: dict | None
    error: str | None


@dataclass(frozen=True)
class ChatReply:
    reply: str
    tool_calls: tuple[ToolCall, ...]
    model: str
    stop_reason: str | None
    input_tokens: int  # not read from nor written to the prompt cache (the API's input_tokens)
    output_tokens: int
    system: ChatSystemSegments
    cache_read_input_tokens: int = 0  # read from Anthropic's prompt cache (billed at 0.1x input)
    cache_creation_input_tokens: int = 0  # written to it (billed at 1.25x input, 5-minute entries)
    facts: tuple[FactLine, ...] = ()  # the facts injected into this turn's system prompt, in order


def anthropic_client(http_client=None):
    import anthropic
    from django.conf import settings

    if not chat_available():
        raise ChatUnavailable(CHAT_UNAVAILABLE)
    return anthropic.Anthropic(
        api_key=settings.ANTHROPIC_API_KEY, max_retries=MAX_RETRIES, timeout=TIMEOUT_S, http_client=http_client
    )


def chat_turn(*, user, messages: list[dict], mode: str, focus: tuple[str, ...] = (), client=None) -> ChatReply:
    """One chat turn: the model answers `messages`, calling tools for `user` as it needs them."""
    import anthropic
    from django.conf import settings

    client = client or anthropic_client()
    with transaction_unless_open():
        system = chat_system(user=user, mode=mode, focus=focus)
    conversation = [dict(message) for message in messages]
    calls: list[ToolCall] = []
    input_tokens = output_tokens = cache_read = cache_creation = 0
    tools = tool_definitions()
    for round_no in range(MAX_TOOL_ROUNDS):
        last_round = round_no == MAX_TOOL_ROUNDS - 1
        try:
            response = client.messages.create(
                model=settings.CHAT_MODEL,
                max_tokens=MAX_OUTPUT_TOKENS,
                system=system.segments.system_blocks(),  # prompt-cache breakpoints: chatmemory.prompt
                messages=conversation,
                tools=tools,
                tool_choice={"type": "none"} if last_round else {"type": "auto"},
            )
        except anthropic.APIError as exc:
            raise ChatFailed(f"{type(exc).__name__}: {exc}") from exc
        input_tokens += response.usage.input_tokens
        output_tokens += response.usage.output_tokens
        cache_read += response.usage.cache_read_input_tokens or 0  # None from an API without caching
        cache_creation += response.usage.cache_creation_input_tokens or 0
        uses = [block for block in response.content if block.type == "tool_use"]
        if response.stop_reason != "tool_use" or not uses:
            reply = "".join(block.text for block in response.content if block.type == "text")
            with transaction_unless_open():
                services.facts_touch(fact_ids=list(system.fact_ids), at=timezone.now())
            return ChatReply(
                reply,
                tuple(calls),
                response.model,
                response.stop_reason,
                input_tokens,
                output_tokens,
                system.segments,
                cache_read_input_tokens=cache_read,
                cache_creation_input_tokens=cache_creation,
                facts=system.fact_lines,
            )
        conversation.append(
            {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in response.content]}
        )
        results = []
        for use in uses:
            try:
                with transaction.atomic():  # a refused call writes nothing
                    result = call_tool(user, use.name, use.input)
            except ToolNotFound:
                calls.append(ToolCall(use.name, use.input, None, f"unknown tool {use.name!r}"))
            except ToolInputError as exc:
                calls.append(ToolCall(use.name, use.input, None, str(exc)))
            else:
                calls.append(ToolCall(use.name, use.input, result, None))
            call = calls[-1]
            results.append(
                {
                    "type": "tool_result",
                    "tool_use_id": use.id,
                    "content": json.dumps(call.result if call.error is None else {"error": call.error}),
                    **({"is_error": True} if call.error is not None else {}),
                }
            )
        conversation.append({"role": "user", "content": results})
    raise ChatFailed("the model kept calling tools")  # unreachable: the last round forbids tools

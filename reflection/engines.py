"""Reflection engines: one interface, ``reflect(ReflectionInput) -> ReflectionResult``.

- ``AnthropicReflectionEngine``: the real Anthropic SDK (model from ``REFLECTION_MODEL``, or the skill
  version's ``reflection_model_override`` carried by the input). The system prompt goes as cached blocks
  (``build_reflection_system_blocks``); the cost counts cache reads and writes at their own prices. The SDK
  retries rate limits (429), overload and server errors (5xx) and timeouts with exponential
  backoff, honouring ``retry-after``; after the last retry the run fails cleanly with
  ``ReflectionFailed`` and the prior note stays active.
- ``StatisticalReflectionEngine``: the deterministic offline engine, the default when
  ``ANTHROPIC_API_KEY`` is unset.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Protocol, cast

from django.conf import settings

from reflection.core import (
    ReflectionFailed,
    ReflectionInput,
    ReflectionResult,
    build_reflection_system_blocks,
    build_reflection_user_message,
)
from reflection.statistical import StatisticalReflectionEngine

if TYPE_CHECKING:
    from anthropic.types import TextBlockParam

__all__ = ["AnthropicReflectionEngine", "ReflectionEngine", "StatisticalReflectionEngine", "default_engine"]

MAX_RETRIES = 4  # backoff 0.5, 1, 2, 4 s (jittered) unless the API says how long to wait
TIMEOUT_S = 60.0
MAX_OUTPUT_TOKENS = 1200  # ~2000 chars of lessons with room; longer output is rejected anyway

# USD per million tokens (input, output), by model-name prefix; unknown models record no cost.
# Prompt caching is priced off the input price (Anthropic's prompt-caching pricing, 5-minute entries):
# a cache write costs 1.25x it, a cache read 0.1x it; the API's input_tokens exclude both.
PRICES_PER_MTOK = {
    "claude-haiku-4-5": (Decimal("1"), Decimal("5")),
    "claude-3-5-haiku": (Decimal("0.80"), Decimal("4")),
    "claude-sonnet-4": (Decimal("3"), Decimal("15")),
    "claude-opus-4-1": (Decimal("15"), Decimal("75")),
    "claude-opus-4-5": (Decimal("5"), Decimal("25")),
    "claude-sonnet-5": (Decimal("2"), Decimal("10")),
    "claude-opus-5": (Decimal("5"), Decimal("25")),
    "claude-fable-5-1": (Decimal("10"), Decimal("50")),
}


CACHE_WRITE_MULTIPLIER = Decimal("1.25")
CACHE_READ_MULTIPLIER = Decimal("0.1")


class ReflectionEngine(Protocol):
    def reflect(self, inp: ReflectionInput) -> ReflectionResult: ...


def cost_usd(
    model: str, input_tokens: int, output_tokens: int, cache_read_tokens: int = 0, cache_write_tokens: int = 0
) -> Decimal | None:
    """USD of one call: uncached input and output at the model's prices, cache writes at 1.25x and cache
    reads at 0.1x the input price; None for a model with no known price."""
    for prefix in sorted(PRICES_PER_MTOK, key=len, reverse=True):
        if model.startswith(prefix):
            input_price, output_price = PRICES_PER_MTOK[prefix]
            input_units = (
                input_tokens + CACHE_WRITE_MULTIPLIER * cache_write_tokens + CACHE_READ_MULTIPLIER * cache_read_tokens
            )
            total = (input_price * input_units + output_price * output_tokens) / Decimal(1_000_000)
            return total.quantize(Decimal("0.000001"))
    return None


class AnthropicReflectionEngine:
    # The SDK is imported when an engine is made, not with this module: importing it costs ~2 s, which
    # every web server, worker and command would pay at start-up without ever reflecting.
    def __init__(self, *, api_key: str, model: str, http_client=None, max_retries: int = MAX_RETRIES):
        import anthropic

        self.model = model
        self.client = anthropic.Anthropic(
            api_key=api_key, max_retries=max_retries, timeout=TIMEOUT_S, http_client=http_client
        )

    def reflect(self, inp: ReflectionInput) -> ReflectionResult:
        import anthropic

        model = inp.model_override or self.model
        try:
            message = self.client.messages.create(
                model=model,
                max_tokens=MAX_OUTPUT_TOKENS,
                # plain dicts from the pure core, the shape of the SDK's TextBlockParam
                system=cast("list[TextBlockParam]", build_reflection_system_blocks(inp.avoid_rules)),
                messages=[{"role": "user", "content": build_reflection_user_message(inp)}],
            )
        except anthropic.APIError as exc:  # status errors after the last retry, connection errors, timeouts
            raise ReflectionFailed(f"{type(exc).__name__}: {exc}") from exc
        text = "".join(block.text for block in message.content if block.type == "text")
        usage = message.usage
        model_used = message.model or model
        cache_read = usage.cache_read_input_tokens or 0  # None from an API that reports no caching
        cache_write = usage.cache_creation_input_tokens or 0
        return ReflectionResult(
            text=text,
            model_used=model_used,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cost_usd=cost_usd(model_used, usage.input_tokens, usage.output_tokens, cache_read, cache_write),
            cache_read_input_tokens=cache_read,
            cache_creation_input_tokens=cache_write,
        )


def default_engine() -> ReflectionEngine:
    """Anthropic when a key is configured, the offline statistical engine otherwise."""
    if settings.ANTHROPIC_API_KEY:
        return AnthropicReflectionEngine(api_key=settings.ANTHROPIC_API_KEY, model=settings.REFLECTION_MODEL)
    return StatisticalReflectionEngine()

"""The Anthropic engine through the real SDK, with only its HTTP transport swapped for canned responses."""

from __future__ import annotations

import datetime as dt
import json
import logging
from decimal import Decimal

import httpx2
import pytest

from reflection import services
from reflection.core import (
    REFLECTION_INSTRUCTIONS,
    ReflectionFailed,
    ReflectionInput,
    build_reflection_system_blocks,
    build_reflection_system_prompt,
)
from reflection.engines import AnthropicReflectionEngine, cost_usd, default_engine
from reflection.models import NoteStatus, ReflectionNote
from tests.anthropic_stub import text_message
from tests.factories import DeploymentFactory
from tests.reflection.support import RoundTrip, trades

LESSONS = "### Entry timing\n- breakouts won 3 of 4 (+$42.10)\n### Sizing\n(no clear pattern yet)"
FAST_RETRY = {"retry-after-ms": "1"}  # the SDK honours it: retries without the real backoff wait


def message(text: str = LESSONS, model: str = "claude-haiku-4-5-20251001", **cache) -> dict:
    return text_message(text, model=model, input_tokens=1200, output_tokens=300, **cache)


def error(status: int, kind: str) -> httpx2.Response:
    body = {"type": "error", "error": {"type": kind, "message": f"canned {kind}"}}
    return httpx2.Response(status, json=body, headers=FAST_RETRY)


class Transport:
    """Serves the scripted responses in order and records every request the SDK sent."""

    def __init__(self, *responses):
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        response = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        return response if isinstance(response, httpx2.Response) else httpx2.Response(200, json=response)


def engine(transport: Transport, max_retries: int = 3) -> AnthropicReflectionEngine:
    client = httpx2.Client(transport=httpx2.MockTransport(transport))
    return AnthropicReflectionEngine(
        api_key="sk-test", model="claude-haiku-4-5", http_client=client, max_retries=max_retries
    )


INPUT = ReflectionInput(
    trades=(), strategy_text="Buy breakouts.", avoid_rules=("never trade DOGE",), active_lessons=None
)


def test_a_canned_response_becomes_a_result_with_usage_and_cost():
    transport = Transport(message())
    result = engine(transport).reflect(INPUT)
    assert result.text == LESSONS
    assert result.model_used == "claude-haiku-4-5-20251001"
    assert (result.input_tokens, result.output_tokens) == (1200, 300)
    assert result.cost_usd == Decimal("0.002700")  # 1200 × $1/MTok + 300 × $5/MTok
    [request] = transport.requests
    assert request.url.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer sk-test"
    body = json.loads(request.content)
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == build_reflection_system_blocks(["never trade DOGE"])
    assert "\n\n".join(block["text"] for block in body["system"]) == build_reflection_system_prompt(
        ["never trade DOGE"]
    )
    assert body["messages"][0]["role"] == "user"
    assert "## Active strategy (snippet)\nBuy breakouts." in body["messages"][0]["content"]


def test_the_system_prompt_is_sent_as_cached_blocks_the_same_for_every_run():
    """The instructions, then the skill version's avoid rules, each ending in a cache breakpoint: byte for
    byte the same whatever the trades, so every run after the first reads them from the prompt cache."""
    transport = Transport(message())
    other_run = ReflectionInput(
        trades=(), strategy_text="Fade spikes.", avoid_rules=("never trade DOGE",), active_lessons=LESSONS
    )
    engine(transport).reflect(INPUT)
    engine(transport).reflect(other_run)
    first, second = (json.loads(request.content) for request in transport.requests)
    breakpoint_ = {"type": "ephemeral"}
    assert first["system"] == [
        {"type": "text", "text": REFLECTION_INSTRUCTIONS, "cache_control": breakpoint_},
        {
            "type": "text",
            "text": "The trader's avoid rules (authoritative; do not restate them):\n- never trade DOGE",
            "cache_control": breakpoint_,
        },
    ]
    assert second["system"] == first["system"]
    assert first["messages"] != second["messages"]  # what changes between runs is in the user message
    # no avoid rules: the instructions alone, still cached (the same block for every trader's runs)
    engine(transport).reflect(ReflectionInput(trades=(), strategy_text="x", avoid_rules=(), active_lessons=None))
    assert json.loads(transport.requests[2].content)["system"] == first["system"][:1]


def test_cache_reads_and_writes_are_recorded_and_priced_at_their_multipliers():
    read = engine(Transport(message(cache_read=4000, cache_creation=0))).reflect(INPUT)
    assert (read.input_tokens, read.cache_read_input_tokens, read.cache_creation_input_tokens) == (1200, 4000, 0)
    assert read.cost_usd == Decimal("0.003100")  # (1200 + 0.1 × 4000) × $1/MTok + 300 × $5/MTok
    written = engine(Transport(message(cache_read=0, cache_creation=4000))).reflect(INPUT)
    assert (written.cache_read_input_tokens, written.cache_creation_input_tokens) == (0, 4000)
    assert written.cost_usd == Decimal("0.007700")  # (1200 + 1.25 × 4000) × $1/MTok + 300 × $5/MTok
    plain = engine(Transport(message())).reflect(INPUT)  # an answer without cache counts: none
    assert (plain.cache_read_input_tokens, plain.cache_creation_input_tokens, plain.cost_usd) == (
        0,
        0,
        Decimal("0.002700"),
    )
    assert cost_usd("claude-sonnet-4-5", 1_000_000, 0, cache_read_tokens=1_000_000) == Decimal("3.300000")
    assert cost_usd("claude-sonnet-4-5", 0, 0, cache_write_tokens=1_000_000) == Decimal("3.750000")


def test_the_inputs_model_override_replaces_the_engines_model():
    transport = Transport(message(model="claude-sonnet-5-20260101"))
    result = engine(transport).reflect(
        ReflectionInput(
            trades=(), strategy_text="x", avoid_rules=(), active_lessons=None, model_override="claude-sonnet-5"
        )
    )
    assert json.loads(transport.requests[0].content)["model"] == "claude-sonnet-5"
    assert result.model_used == "claude-sonnet-5-20260101"
    assert result.cost_usd == Decimal("0.005400")  # priced as claude-sonnet-5: 1200 × $2/MTok + 300 × $10/MTok


def test_a_rate_limit_is_retried_then_succeeds():
    transport = Transport(error(429, "rate_limit_error"), message())
    assert engine(transport).reflect(INPUT).text == LESSONS
    assert len(transport.requests) == 2


def test_overload_is_retried_too():
    transport = Transport(error(529, "overloaded_error"), error(503, "api_error"), message())
    assert engine(transport).reflect(INPUT).text == LESSONS
    assert len(transport.requests) == 3


def test_server_errors_until_the_last_retry_fail_cleanly():
    transport = Transport(error(500, "api_error"))
    with pytest.raises(ReflectionFailed, match="InternalServerError"):
        engine(transport, max_retries=3).reflect(INPUT)
    assert len(transport.requests) == 4  # the first try and three retries


def test_a_bad_request_is_not_retried():
    transport = Transport(error(400, "invalid_request_error"), message())
    with pytest.raises(ReflectionFailed, match="BadRequestError"):
        engine(transport).reflect(INPUT)
    assert len(transport.requests) == 1


def test_cost_is_unknown_for_unpriced_models():
    assert cost_usd("claude-sonnet-4-5-20250929", 1_000_000, 0) == Decimal("3.000000")
    assert cost_usd("some-other-model", 10, 10) is None


def test_the_default_engine_is_anthropic_only_with_a_key(settings):
    settings.ANTHROPIC_API_KEY = ""
    assert type(default_engine()).__name__ == "StatisticalReflectionEngine"
    settings.ANTHROPIC_API_KEY = "sk-live"
    settings.REFLECTION_MODEL = "claude-haiku-4-5"
    chosen = default_engine()
    assert isinstance(chosen, AnthropicReflectionEngine) and chosen.model == "claude-haiku-4-5"


# -- through the service ----------------------------------------------------------------------------


@pytest.fixture
def deployment(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    trades(deployment, [RoundTrip(), RoundTrip(exit=99), RoundTrip(symbol="ETH", entry=10, exit=11)])
    return deployment


@pytest.mark.django_db
def test_a_run_stores_the_models_lessons_with_model_tokens_and_cost(deployment):
    note = services.reflection_run(deployment_id=deployment.pk, engine=engine(Transport(message())))
    assert note is not None
    stored = ReflectionNote.objects.get(pk=note.pk)
    assert stored.lessons_text == LESSONS
    assert stored.model_used == "claude-haiku-4-5-20251001"
    assert (stored.input_tokens, stored.output_tokens, stored.cost_usd) == (1200, 300, Decimal("0.002700"))
    assert (stored.cache_read_input_tokens, stored.cache_creation_input_tokens) == (0, 0)
    assert stored.trades_considered == 3
    assert stored.status == NoteStatus.ACTIVE


@pytest.mark.django_db
def test_a_failed_run_logs_a_warning_and_keeps_the_prior_note(deployment, caplog):
    prior = services.reflection_run(deployment_id=deployment.pk, engine=engine(Transport(message())))
    deployment.refresh_from_db()
    trades(deployment, [RoundTrip(exit=105)], start=deployment.latest_tick_at + dt.timedelta(hours=1))
    failing = Transport(error(500, "api_error"))
    with caplog.at_level(logging.WARNING, logger="reflection.services"):
        assert services.reflection_run(deployment_id=deployment.pk, engine=engine(failing, max_retries=2)) is None
    assert len(failing.requests) == 3
    assert "failed; prior lessons stay active" in caplog.text
    assert list(ReflectionNote.objects.values_list("pk", "status")) == [(prior.pk, NoteStatus.ACTIVE)]
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == prior.content_hash


@pytest.mark.django_db
def test_a_run_records_the_prompt_caches_tokens_and_their_cost(deployment):
    transport = Transport(message(cache_read=2500, cache_creation=300))
    note = services.reflection_run(deployment_id=deployment.pk, engine=engine(transport))
    stored = ReflectionNote.objects.get(pk=note.pk)
    assert (stored.input_tokens, stored.cache_read_input_tokens, stored.cache_creation_input_tokens) == (
        1200,
        2500,
        300,
    )
    assert stored.cost_usd == Decimal("0.003325")  # (1200 + 0.1 × 2500 + 1.25 × 300) × $1 + 300 × $5, per MTok


@pytest.mark.django_db
def test_the_skill_versions_model_override_is_the_model_reflection_asks_for(owner):
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner, skill_version__reflection_model_override="claude-sonnet-5"
    )
    trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    transport = Transport(message(model="claude-sonnet-5-20260101"))
    note = services.reflection_run(deployment_id=deployment.pk, engine=engine(transport))
    assert json.loads(transport.requests[0].content)["model"] == "claude-sonnet-5"
    assert ReflectionNote.objects.get(pk=note.pk).model_used == "claude-sonnet-5-20260101"
    # a version without one: the engine's own model (REFLECTION_MODEL in default_engine)
    plain = DeploymentFactory(skill_version__skill__owner=owner)
    trades(plain, [RoundTrip()])
    services.reflection_run(deployment_id=plain.pk, engine=engine(transport))
    assert json.loads(transport.requests[1].content)["model"] == "claude-haiku-4-5"

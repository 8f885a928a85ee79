"""The Anthropic engine through the real SDK, with only its HTTP transport swapped for canned responses."""

from __future__ import annotations

import datetime as dt
import json
import logging
from decimal import Decimal

import httpx2
import pytest

from reflection import services
from reflection.core import ReflectionFailed, ReflectionInput, build_reflection_system_prompt
from reflection.engines import AnthropicReflectionEngine, cost_usd, default_engine
from reflection.models import NoteStatus, ReflectionNote
from tests.anthropic_stub import text_message
from tests.factories import DeploymentFactory
from tests.reflection.support import RoundTrip, trades

LESSONS = "### Entry timing\n- breakouts won 3 of 4 (+$42.10)\n### Sizing\n(no clear pattern yet)"
FAST_RETRY = {"retry-after-ms": "1"}  # the SDK honours it: retries without the real backoff wait


def message(text: str = LESSONS, model: str = "claude-haiku-4-5-20251001") -> dict:
    return text_message(text, model=model, input_tokens=1200, output_tokens=300)


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
    assert body["system"] == build_reflection_system_prompt(["never trade DOGE"])
    assert body["messages"][0]["role"] == "user"
    assert "## Active strategy (snippet)\nBuy breakouts." in body["messages"][0]["content"]


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

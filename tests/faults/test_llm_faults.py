"""The LLM endpoint hanging or failing during a reflection run.

The run goes through the real task, the real `default_engine()` and the real Anthropic SDK with
the product's retry policy; only the SDK's HTTP transport is swapped for one that counts every
attempt and then either answers with a canned error or goes over the network to a local socket
that refuses or never answers. Each fault must end the same way: the SDK retried with backoff, the
run failed cleanly (a warning, no note, no exception out of the task) and the prior lessons note
is still the active one the agent's context serves.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import socket
import threading
import time

import httpx2
import pytest

from agentcontext.prompt import lessons_bullets
from reflection import engines
from reflection.engines import MAX_RETRIES, AnthropicReflectionEngine
from reflection.models import NoteStatus, ReflectionNote
from reflection.services import reflection_run
from reflection.statistical import StatisticalReflectionEngine
from reflection.tasks import run_reflection
from tests.factories import DeploymentFactory
from tests.reflection.support import RoundTrip, trades

pytestmark = pytest.mark.django_db

CLIENT_TIMEOUT_S = 0.3  # the product's is 60 s; a hang "beyond the timeout" need not last a minute here


class CountingTransport(httpx2.BaseTransport):
    """Records when each attempt starts, then hands it to `inner` (a canned answer or the network)."""

    def __init__(self, inner: httpx2.BaseTransport):
        self.inner = inner
        self.attempts: list[float] = []

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        self.attempts.append(time.monotonic())
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def canned(status: int, kind: str) -> httpx2.MockTransport:
    body = {"type": "error", "error": {"type": kind, "message": f"canned {kind}"}}
    return httpx2.MockTransport(lambda request: httpx2.Response(status, json=body, headers={"retry-after-ms": "1"}))


@contextlib.contextmanager
def refusing_port():
    """A local port nobody listens on: every connection attempt is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def silent_server():
    """Accepts connections and reads requests, never answers: the model hangs."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        listener.settimeout(0.1)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for connection in held:
            connection.close()
        listener.close()


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__reflection_cadence="daily")


@pytest.fixture
def prior_note(deployment):
    """An active note over the first two trades; then two more closed trades wait for a new run."""
    last = trades(deployment, [RoundTrip(), RoundTrip(exit=99)])
    note = reflection_run(deployment_id=deployment.pk, engine=StatisticalReflectionEngine())
    trades(
        deployment, [RoundTrip(exit=104), RoundTrip(symbol="ETH", entry=10, exit=9)], start=last + dt.timedelta(hours=1)
    )
    return note


def use_transport(monkeypatch, settings, transport: CountingTransport, base_url: str = "http://llm.invalid") -> None:
    """The product's default_engine() with a key set, its SDK client on our transport."""
    settings.ANTHROPIC_API_KEY = "sk-faults-test"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    monkeypatch.setattr(engines, "TIMEOUT_S", CLIENT_TIMEOUT_S)
    real_init = AnthropicReflectionEngine.__init__

    def on_our_transport(self, **kwargs):
        real_init(self, **kwargs, http_client=httpx2.Client(transport=transport))

    monkeypatch.setattr(AnthropicReflectionEngine, "__init__", on_our_transport)


def run_the_task_and_check_it_failed_cleanly(deployment, prior, api, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="reflection.services"):
        result = run_reflection.apply(args=[deployment.pk])
    assert result.successful(), result.traceback  # nothing escaped the task
    assert result.result is None  # no note
    assert f"reflection for deployment {deployment.pk} failed; prior lessons stay active" in caplog.text
    assert list(ReflectionNote.objects.filter(deployment=deployment).values_list("pk", "status")) == [
        (prior.pk, NoteStatus.ACTIVE)
    ]
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == prior.content_hash
    context = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert context.status_code == 200
    assert context.json()["system_prompt"]["segments"]["lessons"].endswith(
        "\n".join(lessons_bullets(prior.lessons_text))
    )


@pytest.mark.parametrize(
    ("status", "kind", "error_name"),
    [(529, "overloaded_error", "OverloadedError"), (500, "api_error", "InternalServerError")],
)
def test_an_overloaded_or_failing_api_is_retried_then_the_run_fails_cleanly(
    status, kind, error_name, deployment, prior_note, owner_api, monkeypatch, settings, caplog
):
    transport = CountingTransport(canned(status, kind))
    use_transport(monkeypatch, settings, transport)
    run_the_task_and_check_it_failed_cleanly(deployment, prior_note, owner_api, caplog)
    assert len(transport.attempts) == 1 + MAX_RETRIES
    assert error_name in caplog.text


def test_refused_connections_are_retried_with_growing_backoff(
    deployment, prior_note, owner_api, monkeypatch, settings, caplog
):
    transport = CountingTransport(httpx2.HTTPTransport())
    with refusing_port() as url:
        use_transport(monkeypatch, settings, transport, base_url=url)
        run_the_task_and_check_it_failed_cleanly(deployment, prior_note, owner_api, caplog)
    assert len(transport.attempts) == 1 + MAX_RETRIES
    assert "APIConnectionError" in caplog.text
    gaps = [later - earlier for earlier, later in zip(transport.attempts, transport.attempts[1:], strict=False)]
    # The SDK's exponential backoff: 0.5, 1, 2, 4 s, each less up to a quarter of jitter.
    for gap, nominal in zip(gaps, [0.5, 1, 2, 4], strict=True):
        assert 0.75 * nominal - 0.05 <= gap <= nominal + 0.5, gaps


def test_a_model_that_never_answers_times_out_each_attempt_then_the_run_fails_cleanly(
    deployment, prior_note, owner_api, monkeypatch, settings, caplog
):
    transport = CountingTransport(httpx2.HTTPTransport())
    with silent_server() as url:
        use_transport(monkeypatch, settings, transport, base_url=url)
        started = time.monotonic()
        run_the_task_and_check_it_failed_cleanly(deployment, prior_note, owner_api, caplog)
        elapsed = time.monotonic() - started
    assert len(transport.attempts) == 1 + MAX_RETRIES
    assert "APITimeoutError" in caplog.text
    gaps = [later - earlier for earlier, later in zip(transport.attempts, transport.attempts[1:], strict=False)]
    assert all(gap >= CLIENT_TIMEOUT_S for gap in gaps), gaps  # each attempt waited out the client timeout
    assert elapsed < 30  # bounded: the run gives up, it does not hang with the model

"""The API's per-token throttle (issue 16 §3): a 429 with Retry-After past the rate, never for a runner
ticking every second. The throttle's clock is moved instead of sleeping; its counters are the real Redis'."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from memorysite import settings as service_settings
from memorysite.throttles import TokenRateThrottle
from tests.errors import error_body

SERVICE_RATE = {
    "API_THROTTLE_REQUESTS": service_settings.API_THROTTLE_REQUESTS,
    "API_THROTTLE_WINDOW_S": service_settings.API_THROTTLE_WINDOW_S,
}
T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock(2_000_000_000.0)  # a window boundary (a multiple of 10 s)
    monkeypatch.setattr(TokenRateThrottle, "clock", clock)
    return clock


@pytest.fixture
def runner(owner_api, deployment):
    created = owner_api.post(f"/api/v1/deployments/{deployment.pk}/runner-tokens/", {"name": "vps"}, format="json")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {created.json()['key']}")
    return client


@override_settings(API_THROTTLE_REQUESTS=5, API_THROTTLE_WINDOW_S=10)
def test_past_the_rate_a_token_gets_a_429_with_retry_after_naming_the_rule(owner_api, other_api, clock):
    clock.now += 3
    for _ in range(5):
        assert owner_api.get("/api/v1/skills/").status_code == 200
    response = owner_api.get("/api/v1/skills/")
    assert response.status_code == 429
    assert response["Retry-After"] == "7"
    assert error_body(response) == {
        "detail": "too many requests with this token: at most 5 every 10 seconds. Expected available in 7 seconds."
    }
    assert other_api.get("/api/v1/skills/").status_code == 200  # another token (another trader) is not held
    clock.now += 7
    assert owner_api.get("/api/v1/skills/").status_code == 200  # the next window


@override_settings(API_THROTTLE_REQUESTS=5, API_THROTTLE_WINDOW_S=10)
def test_each_token_of_one_trader_has_its_own_count(owner_api, runner, deployment, clock):
    for _ in range(5):
        owner_api.get("/api/v1/skills/")
    assert owner_api.get("/api/v1/skills/").status_code == 429
    assert runner.get(f"/api/v1/deployments/{deployment.pk}/trades/").status_code == 200


@override_settings(**SERVICE_RATE)
def test_a_runner_ticking_every_second_is_never_throttled_but_a_flood_is(runner, deployment, clock):
    base = f"/api/v1/deployments/{deployment.pk}"
    position = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    for second in range(30):  # tick, context and a fill every second, for three windows
        clock.now += 1
        tick_at = (T0 + dt.timedelta(seconds=second)).isoformat()
        tick = {"tick_at": tick_at, "equity_usd": 10_000, "positions": [position]}
        assert runner.post(f"{base}/ticks/", tick, format="json").status_code == 201
        assert runner.get(f"{base}/context/").status_code == 200
        fill = {"symbol": "BTC", "fees_usd": 0.1, "filled_at": tick_at}
        assert runner.post(f"{base}/fills/", fill, format="json").status_code in (200, 201)
    answers = [runner.get(f"{base}/trades/").status_code for _ in range(service_settings.API_THROTTLE_REQUESTS)]
    assert answers[-1] == 429
    assert 200 in answers

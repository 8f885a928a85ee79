"""Analyst memory's switches (seed § Deployment): enabled, max_signals, timeout_ms, retries — environment, or
staff's row in admin, which wins and is followed at once."""

import datetime as dt
import threading
import time
from decimal import Decimal

import psycopg
import pytest
from django.core.cache import cache
from django.db import utils

from signals import answers, selectors, services
from signals.models import MemoryRetrievalAudit, MemorySettings
from tests.factories import token_client
from tests.workers import database_url_of_test_db

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
AGENT = "market_microstructure"
NO_HISTORY = "No previous analysis available"


@pytest.fixture(autouse=True)
def switches_forgotten():
    """No test sees another's cached switches (the cache outlives a test's rolled-back row)."""
    cache.delete(selectors.switches_cache_key())
    yield
    cache.delete(selectors.switches_cache_key())


def _market_with_signals(owner, count: int = 4):
    for minutes in range(count):
        signal, _ = services.signal_store(
            owner=owner, now=T0 + dt.timedelta(minutes=minutes), condition_id="0xabc", agent_name=AGENT,
            agent_type="analyst", direction="YES", fair_probability=Decimal("0.6"), confidence=Decimal("0.7"),
            key_drivers=["ETF inflows"], metadata={},
        )  # fmt: skip
    return signal.market


def _save(**fields) -> None:
    services.memory_settings_save(row=MemorySettings(**{"enabled": True, **fields}))


@pytest.mark.django_db
def test_switched_off_in_the_environment_memory_is_empty_and_no_query_runs(owner, settings, django_assert_num_queries):
    market = _market_with_signals(owner)
    settings.SIGNALS_MEMORY_ENABLED = False
    selectors.memory_switches()  # read once (no row: the environment's), then from the cache
    with django_assert_num_queries(0):
        body = answers.market_memory_answer(user=owner, market_id=market.pk, query={"agents": AGENT, "limit": "5"})
    assert body["enabled"] is False and body["degraded"] is False
    assert body["agents"][AGENT]["signals"] == [] and NO_HISTORY in body["agents"][AGENT]["text"]
    with django_assert_num_queries(0):
        outcome = services.memory_for_agents(market=market, agent_names=[AGENT], limit=3)
    assert outcome.agents_with_history == 0
    assert MemoryRetrievalAudit.objects.count() == 0  # nothing retrieved, nothing audited


@pytest.mark.django_db
def test_the_api_says_memory_is_off_and_still_validates_the_query(owner, settings):
    market = _market_with_signals(owner)
    settings.SIGNALS_MEMORY_ENABLED = False
    api = token_client(owner)
    response = api.get(f"/api/v1/markets/{market.pk}/memory/", {"agents": AGENT})
    assert response.status_code == 200 and response.json()["enabled"] is False
    bad = api.get(f"/api/v1/markets/{market.pk}/memory/", {"agents": AGENT, "limit": "9"})
    assert bad.status_code == 400 and "limit" in bad.json()["detail"]


@pytest.mark.django_db
def test_staffs_row_wins_over_the_environment_and_is_followed_at_once(
    owner, settings, staff_client, django_capture_on_commit_callbacks
):
    market = _market_with_signals(owner)
    query = {"agents": AGENT, "limit": "5"}
    assert settings.SIGNALS_MEMORY_ENABLED is True
    assert (
        len(answers.market_memory_answer(user=owner, market_id=market.pk, query=query)["agents"][AGENT]["signals"]) == 4
    )
    selectors.memory_switches()  # cached as the environment says
    # (an unchecked box is "off")

    # Saved in admin (as staff): off, at once, though the environment says on and the old switches were cached.
    def as_committed(url: str, data: dict):
        with django_capture_on_commit_callbacks(execute=True):  # what the admin request's commit runs
            return staff_client.post(url, data)

    add = as_committed("/admin/signals/memorysettings/add/", {"max_signals": 5, "timeout_ms": 5000, "retries": 3})
    assert add.status_code == 302, add.content.decode()
    assert MemorySettings.objects.get().enabled is False
    assert answers.market_memory_answer(user=owner, market_id=market.pk, query=query)["enabled"] is False

    # On again, capped at two signals per agent whatever the request's limit.
    change = as_committed(
        "/admin/signals/memorysettings/1/change/",
        {"enabled": "on", "max_signals": 2, "timeout_ms": 5000, "retries": 3},
    )
    assert change.status_code == 302
    body = answers.market_memory_answer(user=owner, market_id=market.pk, query=query)
    assert body["enabled"] is True and len(body["agents"][AGENT]["signals"]) == 2

    # A value out of range is refused with the field named; deleting the row gives the environment back.
    refused = staff_client.post(
        "/admin/signals/memorysettings/1/change/", {"enabled": "on", "max_signals": 9, "timeout_ms": 5000, "retries": 3}
    )
    assert refused.status_code == 200 and "Ensure this value is less than or equal to 5" in refused.content.decode()
    assert as_committed("/admin/signals/memorysettings/1/delete/", {"post": "yes"}).status_code == 302
    body = answers.market_memory_answer(user=owner, market_id=market.pk, query=query)
    assert len(body["agents"][AGENT]["signals"]) == 4


@pytest.mark.django_db(transaction=True)
def test_the_timeout_switch_bounds_the_retrieval(owner):
    market = _market_with_signals(owner, count=1)
    _save(timeout_ms=200)
    locked, release = threading.Event(), threading.Event()

    def hold_lock():
        with psycopg.connect(database_url_of_test_db()) as other, other.transaction():
            other.execute("LOCK TABLE agent_signals IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(10)

    holder = threading.Thread(target=hold_lock)
    holder.start()
    try:
        assert locked.wait(10)
        started = time.monotonic()
        body = answers.market_memory_answer(user=owner, market_id=market.pk, query={"agents": AGENT})
        waited = time.monotonic() - started
    finally:
        release.set()
        holder.join()
    assert body["degraded"] is True and waited < 2  # 200 ms, not the environment's 5 s
    assert MemoryRetrievalAudit.objects.get().error_type == "timeout"


@pytest.mark.django_db
@pytest.mark.parametrize("retries", [0, 2])
def test_the_retries_switch_bounds_retries_of_a_refused_retrieval(owner, retries):
    _save(retries=retries)
    attempts = []

    def refused():  # PostgreSQL refusing for too many clients, as psycopg raises it through Django
        attempts.append(1)
        error = psycopg.errors.TooManyConnections("sorry, too many clients already")
        raise utils.OperationalError(str(error)) from error

    outcome = selectors.RetrievalOutcome()
    assert selectors._under_retry_policy(refused, outcome, "test read", None) is None
    assert (len(attempts), outcome.retry_attempts, outcome.error_type) == (retries + 1, retries, "rate_limit")

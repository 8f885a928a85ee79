"""The analyst-memory API on the real database: storing, retrieval properties, isolation, degradation."""

from __future__ import annotations

import datetime as dt
import json
import threading
from decimal import Decimal

import psycopg
import pytest
from django.db import connection
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.django import TestCase as HypothesisTestCase

from signals import services
from signals.memory import MAX_SIGNALS, NO_HISTORY_TEXT
from signals.models import AgentSignal, Market, MemoryRetrievalAudit, SignalEvolutionEvent
from tests.dbroles import owner_connection
from tests.factories import UserFactory, token_client
from tests.openapi import assert_matches_schema
from tests.workers import database_url_of_test_db

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
SIGNAL = {
    "agent_name": "market_microstructure",
    "agent_type": "analyst",
    "condition_id": "0xabc",
    "question": "Will BTC close above $100k on June 30?",
    "direction": "YES",
    "fair_probability": 0.62,
    "confidence": 0.7,
    "key_drivers": ["ETF inflows", "funding neutral"],
    "metadata": {"model": "m1"},
}


def store(owner, at_minutes: int, **overrides):
    fields = {**SIGNAL, **overrides}
    fields["fair_probability"] = Decimal(str(fields["fair_probability"]))
    fields["confidence"] = Decimal(str(fields["confidence"]))
    return services.signal_store(owner=owner, now=T0 + dt.timedelta(minutes=at_minutes), **fields)


def memory(api, market_id, status=200, **query):
    params = {"agents": "market_microstructure", **query}
    response = api.get(f"/api/v1/markets/{market_id}/memory/", params)
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


# -- storing ------------------------------------------------------------------------------------------


def test_a_signal_is_stored_with_its_market_and_evolution_events(owner_api, owner):
    first = owner_api.post("/api/v1/signals/", SIGNAL, format="json")
    assert first.status_code == 201, first.content
    assert_matches_schema(first)
    body = first.json()
    assert body["evolution_events"] == []
    market = Market.objects.get(pk=body["market_id"])
    assert (market.owner, market.condition_id, market.question) == (owner, "0xabc", SIGNAL["question"])
    changed = {**SIGNAL, "direction": "NO", "fair_probability": 0.4, "confidence": 0.95, "key_drivers": ["war"]}
    second = owner_api.post("/api/v1/signals/", changed, format="json").json()
    assert second["market_id"] == market.pk
    assert [event["type"] for event in second["evolution_events"]] == [
        "direction_change",
        "probability_shift",
        "confidence_change",
        "reasoning_evolution",
    ]
    shift = second["evolution_events"][1]
    assert (shift["previous_value"], shift["current_value"], shift["market_id"]) == (0.62, 0.4, market.pk)
    assert SignalEvolutionEvent.objects.filter(signal_id=second["id"]).count() == 4
    stored = AgentSignal.objects.get(pk=second["id"])
    assert (stored.fair_probability, stored.confidence) == (Decimal("0.4000"), Decimal("0.95"))


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"fair_probability": 1.5}, "fair_probability", "between 0 and 1"),
        ({"fair_probability": -0.01}, "fair_probability", "between 0 and 1"),
        ({"fair_probability": 1e30}, "fair_probability", "between 0 and 1"),  # too big to quantize: was a 500
        ({"confidence": -1e30}, "confidence", "between 0 and 1"),
        ({"confidence": "high"}, "confidence", "between 0 and 1"),
        ({"direction": "MAYBE"}, "direction", "must be one of YES, NO, NEUTRAL"),
        ({"key_drivers": [f"driver {n}" for n in range(10_000)]}, "key_drivers", "at most 50 key drivers"),
        ({"key_drivers": ["ok", "two\nlines"]}, "key_drivers.1", "single line"),
        ({"key_drivers": "ETF inflows"}, "key_drivers", "list"),
        ({"metadata": ["not", "an", "object"]}, "metadata", "must be a JSON object"),
        ({"metadata": {"note": {"deep": ["ok", "nul\u0000here"]}}}, "metadata", "NUL characters"),
        ({"agent_name": ""}, "agent_name", "blank"),
        ({"agent_name": "evil\u202eagent"}, "agent_name", "control"),
        ({"market_id": 3}, "market_id", "unknown field"),
    ],
)
def test_bad_signals_are_400_naming_the_field_and_write_nothing(owner_api, change, field, message):
    response = owner_api.post("/api/v1/signals/", {**SIGNAL, **change}, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert any(message in text for text in errors[field]), errors
    assert not AgentSignal.objects.exists() and not Market.objects.exists()


def test_probabilities_with_more_decimals_are_rounded_not_refused(owner_api):
    body = owner_api.post(
        "/api/v1/signals/", {**SIGNAL, "fair_probability": 0.123456, "confidence": 0.777}, format="json"
    )
    assert body.status_code == 201
    stored = AgentSignal.objects.get(pk=body.json()["id"])
    assert (stored.fair_probability, stored.confidence) == (Decimal("0.1235"), Decimal("0.78"))


# -- retrieval ----------------------------------------------------------------------------------------


def test_memory_is_the_agents_own_latest_signals_newest_first_capped_at_five(owner_api, owner):
    for minute in range(8):
        signal, _ = store(owner, minute, fair_probability=0.5 + minute / 100)
        store(owner, minute, agent_name="news_sentiment", key_drivers=[f"headline {minute}"])
    market_id = signal.market_id
    body = memory(owner_api, market_id, agents="market_microstructure,news_sentiment,unknown_agent", limit=5)
    micro = body["agents"]["market_microstructure"]
    assert [s["fair_probability"] for s in micro["signals"]] == [0.57, 0.56, 0.55, 0.54, 0.53]
    assert all(s["agent_name"] == "market_microstructure" for s in micro["signals"])
    assert "headline" not in micro["text"]  # Property 6: no cross-contamination
    assert micro["signal_count"] == 5 and "## Your Previous Analysis" in micro["prompt"]
    assert body["agents"]["unknown_agent"] == {
        "signals": [],
        "text": NO_HISTORY_TEXT,
        "prompt": body["agents"]["unknown_agent"]["prompt"],
        "signal_count": 0,
        "truncated": False,
    }
    assert body["degraded"] is False
    default = memory(owner_api, market_id)
    assert len(default["agents"]["market_microstructure"]["signals"]) == 3  # the seed's default limit
    audit = MemoryRetrievalAudit.objects.order_by("-created_at").first()
    assert audit.success and audit.agents_with_history == 1 and audit.agents == ["market_microstructure"]


def test_memory_query_rules(owner_api, owner):
    signal, _ = store(owner, 0)
    url = f"/api/v1/markets/{signal.market_id}/memory/"
    for params, field in (
        ({"agents": "a", "limit": 6}, "limit"),
        ({"agents": "a", "limit": 0}, "limit"),
        ({"agents": " , "}, "agents"),
        ({"agents": "a", "date_format": "ancient"}, "date_format"),
        ({"agents": "a", "max_length": 10}, "max_length"),
        ({}, "agents"),
    ):
        response = owner_api.get(url, params)
        assert response.status_code == 400, (params, response.content)
        assert field in response.json()["errors"]
    assert MAX_SIGNALS == 5


def test_another_traders_market_is_404_and_markets_are_per_owner(owner_api, other_api, owner, other, anon_api):
    signal, _ = store(owner, 0)
    assert other_api.get(f"/api/v1/markets/{signal.market_id}/memory/", {"agents": "a"}).status_code == 404
    assert other_api.get(f"/api/v1/markets/{signal.market_id}/evolution/").status_code == 404
    assert anon_api.get(f"/api/v1/markets/{signal.market_id}/evolution/").status_code == 401
    # the same condition id posted by another trader is their own market, with its own history
    theirs = other_api.post("/api/v1/signals/", SIGNAL, format="json").json()
    assert theirs["market_id"] != signal.market_id and theirs["evolution_events"] == []
    assert other_api.get("/api/v1/markets/").json()["count"] == 1


def test_evolution_lists_events_newest_first_by_agent(owner_api, owner):
    signal, _ = store(owner, 0)
    store(owner, 1, direction="NO")
    store(owner, 2, agent_name="polling", fair_probability=0.1)
    store(owner, 3, agent_name="polling", fair_probability=0.3)
    url = f"/api/v1/markets/{signal.market_id}/evolution/"
    everything = owner_api.get(url).json()["results"]
    assert [(e["agent_name"], e["type"]) for e in everything] == [
        ("polling", "probability_shift"),
        ("market_microstructure", "direction_change"),
    ]
    only = owner_api.get(url, {"agent": "polling"}).json()["results"]
    assert [e["type"] for e in only] == ["probability_shift"]


def test_rows_failing_validation_are_skipped_not_fatal(owner_api, owner):
    signal, _ = store(owner, 0)
    store(owner, 1, fair_probability=0.55)
    with connection.cursor() as cursor:  # a corrupted row the CHECKs cannot catch: drivers not a list of text
        cursor.execute("UPDATE agent_signals SET key_drivers = '[1, 2]'::jsonb WHERE id = %s", [signal.pk])
    body = memory(owner_api, signal.market_id)
    assert [s["fair_probability"] for s in body["agents"]["market_microstructure"]["signals"]] == [0.55]
    assert MemoryRetrievalAudit.objects.get().invalid_rows_skipped == 1


# -- degradation (Property 10) -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_query_timeout_degrades_to_empty_memory_and_is_audited(owner, settings):

    settings.SIGNALS_QUERY_TIMEOUT_MS = 200
    signal, _ = store(owner, 0)
    api = token_client(owner)
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
        body = memory(api, signal.market_id)
    finally:
        release.set()
        holder.join()
    assert body["degraded"] is True
    assert body["agents"]["market_microstructure"]["text"] == NO_HISTORY_TEXT
    audit = MemoryRetrievalAudit.objects.get()
    assert (audit.success, audit.error_type, audit.retry_attempts) == (False, "timeout", 0)
    assert "statement timeout" in audit.error
    assert memory(api, signal.market_id)["degraded"] is False  # the next retrieval is fine


@pytest.mark.django_db(transaction=True)
def test_a_query_error_degrades_to_empty_memory_without_retry(owner_api, owner):
    signal, _ = store(owner, 0)
    with owner_connection() as schema_owner:  # the app role may not alter tables
        schema_owner.execute("ALTER TABLE agent_signals RENAME TO agent_signals_away")
        try:
            body = memory(owner_api, signal.market_id)
        finally:
            schema_owner.execute("ALTER TABLE agent_signals_away RENAME TO agent_signals")
    assert body["degraded"] is True and body["agents"]["market_microstructure"]["signals"] == []
    audit = MemoryRetrievalAudit.objects.get()
    assert (audit.success, audit.error_type, audit.retry_attempts) == (False, "query", 0)


# -- Property 1 and 6 as hypothesis properties on the real database ------------------------------------


class RetrievalProperties(HypothesisTestCase):
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        plan=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 10_000)), max_size=25),
        limit=st.integers(1, 5),
    )
    def test_property_1_and_6_each_agent_gets_its_own_latest_signals(self, plan, limit):
        owner = UserFactory()
        market = Market.objects.create(owner=owner, condition_id="0xprop")
        for n, (agent, minute) in enumerate(plan):
            AgentSignal.objects.create(
                owner=owner,
                market=market,
                agent_name=agent,
                agent_type="t",
                direction="YES",
                fair_probability=Decimal(n % 100) / 100,
                confidence=Decimal("0.5"),
                key_drivers=[f"{agent}-{n}"],
            )
            AgentSignal.objects.filter(key_drivers=[f"{agent}-{n}"], market=market).update(
                created_at=T0 + dt.timedelta(minutes=minute, microseconds=n)
            )
        outcome = services.memory_for_agents(market=market, agent_names=["a", "b", "c"], limit=limit)
        for agent in ("a", "b", "c"):
            expected = sorted(
                (T0 + dt.timedelta(minutes=minute, microseconds=n), f"{agent}-{n}")
                for n, (name, minute) in enumerate(plan)
                if name == agent
            )[::-1][:limit]
            got = outcome.memories[agent].historical_signals
            assert [(s.timestamp, s.key_drivers[0]) for s in got] == expected
            assert all(s.agent_name == agent for s in got)


def test_the_timeline_keeps_each_agents_newest_signals_oldest_first(owner):
    from signals.selectors import signal_timeline

    for minute in range(5):
        signal, _ = store(owner, minute, fair_probability=minute / 10)
    store(owner, 9, agent_name="polling")
    timeline = signal_timeline(market=signal.market, limit_per_agent=2)
    assert [s.fair_probability for s in timeline["market_microstructure"]] == [Decimal("0.3"), Decimal("0.4")]
    assert len(timeline["polling"]) == 1


# -- Properties 5, 7, 10 and 11 --------------------------------------------------------------------------

_driver = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cf", "Cs", "Zl", "Zp")), min_size=1, max_size=40
)


class StorageAndContextProperties(HypothesisTestCase):
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        direction=st.sampled_from(["YES", "NO", "NEUTRAL"]),
        probability=st.decimals(min_value=0, max_value=1, places=4),
        confidence=st.decimals(min_value=0, max_value=1, places=2),
        drivers=st.lists(_driver.filter(str.strip), max_size=8),
        metadata=st.dictionaries(
            st.text(max_size=10), st.integers() | st.text(max_size=20) | st.booleans(), max_size=5
        ),
    )
    def test_property_7_and_11_what_is_posted_is_what_the_agent_reads_back_in_its_prompt(
        self, direction, probability, confidence, drivers, metadata
    ):

        owner = UserFactory()
        api = token_client(owner)  # authenticated as served: the request is scoped to its trader
        body = {
            **SIGNAL,
            "direction": direction,
            "fair_probability": str(probability),
            "confidence": str(confidence),
            "key_drivers": drivers,
            "metadata": metadata,
        }
        created = api.post("/api/v1/signals/", body, format="json")
        if "\\u0000" in json.dumps(metadata):  # jsonb cannot store NUL: a 400, never a 500
            assert created.status_code == 400 and "metadata" in created.json()["errors"], created.content
            return
        assert created.status_code == 201, created.content
        stored = AgentSignal.objects.get(pk=created.json()["id"])
        assert (stored.direction, stored.fair_probability, stored.confidence) == (direction, probability, confidence)
        # Property 7: stored in the seed's schema as sent (drivers are trimmed, like every text field)
        assert (stored.key_drivers, stored.metadata) == ([d.strip() for d in drivers], metadata)
        read = api.get(
            f"/api/v1/markets/{stored.market_id}/memory/", {"agents": SIGNAL["agent_name"], "max_length": 20_000}
        )
        agent = read.json()["agents"][SIGNAL["agent_name"]]
        [signal] = agent["signals"]
        assert (signal["direction"], signal["key_drivers"]) == (direction, stored.key_drivers)
        # Property 11: the prompt block carries the formatted memory and the instructions for using it
        assert agent["prompt"].startswith(
            f"## Your Previous Analysis\n\n{agent['text']}\n\n## Instructions for Using Memory Context"
        )
        assert f"Direction: {direction}" in agent["text"]


@given(agents=st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=6))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@pytest.mark.django_db
def test_property_5_every_retrieval_is_audited_with_its_agents_and_how_many_had_history(owner, agents):
    market = Market.objects.get_or_create(owner=owner, condition_id="0xaudit")[0]
    if not AgentSignal.objects.filter(market=market).exists():
        for name in ("a", "c"):
            AgentSignal.objects.create(
                owner=owner,
                market=market,
                agent_name=name,
                agent_type="t",
                direction="YES",
                fair_probability=Decimal("0.5"),
                confidence=Decimal("0.5"),
            )
    before = MemoryRetrievalAudit.objects.count()
    outcome = services.memory_for_agents(market=market, agent_names=agents, limit=3)
    audit = MemoryRetrievalAudit.objects.order_by("-created_at", "-id").first()
    assert MemoryRetrievalAudit.objects.count() == before + 1
    assert audit.agents == list(dict.fromkeys(agents))
    assert audit.agents_with_history == len({"a", "c"} & set(agents)) == outcome.agents_with_history
    assert set(outcome.memories) == set(agents) and audit.success


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (psycopg.errors.QueryCanceled("canceling statement due to statement timeout"), "timeout"),
        (psycopg.errors.TooManyConnections("sorry, too many clients already"), "rate_limit"),
        (psycopg.OperationalError("connection refused"), "connection"),
        (psycopg.errors.UndefinedTable("relation does not exist"), "query"),
    ],
)
def test_property_10_database_errors_are_classified_for_the_retry_policy(error, expected):
    from django.db import utils

    from signals.selectors import _classify

    wrapper = utils.OperationalError if isinstance(error, psycopg.OperationalError) else utils.ProgrammingError
    try:
        raise wrapper(str(error)) from error
    except utils.DatabaseError as wrapped:
        assert _classify(wrapped) == expected

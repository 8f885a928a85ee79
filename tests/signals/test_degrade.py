"""Analyst memory degrades at every step (seed property 10), on the real server: the market lookup, the signals
query, each agent's formatting, and the evolution step of storing a signal. Faults are another connection's
ACCESS EXCLUSIVE lock (the statement runs into SIGNALS_QUERY_TIMEOUT_MS) or the table renamed away by the
schema owner; the signals query's own faults are in test_api_signals.py."""

from __future__ import annotations

import datetime as dt
import time
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from signals.answers import agent_memory
from signals.memory import NO_HISTORY_TEXT, AgentMemoryContext, HistoricalSignal
from signals.models import AgentSignal, MemoryRetrievalAudit, SignalEvolutionEvent
from tests.dbfaults import table_locked, table_renamed
from tests.factories import token_client
from tests.openapi import assert_matches_schema
from tests.signals.test_api_signals import SIGNAL, store

TIMEOUT_MS = 200
CHANGED = {**SIGNAL, "direction": "NO", "fair_probability": 0.4, "confidence": 0.95, "key_drivers": ["war"]}
OPTIONS = {"max_length": 2000, "include_metadata": False, "date_format": "human"}


def memory(api, market_id):
    response = api.get(f"/api/v1/markets/{market_id}/memory/", {"agents": "market_microstructure,polling"})
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    return response.json()


def assert_empty_memory(body, steps):
    assert (body["degraded"], body["degraded_steps"]) == (True, steps)
    for agent in ("market_microstructure", "polling"):
        entry = body["agents"][agent]
        assert (entry["signals"], entry["text"], entry["signal_count"]) == ([], NO_HISTORY_TEXT, 0)
        assert NO_HISTORY_TEXT in entry["prompt"]


# -- the market lookup -------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_market_lookup_timeout_degrades_to_empty_memory(owner, settings):
    settings.SIGNALS_QUERY_TIMEOUT_MS = TIMEOUT_MS
    signal, _ = store(owner, 0)
    api = token_client(owner)
    assert memory(api, signal.market_id)["degraded_steps"] == []
    with table_locked("markets"):
        started = time.perf_counter()
        body = memory(api, signal.market_id)
        elapsed = time.perf_counter() - started
    assert_empty_memory(body, ["market"])
    assert TIMEOUT_MS / 1000 <= elapsed < TIMEOUT_MS / 1000 + 1.5  # a timeout is not retried
    assert MemoryRetrievalAudit.objects.count() == 1  # the first read's: a failed lookup has no market to audit
    assert memory(api, signal.market_id)["agents"]["market_microstructure"]["signal_count"] == 1


@pytest.mark.django_db(transaction=True)
def test_a_market_lookup_error_degrades_to_empty_memory_and_a_foreign_market_is_still_a_404(
    owner, owner_api, other_api
):
    signal, _ = store(owner, 0)
    with table_renamed("markets"):
        body = memory(owner_api, signal.market_id)
    assert_empty_memory(body, ["market"])
    assert other_api.get(f"/api/v1/markets/{signal.market_id}/memory/", {"agents": "a"}).status_code == 404
    bad = owner_api.get(f"/api/v1/markets/{signal.market_id}/memory/", {"agents": ""})
    assert bad.status_code == 400  # the query is still validated


@pytest.mark.django_db(transaction=True)
def test_the_signals_query_failing_is_named_as_that_step(owner, owner_api):
    signal, _ = store(owner, 0)
    with table_renamed("agent_signals"):
        body = memory(owner_api, signal.market_id)
    assert_empty_memory(body, ["signals"])
    assert MemoryRetrievalAudit.objects.get().error_type == "query"


# -- formatting ----------------------------------------------------------------------------------------------------


def test_an_agent_whose_memory_cannot_be_formatted_gets_empty_memory():
    now = dt.datetime(2026, 6, 4, 12, 0, tzinfo=dt.UTC)
    corrupt = HistoricalSignal(
        agent_name="polling",
        market_id="1",
        timestamp=None,  # type: ignore[arg-type]  # a row past validation that the formatter cannot read
        direction="YES",
        fair_probability=Decimal("0.5"),
        confidence=Decimal("0.5"),
    )
    entry, formatted = agent_memory(AgentMemoryContext("polling", "1", (corrupt,)), now=now, options=OPTIONS)
    assert formatted is False
    assert (entry["signals"], entry["text"], entry["signal_count"], entry["truncated"]) == (
        (),
        NO_HISTORY_TEXT,
        0,
        False,
    )
    assert entry["prompt"].startswith("## Your Previous Analysis\n\n" + NO_HISTORY_TEXT)
    good = HistoricalSignal("polling", "1", now, "YES", Decimal("0.5"), Decimal("0.5"))
    entry, formatted = agent_memory(AgentMemoryContext("polling", "1", (good,)), now=now, options=OPTIONS)
    assert formatted is True and entry["signal_count"] == 1


# -- the evolution step of storing a signal ------------------------------------------------------------------------


def post_changed(api):
    response = api.post("/api/v1/signals/", CHANGED, format="json")
    assert response.status_code == 201, response.content
    assert_matches_schema(response)
    return response.json()


@pytest.mark.django_db(transaction=True)
def test_an_evolution_step_timeout_stores_the_signal_without_its_events(owner, settings):
    settings.SIGNALS_QUERY_TIMEOUT_MS = TIMEOUT_MS
    store(owner, 0)
    api = token_client(owner)
    with table_locked("signal_evolution_events"):
        started = time.perf_counter()
        body = post_changed(api)
        elapsed = time.perf_counter() - started
    assert (body["degraded"], body["degraded_steps"], body["evolution_events"]) == (True, ["evolution"], [])
    assert TIMEOUT_MS / 1000 <= elapsed < TIMEOUT_MS / 1000 + 1.5
    assert AgentSignal.objects.filter(pk=body["id"]).exists()
    assert not SignalEvolutionEvent.objects.exists()
    # the next signal is compared with the one stored without events
    again = api.post("/api/v1/signals/", SIGNAL, format="json").json()
    assert again["degraded"] is False and {e["type"] for e in again["evolution_events"]} >= {"direction_change"}


@pytest.mark.django_db(transaction=True)
def test_an_evolution_step_error_stores_the_signal_without_its_events(owner, owner_api):
    store(owner, 0)
    with table_renamed("signal_evolution_events"):
        body = post_changed(owner_api)
    assert (body["degraded"], body["degraded_steps"], body["evolution_events"]) == (True, ["evolution"], [])
    assert AgentSignal.objects.count() == 2
    first = owner_api.post("/api/v1/signals/", {**SIGNAL, "condition_id": "0xdef"}, format="json").json()
    assert (first["degraded"], first["degraded_steps"]) == (False, [])


# -- what it costs: the answer's reads in one savepoint (signals.selectors.memory_reads) ----------------------------


@pytest.mark.django_db(transaction=True)
def test_the_memory_answers_reads_share_one_savepoint_and_its_audit_is_written_after_them(owner, owner_api):
    signal, _ = store(owner, 0)
    with CaptureQueriesContext(connection) as captured:
        body = memory(owner_api, signal.market_id)
    assert (body["degraded"], body["agents"]["market_microstructure"]["signal_count"]) == (False, 1)
    statements = [" ".join(query["sql"].split()) for query in captured.captured_queries]
    bookkeeping = [sql.rsplit(" ", 1)[0] for sql in statements if sql.startswith(("SAVEPOINT ", "RELEASE SAVEPOINT "))]
    assert bookkeeping == ["SAVEPOINT", "RELEASE SAVEPOINT"]  # the market lookup and the signals query: one
    assert len([sql for sql in statements if "set_config('statement_timeout'" in sql]) == 2
    release = next(i for i, sql in enumerate(statements) if sql.startswith("RELEASE SAVEPOINT"))
    audit = next(i for i, sql in enumerate(statements) if sql.startswith('INSERT INTO "memory_retrieval_audits"'))
    assert release < audit  # the block holds reads only


@pytest.mark.django_db(transaction=True)
def test_a_failed_signals_query_rolls_back_to_the_one_savepoint_and_its_audit_is_written(owner, owner_api):
    signal, _ = store(owner, 0)
    with table_renamed("agent_signals"), CaptureQueriesContext(connection) as captured:
        body = memory(owner_api, signal.market_id)
    assert_empty_memory(body, ["signals"])
    savepoints = [
        query["sql"].rsplit(" ", 1)[0]
        for query in captured.captured_queries
        if query["sql"].startswith(("SAVEPOINT ", "ROLLBACK TO SAVEPOINT ", "RELEASE SAVEPOINT "))
    ]
    assert savepoints == ["SAVEPOINT", "ROLLBACK TO SAVEPOINT", "RELEASE SAVEPOINT"]
    assert MemoryRetrievalAudit.objects.get().error_type == "query"

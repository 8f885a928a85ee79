"""Degrade, never fail: a section of the per-tick context whose read fails is served empty and named in
`degraded`, the rest of the context is served with 200 (seed memory-layer.md; agentcontext/degrade.py).

Faults on the real server, never a mock: another connection holding `LOCK TABLE … IN ACCESS EXCLUSIVE MODE` on a
section's table while the context is read (the section's statement runs into its timeout), or the table renamed
away by the schema owner for the length of the request (the statement fails). Every section and the lessons
segment are filled in the scenario, so each fault shows which sections it takes down and that the others are
byte for byte what they are without it.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from collections import Counter

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from access import scope
from agentcontext.degrade import DEGRADABLE_SECTIONS
from agentcontext.formatting import SECTION_KEYS
from agentcontext.selectors import deployment_context
from ledger.models import Deployment
from recall import services as recall_services
from recall.embeddings import get_embedder
from reflection import services as reflection_services
from reflection.core import ReflectionResult
from tests.dbfaults import table_locked, table_renamed
from tests.factories import DeploymentFactory
from tests.ledger.test_trades_page import T0, executed, position, post_tick
from tests.openapi import assert_matches_schema

TIMEOUT_MS = 200
MANUAL = """# Trading manual

## Position caps
When the engine rejects with R3_POSITION_CAP, do not resubmit the same size: close the weakest position first.
"""
LESSONS = "### Entry timing\n- BTC breakouts above the prior swing high won 1 of 1"
BUY_ETH = {"kind": "propose_order", "symbol": "ETH", "reason": "breakout above prior swing high"}

# Each table a section reads, the sections a fault on it takes down, and how many reads wait on a lock of it.
# Without the latest tick ("now") no section but recent trades can be computed; the engine outcomes are the
# manual's rejection code; without the open trades similar situations are not known to be wanted.
FAULTS = {
    "decision_snapshots": (("last_decision", "recent_activity", "open_positions", "similar_situations", "manual"), 1),
    "trade_history": (("recent_activity", "recent_trades", "open_positions", "similar_situations"), 3),
    "recall_trade_situations": (("similar_situations",), 1),
    "recall_chunks": (("manual",), 1),
    "reflection_notes": (("lessons",), 1),
}


class TinyEngine:
    def reflect(self, inp):
        return ReflectionResult(text=LESSONS, model_used="canned")


@pytest.fixture
def filled(owner, owner_api):
    """A deployment whose context has every section and the lessons segment: a closed BTC long, an open one
    (their situations embedded), a rejection in the last hour, the trader's manual, an active lessons note."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__recent_trades_k=5)
    post_tick(owner_api, deployment, 0, [position("BTC", 1, 100)], **executed("propose_order", "breakout", "BTC"))
    post_tick(owner_api, deployment, 10, [], marks={"BTC": 110}, **executed("close_position", "take profit", "BTC"))
    post_tick(owner_api, deployment, 20, [position("BTC", 1, 100)], **executed("propose_order", "breakout", "BTC"))
    post_tick(
        owner_api,
        deployment,
        25,
        [position("BTC", 1, 101)],
        proposed_action=BUY_ETH,
        engine={"kind": "rejected", "rule": "R3_POSITION_CAP"},
    )
    assert owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/").status_code == 200  # materialized
    recall_services.situations_sync(deployment_id=deployment.pk, embedder=get_embedder())
    recall_services.document_upsert(
        owner=owner, path="TRADING_MANUAL.md", content=MANUAL, source="workspace", queue_embedding=False
    )
    note = reflection_services.reflection_run(
        deployment_id=deployment.pk, engine=TinyEngine(), now=T0 + dt.timedelta(minutes=30)
    )
    assert note is not None
    return Deployment.objects.get(pk=deployment.pk)


def get_context(api, deployment):
    started = time.perf_counter()
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    elapsed = time.perf_counter() - started
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    return response, elapsed


def assert_degraded_as_expected(body: dict, complete: dict, expected: tuple[str, ...]):
    assert body["degraded"] == [key for key in DEGRADABLE_SECTIONS if key in expected]  # the documented order
    for key in SECTION_KEYS:
        assert body["sections"][key] == (None if key in expected else complete["sections"][key]), key
    assert body["text"] == "\n\n".join(section for section in body["sections"].values() if section is not None)
    lessons = body["system_prompt"]["segments"]["lessons"]
    assert lessons == (None if "lessons" in expected else complete["system_prompt"]["segments"]["lessons"])


@pytest.mark.django_db(transaction=True)
def test_the_scenario_fills_every_section_and_a_complete_context_degrades_nothing(owner_api, filled):
    response, _ = get_context(owner_api, filled)
    body = response.json()
    assert body["degraded"] == []
    assert all(body["sections"][key] for key in SECTION_KEYS), body["sections"]
    assert body["system_prompt"]["segments"]["lessons"].endswith(
        "\n- BTC breakouts above the prior swing high won 1 of 1"
    )
    assert "Cache-Control" not in response
    assert get_context(owner_api, filled)[0].json() == body


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("table", FAULTS)
def test_a_table_locked_by_another_connection_degrades_its_sections_within_their_timeouts(
    owner_api, filled, settings, caplog, table
):
    settings.CONTEXT_SECTION_TIMEOUT_MS = TIMEOUT_MS
    expected, waits = FAULTS[table]
    complete = get_context(owner_api, filled)[0].json()
    with table_locked(table), caplog.at_level(logging.WARNING, logger="agentcontext.degrade"):
        response, elapsed = get_context(owner_api, filled)
    body = response.json()
    assert_degraded_as_expected(body, complete, expected)
    assert response["Cache-Control"] == "no-store"
    # each read that waits on the lock gives up after the section timeout; nothing else waits
    assert waits * TIMEOUT_MS / 1000 <= elapsed < waits * TIMEOUT_MS / 1000 + 1.5
    logged = [(r.section, r.deployment_id, r.error_class) for r in caplog.records if hasattr(r, "section")]
    assert logged and {error for _, _, error in logged} == {"QueryCanceled"}
    assert {deployment for _, deployment, _ in logged} == {filled.pk}
    assert {section for section, _, _ in logged} <= set(expected)
    assert get_context(owner_api, filled)[0].json() == complete  # the lock gone, the next read is complete


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("table", FAULTS)
def test_a_renamed_table_degrades_its_sections_and_the_rest_is_served(owner_api, filled, caplog, table):
    expected, _ = FAULTS[table]
    complete = get_context(owner_api, filled)[0].json()
    with table_renamed(table), caplog.at_level(logging.WARNING, logger="agentcontext.degrade"):
        response, _ = get_context(owner_api, filled)
    body = response.json()
    assert_degraded_as_expected(body, complete, expected)
    assert response["Cache-Control"] == "no-store"
    assert {r.error_class for r in caplog.records if hasattr(r, "error_class")} == {"UndefinedTable"}
    assert get_context(owner_api, filled)[0].json() == complete


@pytest.mark.django_db(transaction=True)
def test_every_section_failing_at_once_is_still_a_200(owner_api, filled):
    tables = ("decision_snapshots", "trade_history", "recall_trade_situations", "recall_chunks", "reflection_notes")
    with table_renamed(*tables):
        response, _ = get_context(owner_api, filled)
    body = response.json()
    assert body["degraded"] == list(DEGRADABLE_SECTIONS)
    assert body["text"] == "" and set(body["sections"].values()) == {None}
    assert body["system_prompt"]["segments"]["lessons"] is None
    assert body["system_prompt"]["text"]  # the skill version's own segments are served


@pytest.mark.django_db(transaction=True)
def test_the_preview_page_shows_the_degraded_sections_plainly(client, owner, owner_api, filled):
    client.force_login(owner)
    url = f"/deployments/{filled.pk}/preview/"
    assert 'id="degraded-warning"' not in client.get(url).content.decode()
    with table_renamed("trade_history", "reflection_notes"):
        response = client.get(url)
    assert response.status_code == 200
    content = response.content.decode()
    assert 'id="degraded-warning"' in content
    banner = content.split('id="degraded-warning"')[1].split("</p>")[0]
    for label in (
        "## Recent activity (this session)",
        "## Recent trades on this skill (closed)",
        "## Open positions (memory view)",
        "## Similar past situations",
        "Lessons (system prompt)",
    ):
        assert label in banner
    assert "## Last decision" not in banner
    for key in ("recent_activity", "recent_trades", "open_positions", "similar_situations"):
        article = content.split(f'id="section-{key}"')[1].split("</article>")[0]
        assert "tag degraded" in article and "could not be read" in article
    assert 'id="section-last_decision-text"' in content
    lessons = content.split('id="segment-lessons"')[1].split("</article>")[0]
    assert "tag degraded" in lessons and "placeholder" not in lessons


@pytest.mark.django_db(transaction=True)
def test_the_request_keeps_its_own_statement_timeout_after_the_sections(filled):
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            before = cursor.fetchone()[0]
        with table_renamed("reflection_notes"):
            read = deployment_context(deployment=filled)
        assert read.degraded == ("lessons",)
        with connection.cursor() as cursor:
            cursor.execute("SHOW statement_timeout")
            assert cursor.fetchone()[0] == before != f"{TIMEOUT_MS}ms"


@pytest.mark.django_db(transaction=True)
def test_the_mcp_context_resource_names_its_degraded_sections(owner, owner_api, filled):
    from access import scope
    from mcpserver import tools

    uri = tools.CONTEXT_URI.format(deployment_id=filled.pk)
    principal = tools.Principal(user=owner, request_thread=threading.get_ident())  # as over HTTP

    def read():
        with scope.owner_scope(owner):
            return tools.read_resource(principal, uri)

    complete = read()
    assert not complete.is_error and complete.body["degraded"] == []
    with table_renamed("recall_trade_situations"):
        degraded = read()
    assert not degraded.is_error and degraded.body["degraded"] == ["similar_situations"]
    body = get_context(owner_api, filled)[0].json()
    assert degraded.body["text"] == body["text"].replace("\n\n" + body["sections"]["similar_situations"], "")


# -- what it costs: one savepoint for every read (agentcontext.degrade) ----------------------------------------------

_SAVEPOINTS = ("SAVEPOINT ", "RELEASE SAVEPOINT ", "ROLLBACK TO SAVEPOINT ")


def read_in_a_request(owner, deployment):
    """deployment_context as a request runs it (in the trader's scope, in its transaction): the context, its
    statements, and whether the transaction wrote anything (PostgreSQL assigns a transaction id on the first
    write, a subtransaction's included)."""
    with scope.owner_scope(owner):
        with CaptureQueriesContext(connection) as captured:
            read = deployment_context(deployment=deployment)
        with connection.cursor() as cursor:
            cursor.execute("SELECT txid_current_if_assigned()")
            wrote = cursor.fetchone()[0] is not None
    return read, [query["sql"] for query in captured.captured_queries], wrote


def savepoint_statements(statements: list[str]) -> list[str]:
    return [sql.rsplit(" ", 1)[0] for sql in statements if sql.startswith(_SAVEPOINTS)]


@pytest.mark.django_db(transaction=True)
def test_the_happy_path_takes_one_savepoint_for_all_the_reads(owner, filled):
    read, statements, _ = read_in_a_request(owner, filled)
    assert read.degraded == ()
    assert all(read.memory.sections[key] for key in SECTION_KEYS) and read.segments.lessons
    # eight reads (the latest tick, the outcomes, the recent trades, the trades of the risk state, the open trades,
    # the manual's search, the situations, the active note): one savepoint, not one each
    assert savepoint_statements(statements) == ["SAVEPOINT", "RELEASE SAVEPOINT"]
    timeouts = [sql for sql in statements if "set_config('statement_timeout'" in sql]
    assert len(timeouts) == 2  # set, then the request's own back
    assert statements[-1].startswith("RELEASE SAVEPOINT")


@pytest.mark.django_db(transaction=True)
def test_the_context_reads_write_nothing(owner, filled):
    """The one savepoint is sound only if no read writes: a failed read rolls back to it, and would undo the write.
    Every section and the lessons are filled here, so every read runs."""
    _, statements, wrote = read_in_a_request(owner, filled)
    assert not wrote
    for sql in (" ".join(sql.split()).lstrip("( ") for sql in statements):  # a UNION of (SELECT …) opens with "("
        assert sql.startswith(("SELECT ", "SAVEPOINT ", "RELEASE SAVEPOINT ")), sql
        assert " FOR UPDATE" not in sql and " FOR SHARE" not in sql, sql


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("tables", "expected"),
    [
        (("recall_chunks",), ("manual",)),  # the sixth read: five served before it, two after
        (("decision_snapshots", "reflection_notes"), FAULTS["decision_snapshots"][0] + ("lessons",)),
    ],
)
def test_a_failed_read_rolls_back_to_the_one_savepoint_and_the_reads_after_it_are_served(
    owner, owner_api, filled, tables, expected
):
    complete = get_context(owner_api, filled)[0].json()
    _, complete_statements, _ = read_in_a_request(owner, filled)
    with table_renamed(*tables):
        read, statements, _ = read_in_a_request(owner, filled)
    assert read.degraded == tuple(key for key in DEGRADABLE_SECTIONS if key in expected)
    for key in SECTION_KEYS:
        assert read.memory.sections[key] == (None if key in expected else complete["sections"][key]), key
    lessons = complete["system_prompt"]["segments"]["lessons"]
    assert read.segments.lessons == (None if "lessons" in expected else lessons)
    # each failure rolls back to the one savepoint (which stays for the next) and sets the timeout again
    failures = ["ROLLBACK TO SAVEPOINT"] * len(tables)
    assert savepoint_statements(statements) == ["SAVEPOINT", *failures, "RELEASE SAVEPOINT"]
    assert len([sql for sql in statements if "set_config('statement_timeout'" in sql]) == 2 + len(tables)
    # and no read runs twice: each statement at most as often as in the complete read
    assert not Counter(reads_of(statements)) - Counter(reads_of(complete_statements))
    assert len(reads_of(statements)) < len(reads_of(complete_statements))


def reads_of(statements: list[str]) -> list[str]:
    return [
        sql for sql in statements if not sql.startswith(_SAVEPOINTS) and "set_config('statement_timeout'" not in sql
    ]

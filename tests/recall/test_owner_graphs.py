"""A trader's own HNSW graph (recall/owner_graphs.py): who gets one, `manage.py recall_owner_graphs` building and
dropping them as the owner role, the planner walking it for that trader's search alone (owner-wide and
deployment-narrowed), and the answer it gives: the trader's own nearest rows, as the exact scan finds them."""

from __future__ import annotations

import io

import numpy as np
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import override_settings
from hypothesis import given
from hypothesis import strategies as st

from access import scope
from access.backend.base import prepared_cursor
from access.roles import as_owner
from recall import owner_graphs, selectors, services, tasks
from recall.models import Chunk
from tests.dbroles import owner_connection
from tests.factories import DeploymentFactory, UserFactory
from tests.recall.test_search import _bulk_chunks, _unit, search

# -- who gets one (pure) --------------------------------------------------------------------------------------

owners = st.integers(min_value=1, max_value=50)
counts = st.dictionaries(owners, st.integers(min_value=0, max_value=5_000), max_size=12)


@given(
    readable=counts,
    extra=st.integers(min_value=0, max_value=20_000),
    existing=st.dictionaries(owners, st.booleans(), max_size=12),
    minimum=st.integers(min_value=0, max_value=3_000),
)
def test_the_plan_builds_what_is_wanted_keeps_what_still_serves_and_settles(readable, extra, existing, minimum):
    total = sum(readable.values()) + extra
    graph_plan = owner_graphs.plan(readable, total, existing, minimum=minimum)
    build, drop = set(graph_plan.build), set(graph_plan.drop)
    assert list(graph_plan.build) == sorted(build) and list(graph_plan.drop) == sorted(drop)

    def share(owner):
        return readable.get(owner, 0) / total if total else 1.0

    for owner in build:  # only a scope the iterative scan answers, and at most half the table
        assert readable[owner] > minimum and share(owner) <= owner_graphs.BUILD_SHARE
    assert drop <= set(existing)
    assert {owner for owner, valid in existing.items() if not valid} <= drop  # invalid ones always go
    for owner, valid in existing.items():  # a valid graph goes only once its trader left the band around it
        if valid and owner in drop:
            assert readable.get(owner, 0) <= minimum // 2 or share(owner) > owner_graphs.KEEP_SHARE
        assert not (valid and owner in build and owner not in drop)
    after = {owner: True for owner, valid in existing.items() if owner not in drop} | dict.fromkeys(build, True)
    assert owner_graphs.plan(readable, total, after, minimum=minimum) == owner_graphs.GraphPlan((), ())
    for owner, count in readable.items():  # every wanted scope has its graph afterwards
        if count > minimum and share(owner) <= owner_graphs.BUILD_SHARE:
            assert after.get(owner)


def test_a_trader_between_half_the_minimum_and_the_minimum_keeps_its_graph_but_gets_none_anew():
    readable, total = {1: 700, 2: 700, 3: 400}, 10_000
    graph_plan = owner_graphs.plan(readable, total, {1: True, 3: True}, minimum=1_000)
    assert graph_plan == owner_graphs.GraphPlan(build=(), drop=(3,))


@given(st.integers(min_value=0, max_value=2**63 - 1))
def test_an_owner_graphs_name_names_its_owner_and_no_other_name_does(owner_id):
    name = owner_graphs.index_name(owner_id)
    assert owner_graphs.owner_of(name) == owner_id and len(name.encode()) <= 63
    for other in (name + "x", "0" + name, name.replace("graph", "graf"), f"{owner_graphs.NAME_PREFIX}0{owner_id}"):
        assert owner_graphs.owner_of(other) is None
    assert owner_graphs.owner_of(owner_graphs.NAME_PREFIX) is None


# -- the command, the planner and the answer (the real database) ------------------------------------------------


@pytest.fixture(autouse=True)
def no_graph_outlives_its_test():
    """A test's owner graphs go with it: the next test's trader may get the same id, and the planner would walk the
    graph built here for it."""
    yield
    with owner_connection() as table_owner:
        names = table_owner.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'i' AND starts_with(relname, %s)", [owner_graphs.NAME_PREFIX]
        ).fetchall()
        for (name,) in names:
            table_owner.execute(f'DROP INDEX IF EXISTS "{name}"')


def sync(**options) -> str:
    out = io.StringIO()
    call_command("recall_owner_graphs", stdout=out, **options)
    return out.getvalue()


def graphs() -> dict[str, bool]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indrelid = 'recall_chunks'::regclass AND c.relname LIKE 'recall_owner_graph_%'"
        )
        return dict(cursor.fetchall())


def iterative_plan(user, query: list[float], *, deployment_id: int | None = None) -> str:
    """EXPLAIN of the iterative statement as search sends it: its values bound server-side, in the trader's scope."""
    scope_ = selectors.SearchScope(user.pk, deployment_id)
    where, params = scope_.sql()
    literal = selectors._vector_literal(query)
    with scope.owner_scope(user), transaction.atomic(), prepared_cursor() as cursor:
        cursor.execute(selectors._ITERATIVE_SETTINGS, ["400", "2000"])
        cursor.execute("EXPLAIN " + selectors._ITERATIVE.format(scope=where), [literal, *params, literal, 40])
        explained = "\n".join(row[0] for row in cursor.fetchall())
        transaction.set_rollback(True)
    return explained


def nearest(user, query: list[float], k: int = 10) -> list[int]:
    """The trader's k nearest rows by the exact cosine (numpy), as start lines."""
    with scope.owner_scope(user):
        rows = list(Chunk.objects.filter(owner=user).values_list("start_line", "embedding"))
    return [line for line, _ in sorted(rows, key=lambda row: -float(np.dot(row[1], query)))[:k]]


def vector_search(user, query: list[float]):
    """The vector side alone, k 10, in the trader's scope (as a request runs it; the command's reconnection as the
    owner ended the test body's own elevation)."""
    with scope.owner_scope(user):
        return search(user, "anything", backend="vector", k=10, query_embedding=query, embedder=None, min_score=0)


@pytest.mark.django_db(transaction=True)  # CREATE INDEX CONCURRENTLY runs outside a transaction; ANALYZE is the owner's
def test_a_large_traders_vector_search_walks_its_own_graph_and_no_one_elses(owner):
    """The trader (300 chunks, a quarter of the table) gets a graph of its own; the crowd (900, three quarters) does
    not. The trader's iterative statement (owner-wide and narrowed to a deployment) walks that graph; another
    trader's walks the shared one. The trader's answer is its exact nearest rows, and only its own."""
    rng = np.random.default_rng(21)
    crowd, other = UserFactory(), UserFactory()
    deployment = DeploymentFactory(owner=owner)
    _bulk_chunks(crowd, 900, rng, path="crowd.md")
    _bulk_chunks(owner, 300, rng, path="mine.md")
    _bulk_chunks(other, 10, rng, path="other.md")
    with owner_connection() as table_owner:
        table_owner.execute("ANALYZE recall_chunks")
    query = _unit(rng)
    with override_settings(RECALL_EXACT_SCAN_MAX=0):
        before = vector_search(owner, query)
        assert "Index Scan using recall_chunk_embedding_half" in iterative_plan(owner, query)

        out = sync(minimum=100)
        mine = owner_graphs.index_name(owner.pk)
        assert f"built the owner graph of trader #{owner.pk} in " in out
        assert graphs() == {mine: True}  # the crowd holds more than half the table: no copy of the shared graph

        for deployment_id in (None, deployment.pk):
            assert f"Index Scan using {mine}" in iterative_plan(owner, query, deployment_id=deployment_id)
        assert "Index Scan using recall_chunk_embedding_half" in iterative_plan(crowd, query)
        assert mine not in iterative_plan(other, query)

        after, theirs = vector_search(owner, query), vector_search(other, query)
    assert (before.vector_plan, after.vector_plan) == ("hnsw", "hnsw")
    assert [c["startLine"] for c in after.citations()] == nearest(owner, query)  # its whole graph: exact
    assert {c["path"] for c in after.citations()} == {"mine.md"}
    assert {c["path"] for c in theirs.citations()} == {"other.md"}
    assert sync(minimum=100).strip() == "the owner graphs are as wanted"

    # Prepared (psycopg prepares the statement at its fifth run), the statement is still planned for each call's
    # values, never generically: a generic plan knows no owner and could only walk the shared graph.
    with override_settings(RECALL_EXACT_SCAN_MAX=0), scope.owner_scope(owner):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()")  # as after a write: both sides on this connection
        for _ in range(12):
            search(owner, "anything", backend="vector", k=10, query_embedding=query, embedder=None, min_score=0)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE statement LIKE '%::halfvec%'"
            )
            ((generic, custom),) = cursor.fetchall()
    assert generic == 0 and custom >= 6


@pytest.mark.django_db(transaction=True)
def test_a_trader_leaves_the_exact_scan_for_its_own_graph_while_the_graph_is_valid(owner):
    """200 readable chunks, between RECALL_OWNER_GRAPH_MIN (100) and RECALL_EXACT_SCAN_MAX (1,000): the exact scan
    until the trader's graph is built, then the iterative scan over it with the own graph's candidate list, giving
    the same answer; the exact scan again once PostgreSQL marks the graph invalid (the planner would not walk it). A
    trader without a graph keeps the exact scan (60 chunks: none built for it)."""
    rng = np.random.default_rng(24)
    other = UserFactory()
    _bulk_chunks(UserFactory(), 600, rng, path="crowd.md")
    _bulk_chunks(owner, 200, rng, path="mine.md")
    _bulk_chunks(other, 60, rng, path="other.md")  # too few for a graph
    query = _unit(rng)
    seen = []

    def settings_of_the_scan(execute, sql, params, many, context):
        if "relaxed_order" in sql:
            seen.append(params[0])
        return execute(sql, params, many, context)

    def searched(user) -> tuple[str, list[int], bool]:
        with scope.owner_scope(user):
            owner_graph = selectors.keyword_query(selectors.SearchScope(user.pk), "").owner_graph
        outcome = vector_search(user, query)
        return outcome.vector_plan, [c["startLine"] for c in outcome.citations()], owner_graph

    with override_settings(RECALL_EXACT_SCAN_MAX=1_000, RECALL_OWNER_GRAPH_MIN=100):
        exact_plan, exact_lines, had_graph = searched(owner)
        assert f"built the owner graph of trader #{owner.pk} in " in sync()
        with connection.execute_wrapper(settings_of_the_scan):
            assert searched(owner) == ("hnsw", exact_lines, True)
        assert searched(other)[0::2] == ("exact", False)
        with owner_connection() as table_owner:
            table_owner.execute(
                "UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass",
                [owner_graphs.index_name(owner.pk)],
            )
        assert searched(owner) == ("exact", exact_lines, False)
    assert (exact_plan, had_graph) == ("exact", False)
    assert exact_lines == nearest(owner, query)
    assert seen == [str(selectors.HNSW_EF_SEARCH_OWN)]
    with scope.elevated("test: a global search has no owner graph"):
        assert selectors.keyword_query(selectors.SearchScope(None), "").owner_graph is False


@pytest.mark.django_db(transaction=True)
def test_the_command_drops_a_graph_no_longer_wanted_and_rebuilds_an_invalid_one(owner):
    rng = np.random.default_rng(22)
    _bulk_chunks(UserFactory(), 600, rng, path="crowd.md")
    _bulk_chunks(owner, 200, rng, path="mine.md")
    mine = owner_graphs.index_name(owner.pk)
    with override_settings(RECALL_OWNER_GRAPH_MIN=100):  # beat's hourly task runs the command at the default minimum
        assert f"built the owner graph of trader #{owner.pk} in " in tasks.owner_graphs_sync()
    assert graphs() == {mine: True}

    # A concurrent build that failed leaves its index invalid: the next run drops it and builds it again.
    with owner_connection() as table_owner:
        table_owner.execute("UPDATE pg_index SET indisvalid = false WHERE indexrelid = %s::regclass", [mine])
    assert graphs() == {mine: False}
    out = sync(minimum=100)
    assert out.index(f"dropped the owner graph of trader #{owner.pk}") < out.index(
        f"built the owner graph of trader #{owner.pk}"
    )
    assert graphs() == {mine: True}

    # Kept down to half the minimum, dropped below it.
    with scope.owner_scope(owner):
        Chunk.objects.filter(owner=owner, start_line__gt=120).delete()
    assert sync(minimum=200).strip() == "the owner graphs are as wanted"
    with scope.owner_scope(owner):
        Chunk.objects.filter(owner=owner, start_line__gt=90).delete()
    assert f"dropped the owner graph of trader #{owner.pk}" in sync(minimum=200)
    assert graphs() == {}


@pytest.mark.django_db(transaction=True)
def test_a_run_builds_the_largest_traders_graph_first_and_leaves_what_its_budget_does_not_reach(owner):
    """The larger trader (300 chunks, created after the trader of 150, so later in id order) is built first; a run
    whose budget is spent leaves the rest, in the same order, and the next run builds them."""
    rng = np.random.default_rng(25)
    _bulk_chunks(UserFactory(), 900, rng, path="crowd.md")
    larger = UserFactory()
    _bulk_chunks(owner, 150, rng, path="mine.md")
    _bulk_chunks(larger, 300, rng, path="theirs.md")
    out = sync(minimum=100, budget=0)
    assert graphs() == {}
    left = "left the owner graph of trader #{} to the next run: the budget is spent"
    assert out.index(left.format(larger.pk)) < out.index(left.format(owner.pk))
    out = sync(minimum=100)
    assert out.index(f"built the owner graph of trader #{larger.pk} in ") < out.index(
        f"built the owner graph of trader #{owner.pk} in "
    )
    assert graphs() == {owner_graphs.index_name(owner.pk): True, owner_graphs.index_name(larger.pk): True}


@pytest.mark.django_db(transaction=True)
def test_built_in_a_transaction_the_settings_end_with_it(owner):
    """Not concurrently (bench/recall_latency.py's way, nothing else running): one transaction, whose statement
    timeout and memory are the build's alone."""
    rng = np.random.default_rng(23)
    _bulk_chunks(UserFactory(), 600, rng, path="crowd.md")
    _bulk_chunks(owner, 200, rng, path="mine.md")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout'), current_setting('maintenance_work_mem')")
        before = cursor.fetchone()
    with as_owner(), scope.elevated("test: owner graphs", atomic=False):
        graph_plan = services.owner_graphs_sync(minimum=100, concurrently=False)
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('statement_timeout'), current_setting('maintenance_work_mem')")
            after = cursor.fetchone()
    assert graph_plan == owner_graphs.GraphPlan(build=(owner.pk,), drop=())
    assert graphs() == {owner_graphs.index_name(owner.pk): True}
    assert after[1] == before[1] != "512MB"

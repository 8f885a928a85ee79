"""A read beside the request's connection (access/beside.py): a second pooled connection in the same sealed scope,
read-only, used only when it sees what the request's transaction sees, and never waited for."""

from __future__ import annotations

import threading

import pytest
from django.db import DataError, InternalError, OperationalError, connection, transaction
from psycopg_pool import PoolTimeout

from access import beside, scope
from memorysite.statement_timeout import local_statement_timeout
from tests.dbroles import idle_pool_connection, owner_connection
from tests.factories import SkillFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)  # a second connection sees committed rows only

SEEN = (
    "SELECT current_setting('app.owner_id', true), current_setting('transaction_read_only'), pg_backend_pid(),"
    " (SELECT count(*) FROM skills)"
)


def _seen(cursor):
    cursor.execute(SEEN)
    return cursor.fetchone()


def _backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


@pytest.fixture
def traders():
    owner, other = UserFactory(username="owner"), UserFactory(username="other")
    SkillFactory(owner=owner)
    SkillFactory.create_batch(3, owner=other)
    return owner, other


def test_a_read_beside_runs_on_another_connection_in_the_callers_scope_read_only(traders):
    owner, _ = traders
    with scope.owner_scope(owner):
        idle_pool_connection()
        started = beside.start(_seen, beside.state())
        assert started is not None
        owner_id, read_only, pid, skills = started.result()
        assert pid != _backend_pid()
    assert (owner_id, read_only, skills) == (str(owner.pk), "on", 1)  # row-level security: the owner's skill alone


def test_an_elevated_caller_reads_every_traders_rows_beside(traders):
    with transaction.atomic():  # the test's own scope: elevated (tests/conftest.py)
        idle_pool_connection()
        started = beside.start(_seen, beside.state())
        assert started is not None
        assert started.result()[3] == 4


def test_no_read_beside_without_a_scoped_transaction_or_a_shared_snapshot(traders):
    owner, _ = traders
    idle_pool_connection()
    assert beside.start(_seen, beside.state()) is None  # no transaction: the caller's statements see no scope
    with scope.bound(scope.NONE), transaction.atomic():
        assert beside.start(_seen, beside.state()) is None
    with scope.owner_scope(owner):
        assert beside.start(_seen, beside.TransactionState(shares_snapshot=False, statement_timeout="30s")) is None


def test_the_snapshot_is_shared_until_the_transaction_writes_and_only_under_read_committed(traders):
    owner, _ = traders
    with scope.owner_scope(owner):
        assert beside.state().shares_snapshot
        SkillFactory(owner=owner)
        assert not beside.state().shares_snapshot  # a second connection would not see the new skill
    with scope.owner_scope(owner):
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM skills FOR UPDATE")  # a row lock takes a transaction id too
        assert not beside.state().shares_snapshot
    with owner_connection() as raw:
        raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        assert raw.execute(f"SELECT {beside.STATE_SQL}").fetchone()[0] is False


def test_a_read_beside_runs_under_the_callers_statement_timeout(traders):
    """A read the caller bounded (memorysite.statement_timeout) is bounded beside it too: cancelled, and raised
    as Django's error, as the caller's own statement would be."""
    owner, _ = traders
    with scope.owner_scope(owner), local_statement_timeout(50):
        idle_pool_connection()
        started = beside.start(lambda cursor: cursor.execute("SELECT pg_sleep(5)"), beside.state())
        with pytest.raises(OperationalError, match="statement timeout"):
            started.result()


def test_an_error_beside_is_raised_as_djangos_and_the_connection_goes_back(traders):
    owner, _ = traders
    with scope.owner_scope(owner):
        idle_pool_connection()
        with pytest.raises(DataError):
            beside.start(lambda cursor: cursor.execute("SELECT 1 / 0"), beside.state()).result()
        idle_pool_connection()
        with pytest.raises(InternalError, match="read-only transaction"):
            beside.start(
                lambda cursor: cursor.execute("INSERT INTO skills (owner_id, name) VALUES (%s, 'x')", [owner.pk]),
                beside.state(),
            ).result()
        idle_pool_connection()  # the connections the reads took are back in the pool
        again = beside.start(_seen, beside.state()).result()
        assert again is not None and again[3] == 1
        with connection.cursor() as cursor:
            assert _seen(cursor)[3] == 1  # the caller's transaction is untouched


def test_with_no_idle_pool_connection_the_caller_runs_the_read(traders):
    owner, _ = traders
    pool = connection.pool
    with scope.owner_scope(owner):
        held = []
        while True:  # every connection the pool has or may open, the test's own being one
            try:
                held.append(pool.getconn(timeout=0.5))
            except PoolTimeout:
                break
        try:
            assert beside.start(_seen, beside.state()) is None
        finally:
            for raw in held:
                pool.putconn(raw)


def test_with_every_helper_busy_the_caller_runs_the_read(traders):
    owner, _ = traders
    pool, release, running = connection.pool, threading.Event(), threading.Semaphore(0)

    def busy(cursor):
        running.release()
        release.wait(10)
        return "done"

    with scope.owner_scope(owner):
        held = [pool.getconn() for _ in range(beside.THREADS)]  # as many idle connections as helpers
        for raw in held:
            pool.putconn(raw)
        assert idle_pool_connection() >= beside.THREADS
        reads = [beside.start(busy, beside.state()) for _ in range(beside.THREADS)]
        try:
            assert all(running.acquire(timeout=5) for _ in reads)  # each read holds a helper and a connection
            assert beside.start(_seen, beside.state()) is None
        finally:
            release.set()
        assert [read.result() for read in reads] == ["done"] * beside.THREADS
        idle_pool_connection()
        assert beside.start(_seen, beside.state()).result()[3] == 1  # helpers free again

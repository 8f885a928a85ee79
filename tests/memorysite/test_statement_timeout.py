"""memorysite.statement_timeout: a shorter statement timeout for part of a transaction, the previous one back; pure
reads in one savepoint (timed_reads)."""

from __future__ import annotations

import pytest
from django.db import OperationalError, ProgrammingError, connection, transaction
from django.http import Http404
from django.test.utils import CaptureQueriesContext

from memorysite.statement_timeout import local_statement_timeout, timed_reads


def current() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_the_block_runs_under_its_timeout_and_the_transaction_gets_its_own_back():
    with transaction.atomic():
        before = current()
        assert before != "100ms"
        with local_statement_timeout(100):
            assert current() == "100ms"
            cancelled = pytest.raises(OperationalError, match="statement timeout")
            with cancelled, transaction.atomic(), connection.cursor() as cursor:  # in a savepoint of its own
                cursor.execute("SELECT pg_sleep(2)")
            assert current() == "100ms"  # the savepoint's rollback kept what was set before it
            with transaction.atomic():  # a released savepoint keeps the setting: the block restores it
                assert current() == "100ms"
        assert current() == before


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_it_begins_one():
    before = current()
    assert not connection.in_atomic_block
    with local_statement_timeout(150):
        assert connection.in_atomic_block and current() == "150ms"
    assert current() == before


# -- timed_reads: pure reads in one savepoint --------------------------------------------------------------------


def select(sql: str):
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
def test_timed_reads_go_on_after_a_failed_read_under_the_same_timeout():
    with transaction.atomic():
        before = current()
        with timed_reads(100) as reads:
            assert reads.attempt(lambda: select("SELECT 1")) == 1
            with pytest.raises(OperationalError, match="statement timeout"):
                reads.attempt(lambda: select("SELECT pg_sleep(2)"))
            assert reads.attempt(current) == "100ms"  # the rollback undid the setting: it is set again
            with pytest.raises(ProgrammingError):  # through an inner atomic(savepoint=False): marked for rollback
                reads.attempt(lambda: inner_atomic(lambda: select("SELECT * FROM no_such_table")))
            assert reads.attempt(lambda: select("SELECT 2")) == 2
        assert current() == before
        assert select("SELECT 3") == 3  # the request's transaction goes on


def inner_atomic(fn):
    with transaction.atomic(savepoint=False):
        return fn()


@pytest.mark.django_db(transaction=True)
def test_timed_reads_take_one_savepoint_whatever_the_number_of_reads():
    with transaction.atomic(), CaptureQueriesContext(connection) as captured, timed_reads(100) as reads:
        for n in range(5):
            reads.attempt(lambda n=n: select(f"SELECT {n}"))
    statements = [query["sql"].split()[0] for query in captured.captured_queries]
    assert statements == ["SAVEPOINT", "SELECT", *["SELECT"] * 5, "SELECT", "RELEASE"]


@pytest.mark.django_db(transaction=True)
def test_an_exception_out_of_timed_reads_leaves_the_transaction_usable_with_its_own_timeout():
    with transaction.atomic():
        before = current()
        with pytest.raises(Http404), timed_reads(100) as reads:
            reads.attempt(lambda: select("SELECT 1"))
            raise Http404  # a read's 404: the request answers it, and may go on reading
        assert not connection.needs_rollback
        assert current() == before


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_timed_reads_begin_one():
    before = current()
    with timed_reads(150) as reads:
        assert connection.in_atomic_block and reads.attempt(current) == "150ms"
    assert not connection.in_atomic_block and current() == before

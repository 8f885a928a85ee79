"""memorysite.statement_timeout: a shorter statement timeout for part of a transaction, the previous one back."""

from __future__ import annotations

import pytest
from django.db import OperationalError, connection, transaction

from memorysite.statement_timeout import local_statement_timeout


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

"""A shorter statement timeout for part of a transaction, with the previous one back afterwards.

PostgreSQL keeps a ``SET LOCAL`` (``set_config(..., true)``) made inside a savepoint that is released
until the end of the whole transaction: a read that set its own timeout and succeeded would leave it
on every later statement of the request (the request is one transaction, access/middleware.py). So the
block here reads the timeout in force, sets its own, and on the way out sets the previous one back. A
savepoint rolled back inside the block reverts only what was set after it, so the block's timeout
holds for the statements after a failed read too; when the block itself raises, the transaction (or
the enclosing one, marked for rollback) ends, and the setting with it.

``timed_reads`` is the cheap form for a run of pure reads that must each be allowed to fail: one savepoint
for all of them instead of one each (see its docstring).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction

T = TypeVar("T")

_ARM = "SELECT current_setting('statement_timeout'), set_config('statement_timeout', %s, true)"
_RESTORE = "SELECT set_config('statement_timeout', %s, true)"


@contextlib.contextmanager
def local_statement_timeout(timeout_ms: int, *, using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """The block's statements under ``statement_timeout = timeout_ms`` (0: none), in the enclosing transaction
    (one is begun when there is none; no savepoint of its own: a failing read belongs in its own
    ``transaction.atomic()`` inside the block). Two statements: one in, one out."""
    connection = connections[using]
    with transaction.atomic(using=using, savepoint=False):
        with connection.cursor() as cursor:
            cursor.execute(_ARM, [f"{int(timeout_ms)}ms"])
            previous = cursor.fetchone()[0]
        yield
        with connection.cursor() as cursor:
            cursor.execute(_RESTORE, [previous])


class TimedReads:
    """The reads of a ``timed_reads`` block: ``attempt(fn)`` runs one of them."""

    def __init__(self, *, using: str, savepoint: str, timeout: str):
        self.using = using
        self.savepoint = savepoint
        self.timeout = timeout

    def attempt(self, fn: Callable[[], T]) -> T:
        """``fn()``; when it raises a database error, the transaction is rolled back to the block's savepoint
        (usable again, the block's timeout set again) and the error re-raised. Nothing the reads before it
        returned is lost: they wrote nothing."""
        try:
            return fn()
        except DatabaseError:
            self._roll_back()
            raise

    def _roll_back(self) -> None:
        # What transaction.atomic does on its way out of a failed block: an inner atomic(savepoint=False) the
        # error went through marked the transaction for rollback, and the savepoint's rollback clears that.
        # When the rollback itself fails (the connection is gone) the transaction stays marked, and the next
        # statement fails the request, as it would with a savepoint per read.
        transaction.set_rollback(False, using=self.using)
        try:
            transaction.savepoint_rollback(self.savepoint, using=self.using)
            with connections[self.using].cursor() as cursor:
                cursor.execute(_RESTORE, [self.timeout])  # the rollback undid it: it was set in the savepoint
        except DatabaseError:
            transaction.set_rollback(True, using=self.using)


@contextlib.contextmanager
def timed_reads(timeout_ms: int, *, using: str = DEFAULT_DB_ALIAS) -> Iterator[TimedReads]:
    """``with timed_reads(ms) as reads:`` pure reads under ``statement_timeout = ms``, each run as
    ``reads.attempt(fn)``, in ONE savepoint: a read that fails rolls the transaction back to it (``ROLLBACK TO
    SAVEPOINT`` keeps the savepoint for the next failure) and the next reads go on. The happy path costs four
    statements whatever the number of reads (SAVEPOINT, timeout set, timeout back, RELEASE), where a savepoint
    per read costs two per read; each failure costs two more (the rollback, the timeout set again).

    For reads only: a write in the block would be undone, silently, by a later read's failure. An exception out
    of the block rolls back to the savepoint, as ``transaction.atomic()`` does (a 404 raised by a read leaves
    the request's transaction usable). Outside a transaction one is begun for the block."""
    connection = connections[using]
    outer = contextlib.nullcontext() if connection.in_atomic_block else transaction.atomic(using=using)
    timeout = f"{int(timeout_ms)}ms"
    with outer, transaction.atomic(using=using):
        savepoint = connection.savepoint_ids[-1]  # this block's (it is nested, so it has one)
        with connection.cursor() as cursor:
            cursor.execute(_ARM, [timeout])
            previous = cursor.fetchone()[0]
        yield TimedReads(using=using, savepoint=savepoint, timeout=timeout)
        with connection.cursor() as cursor:
            cursor.execute(_RESTORE, [previous])

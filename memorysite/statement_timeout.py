"""A shorter statement timeout for part of a transaction, with the previous one back afterwards.

PostgreSQL keeps a ``SET LOCAL`` (``set_config(..., true)``) made inside a savepoint that is released
until the end of the whole transaction: a read that set its own timeout and succeeded would leave it
on every later statement of the request (the request is one transaction, access/middleware.py). So the
block here reads the timeout in force, sets its own, and on the way out sets the previous one back. A
savepoint rolled back inside the block reverts only what was set after it, so the block's timeout
holds for the statements after a failed read too; when the block itself raises, the transaction (or
the enclosing one, marked for rollback) ends, and the setting with it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from django.db import DEFAULT_DB_ALIAS, connections, transaction

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

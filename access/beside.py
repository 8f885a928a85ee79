"""A read of the request's transaction run on a second pooled connection, beside the request's own.

A transaction's statements run one after another on its connection. A read that needs nothing the
transaction wrote can run at the same time on another connection in the same sealed scope: a search that
runs two independent statements runs one here while the other runs on the request's connection.

`start(read, transaction)` returns a `Beside` or None. None means the caller runs the read itself on
its own connection, as it would without this module. That happens when:

- **No scoped transaction.** No transaction is open, it has failed, or the scope is `NONE`. Outside a
  transaction our backend writes no scope, so the read would see no owned rows there; beside it, it would.
- **The snapshot is not shared** (`TransactionState.shares_snapshot`: `STATE_SQL`'s first column, which the
  caller reads in a statement it runs anyway). Another connection sees what is committed. It does not see the
  transaction's own writes (`pg_current_xact_id_if_assigned()` is set once it writes or locks a row), nor a
  REPEATABLE READ or SERIALIZABLE transaction's snapshot. Under READ COMMITTED each statement takes a new
  snapshot anyway, so a transaction that has written nothing sees what the second connection sees.
- **No idle pool connection.** The caller waits at most `POOL_WAIT_S` for one: a request never waits on a pool
  whose connections its own helpers could hold. The caller takes the connection itself: a helper thread may
  wait for the GIL longer than that.
- **Every helper thread is busy** (`THREADS` reads are running): a read never queues behind another's.

The read runs in a READ ONLY transaction of its own, under the caller's statement timeout (`STATE_SQL`'s second
column). The scope is sealed for the second connection's backend (`access.scope.apply_to_raw`). The transaction
is committed at the end (after an error, rolled back): being read-only it has written nothing, and a commit keeps
what psycopg prepared on the connection, where a rollback makes it deallocate every prepared statement. `read`
gets a psycopg cursor that binds its values server-side (as `access.backend`'s `prepared_cursor`), so a statement
the pool's connections run often is prepared on each of them (settings' `prepare_threshold`). It must not use
Django's connection, and its settings (`set_config(…, true)`) last until the transaction ends.

The thread does not run in a copy of the caller's context: Django keeps a thread's connections in context-local
storage (asgiref's `Local`), so a copied context would hand the thread the request's own connection. The scope
is passed to it instead. An error in the read is raised by `result()` as Django's database error, as if the
statement had run on the request's connection. A statement timeout is therefore still a 503
(memorysite.middleware).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg_pool import PoolTimeout

from access import scope as access_scope

T = TypeVar("T")

# Two columns of what the caller's transaction is like (`TransactionState`), for the caller to read in a
# statement it runs anyway: whether another connection sees exactly what it sees (see above), and the statement
# timeout in force (a read beside runs under the same: memorysite.statement_timeout may have shortened it).
STATE_SQL = (
    "(pg_current_xact_id_if_assigned() IS NULL AND current_setting('transaction_isolation') = 'read committed'),"
    " current_setting('statement_timeout')"
)


@dataclass(frozen=True)
class TransactionState:
    """STATE_SQL's two columns."""

    shares_snapshot: bool = False
    statement_timeout: str = ""


def state(using: str = DEFAULT_DB_ALIAS) -> TransactionState:
    """STATE_SQL read on its own (for a caller with no statement to read it in)."""
    with connections[using].cursor() as cursor:
        cursor.execute(f"SELECT {STATE_SQL}")
        return TransactionState(*cursor.fetchone())


# How long the caller waits for an idle pool connection. The pool refuses a wait of 0 even when a connection is
# idle (psycopg_pool), and a wait makes the pool open another connection when it has room, for the next read.
POOL_WAIT_S = 0.0005
# Helper threads per process: gunicorn runs 4 threads per worker (Dockerfile, memorysite/launcher.py), so each
# request thread can have its read beside it. Past that, callers run their reads themselves.
THREADS = 4

# The read's transaction: read-only (allowed at any point of a transaction, unlike read-write), and the caller's
# statement timeout.
_SETTINGS = "SELECT set_config('transaction_read_only', 'on', true), set_config('statement_timeout', %s, true)"

_lock = threading.Lock()
_helpers: tuple[int, ThreadPoolExecutor, threading.BoundedSemaphore] | None = None  # (pid, threads, free ones)


class Beside(Generic[T]):
    """A read started beside the request's connection."""

    def __init__(self, future: Future, using: str):
        self._future = future
        self._using = using

    def result(self) -> T:
        """The read's result (waiting for it), or its error as Django's."""
        try:
            return self._future.result()
        except psycopg.Error:
            with connections[self._using].wrap_database_errors:
                raise


def start(
    read: Callable[[psycopg.Cursor], T], transaction: TransactionState, *, using: str = DEFAULT_DB_ALIAS
) -> Beside[T] | None:
    """Run ``read`` on a second connection while the caller goes on (see the module's docstring): a
    `Beside`, or None when the caller must run it itself. ``transaction``: STATE_SQL read in the caller's
    transaction, after its last write (or lock) if any."""
    connection = connections[using]
    scope = access_scope.current()
    if not transaction.shares_snapshot or scope == access_scope.NONE:
        return None
    if connection.connection is None or not connection.in_atomic_block or connection.needs_rollback:
        return None
    pool = getattr(connection, "pool", None)  # PostgreSQL's wrapper has it (None without a pool); stubs do not
    if pool is None:
        return None
    threads, free = _threads()
    if not free.acquire(blocking=False):
        return None  # every helper is busy: a read never queues behind another's
    raw = None
    try:
        raw = pool.getconn(timeout=POOL_WAIT_S)
        future = threads.submit(_run, pool, raw, scope, transaction.statement_timeout, read, free)
    except BaseException as error:
        if raw is not None:
            pool.putconn(raw)
        free.release()
        if isinstance(error, PoolTimeout):
            return None
        raise
    return Beside[T](future, using)


def _threads() -> tuple[ThreadPoolExecutor, threading.BoundedSemaphore]:
    """The process's helper threads and how many of them are free (made again in a forked child: threads do not
    survive a fork)."""
    global _helpers
    with _lock:
        if _helpers is None or _helpers[0] != os.getpid():
            threads = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="db-beside")
            _helpers = (os.getpid(), threads, threading.BoundedSemaphore(THREADS))
        return _helpers[1], _helpers[2]


def _run(pool, raw: psycopg.Connection, scope: access_scope.Scope, timeout: str, read: Callable, free):
    try:
        with raw.transaction():  # committed: see the module's docstring
            with psycopg.Cursor(raw) as settings:  # server-side binding, as access.scope does
                settings.execute(_SETTINGS, [timeout])
            access_scope.apply_to_raw(raw, scope)
            with psycopg.Cursor(raw) as cursor:
                return read(cursor)
    finally:
        pool.putconn(raw)
        free.release()

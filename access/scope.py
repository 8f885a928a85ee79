"""Whose rows the current code may touch: the scope row-level security reads.

PostgreSQL policies (access/policies.py) compare each owned row with three transaction-local
settings — `app.owner_id` (the trader), `app.elevated` (`on`: an audited cross-trader job or staff
in admin) and `app.runner_key` (the sha256 of a runner token being authenticated). With none set, a
policy matches no row: forgetting the scope fails closed.

The app role can set any setting itself (`set_config` is open to every role), so the settings alone
prove nothing: a fourth, `app.scope_seal`, is an HMAC-SHA256 of the three values and the connection's
backend pid under a key derived from SECRET_KEY. The policies honour the settings only when a
SECURITY DEFINER function, reading the key from a table the app role cannot read, finds the seal
right. Only this process can seal, so a statement on the app role's connection (an SQL injection
included) cannot widen its scope: not to another trader, not to elevated. The seal names the
backend, so a seal seen elsewhere is worthless on another connection, and it is sent as a bound
parameter, so it never appears in the query text other sessions can read in pg_stat_activity.

The scope lives in a context variable. Our database backend (access/backend) writes it into every
transaction it begins, and `entered()` rewrites it into the open transaction when it changes inside
one, so a request's transaction follows its authentication. Nothing is ever set for a session: a
pooled connection cannot carry a trader from one request to the next.

Entry points:
- requests: access.middleware (one transaction per request) and access.auth (after authentication);
- Celery tasks: access.celery (the publisher's trader travels in a message header);
- code that must see across traders: `elevated(reason)`, which writes an audit row first.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import os
from contextvars import ContextVar
from dataclasses import dataclass

import psycopg
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from prometheus_client import Counter


@dataclass(frozen=True)
class Scope:
    owner_id: int | None = None
    elevated: bool = False
    runner_key: str = ""
    reason: str = ""  # why it is elevated (the audit row's reason), carried to tasks it queues

    def values(self) -> list[str]:
        return [str(self.owner_id or ""), "on" if self.elevated else "", self.runner_key]


# Counted where they happen (memorysite/metrics.py serves it): by kind, not reason (admin reasons carry paths).
ELEVATIONS = Counter("memory_elevations_total", "Elevated (cross-trader, audited) scopes entered, by kind.", ["kind"])
_ELEVATION_KINDS = (("admin ", "admin"), ("task ", "task"), ("manage.py ", "command"), ("metrics ", "metrics"))


def elevation_kind(reason: str) -> str:
    return next((kind for prefix, kind in _ELEVATION_KINDS if reason.startswith(prefix)), "job")


NONE = Scope()
_current: ContextVar[Scope] = ContextVar("access_scope", default=NONE)

APPLY_SQL = (
    "SELECT set_config('app.owner_id', %s, true), set_config('app.elevated', %s, true), "
    "set_config('app.runner_key', %s, true), set_config('app.scope_seal', %s, true)"
)
# For the whole session (tests' transactional set-up only: the service never sets a session scope).
SESSION_SQL = APPLY_SQL.replace(", true)", ", false)")
# What the seal covers, in the order the database function rebuilds it (access/policies.py).
SEAL_SEPARATOR = "|"
_KEY_SALT = b"access.scope.seal"


def seal_key() -> bytes:
    """The HMAC key of the seal: derived from SECRET_KEY (`migrate` stores it where only the tables'
    owner can read it; a process with another SECRET_KEY seals nothing the database accepts)."""
    return _derived_key(settings.SECRET_KEY)


@functools.lru_cache(maxsize=4)
def _derived_key(secret: str) -> bytes:
    return hmac.new(secret.encode(), _KEY_SALT, hashlib.sha256).digest()


def seal(scope: Scope, backend_pid: int, key: bytes | None = None) -> str:
    message = SEAL_SEPARATOR.join([*scope.values(), str(backend_pid)])
    return hmac.new(key or seal_key(), message.encode(), hashlib.sha256).hexdigest()


def sealed_values(scope: Scope, backend_pid: int) -> list[str]:
    """The parameters of APPLY_SQL: the three settings and their seal for this backend."""
    return [*scope.values(), seal(scope, backend_pid)]


def current() -> Scope:
    return _current.get()


def owner_scope_of(owner) -> Scope:
    """The scope of one trader (a user or a user id)."""
    owner_id = getattr(owner, "pk", owner)
    if not isinstance(owner_id, int) or owner_id <= 0:
        raise ValueError(f"owner: must be a saved user or a positive user id, got {owner!r}")
    return Scope(owner_id=owner_id)


def apply_to_raw(raw: psycopg.Connection, scope: Scope, *, session: bool = False) -> None:
    """Write `scope` into the raw connection's open transaction (`session`: for the session), with
    server-side binding: the values travel as parameters, never in the statement's text."""
    with psycopg.Cursor(raw) as cursor:
        cursor.execute(SESSION_SQL if session else APPLY_SQL, sealed_values(scope, raw.info.backend_pid))


def apply_to_cursor(cursor, scope: Scope) -> None:
    """The same through a Django cursor (of a connection that is open)."""
    apply_to_raw(cursor.db.connection, scope)


def apply(using: str = DEFAULT_DB_ALIAS) -> None:
    """Write the current scope into the connection's open transaction (a no-op outside one: the
    backend writes it when the next transaction begins)."""
    connection = connections[using]
    if connection.connection is None or not connection.in_atomic_block:
        return
    if connection.needs_rollback:
        return  # an aborted transaction runs nothing; its rollback discards the settings anyway
    try:
        with connection.wrap_database_errors:
            apply_to_raw(connection.connection, _current.get())
    except DatabaseError:
        if not connection.needs_rollback and not _in_failed_transaction(connection):
            raise


def _in_failed_transaction(connection) -> bool:
    from psycopg.pq import TransactionStatus

    raw = connection.connection
    return raw is not None and raw.info.transaction_status == TransactionStatus.INERROR


def switch(scope: Scope, using: str = DEFAULT_DB_ALIAS) -> None:
    """Replace the scope for the rest of the enclosing `entered()` block (used after authentication)."""
    _current.set(scope)
    apply(using)


@contextlib.contextmanager
def bound(scope: Scope):
    """The scope of every transaction begun in the block (no transaction of its own: for tasks,
    whose transactions are their own business, and views without a request transaction). A
    transaction that was already open (a test's) gets the previous scope back afterwards."""
    token = _current.set(scope)
    try:
        yield scope
    finally:
        _current.reset(token)
        apply()


@contextlib.contextmanager
def entered(scope: Scope, using: str = DEFAULT_DB_ALIAS):
    """Run the block under `scope`, inside a transaction; the previous scope is back afterwards
    (also in a transaction that is still open, e.g. a test's)."""
    token = _current.set(scope)
    try:
        nested = connections[using].in_atomic_block
        with transaction.atomic(using=using):
            if nested:
                apply(using)  # the backend only writes it when an outermost transaction begins
            yield scope
    finally:
        _current.reset(token)
        apply(using)


def transaction_unless_open(using: str = DEFAULT_DB_ALIAS):
    """The transaction already open (a request's: no savepoint on the common path), or a new one, for
    code that also serves views running without a request transaction (`without_transaction`)."""
    return contextlib.nullcontext() if connections[using].in_atomic_block else transaction.atomic(using=using)


def owner_scope(owner, using: str = DEFAULT_DB_ALIAS):
    """`with owner_scope(user):` — one trader's rows, in a transaction (for tasks and commands)."""
    return entered(owner_scope_of(owner), using)


@contextlib.contextmanager
def elevated(reason: str, *, actor: str = "", atomic: bool = True, using: str = DEFAULT_DB_ALIAS):
    """Every trader's rows, for staff in admin and service jobs: audited before anything is read.

    The audit row is written in the transaction the block runs in, or committed on its own first
    when there is none, so a failing job still leaves its trace. `atomic=False` opens no
    transaction: each one the block begins is elevated (for jobs that commit as they go)."""
    from access.models import Elevation

    reason = reason.strip()
    if not reason:
        raise ValueError("reason: an elevation must say why")
    Elevation.objects.using(using).create(reason=reason[:500], actor=actor[:150], pid=os.getpid())
    ELEVATIONS.labels(elevation_kind(reason)).inc()
    elevation = Scope(elevated=True, reason=reason[:500])
    with entered(elevation, using) if atomic else bound(elevation):
        yield

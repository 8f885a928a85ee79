"""PostgreSQL (psycopg 3) whose every transaction starts scoped to the current trader.

Django begins a transaction by turning autocommit off; the first statement of it here is the
scope's `set_config(…, true)` (access/scope.py), so every query of the transaction — and nothing
after it — sees the trader. Statements outside a transaction (autocommit) see no scope at all and
row-level security gives them no owned rows: code that reads owned tables runs in a transaction
(a request's, a task's `transaction.atomic()`, or `owner_scope()`/`elevated()`).
"""

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql import base, operations

from access import scope


class DatabaseOperations(operations.DatabaseOperations):
    def last_executed_query(self, cursor, sql, params):
        """The statement with its values, for Django's query log (DEBUG, tests' captured queries). Django reads a
        server-side binding cursor's (``prepared_cursor``) from psycopg, which keeps no text once the statement is
        prepared: it is composed here instead, as Django does when every cursor binds server-side."""
        if isinstance(cursor, psycopg.ClientCursor):
            return super().last_executed_query(cursor, sql, params)
        try:
            return self.compose_sql(sql, params)
        except psycopg.errors.DataError:
            return None


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def prepared_cursor(self):
        """A cursor of this connection that binds its parameters server-side (``connection.cursor()``'s binds them
        into the statement's text), so that psycopg prepares a statement this connection runs often (after
        ``prepare_threshold`` runs, 5) and PostgreSQL stops parsing it each time and, when a generic plan costs no
        more than the custom ones (``plan_cache_mode`` auto), planning it. For the statements of a search, run
        every few seconds by every runner. The statement's text must not change with its values, and every value
        must be typed by a cast or by its context, as psycopg sends a str untyped and an int as the smallest
        integer type that holds it. A rollback on the connection (of its transaction or of a savepoint) makes
        psycopg deallocate every statement it prepared there, and count again from nothing."""
        self.close_if_health_check_failed()
        self.ensure_connection()
        with self.wrap_database_errors:
            cursor = base.ServerBindingCursor(self.connection)  # type: ignore[attr-defined]  # psycopg 3's, not stubbed
            return self._prepare_cursor(cursor)  # type: ignore[attr-defined]  # private: Django's own wrapping

    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)  # type: ignore[misc]  # private: not in django-stubs
        if not autocommit:
            current = scope.current()
            if current != scope.NONE:
                with self.wrap_database_errors:
                    scope.apply_to_raw(self.connection, current)


def prepared_cursor(using: str = DEFAULT_DB_ALIAS):
    """``connections[using].prepared_cursor()``: see DatabaseWrapper's."""
    return connections[using].prepared_cursor()  # type: ignore[attr-defined]  # this backend's

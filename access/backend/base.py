"""PostgreSQL (psycopg 3) whose every transaction starts scoped to the current trader.

Django begins a transaction by turning autocommit off; the first statement of it here is the
scope's `set_config(…, true)` (access/scope.py), so every query of the transaction — and nothing
after it — sees the trader. Statements outside a transaction (autocommit) see no scope at all and
row-level security gives them no owned rows: code that reads owned tables runs in a transaction
(a request's, a task's `transaction.atomic()`, or `owner_scope()`/`elevated()`).
"""

from django.db.backends.postgresql import base

from access import scope


class DatabaseWrapper(base.DatabaseWrapper):
    def _set_autocommit(self, autocommit):
        super()._set_autocommit(autocommit)  # type: ignore[misc]  # private: not in django-stubs
        if not autocommit:
            current = scope.current()
            if current != scope.NONE:
                with self.wrap_database_errors:
                    scope.apply_to_raw(self.connection, current)

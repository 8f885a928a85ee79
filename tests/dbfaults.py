"""Faults on the real server for degrade tests: another connection's lock, a table renamed away."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import psycopg

from tests.dbroles import owner_connection
from tests.workers import database_url_of_test_db


@contextlib.contextmanager
def table_locked(table: str) -> Iterator[None]:
    """Another connection holds an ACCESS EXCLUSIVE lock on the table for the block."""
    locked, release = threading.Event(), threading.Event()

    def hold():
        with psycopg.connect(database_url_of_test_db()) as other, other.transaction():
            other.execute(f"LOCK TABLE {table} IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(10)
        yield
    finally:
        release.set()
        holder.join()


@contextlib.contextmanager
def table_renamed(*tables: str) -> Iterator[None]:
    """The tables renamed away by the schema owner for the block (the app role may not alter tables)."""
    with owner_connection() as schema_owner:
        for table in tables:
            schema_owner.execute(f"ALTER TABLE {table} RENAME TO {table}_away")
        try:
            yield
        finally:
            for table in tables:
                schema_owner.execute(f"ALTER TABLE {table}_away RENAME TO {table}")

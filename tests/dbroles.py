"""The tables' owner, for the few tests that change the schema or statistics under the app role's feet; the
connection pool's idle connections, for the tests of reads beside a request (access/beside.py)."""

import time

import psycopg
from django.conf import settings
from django.db import connection


def owner_connection() -> psycopg.Connection:
    """An autocommit connection to this test run's database as the owner role (DATABASE_MIGRATE_URL)."""
    owner = settings.DATABASE_MIGRATE
    conninfo = {"dbname": connection.settings_dict["NAME"], "user": owner["USER"], "host": owner["HOST"]}
    conninfo.update({"password": owner["PASSWORD"], "port": owner["PORT"]})
    return psycopg.connect(**{key: value for key, value in conninfo.items() if value}, autocommit=True)


def idle_pool_connection() -> int:
    """Wait until every pooled connection but the test's own is idle, at least one; how many are. The pool opens a
    connection when a borrower waits, so without this the first read beside a transaction could find none idle and
    run in its caller (as the first one of a process may). A connection given back is idle once the pool's worker
    has reset it: one that never comes back fails the wait."""
    pool = connection.pool
    pool.putconn(pool.getconn())
    mine = 0 if connection.connection is None else 1
    deadline = time.monotonic() + 5
    while True:
        stats = pool.get_stats()
        idle, lent = stats["pool_available"], stats["pool_size"] - stats["pool_available"]
        if idle and lent == mine:
            return idle
        assert time.monotonic() < deadline, f"pooled connections: {idle} idle, {lent} lent, the test holds {mine}"
        time.sleep(0.001)

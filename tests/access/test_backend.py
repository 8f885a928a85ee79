"""The service's database backend (access/backend): statements it prepares stay in Django's query log."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from access.backend.base import prepared_cursor

pytestmark = pytest.mark.django_db


def test_a_prepared_statement_is_logged_with_its_values():
    """psycopg keeps no text for a statement it runs prepared (from the fifth run, settings' prepare_threshold):
    Django's query log (DEBUG, captured queries) gets the statement composed with its values all the same."""
    with CaptureQueriesContext(connection) as captured, prepared_cursor() as cursor:
        for n in range(7):
            cursor.execute("SELECT %s::int + 1, %s::text", [n, "it's"])
            assert cursor.fetchone() == (n + 1, "it's")
        cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1::int + 1, $2::text'")
        assert cursor.fetchone() == (1,)
    logged = [query["sql"] for query in captured.captured_queries]
    assert logged[:7] == [f"SELECT {n}::int + 1, 'it''s'::text" for n in range(7)]

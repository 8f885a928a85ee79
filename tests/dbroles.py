"""The tables' owner, for the few tests that change the schema or statistics under the app role's feet."""

import psycopg
from django.conf import settings
from django.db import connection


def owner_connection() -> psycopg.Connection:
    """An autocommit connection to this test run's database as the owner role (DATABASE_MIGRATE_URL)."""
    owner = settings.DATABASE_MIGRATE
    conninfo = {"dbname": connection.settings_dict["NAME"], "user": owner["USER"], "host": owner["HOST"]}
    conninfo.update({"password": owner["PASSWORD"], "port": owner["PORT"]})
    return psycopg.connect(**{key: value for key, value in conninfo.items() if value}, autocommit=True)

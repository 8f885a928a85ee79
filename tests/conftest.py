"""Session set-up: real PostgreSQL+pgvector and Redis (embedded unless DATABASE_URL/REDIS_URL are set)."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from memorysite.embedded import EmbeddedServices
from tests.factories import UserFactory


@pytest.fixture(scope="session", autouse=True)
def embedded_services():
    services = EmbeddedServices.for_unset_urls()
    services.start()
    yield services
    services.stop()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(embedded_services, django_db_modify_db_settings_parallel_suffix):
    """The servers must answer before pytest-django creates the test database."""
    _drop_test_databases_of_dead_runs()


def _drop_test_databases_of_dead_runs() -> None:
    import psycopg
    from django.conf import settings

    from memorysite.embedded import pid_alive

    database = settings.DATABASES["default"]
    prefix = settings.TEST_DATABASE_PREFIX
    conninfo = {"dbname": "postgres", "user": database["USER"], "password": database["PASSWORD"]}
    conninfo.update({"host": database["HOST"], "port": database["PORT"]})
    with psycopg.connect(**{k: v for k, v in conninfo.items() if v}, autocommit=True) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [prefix + "%"]).fetchall()
        for (name,) in rows:
            pid = name.removeprefix(prefix)
            if pid.isdigit() and not pid_alive(int(pid)):
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def owner(db):
    return UserFactory(username="owner")


@pytest.fixture
def other(db):
    return UserFactory(username="other")


def _token_client(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def owner_api(owner) -> APIClient:
    return _token_client(owner)


@pytest.fixture
def other_api(other) -> APIClient:
    return _token_client(other)


@pytest.fixture
def anon_api(db) -> APIClient:
    return APIClient()

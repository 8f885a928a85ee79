"""Session set-up: real PostgreSQL+pgvector and Redis (embedded unless DATABASE_URL/REDIS_URL are set)."""

from __future__ import annotations

import contextlib
import subprocess

import pytest
from django.db import connection
from rest_framework.test import APIClient

from access import scope
from access.roles import owner_credentials, swap_credentials
from memorysite.embedded import EmbeddedServices
from tests.factories import DeploymentFactory, UserFactory, token_client

# A test that uses one of these starts a web server, a browser or a Celery worker: it is `slow`
# (pyproject.toml), so `make test-fast` (pytest -m "not slow") leaves it out.
SLOW_FIXTURES = frozenset({"live_server", "browser", "empty_queue"})


def pytest_addoption(parser):
    parser.addoption(
        "--fewer-examples",
        action="store_true",
        help="each Hypothesis test tries a tenth of its examples, at least 5 (make test-fast; make test tries all)",
    )


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    if config.getoption("fewer_examples"):
        _fewer_examples(items)


@pytest.fixture
def fewer_examples(request) -> bool:
    """Whether this run asked for fewer examples (make test-fast): for tests that count their own examples."""
    return request.config.getoption("fewer_examples")


def _fewer_examples(items) -> None:
    """Hypothesis reads a test's settings from this attribute when the test runs (its own pytest
    plugin rewrites it the same way); explicit @settings(max_examples=...) included."""
    from hypothesis import settings

    capped = set()
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if current is None or id(test) in capped:  # parametrized cases share their function
            continue
        capped.add(id(test))
        test._hypothesis_internal_use_settings = settings(
            current, max_examples=min(current.max_examples, max(5, current.max_examples // 10))
        )


_process_refused_to: pytest.Item | None = None
_popen_init = subprocess.Popen.__init__


def _popen_init_unless_refused(self, args, *rest, **options):
    if _process_refused_to is not None:
        pytest.fail(
            f"{_process_refused_to.nodeid} starts a process ({args!r}): mark it @pytest.mark.slow "
            "so `make test-fast` leaves it out",
            pytrace=False,
        )
    _popen_init(self, args, *rest, **options)


subprocess.Popen.__init__ = _popen_init_unless_refused  # asyncio's and the MCP client's subprocesses too


@contextlib.contextmanager
def _processes_refused_to(item: pytest.Item | None):
    global _process_refused_to
    refused_to, _process_refused_to = _process_refused_to, item
    try:
        yield
    finally:
        _process_refused_to = refused_to


def _unless_slow(item: pytest.Item) -> pytest.Item | None:
    return None if item.get_closest_marker("slow") else item


# A test not marked slow fails when its body or its own (function-scoped) fixtures start a process,
# so a process-spawning test cannot forget its mark. Wider fixtures (the embedded servers, the test
# database) are not the test's own doing, even when a test's request is what sets them up.
@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    with _processes_refused_to(_unless_slow(request.node) if fixturedef.scope == "function" else None):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with _processes_refused_to(_unless_slow(item)):
        return (yield)


@pytest.fixture(scope="session", autouse=True)
def embedded_services():
    services = EmbeddedServices.for_unset_urls()
    services.start()
    yield services
    services.stop()


@pytest.fixture(scope="session")
def django_db_modify_db_settings(embedded_services, django_db_modify_db_settings_parallel_suffix):
    """The servers must answer before pytest-django creates the test database, which the owner
    role creates and migrates (as `make run` does); django_db_setup below then hands the
    connection to the app role."""
    _drop_test_databases_of_dead_runs()
    APP_CREDENTIALS.update(swap_credentials("default", owner_credentials()))


APP_CREDENTIALS: dict = {}


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Tests run as the service does: as the app role, under row-level security."""
    swap_credentials("default", APP_CREDENTIALS)
    yield
    swap_credentials("default", owner_credentials())  # the owner drops the test database
    with django_db_blocker.unblock(), connection.cursor() as cursor:  # what a live server's pool left
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            [connection.settings_dict["NAME"]],
        )
    connection.close()


@pytest.fixture(autouse=True)
def test_body_elevated(request):
    """A test's own set-up and assertions see every trader's rows (an elevation, as staff jobs
    use); each request it makes through a test client runs in that request's scope, as served,
    and tasks it queues itself run elevated.

    Transactional tests run their statements outside a transaction, so their connection gets the
    elevation for its session (the pool's reset clears it when the connection is returned)."""
    from django.test import TestCase, TransactionTestCase

    marker = request.node.get_closest_marker("django_db")
    names = set(request.fixturenames)
    if isinstance(request.instance, TransactionTestCase):  # unittest-style (hypothesis' Django cases)
        transactional = not isinstance(request.instance, TestCase)
    elif {"transactional_db", "live_server"} & names or (marker and marker.kwargs.get("transaction")):
        transactional = True
        request.getfixturevalue("transactional_db")
    elif "db" in names or marker is not None:
        transactional = False
        request.getfixturevalue("db")
    else:
        yield
        return
    with scope.bound(scope.Scope(elevated=True, reason="test set-up and assertions")) as elevation:
        if transactional:
            connection.ensure_connection()
            scope.apply_to_raw(connection.connection, elevation, session=True)
        else:
            scope.apply()
        yield


def _drop_test_databases_of_dead_runs() -> None:
    import psycopg
    from django.conf import settings

    from memorysite.embedded import pid_alive

    database = owner_credentials()
    prefix = settings.TEST_DATABASE_PREFIX
    conninfo = {"dbname": "postgres", "user": database["USER"], "password": database["PASSWORD"]}
    conninfo.update({"host": database["HOST"], "port": database["PORT"]})
    with psycopg.connect(**{k: v for k, v in conninfo.items() if v}, autocommit=True) as conn:
        rows = conn.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [prefix + "%"]).fetchall()
        for (name,) in rows:
            pid = name.removeprefix(prefix).split("_")[0]  # test_memory_<pid>, or _<pid>_gw<n> under xdist
            if pid.isdigit() and not pid_alive(int(pid)):
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def owner(db):
    return UserFactory(username="owner")


@pytest.fixture
def other(db):
    return UserFactory(username="other")


@pytest.fixture
def curator(db):
    """Staff with every admin permission (the admin pages' user)."""
    return UserFactory(username="curator", is_staff=True, is_superuser=True)


@pytest.fixture
def staff_client(client, curator):
    client.force_login(curator)
    return client


@pytest.fixture
def deployment(owner):
    """The owner's paper deployment of a new skill; a module needing a named or tuned one overrides it."""
    return DeploymentFactory(skill_version__skill__owner=owner)


@pytest.fixture
def empty_queue():
    """This run's Celery queue empty before and after: what tests without a worker queued is not the
    worker's work. Only worker tests use it (SLOW_FIXTURES)."""
    from tests.workers import purge

    purge()
    yield
    purge()


@pytest.fixture
def owner_api(owner) -> APIClient:
    return token_client(owner)


@pytest.fixture
def other_api(other) -> APIClient:
    return token_client(other)


@pytest.fixture
def anon_api(db) -> APIClient:
    return APIClient()


_BOOKKEEPING = (
    "SELECT set_config('app.owner_id'",
    "SAVEPOINT ",
    "RELEASE SAVEPOINT ",
    "ROLLBACK TO SAVEPOINT ",
    # A shorter statement timeout for part of the transaction, set and restored (memorysite.statement_timeout).
    "SELECT current_setting('statement_timeout'), set_config('statement_timeout'",
    "SELECT set_config('statement_timeout'",
)
_BOOKKEEPING_EXACT = {"BEGIN", "COMMIT", "ROLLBACK"}


def _bookkeeping(query: dict) -> bool:
    """The request's transaction, its savepoints, its row-level-security scope and its statement timeouts, not
    the page's reads."""
    sql = query["sql"]
    return sql in _BOOKKEEPING_EXACT or sql.startswith(_BOOKKEEPING)


@contextlib.contextmanager
def _queries_at_most(num: int, *, exact: bool):
    """pytest-django's query-count assertion, counting reads and writes, not transaction control.

    Every request runs in a transaction scoped for row-level security (access/): in production a
    BEGIN, one scope statement and a COMMIT; under a test's own transaction, savepoints and the scope
    set and restored around the request. Those are the same for every request, and differ between
    the two, so they are not counted here; bench/load.py measures what they cost."""
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as context:
        yield context
    queries = [query for query in context.captured_queries if not _bookkeeping(query)]
    if (len(queries) != num) if exact else (len(queries) > num):
        listing = "\n".join(query["sql"] for query in queries)
        pytest.fail(f"Expected {'exactly' if exact else 'at most'} {num} queries, {len(queries)} were done:\n{listing}")


@pytest.fixture
def django_assert_num_queries():
    return lambda num: _queries_at_most(num, exact=True)


@pytest.fixture
def django_assert_max_num_queries():
    return lambda num: _queries_at_most(num, exact=False)


@pytest.fixture(autouse=True)
def rate_counters_forgotten():
    """Each test starts with no failed logins or API requests counted (the brake's and the throttle's
    Redis keys, under this run's own RATE_KEY_PREFIX: tests/settings.py)."""
    from django.conf import settings
    from redis.exceptions import RedisError

    from memorysite.redis import client

    try:
        keys = list(client().scan_iter(match=f"{settings.RATE_KEY_PREFIX}*", count=1000))
        if keys:
            client().delete(*keys)
    except RedisError:
        pass  # a test that stopped Redis (tests/faults/): nothing was counted

"""docker-compose.yml wires the production-like stack through the same variables settings read."""

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml
from django.conf import settings

BASE_DIR = Path(settings.BASE_DIR)
WORKERS = ["worker-ticks", "worker-embeddings", "worker-reflection", "worker-sweeps"]
APP_SERVICES = ["web", *WORKERS, "beat", "migrate"]


@pytest.fixture(scope="module")
def compose():
    return yaml.safe_load((BASE_DIR / "docker-compose.yml").read_text())


def settings_variables() -> set[str]:
    """The environment variables memorysite/settings.py reads (through the env_* helpers)."""
    source = (BASE_DIR / "memorysite/settings.py").read_text()
    return set(re.findall(r'env_(?:str|bool|list|choice|int)\(\s*"([A-Z_]+)"', source))


def test_it_runs_pgvector_postgres_18_the_embedded_major_and_redis_7(compose):
    from memorysite.embedded import POSTGRES_MAJOR

    services = compose["services"]
    assert services["postgres"]["image"] == f"pgvector/pgvector:pg{POSTGRES_MAJOR}"
    # 18's image keeps its data under the mount, in /var/lib/postgresql/18/docker; pg_stat_statements preloaded.
    assert next(volume.split(":")[1] for volume in services["postgres"]["volumes"]) == "/var/lib/postgresql"
    assert "shared_preload_libraries=pg_stat_statements" in services["postgres"]["command"]
    assert services["redis"]["image"] == "redis:7"
    assert {"web", *WORKERS, "beat"} <= set(services)


@pytest.mark.parametrize("service", APP_SERVICES)
def test_app_services_set_exactly_the_settings_variables(compose, service):
    environment = compose["services"][service]["environment"]
    assert set(environment) == settings_variables()
    assert environment["DEBUG"] == "false"


def test_app_services_point_at_the_compose_servers(compose):
    environment = compose["services"]["web"]["environment"]
    database = urlsplit(environment["DATABASE_URL"])
    assert (database.scheme, database.hostname, database.path) == ("postgres", "postgres", "/memory")
    # The service as memory_app (row-level security applies), migrations as the container's owner.
    migrate = urlsplit(environment["DATABASE_MIGRATE_URL"])
    assert (database.username, migrate.username) == ("memory_app", "memory")
    assert (migrate.hostname, migrate.path) == ("postgres", "/memory")
    redis = urlsplit(environment["REDIS_URL"])
    assert (redis.scheme, redis.hostname) == ("redis", "redis")


def test_the_postgres_container_creates_the_app_role_without_privileges(compose):
    postgres = compose["services"]["postgres"]
    assert "./deploy/postgres-init:/docker-entrypoint-initdb.d:ro" in postgres["volumes"]
    script = (BASE_DIR / "deploy/postgres-init/10-app-role.sh").read_text()
    assert "CREATE ROLE memory_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE" in script
    assert postgres["environment"]["APP_DB_PASSWORD"] == "${APP_DB_PASSWORD:-memory_app}"


def test_web_worker_and_beat_run_the_right_processes(compose):
    services = compose["services"]
    assert services["web"]["command"][:2] == ["gunicorn", "memorysite.wsgi"]
    for worker in WORKERS:
        assert services[worker]["command"][:4] == ["celery", "-A", "memorysite", "worker"]
    assert services["beat"]["command"][:4] == ["celery", "-A", "memorysite", "beat"]
    assert services["migrate"]["command"] == ["python", "manage.py", "migrate", "--noinput"]
    for name in ["web", *WORKERS, "beat"]:
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    assert "/healthz" in " ".join(services["web"]["healthcheck"]["test"])


def test_every_job_kind_has_a_worker_pool_of_its_own(compose):
    """Queues per job kind (memorysite/queues.py): each kind's queue is taken by exactly one worker service, and
    the default queue (the heartbeat) by one too, so an embedding flood never waits in front of a tick."""
    from memorysite.queues import DEFAULT_QUEUE, KINDS, task_routes

    taken: dict[str, list[str]] = {}
    for name, service in compose["services"].items():
        command = service.get("command") or []
        if command[:4] == ["celery", "-A", "memorysite", "worker"]:
            for queue in command[command.index("-Q") + 1].split(","):
                taken.setdefault(queue, []).append(name)
    assert sorted(taken) == sorted([*KINDS, DEFAULT_QUEUE])
    assert all(len(services) == 1 for services in taken.values()), taken
    assert taken["ticks"] == ["worker-ticks"] and taken["embeddings"] == ["worker-embeddings"]
    assert {route["queue"] for route in task_routes().values()} == set(KINDS)

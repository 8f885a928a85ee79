"""`make upgrade-data`: a PostgreSQL 16 data directory (the old pgserver's) becomes an 18 one, every row kept."""

import contextlib
import dataclasses
import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

from memorysite import upgrade_postgres
from memorysite.embedded import (
    APP_IDLE_IN_TRANSACTION_TIMEOUT_MS,
    APP_STATEMENT_TIMEOUT_MS,
    APP_USER,
    DATABASE_NAME,
    POSTGRES_USER,
    EmbeddedPaths,
    EmbeddedServices,
    database_url,
    import_postgres,
    migrate_database_url,
    pid_alive,
)
from memorysite.upgrade_postgres import (
    DISK_MARGIN_BYTES,
    DatabaseInventory,
    UpgradeRefused,
    archive_name,
    differences,
    disk_shortfall,
    failed_attempt_name,
    nothing_to_do,
    pip_download_command,
    roles_script_without,
    summary,
)

BASE_DIR = Path(settings.BASE_DIR)

# What 18's pg_dumpall --roles-only printed for a 16 cluster of ours (trimmed of its comments).
ROLES_SCRIPT = """\\restrict uLduWKID0pM17Ryhx0Ls209ETcSTad4O7ZVCFc3jMxFptaMCHAsRnyfhSr51yvb

SET default_transaction_read_only = off;

CREATE ROLE memory_app;
ALTER ROLE memory_app WITH NOSUPERUSER INHERIT NOCREATEROLE NOCREATEDB LOGIN NOREPLICATION NOBYPASSRLS;
CREATE ROLE postgres;
ALTER ROLE postgres WITH SUPERUSER INHERIT CREATEROLE CREATEDB LOGIN REPLICATION BYPASSRLS;
CREATE ROLE postgres_reader;
ALTER ROLE postgres_reader WITH NOSUPERUSER INHERIT NOCREATEROLE NOCREATEDB NOLOGIN NOREPLICATION NOBYPASSRLS;
ALTER ROLE memory_app SET statement_timeout TO '30000';
GRANT postgres_reader TO memory_app WITH INHERIT TRUE GRANTED BY postgres;

\\unrestrict uLduWKID0pM17Ryhx0Ls209ETcSTad4O7ZVCFc3jMxFptaMCHAsRnyfhSr51yvb
"""


def test_it_drops_only_the_lines_that_create_the_bootstrap_superuser():
    script = roles_script_without(ROLES_SCRIPT, "postgres")
    assert "CREATE ROLE postgres;" not in script
    assert "ALTER ROLE postgres WITH" not in script
    assert (
        ROLES_SCRIPT.replace(
            "CREATE ROLE postgres;\nALTER ROLE postgres WITH SUPERUSER INHERIT CREATEROLE CREATEDB LOGIN REPLICATION BYPASSRLS;\n",
            "",
        )
        == script
    )  # the app role, a role whose name starts alike, settings, memberships and grants by it stay


def test_it_recognises_a_quoted_superuser_name():
    script = 'CREATE ROLE "Admin";\nALTER ROLE "Admin" WITH SUPERUSER LOGIN;\nCREATE ROLE admin;\n'
    assert roles_script_without(script, "Admin") == "CREATE ROLE admin;\n"


def test_it_upgrades_only_a_16_directory_and_says_when_there_is_nothing_to_do(tmp_path):
    assert nothing_to_do(tmp_path, "16") is None
    assert nothing_to_do(tmp_path, "18") == f"Nothing to do: {tmp_path} is already a PostgreSQL 18 data directory."
    assert "holds no PostgreSQL data directory" in nothing_to_do(tmp_path, None)
    with pytest.raises(UpgradeRefused, match="made by PostgreSQL 15; this command upgrades only from PostgreSQL 16"):
        nothing_to_do(tmp_path, "15")


def test_it_asks_for_room_for_a_second_copy_and_a_margin():
    gib = 2**30
    assert disk_shortfall(old_bytes=gib, free_bytes=10 * gib) == 0
    assert disk_shortfall(old_bytes=gib, free_bytes=gib + DISK_MARGIN_BYTES) == 0
    assert disk_shortfall(old_bytes=gib, free_bytes=gib) == DISK_MARGIN_BYTES


def test_the_kept_directories_are_named_by_their_utc_time():
    moment = dt.datetime(2026, 6, 4, 14, 30, 5, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    assert archive_name("16", moment) == "postgres-16-20260604T123005Z"
    assert failed_attempt_name(moment) == "upgrade-failed-20260604T123005Z"


def test_pip_fetches_the_old_wheel_alone_for_any_python(tmp_path):
    command = pip_download_command("/usr/bin/python3.13", tmp_path)
    assert command[:5] == ["/usr/bin/python3.13", "-m", "pip", "download", "pgserver==0.1.4"]
    assert {"--no-deps", "--only-binary=:all:"} <= set(command)
    assert command[command.index("--python-version") + 1] == "3.11"
    assert command[command.index("--dest") + 1] == str(tmp_path)


def _inventory(rows, *, vectors=None, indexes=None, invalid=(), sequences=None, extensions=None):
    return DatabaseInventory(
        rows=rows,
        vectors=vectors or {},
        indexes=indexes or {},
        invalid_indexes=frozenset(invalid),
        sequences=sequences or {},
        extensions=extensions or {"plpgsql": "1.0"},
    )


def test_the_same_data_at_a_newer_pgvector_is_no_difference():
    old = {
        "memory": _inventory(
            {"public.trades": 3, "public.chunks": 2},
            vectors={"public.chunks.embedding": 2},
            indexes={"public.chunks_hnsw": "hnsw"},
            sequences={"public.trades_id_seq": 3},
            extensions={"plpgsql": "1.0", "vector": "0.6.2"},
        )
    }
    new = {"memory": dataclasses.replace(old["memory"], extensions={"plpgsql": "1.0", "vector": "0.8.6"})}
    assert differences(old, new) == []


def test_every_missing_or_changed_thing_is_a_difference():
    old = {
        "memory": _inventory(
            {"public.trades": 3, "public.chunks": 2},
            vectors={"public.chunks.embedding": 2},
            indexes={"public.chunks_hnsw": "hnsw", "public.trades_pkey": "btree"},
            sequences={"public.trades_id_seq": 3},
            extensions={"plpgsql": "1.0", "vector": "0.6.2"},
        ),
        "other": _inventory({}),
    }
    new = {
        "memory": _inventory(
            {"public.trades": 2, "public.extra": 0},
            vectors={"public.chunks.embedding": 1},
            indexes={"public.trades_pkey": "btree"},
            invalid={"public.trades_pkey"},
            sequences={"public.trades_id_seq": 1},
            extensions={"plpgsql": "1.0"},
        )
    }
    assert differences(old, new) == [
        "memory: public.chunks missing (rows: 2 before)",
        "memory: public.extra not in the old cluster (rows: 0)",
        "memory: public.trades rows 3 before, 2 after",
        "memory: public.chunks.embedding non-null vectors 2 before, 1 after",
        "memory: public.trades_id_seq sequence value 3 before, 1 after",
        "memory: index public.chunks_hnsw (hnsw) missing",
        "memory: index public.trades_pkey is not valid",
        "memory: extension vector missing",
        "other: database missing after the restore",
    ]


def test_the_summary_lists_each_non_empty_table_old_and_new():
    old = {
        "memory": _inventory(
            {"public.trades": 1234, "public.empty": 0},
            indexes={"public.chunks_hnsw": "hnsw"},
            extensions={"plpgsql": "1.0", "vector": "0.6.2"},
        )
    }
    new = {"memory": _inventory({"public.trades": 1233, "public.empty": 0}, extensions={"vector": "0.8.6"})}
    lines = summary(old, new)
    assert lines[0] == (
        "  memory: 2 tables, 1,234 rows before, 1,233 after; 0 vectors; 1 indexes (1 HNSW); vector 0.6.2 → 0.8.6"
    )
    assert lines[1].split() == ["public.trades", "1,234", "1,233", "←", "DIFFERS"]
    assert len(lines) == 2


# -- the real thing: a 16.2 directory made as the old code made it, filled through the app, upgraded


OLD_SYSTEM_USER = "pgserver"  # the old code's system user, run as root
# Reads through the app, as the trader (row-level security on): the same answer on 16 and on 18.
READS = """
import json
from django.contrib.auth import get_user_model
from django.utils.dateparse import parse_datetime
from access.scope import owner_scope
from chatmemory import selectors as facts
from ledger import selectors as ledger
from recall import selectors as recall
from recall.embeddings import get_embedder

user = get_user_model().objects.get(username="demo")
now = parse_datetime("2026-06-05T00:00:00Z")
with owner_scope(user):
    deployment = ledger.deployment_list(user=user).get()
    trades = [
        [t.symbol, t.side, t.status, str(t.entry_tick_at), str(t.entry_price), str(t.realized_pnl_usd)]
        for t in ledger.trade_list(deployment=deployment, limit=1000)
    ]
    remembered = sorted(f.fact for f in facts.fact_list(user=user))
    found = {}
    for backend in ("vector", "hybrid"):
        outcome = recall.search(
            user=user, query="liquidation cascades and open interest", k=3, now=now, backend=backend,
            embedder=get_embedder(),
        )
        found[backend] = [c["path"] for c in outcome.citations()]
print(json.dumps({"trades": trades, "facts": remembered, "recall": found}))
"""
FACTS = """
from django.contrib.auth import get_user_model
from access.scope import owner_scope
from chatmemory import services
from chatmemory.models import FactConfidence, FactSource

user = get_user_model().objects.get(username="demo")
with owner_scope(user):
    services.fact_create(owner=user, fact="Trades only BTC and ETH perpetuals", source=FactSource.PROFILE,
                         topic="markets", confidence=FactConfidence.ASSERTED)
    services.fact_create(owner=user, fact="Cuts risk after two losing days", source=FactSource.CHAT, topic="risk")
"""


def _recall_migrations_after(node: tuple[str, str]) -> list[tuple[str, str]]:
    """Recall's migrations after ``node``, to the latest: what the new server's first `migrate` applies."""
    from django.db.migrations.loader import MigrationLoader

    graph = MigrationLoader(None, ignore_no_migrations=True).graph
    (leaf,) = [leaf for leaf in graph.leaf_nodes() if leaf[0] == "recall"]
    return [step for step in graph.forwards_plan(leaf) if step[0] == "recall" and step not in graph.forwards_plan(node)]


def _environment(data_dir: Path, **urls: str) -> dict[str, str]:
    cleared = {"DATABASE_URL", "DATABASE_MIGRATE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}
    return {**{k: v for k, v in os.environ.items() if k not in cleared}, "MEMORY_DATA_DIR": str(data_dir), **urls}


# Every app migrated, recall up to 0013 (the schema the old server could hold), in one plan as `migrate` runs it:
# as the tables' owner, then post_migrate once (row-level security installed over every table).
OLD_SERVER_RECALL = ("recall", "0013_owner_lexeme_index")
MIGRATE_BEFORE_HALFVEC = f"""
OLD_SERVER_RECALL = {OLD_SERVER_RECALL!r}
from django.core.management.sql import emit_post_migrate_signal
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from access.roles import as_owner

with as_owner("default"):
    executor = MigrationExecutor(connection)
    targets = [node for node in executor.loader.graph.leaf_nodes() if node[0] != "recall"]
    targets.append(OLD_SERVER_RECALL)
    plan = executor.migration_plan(targets)
    state = executor.migrate(targets, plan=plan)
    emit_post_migrate_signal(0, False, "default", apps=state.apps, plan=plan)
"""


def _manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"manage.py {args[0]}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _upgrade(data_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "memorysite.upgrade_postgres"],
        cwd=BASE_DIR, env=_environment(data_dir), capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def _counts(url: str) -> dict[str, int]:
    with psycopg.connect(url, autocommit=True) as conn:
        tables = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"
        ).fetchall()
        return {
            name: conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(name))).fetchone()[0]
            for (name,) in tables
        }


class OldServer:
    """PostgreSQL 16.2 from the old package, made and started as the old memorysite.embedded did."""

    def __init__(self, bin_dir: Path, data_dir: Path):
        self.bin_dir, self.paths = bin_dir, EmbeddedPaths(data_dir)
        self.pgdata = self.paths.postgres_dir
        self.user = OLD_SYSTEM_USER if os.geteuid() == 0 else None
        self.pid = None

    def start(self) -> None:
        self.pgdata.mkdir(parents=True, exist_ok=True)
        self.paths.socket_dir.mkdir(mode=0o700, exist_ok=True)
        if self.user:
            import pwd

            pg_utils = import_postgres("utils")
            pg_utils.ensure_user_exists(self.user)
            entry = pwd.getpwnam(self.user)
            pg_utils.ensure_prefix_permissions(self.pgdata)
            pg_utils.ensure_prefix_permissions(self.bin_dir)
            for path in (self.pgdata, self.paths.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        if not (self.pgdata / "PG_VERSION").exists():
            self._run(
                "initdb", "-D", self.pgdata, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-U", POSTGRES_USER
            )
        options = (
            f"-c listen_addresses='' -c unix_socket_directories='{self.paths.socket_dir}' "
            "-c unix_socket_permissions=0700 -c max_connections=200 -c shared_buffers=128MB"
        )
        self._run("pg_ctl", "-D", self.pgdata, "-w", "-l", self.pgdata / "server.log", "-o", options, "start")
        self.pid = int((self.pgdata / "postmaster.pid").read_text().split()[0])

    def ready(self) -> None:
        """The old ready(): the database, the app role and its limits."""
        with psycopg.connect(migrate_database_url(self.paths.data_dir, "postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
            conn.execute(
                f'CREATE ROLE "{APP_USER}" LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION'
            )
            conn.execute(f'ALTER ROLE "{APP_USER}" SET statement_timeout = {APP_STATEMENT_TIMEOUT_MS:d}')
            conn.execute(
                f'ALTER ROLE "{APP_USER}" SET idle_in_transaction_session_timeout = {APP_IDLE_IN_TRANSACTION_TIMEOUT_MS:d}'
            )

    def stop(self) -> None:
        if self.pid is not None and pid_alive(self.pid):
            os.kill(self.pid, signal.SIGINT)  # fast shutdown, as the old code stopped it
            deadline = time.monotonic() + 60
            while pid_alive(self.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not pid_alive(self.pid)
        self.pid = None
        with contextlib.suppress(OSError):  # empty once the server is gone; leave nothing in /tmp
            self.paths.socket_dir.rmdir()

    def _run(self, program: str, *args) -> None:
        with tempfile.TemporaryFile() as output:  # a file: the server pg_ctl leaves running would hold a pipe
            result = subprocess.run(
                [str(self.bin_dir / program), *map(str, args)],
                user=self.user, cwd="/", stdout=output, stderr=output, timeout=120,
            )  # fmt: skip
            output.seek(0)
            assert result.returncode == 0, output.read().decode()


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_16_directory_with_a_traders_ledger_facts_and_chunks_is_upgraded_with_every_row(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    pgdata = data_dir / "postgres"
    bin_dir = upgrade_postgres.old_binaries(data_dir / ".cache")  # the command finds them there again
    old = OldServer(bin_dir, data_dir)
    old_urls = {"DATABASE_URL": database_url(data_dir), "DATABASE_MIGRATE_URL": migrate_database_url(data_dir)}
    on_16 = _environment(data_dir, **old_urls)
    try:
        old.start()
        with psycopg.connect(migrate_database_url(data_dir, "postgres")) as conn:
            assert conn.execute("SHOW server_version").fetchone()[0] == "16.2"
        old.ready()
        # As `make run` fills it (memorysite/launcher.py), with the ticks materialized and the chunks embedded here
        # since no worker runs: the demo trader's day of ticks and trades, facts, workspace and runbooks. The schema
        # stops where pgvector 0.6.2 did: recall 0014's half-precision index needs halfvec (pgvector 0.7).
        _manage(on_16, "shell", "-c", MIGRATE_BEFORE_HALFVEC)
        _manage(on_16, "demo_data")
        with psycopg.connect(migrate_database_url(data_dir)) as conn:
            (deployment_id,) = conn.execute("SELECT id FROM deployments").fetchone()
        _manage(on_16, "backfill_trade_history", str(deployment_id))
        _manage(on_16, "shell", "-c", FACTS)
        bootstrap = BASE_DIR / "recall" / "bootstrap"
        _manage(on_16, "recall_sync", str(bootstrap / "workspace"), "--user", "demo", "--embed")
        _manage(on_16, "recall_sync", str(bootstrap / "runbooks"), "--global", "--source", "runbook", "--embed")
        before = _counts(migrate_database_url(data_dir))
        reads_before = json.loads(_manage(on_16, "shell", "-c", READS).splitlines()[-1])
        with psycopg.connect(migrate_database_url(data_dir)) as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == "0.6.2"
            embedded = conn.execute("SELECT count(*) FROM recall_chunks WHERE embedding IS NOT NULL").fetchone()[0]

        assert before["trade_history"] > 0 and before["decision_snapshots"] > 0 and before["user_facts"] == 2
        assert 0 < embedded == before["recall_chunks"]
        assert reads_before["trades"] and len(reads_before["facts"]) == 2
        assert "memory/learnings.md" in reads_before["recall"]["vector"]

        # A server with a live user on the old directory: refused, nothing changed.
        (data_dir / "postgres.users").write_text(f"{os.getpid()}\n")
        refused = _upgrade(data_dir)
        assert refused.returncode == 1
        assert f"PostgreSQL 16 is running on {pgdata} (pid {old.pid}) for processes {os.getpid()}" in refused.stderr
        assert (pgdata / "PG_VERSION").read_text() == "16\n" and pid_alive(old.pid)

        # Its users gone (a SIGKILLed `make run`), the stale server is stopped by pid. Interrupted while it dumps,
        # every server it started is stopped, the old directory stays where it is and the attempt is kept.
        (data_dir / "postgres.users").write_text("999999999\n")
        stale_pid = old.pid
        interrupted = subprocess.Popen(
            [sys.executable, "-m", "memorysite.upgrade_postgres"],
            cwd=BASE_DIR, env=_environment(data_dir), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        printed = []
        for line in interrupted.stdout:
            printed.append(line)
            if "started on the old directory" in line:
                interrupted.send_signal(signal.SIGTERM)
                break
        rest, errors = interrupted.communicate(timeout=120)
        printed = "".join(printed) + rest
        assert interrupted.returncode == 128 + signal.SIGTERM, printed + errors
        assert f"Stopping PostgreSQL 16 (pid {stale_pid}) left running" in printed and not pid_alive(stale_pid)
        its_server = re.search(r"started on the old directory \(pid (\d+), private socket (\S+)\)", printed)
        assert not pid_alive(int(its_server[1])) and not Path(its_server[2]).exists()
        (attempt,) = data_dir.glob("upgrade-failed-*")
        assert f"still PostgreSQL 16; the attempt is kept in {attempt}" in printed
        assert (pgdata / "PG_VERSION").read_text() == "16\n" and not list(data_dir.glob("postgres-16-*"))
        shutil.rmtree(attempt)

        result = _upgrade(data_dir)
    finally:
        old.stop()
    print(result.stdout, result.stderr)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Started as the service starts it: PostgreSQL 18.6, pgvector 0.8.6; stopped again." in result.stdout
    (archived,) = data_dir.glob("postgres-16-*")
    assert (archived / "PG_VERSION").read_text() == "16\n" and (archived / "base").is_dir()  # kept, whole
    assert (pgdata / "PG_VERSION").read_text() == "18\n"
    assert not list(data_dir.glob(".upgrade-to-*")) and not list(data_dir.glob("upgrade-failed-*"))

    # The service starts on it as always; every row is there, and the app reads the same through row-level security.
    services = EmbeddedServices(data_dir, redis=False)
    try:
        services.start()
        assert _counts(migrate_database_url(data_dir)) == before
        on_18 = _environment(data_dir)
        # As the launcher does at every start: recall 0014 onwards, on pgvector 0.8.
        _manage(on_18, "migrate", "--noinput")
        assert _counts(migrate_database_url(data_dir)) == {
            **before,
            "django_migrations": before["django_migrations"] + len(_recall_migrations_after(OLD_SERVER_RECALL)),
        }
        _manage(on_18, "check", "--database", "default")  # refuses when the app role could read past RLS
        assert json.loads(_manage(on_18, "shell", "-c", READS).splitlines()[-1]) == reads_before
        with psycopg.connect(migrate_database_url(data_dir), autocommit=True) as conn:
            assert conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0] == "0.8.6"
            # The HNSW index, built by pgvector 0.8 at half precision (recall 0014), answers a nearest-neighbour query
            # over the restored vectors.
            conn.execute("SET enable_seqscan = off")
            nearest = (
                "SELECT id FROM recall_chunks ORDER BY embedding::halfvec(384)"
                " <=> (SELECT embedding::halfvec(384) FROM recall_chunks WHERE id = %s) LIMIT 3"
            )
            probe = conn.execute("SELECT min(id) FROM recall_chunks").fetchone()[0]
            plan = " ".join(row[0] for row in conn.execute("EXPLAIN " + nearest, [probe]))
            assert "Index Scan using recall_chunk_embedding_half" in plan, plan
            neighbours = [row[0] for row in conn.execute(nearest, [probe])]
            assert len(neighbours) == 3 and neighbours[0] == probe
            config = conn.execute("SELECT rolconfig FROM pg_roles WHERE rolname = %s", [APP_USER]).fetchone()[0]
            assert f"statement_timeout={APP_STATEMENT_TIMEOUT_MS}" in config
            assert conn.execute("SELECT count(*) FROM pg_stat_statements").fetchone()[0] > 0
    finally:
        services.stop()

    again = _upgrade(data_dir)
    assert again.returncode == 0 and again.stdout.startswith(f"Nothing to do: {pgdata} is already a PostgreSQL 18")
    assert list(data_dir.glob("postgres-16-*")) == [archived]

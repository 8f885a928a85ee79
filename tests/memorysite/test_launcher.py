"""`make run`'s launcher: serves health, login, admin and API docs, and Ctrl-C stops everything."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.slow
BASE_DIR = Path(settings.BASE_DIR)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _children_of(pid: int) -> list[int]:
    result = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(line) for line in result.stdout.split()]


def _queues_of(pid: int) -> str:
    """The -Q argument of a Celery worker's command line ("" for any other process)."""
    argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return argv[argv.index("-Q") + 1] if "worker" in argv and "-Q" in argv else ""


def test_it_serves_until_interrupted_then_stops_web_worker_and_beat(embedded_services, tmp_path):
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    log = tmp_path / "launcher.log"
    with log.open("w") as handle:
        launcher = subprocess.Popen(
            [sys.executable, "-m", "memorysite.launcher", "--port", str(port), "--web-workers", "1"],
            cwd=BASE_DIR, env=env, stdout=handle, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 90
        while "is running" not in log.read_text():
            assert launcher.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        output = log.read_text()
        assert "Demo trader: username 'demo', password '" in output
        for path in ["/healthz", "/accounts/login/", "/admin/login/", "/api/docs/"]:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
                assert response.status == 200, path
        children = _children_of(launcher.pid)
        assert len(children) == 5  # web, a worker pool per job kind (3 on 2 cores), beat
        # Each pool takes its own kinds' queues; the sweeps pool also the default queue (the heartbeat).
        assert sorted(_queues_of(pid) for pid in children if _queues_of(pid)) == [
            "embeddings",
            "reflection,sweeps,celery",
            "ticks",
        ]
    finally:
        launcher.send_signal(signal.SIGINT)
        code = launcher.wait(timeout=90)
    assert code == 0, log.read_text()
    assert "memorysite.launcher: stopped" in log.read_text()
    for pid in children:
        assert not os.path.exists(f"/proc/{pid}") or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()

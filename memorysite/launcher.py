"""`make run`: embedded servers, migrations, demo data, then web + a Celery worker pool per job kind + beat.

    python -m memorysite.launcher [--host 127.0.0.1] [--port 8000]

Ctrl-C (or SIGTERM) stops the web server, the workers and beat, then the embedded servers this
process started, in that order. Children run in their own process group (so the terminal's
Ctrl-C reaches only this process, which shuts them down in order) and are told by the kernel
to exit if this process dies without cleaning up.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any, NoReturn

from memorysite.embedded import EmbeddedServices, default_data_dir
from memorysite.queues import DEFAULT_QUEUE, DEFAULT_QUEUE_POOL, LAUNCHER_POOLS, worker_queues

logger = logging.getLogger("memorysite.launcher")

BASE_DIR = Path(__file__).resolve().parent.parent
READY_TIMEOUT_S = 60.0
CHILD_STOP_TIMEOUT_S = 20.0
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: get SIGTERM when the launcher dies, even by SIGKILL."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _spawn(name: str, argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    logger.info("starting %s: %s", name, " ".join(argv))
    return subprocess.Popen(argv, cwd=BASE_DIR, env=env, process_group=0, preexec_fn=_die_with_parent)


def _metrics_directory() -> Path:
    """prometheus-client's multiprocess directory for this run, emptied: web and worker count into it, and
    GET /metrics adds up every process's files (memorysite/metrics.py)."""
    directory = default_data_dir() / "prometheus"
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    return directory


def _interrupt(signum: int, frame: FrameType | None) -> NoReturn:
    raise KeyboardInterrupt


def _manage(env: dict[str, str], *args: str) -> str:
    """Run a management command in a child (with the servers' URLs set) and return its output."""
    result = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True, text=True)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed with code {result.returncode}")
    return result.stdout


def _wait_until_healthy(url: str, children: dict[str, subprocess.Popen[bytes]]) -> dict[str, Any]:
    deadline = time.monotonic() + READY_TIMEOUT_S
    last_error = "no answer"
    while time.monotonic() < deadline:
        for name, child in children.items():
            if child.poll() is not None:
                raise RuntimeError(f"{name} exited with code {child.returncode} during start-up")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                health: dict[str, Any] = json.loads(response.read())
                return health
        except urllib.error.HTTPError as exc:
            last_error = f"HTTP {exc.code}: {exc.read().decode(errors='replace')}"
        except OSError as exc:
            last_error = str(exc)
        time.sleep(0.3)
    raise RuntimeError(f"{url} not healthy after {READY_TIMEOUT_S:.0f}s: {last_error}")


def _stop_children(children: dict[str, subprocess.Popen[bytes]]) -> None:
    for child in children.values():
        if child.poll() is None:
            child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + CHILD_STOP_TIMEOUT_S
    for name, child in children.items():
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            logger.warning("%s did not stop in time; killing it", name)
            child.kill()
            child.wait()


def _banner(host: str, port: int, health: dict[str, Any], demo_line: str) -> str:
    base = f"http://{host}:{port}"
    return "\n".join(
        [
            "",
            "  Trading-agent memory service is running.",
            f"    Trader pages  {base}/",
            f"    Admin         {base}/admin/   (create a staff user: .venv/bin/python manage.py createsuperuser)",
            f"    API docs      {base}/api/docs/",
            f"    Health        {base}/healthz  {json.dumps(health)}",
            f"  {demo_line}",
            "  Ctrl-C stops the web server, workers, beat and the embedded servers.",
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--web-workers", type=int, default=2)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    # Ctrl-C and SIGTERM both end up in the finally blocks below. SIGINT is set explicitly:
    # a shell starting us in the background hands us SIGINT ignored, and Python keeps it so.
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    services = EmbeddedServices.for_unset_urls()
    children: dict[str, subprocess.Popen[bytes]] = {}
    try:
        services.start()
        env = {**os.environ, **services.environment(), "DJANGO_SETTINGS_MODULE": "memorysite.settings"}
        env.setdefault("PROMETHEUS_MULTIPROC_DIR", str(_metrics_directory()))
        _manage(env, "migrate", "--noinput")
        # Refuses to serve when the app role could read past row-level security (access/policies.py).
        _manage(env, "check", "--database", "default")
        demo_line = _manage(env, "demo_data").strip()
        # Recall's sample workspace (the demo trader's) and global runbooks, kept in the scheduled sync.
        bootstrap = BASE_DIR / "recall" / "bootstrap"
        _manage(env, "recall_sync", str(bootstrap / "workspace"), "--user", "demo", "--remember")
        _manage(
            env,
            "recall_sync",
            str(bootstrap / "runbooks"),
            "--global",
            "--source",
            "runbook",
            "--prefix",
            "runbooks",
            "--remember",
        )
        schedule = default_data_dir() / "celerybeat-schedule"
        children["web"] = _spawn(
            "web",
            [
                sys.executable, "-m", "gunicorn", "memorysite.wsgi",
                "--bind", f"{args.host}:{args.port}",
                "--workers", str(args.web_workers), "--threads", "4",
                "--access-logfile", "-", "--graceful-timeout", "10",
            ],
            env,
        )  # fmt: skip
        for pool, kinds in LAUNCHER_POOLS.items():
            # One pool per job kind (memorysite/queues.py), one process each: an embedding flood never delays a
            # tick. Prefork of one, so a pool process killed mid-task is noticed by its parent (and redelivered).
            queues = worker_queues(kinds, default_queue=DEFAULT_QUEUE if pool == DEFAULT_QUEUE_POOL else None)
            children[f"worker-{pool}"] = _spawn(
                f"worker-{pool}",
                [
                    sys.executable, "-m", "celery", "-A", "memorysite", "worker", "--loglevel", "INFO",
                    "--pool", "prefork", "--concurrency", "1", "-Q", queues, "-n", f"{pool}@%h",
                ],
                env,
            )  # fmt: skip
        children["beat"] = _spawn(
            "beat",
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "memorysite",
                "beat",
                "--loglevel",
                "INFO",
                "--schedule",
                str(schedule),
            ],
            env,
        )
        health = _wait_until_healthy(f"http://{args.host}:{args.port}/healthz", children)
        print(_banner(args.host, args.port, health, demo_line), flush=True)
        while True:
            for name, child in children.items():
                if child.poll() is not None:
                    logger.error("%s exited with code %s; stopping everything", name, child.returncode)
                    return 1
            time.sleep(0.5)
    except KeyboardInterrupt:
        logger.info("stopping")
        return 0
    except RuntimeError as exc:
        logger.error("%s", exc)
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the shutdown short
        _stop_children(children)
        services.stop()
        logger.info("stopped")


if __name__ == "__main__":
    sys.exit(main())

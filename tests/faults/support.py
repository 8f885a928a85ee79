"""Helpers shared by the fault tests: private servers, the broker switch, processes and ticks."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import psutil

from memorysite.embedded import EmbeddedServices


@contextlib.contextmanager
def private_servers(data_dir: Path, *, postgres: bool = False, redis: bool = False):
    """Embedded servers of our own under `data_dir` (sockets in their own /tmp directory):
    stopping them never touches the servers the rest of the test session shares."""
    services = EmbeddedServices(data_dir, postgres=postgres, redis=redis)
    try:
        yield services.start()
    finally:
        services.stop_all()


def server_of(services: EmbeddedServices, name: str):
    [server] = [server for server in services.servers if server.name == name]
    return server


def pool_children(worker_pid: int) -> list[int]:
    """The prefork pool's processes of a worker: the ones that run tasks."""
    return [child.pid for child in psutil.Process(worker_pid).children()]


def payload_of(body: dict) -> tuple[dt.datetime, dict]:
    """A tick body as the tick endpoint hands it to tick_ingest: (tick_at, everything else)."""
    return dt.datetime.fromisoformat(body["tick_at"]), {k: v for k, v in body.items() if k != "tick_at"}


class HeldAnthropic:
    """A local Anthropic Messages API that holds requests open while `hold` is set, else answers.

    Counts requests; `received` is set by the first one. Held requests are let go (and their
    answers written to whatever socket is left) when the server stops.
    """

    def __init__(self, answer: dict):
        self.answer = answer
        self.hold = threading.Event()
        self.release = threading.Event()
        self.received = threading.Event()
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                stub.requests.append(json.loads(self.rfile.read(length)))
                held = stub.hold.is_set()
                stub.received.set()
                if held:
                    stub.release.wait(timeout=120)
                payload = json.dumps(stub.answer).encode()
                with contextlib.suppress(OSError):  # the client may be dead by now
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> HeldAnthropic:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

"""A local HTTP server that answers like the Anthropic Messages API, from a script of responses.

The real SDK talks to it over real HTTP when ANTHROPIC_BASE_URL points here (the SDK reads that
variable itself), so tests exercise the whole client without touching our code paths.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def usage(input_tokens: int, output_tokens: int, cache_read: int | None, cache_creation: int | None) -> dict:
    """The response's usage; the cache counts only when given (an API answer without them is valid too)."""
    counts = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    if cache_read is not None:
        counts["cache_read_input_tokens"] = cache_read
    if cache_creation is not None:
        counts["cache_creation_input_tokens"] = cache_creation
    return counts


def text_message(
    text: str,
    model: str = "claude-sonnet-5",
    input_tokens=500,
    output_tokens=80,
    cache_read: int | None = None,
    cache_creation: int | None = None,
) -> dict:
    return {
        "id": "msg_text",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage(input_tokens, output_tokens, cache_read, cache_creation),
    }


def tool_use_message(
    *uses: tuple[str, str, dict],
    text: str = "",
    model: str = "claude-sonnet-5",
    cache_read: int | None = None,
    cache_creation: int | None = None,
) -> dict:
    """A response calling tools: each use is (tool_use id, tool name, input)."""
    content = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "tool_use", "id": use_id, "name": name, "input": tool_input} for use_id, name, tool_input in uses
    ]
    return {
        "id": "msg_tools",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": usage(400, 60, cache_read, cache_creation),
    }


class AnthropicStub:
    """Serves scripted (status, body) responses in order (the last one repeats); records requests.
    `on_request`, when set, is called with each request before it is answered (the model "thinking")."""

    def __init__(self):
        self.script: list[tuple[int, dict]] = []
        self.requests: list[dict] = []
        self.on_request = None
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                length = int(self.headers.get("content-length") or 0)
                stub.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": json.loads(self.rfile.read(length))}
                )
                if stub.on_request is not None:
                    stub.on_request(stub.requests[-1])
                status, body = stub.script.pop(0) if len(stub.script) > 1 else stub.script[0]
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.send_header("retry-after-ms", "1")
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # shutdown() waits for the serving loop to look at its flag: every 10 ms, not the default 0.5 s.
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def respond(self, *items) -> None:
        """Each item is a response body (200) or a (status, body) pair."""
        self.script = [item if isinstance(item, tuple) else (200, item) for item in items]

    def __enter__(self) -> AnthropicStub:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.server.shutdown()
        self.server.server_close()

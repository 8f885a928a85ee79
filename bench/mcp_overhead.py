"""What does MCP over streamable HTTP cost on top of REST for the same tool call?

    .venv/bin/python bench/mcp_overhead.py [--rounds 300] [--warmup 30] [--trades 40]

One trader, one deployment with `--trades` closed trades and an open position, posted as ticks through
the API. gunicorn serves the app (production profile, one worker, gthread); each round, in an order
rotated every round:
  rest     GET /api/v1/deployments/{id}/context/ on one keep-alive connection;
  mcp      POST /mcp/ `tools/call get_trading_context {deployment_id}` (the JSON-RPC message and headers
           the SDK's client sends, stateless JSON-response mode) on another keep-alive connection;
  mcp-sdk  the same call through the SDK's own ClientSession over streamable HTTP (one initialized session,
           its loop on a thread of this process): what an agent using the SDK waits for.
The bodies are checked equal (MCP's structuredContent == REST's JSON) before timing.

Prints p50/p95/p99/mean per label and the ratios mcp/rest (goal <= 1.5) and mcp-sdk/rest (no goal).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import logging
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mcp.types import LATEST_PROTOCOL_VERSION

from bench._harness import (
    BenchRun,
    Client,
    parse_args,
    percentile,
    print_table,
    ratio_line,
    run_script,
    timing_cells,
    token_for,
)

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 10, "warmup": 2, "trades": 3}

T0 = dt.datetime(2026, 6, 4, 8, 0, tzinfo=dt.UTC)
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "mcp-protocol-version": LATEST_PROTOCOL_VERSION}


def at(minutes: int) -> str:
    return (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def seed(client: Client, deployment_id: int, trades: int) -> None:
    """`trades` round trips on BTC/ETH (open, then close two minutes later), then one open position."""
    base = f"/api/v1/deployments/{deployment_id}"
    minute = 0
    for j in range(trades):
        symbol, mark = ("BTC", 65_000 + 10 * j) if j % 2 == 0 else ("ETH", 3_400 + j)
        position = {"symbol": symbol, "side": "long" if j % 3 else "short", "size": 0.01, "mark_price": mark}
        client.request("POST", f"{base}/ticks/", {"tick_at": at(minute), "equity_usd": 10_000, "positions": [position]},
                       expect=(201,))  # fmt: skip
        client.request("POST", f"{base}/ticks/", {"tick_at": at(minute + 2), "equity_usd": 10_000, "positions": []},
                       expect=(201,))  # fmt: skip
        minute += 5
    position = {"symbol": "SOL", "side": "long", "size": 1, "mark_price": 142.35}
    client.request("POST", f"{base}/ticks/", {"tick_at": at(minute), "equity_usd": 10_000, "positions": [position]},
                   expect=(201,))  # fmt: skip


class SdkSession:
    """One initialized SDK ClientSession over streamable HTTP, its event loop on a thread of its own."""

    def __init__(self, url: str, token: str):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ready = threading.Event()
        self.closing: asyncio.Future | None = None
        self.session = None
        self.url, self.token = url, token
        self.task = asyncio.run_coroutine_threadsafe(self._run(), self.loop)
        if not self.ready.wait(60):
            raise RuntimeError("the SDK session did not initialize")

    async def _run(self):
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        self.closing = self.loop.create_future()
        headers = {"Authorization": f"Token {self.token}", "X-Forwarded-Proto": "https"}
        async with (
            create_mcp_http_client(headers=headers) as http,
            streamable_http_client(self.url, http_client=http) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            self.session = session
            self.ready.set()
            await self.closing

    def call(self, name: str, arguments: dict) -> tuple[float, object]:
        started = time.perf_counter()
        result = asyncio.run_coroutine_threadsafe(self.session.call_tool(name, arguments), self.loop).result(60)
        return time.perf_counter() - started, result

    def close(self) -> None:
        if self.closing is not None:
            self.loop.call_soon_threadsafe(self.closing.set_result, None)
        try:
            self.task.result(10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(5)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--trades", type=int, default=40)
    args = parse_args(parser, argv, SMOKE)

    with BenchRun("mcp_overhead") as run:
        logging.getLogger("httpx").setLevel(logging.WARNING)  # the SDK client's per-request INFO lines
        from ledger.models import Deployment, Skill, SkillVersion

        token = token_for("mcp-bench")
        from django.contrib.auth import get_user_model

        user = get_user_model().objects.get(username="mcp-bench")
        skill = Skill.objects.create(owner=user, name="Trend")
        version = SkillVersion.objects.create(owner=user, skill=skill, version=1, strategy_text="Follow the trend.")
        deployment = Deployment.objects.create(owner=user, skill_version=version, mode="paper")

        web = run.start_gunicorn(workers=1, threads=4)
        rest, mcp = Client(web.port, token), Client(web.port, token)
        mcp.headers.update(MCP_HEADERS)
        started = time.perf_counter()
        seed(rest, deployment.pk, args.trades)
        print(f"seeded {args.trades} closed trades + 1 open position in {time.perf_counter() - started:.1f}s")

        context_path = f"/api/v1/deployments/{deployment.pk}/context/"
        message = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "get_trading_context", "arguments": {"deployment_id": deployment.pk}},
        }
        sdk = SdkSession(f"http://127.0.0.1:{web.port}/mcp/", token)
        try:
            rest_body = json.loads(rest.request("GET", context_path)[1])
            mcp_body = json.loads(mcp.request("POST", "/mcp/", message)[1])["result"]
            _, sdk_result = sdk.call("get_trading_context", {"deployment_id": deployment.pk})
            if mcp_body.get("isError") or mcp_body["structuredContent"] != rest_body:
                print(f"MCP answered differently from REST: {json.dumps(mcp_body)[:500]}", file=sys.stderr)
                return 1
            if sdk_result.isError or sdk_result.structuredContent != rest_body:
                print("the SDK session's answer differs from REST", file=sys.stderr)
                return 1
            if "## Recent trades" not in rest_body["text"]:
                print("the context has no closed trades", file=sys.stderr)
                return 1

            calls = {
                "rest": lambda: rest.request("GET", context_path)[0],
                "mcp": lambda: mcp.request("POST", "/mcp/", message)[0],
                "mcp-sdk": lambda: sdk.call("get_trading_context", {"deployment_id": deployment.pk})[0],
            }
            labels = list(calls)
            for _ in range(args.warmup):
                for label in labels:
                    calls[label]()
            samples: dict[str, list[float]] = {label: [] for label in labels}
            for round_no in range(args.rounds):
                shift = round_no % len(labels)
                for label in [*labels[shift:], *labels[:shift]]:
                    samples[label].append(calls[label]())
        finally:
            sdk.close()
            rest.close()
            mcp.close()

        print(f"\n{args.rounds} rounds (after {args.warmup} warm-up), order rotated every round; ms")
        print_table(["call", "p50", "p95", "p99", "mean"], [[label, *timing_cells(samples[label])] for label in labels])
        p50 = {label: percentile(samples[label], 50) for label in labels}
        p99 = {label: percentile(samples[label], 99) for label in labels}
        print()
        print(ratio_line("mcp/rest p50 (streamable HTTP vs REST)", p50["mcp"] / p50["rest"], 1.5))
        print(ratio_line("mcp/rest p99", p99["mcp"] / p99["rest"], 1.5))
        print(f"{'mcp-sdk/rest p50 (SDK client included, no goal)':<52} {p50['mcp-sdk'] / p50['rest']:7.2f}")
        print(f"{'mcp-sdk/rest p99 (SDK client included, no goal)':<52} {p99['mcp-sdk'] / p99['rest']:7.2f}")
        print(f"context: {len(rest_body['text'])} characters, token estimate {rest_body['token_estimate']['total']}")
    return 0


if __name__ == "__main__":
    run_script(main)

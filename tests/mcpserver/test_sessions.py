"""The memory as an MCP server: a real SDK client session over both transports.

stdio spawns `manage.py mcp --token …` against the test database; HTTP talks to `/mcp/` on the live
server. Both: list tools, remember then read memory://facts, the trading context of a deployment with
a closed trade, another trader's ids refused with REST's own error body, a runner token confined to
its deployment's context, a revoked token rejected.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.utils import timezone
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import McpError
from rest_framework.test import APIClient

from chatmemory.models import UserFact
from ledger.auth import OUT_OF_SCOPE
from ledger.models import RunnerToken
from ledger.services import runner_token_revoke
from tests.errors import error_body
from tests.security.world import CONTEXT, make_trader
from tests.workers import database_url_of_test_db

pytestmark = pytest.mark.slow  # a live server, and `manage.py mcp` processes for stdio
BASE_DIR = Path(__file__).resolve().parent.parent.parent
TOOLS = {
    "get_skill_performance",
    "get_my_deployments",
    "get_upcoming_events",
    "remember",
    "forget",
    "get_trading_context",
    "recall_search",
    "check_experiment",
    "record_experiment",
    "get_analyst_memory",
}
FACT = "Keeps position size small on Fridays."


# -- transports ------------------------------------------------------------------------------------


def stdio_transport(token: str, errlog=None):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
    }
    env.pop("MEMORY_MCP_TOKEN", None)
    params = StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", "--token", token], env=env, cwd=BASE_DIR
    )
    return stdio_client(params, errlog=errlog or sys.stderr)


def http_transport(url: str, token: str):
    @contextlib.asynccontextmanager
    async def transport():
        async with (
            create_mcp_http_client(headers={"Authorization": f"Token {token}"}) as client,
            streamable_http_client(f"{url}/mcp/", http_client=client) as streams,
        ):
            yield streams

    return transport()


def in_session(transport, script):
    """Run `script(session)` in an initialized client session over `transport`; its result."""

    async def main():
        async with transport as streams, ClientSession(streams[0], streams[1]) as session:
            await asyncio.wait_for(session.initialize(), 60)
            return await script(session)

    return asyncio.run(main())


def body_of(result) -> dict:
    """A tool result's JSON body, without an error's `request_id` (the id of the request behind it, which the
    API's answer to the same call carries too: each its own)."""
    body = json.loads(result.content[0].text)
    if isinstance(body, dict):
        body.pop("request_id", None)
    return body


def rest_body(response) -> dict:
    """The API's answer, an error's without its `request_id` (checked against the X-Request-ID header)."""
    return error_body(response) if response.status_code >= 400 else response.json()


@pytest.fixture
def world(live_server):
    owner, other = make_trader("owner"), make_trader("other")
    base = f"/api/v1/deployments/{owner.deployment_id}"
    response = owner.client.post(
        f"{base}/ticks/", {"tick_at": "2026-06-04T10:05:00Z", "equity_usd": 10_010, "positions": []}, format="json"
    )
    assert response.status_code == 201, response.json()  # closes the BTC trade the first tick opened
    return owner, other


@pytest.fixture(params=["stdio", "http"])
def transport(request, live_server):
    if request.param == "stdio":
        return lambda token: stdio_transport(token)
    return lambda token: http_transport(live_server.url, token)


# -- the tests -------------------------------------------------------------------------------------


def test_a_trader_session(world, transport):
    owner, other = world

    async def script(session: ClientSession):
        tools = await session.list_tools()
        remembered = await session.call_tool("remember", {"fact": FACT, "topic": "risk"})
        facts = await session.read_resource("memory://facts")
        context = await session.call_tool("get_trading_context", {"deployment_id": owner.deployment_id})
        resource = await session.read_resource(f"memory://deployments/{owner.deployment_id}/context")
        foreign_context = await session.call_tool("get_trading_context", {"deployment_id": other.deployment_id})
        foreign_deployment = await session.call_tool("get_my_deployments", {"deployment_id": other.deployment_id})
        bad_fact = await session.call_tool("remember", {"fact": "x", "colour": "red"})
        with pytest.raises(McpError) as foreign_resource:
            await session.read_resource(f"memory://deployments/{other.deployment_id}/context")
        return locals()

    seen = in_session(transport(owner.token), script)

    assert {tool.name for tool in seen["tools"].tools} == TOOLS
    assert not seen["remembered"].isError, body_of(seen["remembered"])
    fact_id = seen["remembered"].structuredContent["id"]
    assert f"[risk] (inferred) {FACT} (fact {fact_id.replace('-', '')[:8]})" in seen["facts"].contents[0].text

    context = seen["context"]
    assert not context.isError, body_of(context)
    rest = owner.client.get(f"/api/v1/deployments/{owner.deployment_id}/context/").json()
    assert context.structuredContent == rest  # the same body as the context endpoint
    assert "BTC" in context.structuredContent["sections"]["recent_trades"]
    assert seen["resource"].contents[0].text == rest["text"]

    # Another trader's objects: the REST 4xx bodies, word for word.
    assert seen["foreign_context"].isError
    assert body_of(seen["foreign_context"]) == {"detail": "Not found."}
    rest_foreign = owner.client.get(f"/api/v1/deployments/{other.deployment_id}/context/")
    assert rest_foreign.status_code == 404 and error_body(rest_foreign) == body_of(seen["foreign_context"])
    rest_tool = owner.client.post(
        "/api/v1/chat/tools/get_my_deployments/", {"deployment_id": other.deployment_id}, format="json"
    )
    assert rest_tool.status_code == 404 and body_of(seen["foreign_deployment"]) == error_body(rest_tool)
    rest_bad = owner.client.post("/api/v1/chat/tools/remember/", {"fact": "x", "colour": "red"}, format="json")
    assert rest_bad.status_code == 400 and body_of(seen["bad_fact"]) == error_body(rest_bad)
    assert seen["foreign_resource"].value.error.message == "Not found."

    # The trader's fact from the world and the one remembered: the refused call wrote nothing.
    assert UserFact.objects.filter(owner=owner.user).count() == 2
    assert UserFact.objects.filter(owner=other.user).count() == 1


SIGNAL = {
    "agent_name": "microstructure",
    "agent_type": "analyst",
    "condition_id": "0xabc",
    "direction": "YES",
    "fair_probability": 0.62,
    "confidence": 0.7,
    "key_drivers": ["ETF inflows"],
}


def test_the_rest_backed_tools_answer_as_rest(world, transport):
    """Each tool sharing a REST operation answers with that operation's body, refusals included."""
    owner, other = world
    market = owner.client.post("/api/v1/signals/", SIGNAL, format="json").json()["market_id"]
    foreign_market = other.client.post("/api/v1/signals/", SIGNAL, format="json").json()["market_id"]
    memory = {"agents": "microstructure", "date_format": "iso"}
    duplicate = {"id": "exp_2", "strategy_name": "rsi", "context": CONTEXT}
    calls = {
        "memory": ("get_analyst_memory", {"market_id": market, **memory}),
        "foreign_memory": ("get_analyst_memory", {"market_id": foreign_market, **memory}),
        "check": ("check_experiment", {"context": CONTEXT}),
        "bad_check": ("check_experiment", {"context": "rsi"}),
        "duplicate": ("record_experiment", duplicate),
        "search": ("recall_search", {"query": "breakouts", "k": 3}),
        "bad_search": ("recall_search", {"query": "", "k": 0}),
    }

    async def script(session: ClientSession):
        return {label: await session.call_tool(name, arguments) for label, (name, arguments) in calls.items()}

    seen = in_session(transport(owner.token), script)

    api = owner.client
    rest = {
        "memory": api.get(f"/api/v1/markets/{market}/memory/", memory),
        "foreign_memory": api.get(f"/api/v1/markets/{foreign_market}/memory/", memory),
        "check": api.post("/api/v1/research/experiments/check/", {"context": CONTEXT}, format="json"),
        "bad_check": api.post("/api/v1/research/experiments/check/", {"context": "rsi"}, format="json"),
        "duplicate": api.post("/api/v1/research/experiments/", duplicate, format="json"),
        "search": api.post("/api/v1/recall/search/", {"query": "breakouts", "k": 3}, format="json"),
        "bad_search": api.post("/api/v1/recall/search/", {"query": "", "k": 0}, format="json"),
    }
    for label, response in rest.items():
        result = seen[label]
        assert result.isError == (response.status_code >= 400), (label, body_of(result))
        assert body_of(result) == rest_body(response), label
        if not result.isError:
            assert result.structuredContent == response.json(), label
    assert rest["foreign_memory"].status_code == 404 and rest["duplicate"].status_code == 409
    assert seen["search"].structuredContent["results"][0]["path"] == "notes/strategy.md"


def test_a_runner_token_reaches_only_its_deployments_context(world, transport):
    owner, other = world

    async def script(session: ClientSession):
        tools = await session.list_tools()
        own = await session.call_tool("get_trading_context", {"deployment_id": owner.deployment_id})
        foreign = await session.call_tool("get_trading_context", {"deployment_id": other.deployment_id})
        remembered = await session.call_tool("remember", {"fact": FACT})
        resources = await session.list_resources()
        with pytest.raises(McpError) as facts:
            await session.read_resource("memory://facts")
        return locals()

    seen = in_session(transport(owner.runner_key), script)

    assert [tool.name for tool in seen["tools"].tools] == ["get_trading_context"]
    assert not seen["own"].isError and "BTC" in seen["own"].structuredContent["sections"]["recent_trades"]
    assert seen["foreign"].isError and body_of(seen["foreign"]) == {"detail": "Not found."}
    runner = APIClient()
    runner.credentials(HTTP_AUTHORIZATION=f"Token {owner.runner_key}")
    rest_refused = runner.post("/api/v1/facts/", {"fact": FACT}, format="json")
    assert rest_refused.status_code == 403 and body_of(seen["remembered"]) == error_body(rest_refused)
    assert body_of(seen["remembered"]) == {"detail": OUT_OF_SCOPE}
    assert [str(r.uri) for r in seen["resources"].resources] == [f"memory://deployments/{owner.deployment_id}/context"]
    assert seen["facts"].value.error.message == OUT_OF_SCOPE


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_revoked_token_is_rejected(world, live_server, kind, tmp_path):
    owner, _ = world
    runner_token_revoke(token=RunnerToken.objects.get(pk=owner.runner_token_id), now=timezone.now())

    async def script(session: ClientSession):
        return await session.list_tools()

    with (tmp_path / "stderr").open("w+") as errlog:
        if kind == "stdio":
            transport = stdio_transport(owner.runner_key, errlog)
        else:
            transport = http_transport(live_server.url, owner.runner_key)
        with pytest.raises(BaseExceptionGroup) as refused:
            in_session(transport, script)
        errlog.seek(0)
        stderr = errlog.read()
    [error] = leaves(refused.value)
    if kind == "stdio":  # the command refuses the token and exits before serving
        assert isinstance(error, McpError) and error.error.message == "Connection closed"
        assert "CommandError: token: runner token revoked at " in stderr
    else:
        assert isinstance(error, httpx.HTTPStatusError) and error.response.status_code == 401


def test_http_without_a_valid_token_is_a_401(world, live_server):
    owner, _ = world
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    url = f"{live_server.url}/mcp/"
    runner_token_revoke(token=RunnerToken.objects.get(pk=owner.runner_token_id), now=timezone.now())
    for authorization in (None, "Token nope", f"Token {owner.runner_key}"):
        sent = {**headers, **({"Authorization": authorization} if authorization else {})}
        response = httpx.post(url, json=message, headers=sent, timeout=30)
        assert response.status_code == 401, (authorization, response.text)
    for path in (url, url.rstrip("/")):  # with or without the slash
        sent = {**headers, "Authorization": f"Token {owner.token}"}
        response = httpx.post(path, json=message, headers=sent, timeout=30)
        assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
        assert {tool["name"] for tool in response.json()["result"]["tools"]} == TOOLS

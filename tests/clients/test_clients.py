"""The API clients (issue 23): generated from the served schema and committed, so a test fails when they are
stale; each runs a short tick loop against the live test server."""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from django.test import Client

from ledger.auth import INVALID_KEY
from tests.security.world import make_trader

pytestmark = pytest.mark.slow  # generators, node and a live server are processes and threads of their own

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
PYTHON_CLIENT = CLIENTS / "python"
TYPESCRIPT_CLIENT = CLIENTS / "typescript"
VENV_BIN = Path(sys.executable).parent
STALE = "the committed clients are stale against the schema: run `make clients` and commit the result"
NO_NODE = (
    "the TypeScript client needs Node.js 20 or later with npm on the PATH (README.md, 'API clients': "
    "e.g. `sudo apt-get install nodejs npm` on Debian 13, or https://nodejs.org/en/download)"
)

sys.path.insert(0, str(PYTHON_CLIENT))  # memory_client and memory_runner, as `pip install ./clients/python` would

from memory_client.models import ContextOutput  # noqa: E402
from memory_runner import ApiError, Runner, paused  # noqa: E402


def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail(NO_NODE, pytrace=False)
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if int(version.lstrip("v").split(".")[0]) < 20:
        pytest.fail(f"node {version} is too old: {NO_NODE}", pytrace=False)
    return found


def npm_installed() -> None:
    """clients/typescript/node_modules as package-lock.json pins it (what `make clients` installs)."""
    node()
    if (TYPESCRIPT_CLIENT / "node_modules" / ".package-lock.json").exists():
        return
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail(NO_NODE, pytrace=False)
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=TYPESCRIPT_CLIENT, capture_output=True, text=True)
    assert done.returncode == 0, f"npm ci failed (run `make clients`):\n{done.stderr[-2000:]}"


def run(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", **kwargs.pop("env", {})}
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=240, **kwargs)
    assert done.returncode == 0, f"{' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


def differences(committed: Path, generated: Path) -> list[str]:
    """Files that differ between two trees (missing on either side included)."""
    found: list[str] = []

    def walk(comparison: filecmp.dircmp, prefix: str) -> None:
        found.extend(f"{prefix}{name}" for name in comparison.left_only + comparison.right_only)
        found.extend(f"{prefix}{name}" for name in comparison.diff_files + comparison.funny_files)
        for name, sub in comparison.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(committed, generated, ignore=["__pycache__"]), "")
    return found


# -- stale or not -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def served_schema(django_db_setup, django_db_blocker) -> dict:
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return json.loads(response.content)


def test_the_committed_schema_is_the_served_one(served_schema):
    committed = json.loads((CLIENTS / "openapi.json").read_text(encoding="utf-8"))
    assert committed == served_schema, STALE


def test_the_python_client_is_what_the_generator_makes_of_the_served_schema(served_schema, tmp_path):
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(served_schema), encoding="utf-8")
    generator = VENV_BIN / "openapi-python-client"
    config = PYTHON_CLIENT / "generator.yaml"
    output = tmp_path / "memory_client"
    arguments = ["generate", "--path", str(schema), "--meta", "none", "--output-path", str(output)]
    run([str(generator), *arguments, "--config", str(config)], cwd=tmp_path)
    stale = differences(PYTHON_CLIENT / "memory_client", output)
    assert not stale, f"{STALE}; differing files: {stale[:20]}"


def test_the_typescript_types_are_what_the_generator_makes_of_the_served_schema_and_type_check(served_schema, tmp_path):
    npm_installed()
    schema = tmp_path / "openapi.json"
    schema.write_text(json.dumps(served_schema), encoding="utf-8")
    generated = tmp_path / "schema.d.ts"
    bin_dir = TYPESCRIPT_CLIENT / "node_modules" / ".bin"
    run([str(bin_dir / "openapi-typescript"), str(schema), "--output", str(generated)], cwd=TYPESCRIPT_CLIENT)
    committed = (TYPESCRIPT_CLIENT / "src" / "schema.d.ts").read_text(encoding="utf-8")
    assert generated.read_text(encoding="utf-8") == committed, STALE
    run([str(bin_dir / "tsc"), "--noEmit"], cwd=TYPESCRIPT_CLIENT)


# -- a tick loop against the live server ------------------------------------------------------------------


TICKS = [
    {
        "tick_at": "2026-06-04T10:10:00Z",
        "equity_usd": 10000,
        "positions": [{"symbol": "ETH", "side": "short", "size": 1.2, "mark_price": 3512.25}],
        "proposed_action": {"kind": "propose_order", "symbol": "ETH", "reason": "lower high (python)"},
        "engine": {"kind": "executed"},
    },
    {
        "tick_at": "2026-06-04T10:15:00Z",
        "equity_usd": 10030,
        "positions": [],
        "marks": {"ETH": 3487.25},
        "proposed_action": {"kind": "close_position", "symbol": "ETH", "reason": "target hit (python)"},
        "engine": {"kind": "executed"},
    },
]


@pytest.fixture
def trader(live_server):
    """A trader whose deployment has one tick (an open BTC trade at 10:00) and a runner token."""
    return make_trader("runner_author")


def test_the_python_tick_loop_against_the_live_server(trader, live_server):
    runner = Runner(live_server.url, token=trader.runner_key, deployment_id=trader.deployment_id)
    outcomes, contexts = [], []
    for tick in TICKS:
        outcomes.append(runner.post_tick(tick))
        contexts.append(runner.get_context())
    assert [o.status for o in outcomes] == ["stored", "stored"]

    duplicate = runner.post_tick(TICKS[1])
    assert (duplicate.status, duplicate.snapshot_id) == ("duplicate", outcomes[1].snapshot_id)
    older = runner.post_tick({**TICKS[0], "tick_at": "2026-06-04T09:00:00Z"})
    assert older.status == "older" and older.snapshot_id is None and older.detail.startswith("tick_at: ")

    assert all(isinstance(context, ContextOutput) for context in contexts)
    assert "target hit (python)" in contexts[-1].text  # the last decision, as the agent will read it
    closed = runner.list_trades(status="closed")
    assert {(t.symbol, t.side, t.exit_reason) for t in closed} >= {("ETH", "short", "target hit (python)")}
    assert runner.retries == []

    with pytest.raises(ApiError) as refused:  # a 4xx is the caller's to fix: not retried
        runner.post_tick({**TICKS[0], "tick_at": "2026-06-04T11:00:00"})
    assert refused.value.status == 400 and "tick_at" in refused.value.errors

    unknown = Runner(live_server.url, token="rt_" + "0" * 40, deployment_id=trader.deployment_id)
    with pytest.raises(ApiError) as unauthenticated:
        unknown.get_context()
    assert (unauthenticated.value.status, unauthenticated.value.detail) == (401, INVALID_KEY)


def test_the_python_tick_loop_reads_a_paused_deployment_whose_ticks_still_land(trader, live_server):
    from ledger.models import Deployment

    runner = Runner(live_server.url, token=trader.runner_key, deployment_id=trader.deployment_id)
    assert runner.get_context().deployment_status == "running" and not paused(runner.get_context())
    Deployment.objects.filter(pk=trader.deployment_id).update(status="stopped")  # the trader paused it
    context = runner.get_context()
    assert paused(context) and context.deployment_status == "stopped"
    assert isinstance(context.system_prompt.segments.paused, str)
    assert [runner.post_tick(tick).status for tick in TICKS] == ["stored", "stored"]  # the ledger follows


def test_the_python_tick_loop_waits_out_a_429_as_retry_after_says(trader, live_server, settings):
    settings.API_THROTTLE_REQUESTS, settings.API_THROTTLE_WINDOW_S = 1, 3  # one request per 3 s window
    runner = Runner(live_server.url, token=trader.runner_key, deployment_id=trader.deployment_id)
    for tick in TICKS:
        assert runner.post_tick(tick).status == "stored"
        runner.get_context()
    throttled = [wait for why, wait in runner.retries if why == 429]
    assert throttled, runner.retries  # four requests in a few seconds, one allowed per window
    # The header's whole seconds to the window's end (1-3), not the backoff's 0.25-0.5 s.
    assert all(wait in (1, 2, 3) for wait in throttled), throttled


def test_the_python_tick_loop_retries_5xx_and_network_errors_with_the_same_idempotency_key():
    """Against a stand-in server that fails twice: the loop retries with backoff, one key for all attempts."""
    seen: list[tuple[str, str | None]] = []
    answers = iter(
        [
            httpx.ConnectError("connection refused"),
            httpx.Response(503, json={"detail": "database unavailable"}),
            httpx.Response(201, json={"snapshot_id": "6f0e8e1c-4d0c-4b53-9a56-1f6b1c2d3e4f", "duplicate": False}),
        ]
    )

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.headers.get("Idempotency-Key")))
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    waits: list[float] = []
    runner = Runner("http://memory.invalid", token="rt_x", deployment_id=7, sleep=waits.append, backoff_s=0.5)
    runner.client.set_httpx_client(
        httpx.Client(base_url="http://memory.invalid", transport=httpx.MockTransport(handler))
    )
    outcome = runner.post_tick(TICKS[0])
    assert outcome.status == "stored"
    assert [path for path, _ in seen] == ["/api/v1/deployments/7/ticks/"] * 3
    keys = {key for _, key in seen}
    assert len(keys) == 1 and keys != {None}
    assert [why for why, _ in runner.retries] == ["ConnectError", 503]
    assert 0.25 <= waits[0] <= 0.5 and 0.5 <= waits[1] <= 1.0  # doubling, with jitter in the upper half


def test_the_typescript_tick_loop_against_the_live_server(trader, live_server):
    npm_installed()
    bin_dir = TYPESCRIPT_CLIENT / "node_modules" / ".bin"
    run([str(bin_dir / "tsc")], cwd=TYPESCRIPT_CLIENT)
    env = {
        "MEMORY_BASE_URL": live_server.url,
        "MEMORY_TOKEN": trader.runner_key,
        "MEMORY_DEPLOYMENT_ID": str(trader.deployment_id),
        "MEMORY_FIRST_TICK_AT": "2026-06-04T10:20:00Z",  # after the trader's own tick (10:00, BTC long)
    }
    done = run([node(), "dist/tick-loop.js"], cwd=TYPESCRIPT_CLIENT, env=env)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["outcomes"] == ["stored", "stored", "duplicate", "older"]
    assert report["snapshotIds"][2] == report["snapshotIds"][1] and report["snapshotIds"][3] is None
    assert "take profit (typescript)" in report["lastContext"]
    assert report["statuses"] == ["running", "running"]
    assert {"symbol": "BTC", "side": "long", "exit_reason": "take profit (typescript)"} in report["closedTrades"]
    assert report["retries"] == []

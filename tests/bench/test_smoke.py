"""Every benchmark under bench/ still runs against today's code: each script's smoke mode (--smoke: tiny
sizes, seconds), run as `make bench` runs it, in a process of its own, on this session's servers.

A product change that breaks a benchmark (a renamed function, a table the app role may not write, a
request that now answers 500) fails here the day it lands, not when someone next measures. The
figures of a smoke run mean nothing; only that the script ran to its end and printed its ratios is
checked. The full runs stay manual (`make bench`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

REPO = Path(settings.BASE_DIR)
SCRIPTS = sorted(path.stem for path in (REPO / "bench").glob("[!_]*.py"))
# What each script prints once it has measured: its ratio lines (a goal, or none).
RATIO = r"\s+\d+\.\d+(x)?\s+goal <= "
PRINTED = {
    "capacity": [r"^bytes per tick, 100 bars: [\d,]+ B$", r"^ticks/s per core \(100 bars, every component\): \d+$"],
    "chat_tools": [rf"^\(a\) perf .* p50{RATIO}", rf"^\(c\) HTTP perf .* p50{RATIO}"],
    "context_latency": [rf"^context\(\d+\)/context\(10\) p50{RATIO}", rf"^context\(10\) p50 / floor p50{RATIO}"],
    "embedding_throughput": [
        r"^long chunks/s, int8 \(default\) / old\s+\d+\.\d+x\s+goal >= 2x",
        r"^short chunks/s, int8 \(default\) / old\s+\d+\.\d+x\s+goal >= 2x",
    ],
    "load": [r"^tick\s+\d+(\s+\d+\.\d+){6}$", r"^cross-trader rows or reads: 0$"],
    "mcp_overhead": [rf"^mcp/rest p50 .*{RATIO}"],
    "recall_latency": [r"trader [\d,]+ \(\w+\) p95\s+\d+\.\d+ ms\s+goal <= ", r"^break-even at recall >= 0\.95"],
    "keyword_study": [r"^recall's choice - reference\s+nDCG@10 [+-]\d\.\d{3}"],
    "fusion_study": [r"^absolute 0\.3/0\.7\s+\d\.\d{3}\s+\d\.\d{3}\s+[+-]\d\.\d{3}$"],
    "recall_quality": [
        r"^  vs fts\s+nDCG@10 \d+\.\d+x",
        r"^  vs vector\s+nDCG@10 \d+\.\d+x",
        r"^  fts - reference\s+nDCG@10 [+-]\d+\.\d+",
    ],
    "queue_isolation": [rf"^lag p95, a queue per kind / one shared queue{RATIO}"],
    "research_context": [rf"^\(a\) research_context\(n=15\) p50{RATIO}", rf"^\(c\) context .* p50{RATIO}"],
    "scope_seal": [r"^sealed/unsealed p50: \d+\.\d+$"],
    "served_context_cost": [r"^with/without p50: \d+\.\d+$"],
    "signals_memory": [rf"^\(a\) in process p50{RATIO}", rf"^\(c\) HTTP p50{RATIO}"],
    "tick_ingest": [
        rf"^tick cost / floor cost per request .*{RATIO}",
        rf"^cost per tick, reflection on \(not due\) / off{RATIO}",
    ],
}


def test_every_benchmark_has_a_smoke_check():
    assert sorted(PRINTED) == SCRIPTS


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_the_benchmark_runs_in_smoke_mode(script, embedded_services):
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env.update(embedded_services.environment())  # this session's servers: no start and stop per script
    # Locks, logs and caches (recall_latency's embeddings) of its own: a manual run beside this one is not refused.
    env["BENCH_DATA_DIR"] = str(REPO / "bench" / ".data" / "smoke")
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, f"bench/{script}.py", "--smoke"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=280,
    )  # fmt: skip
    elapsed = time.monotonic() - started
    try:
        output = result.stdout + result.stderr
        assert result.returncode == 0, f"bench/{script}.py --smoke exited {result.returncode}:\n{output[-4000:]}"
        assert "SMOKE run" in result.stdout
        for pattern in PRINTED[script]:
            assert re.search(pattern, result.stdout, re.MULTILINE), f"no line matching {pattern!r}:\n{output[-4000:]}"
        problems = [line for line in result.stdout.splitlines() if line.lstrip().startswith("!!")]
        assert not problems, "\n".join(problems)
    finally:
        _drop_database(env, f"memory_bench_{script}")
    print(f"bench/{script}.py --smoke: {elapsed:.1f}s")


def _drop_database(env: dict, name: str) -> None:
    """The run's database (the template the runs clone stays: the next session's first run saves a migrate)."""
    import psycopg

    url = urlsplit(env.get("DATABASE_MIGRATE_URL") or env["DATABASE_URL"])
    admin = urlunsplit(url._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

"""Does the analyst memory of 4 agents on one market cost the same with 1,000,000 signals in the table as with 1,000?

    .venv/bin/python bench/signals_memory.py [--rounds 2000] [--warmup 100] [--http-rounds 1000]
                                             [--large 1000000] [--synchronous-commit on|off] [--smoke]

Two traders, each with one measured market and the same 4 agents on it, in the one agent_signals
table (as in production):

  SMALL  1,000 signal rows: the measured market with 4 agents x 10 signals, and 960 more rows on
         24 other markets of the trader (the measured agents and others);
  LARGE  1,000,000 signal rows: the measured market with 4 agents x 250 signals (one every ~35 h
         over a year), and 999,000 more on 10,000 other markets of the trader, 204 agent names,
         spread over the same year.

Signal j (0 = newest) of agent k on a measured market is a function of (k, j) alone, so both
measured markets hold the same latest signals and render byte-identical prompts. Rows are written
with COPY in arrival (created_at) order, every market's signals interleaved as they would arrive,
and satisfy the CHECK constraints (probability 0..1 with 4 decimals, confidence 0..1 with 2,
direction YES/NO/NEUTRAL, key_drivers a JSON array of 1..5 strings, metadata a JSON object); then
VACUUM ANALYZE.

Phase 1: only SMALL is seeded (the table holds 1,000 rows) and SMALL is measured alone.
Phase 2: LARGE is seeded (the table holds 1,001,000 rows) and SMALL and LARGE are measured
interleaved (order swapped every round); SMALL then also shows what the 1M rows of another
trader cost it.

  (a) what GET .../memory/ does after authentication, in process, by the product's own call
      (signals.answers.market_memory_answer: in one savepoint under SET LOCAL statement_timeout
      (signals.selectors.memory_reads), market_for_memory, the query validated, the retrieval's one
      LATERAL statement; then the audit INSERT, and each agent's memory formatted for its prompt,
      serialized);
  (b) the retrieval statement alone (execute + fetchall, autocommit);
  (c) GET /api/v1/markets/{id}/memory/?agents=a,b,c,d&limit=3 to gunicorn (1 worker x 4 threads),
      one keep-alive connection per trader, `--http-rounds` rounds (0 skips it); in phase 2 with two
      floors in the same rounds: POST /bench/floor/insert/ (token auth + one INSERT in the request's transaction, the
      cheapest API write: (c) writes its audit row too) and GET /healthz (no auth).

Prints p50/p95/p99 per case, the SQL statements per call, the ratios LARGE/SMALL (goal <= 1.3;
interleaved in phase 2, and against SMALL alone in phase 1, which is not interleaved), the
absolute p95 of (a) and (c) against 5 ms (the seed's target is 100 ms), where the time goes (in
(a): each statement timed by an execute wrapper, the retrieval's own duration_ms, the rest of the answer;
in (c): the view's steps replayed in process one by one, the whole request in process through
Django's test client, over HTTP, the floors), and EXPLAIN (ANALYZE, BUFFERS) of the retrieval
statement at each size (checked: an index scan on signal_latest, one loop per agent).

`--synchronous-commit off` (a diagnosis, the benchmark database only) shows what the WAL flush of
the audit INSERT costs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from itertools import pairwise
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    BenchError,
    BenchRun,
    Client,
    QueryTimer,
    captured,
    checkpoint,
    copy_rows,
    endpoint_sql,
    explain,
    http_rounds,
    interleave_calls,
    ms,
    parse_args,
    pcts,
    percentile,
    print_table,
    ratio_line,
    run_script,
    timing_cells,
    token_for,
)

GOAL = 1.3
ABSOLUTE_GOAL_MS = 5.0
SEED_TARGET_MS = 100.0
LIMIT = 3
FLOOR_PATH = "/bench/floor/insert/"  # token auth + one tiny INSERT: the cheapest API write
NOW = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)  # the newest signal
YEAR = dt.timedelta(days=365)
MEASURED_LARGE = 250  # signals per agent on LARGE's measured market
MEASURED_SMALL = 10  # ... on SMALL's
MEASURED_STEP = YEAR / MEASURED_LARGE  # same schedule on both: signal j is j steps before NOW
SMALL_TOTAL, SMALL_MARKETS = 1_000, 24
LARGE_MARKETS = 10_000  # other markets of LARGE (at most one per 100 of its rows: --large 1,000,000)
SMOKE = {"rounds": 20, "warmup": 5, "http_rounds": 10, "large": 5_000}
AGENTS = ("polling_analyst", "news_sentiment", "base_rate_analyst", "orderbook_flow")
AGENT_TYPES = {"polling_analyst": "polling", "news_sentiment": "news", "base_rate_analyst": "statistical"}
OTHER_AGENT_BASES = (
    "polling", "news", "base_rate", "orderbook", "sentiment", "expert_panel", "superforecaster", "macro", "legal",
    "weather",
)  # fmt: skip
OTHER_AGENTS = tuple(f"{base}_analyst_v{n}" for base in OTHER_AGENT_BASES for n in range(1, 21))  # 200 names
DIRECTIONS = ("YES", "NO", "NEUTRAL")
DRIVERS = (
    "Incumbent leads the last five national polls by 3-6 points",
    "Polling averages tightened after the second debate",
    "Early-vote turnout in the swing counties is above 2020 levels",
    "Major outlet reports a leaked draft of the ruling",
    "Court calendar shows oral arguments moved to next month",
    "Historical base rate for this kind of resolution is about 35%",
    "Base rate for incumbents in comparable races is 68%",
    "Order book is thin above 0.70: large asks absorb every push",
    "Whale wallet accumulated 120k YES shares over the last 48 hours",
    "Spread widened to 4 cents after the news broke",
    "Social sentiment turned negative after the press conference",
    "Official statement denies the reported negotiations",
    "Forecast models moved 8 points in the last week",
    "Prediction markets on other venues price this 5 points higher",
    "Key witness testimony scheduled before the resolution date",
    "Weather service raised hurricane landfall odds to 40%",
    "Central bank minutes signal a pause in the hiking cycle",
    "CPI print came in 0.2 points above consensus",
    "Resolution source has a history of late updates",
    "Candidate withdrew from two scheduled interviews",
    "Endorsement from the state party chair announced this morning",
    "Fundraising numbers for the quarter beat expectations by 30%",
    "Regulatory filing deadline passed without a submission",
    "Insider reports suggest the deal is close to signing",
    "Volume on NO doubled in the last 24 hours",
    "Market overreacted to a single outlier poll",
    "Expert panel median estimate is 0.42",
    "Legal analysts expect a narrow ruling on procedural grounds",
    "Turnout models favour the challenger in rural districts",
    "No credible reporting supports the rumour",
)
MARKET_COLUMNS = ("owner_id", "condition_id", "question", "metadata", "created_at")
SIGNAL_COLUMNS = (
    "id", "owner_id", "market_id", "recommendation_id", "agent_name", "agent_type", "fair_probability", "confidence",
    "direction", "key_drivers", "metadata", "created_at",
)  # fmt: skip
_CREATED = SIGNAL_COLUMNS.index("created_at")


def _mix(i: int, salt: int = 0) -> int:
    """A cheap deterministic hash of i: fields picked from its bits do not move in lockstep."""
    x = (i * 2654435761 + salt * 40503 + 12345) & 0xFFFFFFFF
    x ^= x >> 15
    return (x * 2246822519) & 0xFFFFFFFF


# JSON texts picked by hash (1..5 drivers; a few metadata keys): realistic sizes without 1M json.dumps calls.
DRIVER_SETS = tuple(
    json.dumps([DRIVERS[(_mix(v, 3) >> (4 * i)) % len(DRIVERS)] for i in range(1 + _mix(v, 5) % 5)])
    for v in range(1024)
)
METADATA = tuple(
    json.dumps(
        {
            "model": ("claude-sonnet-5", "claude-haiku-4-5", "claude-opus-4-1")[v % 3],
            "latency_ms": 800 + _mix(v, 9) % 9000,
            "sources": [f"https://news.example.com/{_mix(v, s) % 100000}" for s in range(1 + v % 3)],
            "run_id": f"run-{_mix(v, 11):08x}",
        }
    )
    for v in range(256)
)


# -- seeding ----------------------------------------------------------------------------------------


def _signal(owner_id: int, market_id: int, agent: str, created_at: dt.datetime, h: int, rec: bool = False) -> tuple:
    probability = (h >> 2) % 10_001
    confidence = (h >> 16) % 101
    return (
        uuid.uuid4(), owner_id, market_id, uuid.uuid4() if rec else None, agent,
        AGENT_TYPES.get(agent, agent.split("_analyst")[0]),
        f"{probability // 10_000}.{probability % 10_000:04d}", f"{confidence // 100}.{confidence % 100:02d}",
        DIRECTIONS[h % 3], DRIVER_SETS[(h >> 8) % 1024], METADATA[(h >> 20) % 256], created_at,
    )  # fmt: skip


def _measured_rows(owner_id: int, market_id: int, per_agent: int) -> list[tuple]:
    """Signal j (0 = newest) of agent k: a function of (k, j) alone, j steps before NOW (k * 7 minutes earlier)."""
    rows = []
    for k, agent in enumerate(AGENTS):
        for j in range(per_agent):
            h = _mix(k * 100_000 + j, salt=1)
            created = NOW - j * MEASURED_STEP - dt.timedelta(minutes=7 * k)
            rows.append(_signal(owner_id, market_id, agent, created, h, rec=j % 2 == 0))
    return rows


def _filler_rows(owner_id: int, market_ids: list[int], count: int, salt: int) -> Iterator[tuple]:
    """`count` signals on `market_ids`, oldest first, evenly over the year before NOW; the measured agents
    and 200 others."""
    names = AGENTS + OTHER_AGENTS
    step = YEAR / count
    for i in range(count - 1, -1, -1):
        h = _mix(i, salt)
        yield _signal(owner_id, market_ids[h % len(market_ids)], names[(h >> 13) % len(names)], NOW - i * step, h)


def _chronological(measured: list[tuple], filler: Iterable[tuple]) -> Iterator[tuple]:
    """Both streams in created_at order, merged: the order in which the rows would have arrived."""
    measured = sorted(measured, key=lambda row: row[_CREATED])
    index = 0
    for row in filler:
        while index < len(measured) and measured[index][_CREATED] <= row[_CREATED]:
            yield measured[index]
            index += 1
        yield row
    yield from measured[index:]


def _other_markets(owner_id: int, count: int, salt: int) -> list[int]:
    from django.db import connection

    def rows():
        for i in range(count):
            h = _mix(i, salt)
            yield (
                owner_id, f"0x{h:08x}{i:056x}", f"Will event #{i} resolve YES by the end of the quarter?",
                json.dumps({"category": ("politics", "economics", "legal", "weather", "sports")[h % 5]}),
                NOW - YEAR - dt.timedelta(hours=i % 1000),
            )  # fmt: skip

    copy_rows("markets", MARKET_COLUMNS, rows())
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM markets WHERE owner_id = %s AND condition_id LIKE '0x%%' ORDER BY id", [owner_id]
        )
        return [pk for (pk,) in cursor.fetchall()]


def seed_trader(label: str, per_agent: int, total: int, n_markets: int, salt: int) -> tuple[dict, float]:
    """One trader: its measured market (4 agents x per_agent signals) and `total` signal rows in all."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from signals.models import Market

    started = time.perf_counter()
    username = f"bench-{label.lower()}"
    token = token_for(username)
    user = get_user_model().objects.get(username=username)
    market = Market.objects.create(
        owner=user, condition_id=f"bench-{label.lower()}-measured", question="Will the incumbent win the election?"
    )
    others = _other_markets(user.pk, n_markets, salt)
    measured = _measured_rows(user.pk, market.pk, per_agent)
    written = copy_rows(
        "agent_signals",
        SIGNAL_COLUMNS,
        _chronological(measured, _filler_rows(user.pk, others, total - len(measured), salt)),
    )
    with connection.cursor() as cursor:  # what autovacuum would have done
        for table in ("agent_signals", "markets"):
            cursor.execute(f"VACUUM ANALYZE {table}")
        checkpoint(cursor)  # the seed's dirty pages flushed now, not during the timed rounds
    assert written == total, (written, total)
    return {"user": user, "token": token, "market": market}, time.perf_counter() - started


def seed_check(traders: dict[str, dict]) -> list[str]:
    from django.db import connection

    lines = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT COUNT(*), pg_size_pretty(pg_total_relation_size('agent_signals')),"
            " pg_size_pretty(pg_relation_size('signal_latest')) FROM agent_signals"
        )
        rows, size, index_size = cursor.fetchone()
        lines.append(f"  agent_signals: {rows:,} rows, {size} with indexes (signal_latest {index_size})")
        for label, t in traders.items():
            cursor.execute(
                "SELECT COUNT(*), COUNT(DISTINCT market_id), COUNT(DISTINCT agent_name), MIN(created_at)::date,"
                " MAX(created_at)::date, MAX(jsonb_array_length(key_drivers)),"
                " COUNT(*) FILTER (WHERE jsonb_typeof(metadata) <> 'object'), MIN(fair_probability),"
                " MAX(fair_probability), MIN(confidence), MAX(confidence), COUNT(DISTINCT direction)"
                " FROM agent_signals WHERE owner_id = %s",
                [t["user"].pk],
            )
            n, markets, agents, first, last, drivers, not_object, pmin, pmax, cmin, cmax, dirs = cursor.fetchone()
            cursor.execute(
                "SELECT agent_name, COUNT(*) FROM agent_signals WHERE market_id = %s GROUP BY 1 ORDER BY 1",
                [t["market"].pk],
            )
            per_agent = ", ".join(f"{name} {count}" for name, count in cursor.fetchall())
            lines.append(
                f"  {label:<5} {n:,} rows on {markets:,} markets, {agents} agent names, {first}..{last},"
                f" probability {pmin}..{pmax}, confidence {cmin}..{cmax}, {dirs} directions, <= {drivers} key"
                f" drivers, {not_object} non-object metadata; measured market {t['market'].pk}: {per_agent}"
            )
    return lines


# -- measuring --------------------------------------------------------------------------------------


PARAMS = {"agents": ",".join(AGENTS), "limit": str(LIMIT)}  # (c)'s query string


def memory_answer(user, market_id: int) -> dict:
    """GET .../memory/?agents=a,b,c,d&limit=3's answer after authentication: the product's own call, which
    MarketMemoryView.get and the MCP tool make (the market, the query validated, each agent's memory formatted)."""
    from signals import answers

    return answers.market_memory_answer(user=user, market_id=market_id, query=PARAMS)


class Retrievals:
    """While entered, the retrieval (signals.selectors.get_all_agent_memories) and its audit
    (signals.services.memory_audit) are wrapped (the modules' globals, so the product's own calls of them too):
    `last` is (seconds from the retrieval's start to the audit's end, the retrieval's duration_ms as seconds,
    [first, end) of the statements the QueryTimer saw in between) of the latest answer. In between: the
    signals query, the end of the answer's reads block (timeout back, RELEASE) and the audit INSERT."""

    def __init__(self, timer: QueryTimer | None = None):
        self.timer = timer
        self.last: tuple[float, float, tuple[int, int]] = (0.0, 0.0, (0, 0))
        self._patches: list = []

    def __enter__(self) -> Retrievals:
        from unittest import mock

        from signals import selectors, services

        retrieve, audit = selectors.get_all_agent_memories, services.memory_audit
        started: list = [0.0, 0, 0.0]  # perf_counter, first statement, duration_ms of the latest retrieval

        def get_all_agent_memories(**kwargs):
            started[0], started[1] = time.perf_counter(), len(self.timer.current) if self.timer else 0
            outcome = retrieve(**kwargs)
            started[2] = outcome.duration_ms
            return outcome

        def memory_audit(**kwargs):
            outcome = audit(**kwargs)
            end = len(self.timer.current) if self.timer else 0
            self.last = (time.perf_counter() - started[0], started[2] / 1000, (started[1], end))
            return outcome

        self._patches = [
            mock.patch.object(selectors, "get_all_agent_memories", get_all_agent_memories),
            mock.patch.object(services, "memory_audit", memory_audit),
        ]
        for patch in self._patches:
            patch.start()
        return self

    def __exit__(self, *exc_info) -> None:
        for patch in self._patches:
            patch.stop()


def answer_call(t: dict, retrievals: Retrievals) -> Callable[[], tuple[float, float, tuple[int, int]]]:
    """(a): the answer in process (memory_answer). Returns retrievals.last: the retrieval-to-audit seconds, its
    duration_ms, its statements."""
    user, market_id = t["user"], t["market"].pk

    def call():
        memory_answer(user, market_id)
        return retrievals.last

    return call


def statement_call(market) -> Callable[[], int]:
    """(b): the retrieval statement alone."""
    from django.db import connection

    from signals.selectors import _LATEST_PER_AGENT

    params = [list(AGENTS), market.pk, market.owner_id, LIMIT]

    def call():
        with connection.cursor() as cursor:
            cursor.execute(_LATEST_PER_AGENT, params)
            return len(cursor.fetchall())

    return call


VIEW_STEPS = (
    "token authentication (SELECT account_tokens by key hash)",
    "the answer: market_memory_answer (market_for_memory, MemoryQuery, retrieval, audit, format x4, MemoryOutput)",
    "  of which the retrieval to its audit (LATERAL statement, end of the reads block, audit INSERT)",
    "JSONRenderer().render",
)


def view_steps(t: dict, retrievals: Retrievals) -> Callable[[], list[float]]:
    """MarketMemoryView.get's steps (and the token lookup account-token authentication makes), in process and timed
    one by one around the product's own calls: seconds per step, in VIEW_STEPS order. A diagnosis of (c), not the
    endpoint itself."""
    from rest_framework.renderers import JSONRenderer

    from access.keys import key_hash
    from accounts.models import AccountToken

    token, market_id = t["token"], t["market"].pk

    def call():
        marks = [time.perf_counter()]
        user = AccountToken.objects.select_related("owner").get(key_hash=key_hash(token)).owner
        marks.append(time.perf_counter())
        data = memory_answer(user, market_id)
        marks.append(time.perf_counter())
        JSONRenderer().render(data)
        marks.append(time.perf_counter())
        auth, answer, render = (b - a for a, b in pairwise(marks))
        return [auth, answer, retrievals.last[0], render]

    return call


def test_client_call(t: dict, path: str) -> Callable[[], int]:
    """The whole request in process: Django's test client (middleware, DRF dispatch, the pool), no gunicorn."""
    from django.test import Client as DjangoClient

    client = DjangoClient(HTTP_HOST="127.0.0.1", HTTP_AUTHORIZATION=f"Token {t['token']}")

    def call():
        response = client.get(path, secure=True)
        if response.status_code != 200:
            raise BenchError(f"GET {path} in process: HTTP {response.status_code}")
        return response.status_code

    return call


def prompts_of(t: dict) -> dict[str, tuple[int, bool, str]]:
    """{agent: (signals shown, truncated, prompt block)} of the answer in process."""
    agents = memory_answer(t["user"], t["market"].pk)["agents"]
    return {name: (len(a["signals"]), a["truncated"], a["prompt"]) for name, a in agents.items()}


def sql_name(sql: str) -> str:
    text = " ".join(sql.split())
    if text.upper() in ("BEGIN", "COMMIT", "ROLLBACK"):
        return text.upper()
    if text.upper().startswith("SET"):
        return "SET LOCAL"
    if "set_config('statement_timeout'" in text:  # memorysite.statement_timeout: set, then back
        return "SET LOCAL statement_timeout" if "current_setting" in text else "statement_timeout back"
    if text.upper().startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")):
        return text.rsplit(" ", 1)[0].upper()
    if "LATERAL" in text:
        return "SELECT agent_signals (LATERAL)"
    if match := re.match(r'(INSERT INTO|UPDATE|DELETE FROM) "?(\w+)"?', text, re.I):
        return f"{match.group(1).split()[0].upper()} {match.group(2)}"
    match = re.search(r'\bFROM "?(\w+)"?', text)
    return f"SELECT {match.group(1)}" if match else text.split()[0]


def plan_verdict(plan: list[str]) -> str:
    """Index scans on signal_latest, one loop per agent, and nothing else touching agent_signals."""
    scans = [line for line in plan if re.search(r"Scan.* on agent_signals", line)]
    good = [line for line in scans if "Index Scan using signal_latest" in line and f"loops={len(AGENTS)})" in line]
    ok = len(scans) == 1 and len(good) == 1
    ms_ = next((line.split(":")[1].strip() for line in plan if line.startswith("Execution Time")), "?")
    return f"{'ok' if ok else 'NOT'}: index scan on signal_latest x{len(AGENTS)} loops, executed in {ms_}"


def absolute_line(label: str, seconds: float) -> str:
    value = seconds * 1000
    verdict = "ok" if value < ABSOLUTE_GOAL_MS else f"MISSED by {value / ABSOLUTE_GOAL_MS:.2f}x"
    return (
        f"{label:<52} p95 {value:5.2f} ms   goal < {ABSOLUTE_GOAL_MS:g} ms (seed target {SEED_TARGET_MS:g} ms)"
        f"   {verdict}"
    )


def get(client: Client, path: str) -> Callable[[], float]:
    return lambda: client.request("GET", path)[0]  # the client's own timer: send to the body's last byte


# -- the run -------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2000, help="timed rounds per in-process case and phase")
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--http-rounds", type=int, default=1000, help="timed rounds over HTTP (0: no gunicorn)")
    parser.add_argument("--large", type=int, default=1_000_000, help="signal rows of LARGE")
    parser.add_argument(
        "--synchronous-commit",
        choices=("on", "off"),
        default="on",
        help="diagnosis: 'off' (benchmark database only) shows what the audit INSERT's WAL flush costs",
    )
    args = parse_args(parser, argv, SMOKE)
    total = SMALL_TOTAL + args.large
    names = {"SMALL/1": f"SMALL, {SMALL_TOTAL:,}-row table", "SMALL/2": "SMALL", "LARGE/2": "LARGE"}

    with BenchRun("signals_memory") as run, contextlib.ExitStack() as stack:
        from django.db import connection

        if args.synchronous_commit == "off":
            with connection.cursor() as cursor:
                cursor.execute(f'ALTER DATABASE "{run.database}" SET synchronous_commit = off')  # gunicorn's sessions
                cursor.execute("SET synchronous_commit = off")  # this process's
        traders: dict[str, dict] = {}
        traders["SMALL"], seed_s = seed_trader("SMALL", MEASURED_SMALL, SMALL_TOTAL, SMALL_MARKETS, salt=21)
        print(f"phase 1: seeded SMALL in {seed_s:.1f}s (database {run.database}, COPY + VACUUM ANALYZE):")
        for line in seed_check(traders):
            print(line)

        clients: dict[str, Client] = {}
        if args.http_rounds:
            from bench._floor_urls import create_floor_table  # Django is set up by now

            create_floor_table()
            web = run.start_gunicorn(workers=1, threads=4)
            clients = {label: Client(web.port, token_for(f"bench-{label.lower()}")) for label in ("SMALL", "LARGE")}
        query = f"?agents={','.join(AGENTS)}&limit={LIMIT}"
        paths = {"SMALL": f"/api/v1/markets/{traders['SMALL']['market'].pk}/memory/{query}"}
        timer = QueryTimer()
        retrievals = stack.enter_context(Retrievals(timer))  # the retrieval timed inside the product's calls
        results: dict[str, dict[str, list]] = {}  # "(a)/1" -> {label: [(seconds, returned, statements)]}
        http: dict[str, dict[str, list[float]]] = {}
        statements: dict[str, list[str]] = {}
        plans: dict[str, list[str]] = {}

        def measure(phase: str, labels: tuple[str, ...]) -> float:
            started = time.perf_counter()
            with connection.execute_wrapper(timer):
                results[f"(a)/{phase}"] = interleave_calls(
                    {k: answer_call(traders[k], retrievals) for k in labels}, args.rounds, args.warmup, timer
                )
            results[f"(b)/{phase}"] = interleave_calls(
                {k: statement_call(traders[k]["market"]) for k in labels}, args.rounds, args.warmup
            )
            if clients:
                requests = {k: get(clients[k], paths[k]) for k in labels}
                if phase == "2":
                    requests["healthz"] = get(clients["SMALL"], "/healthz")
                    requests["floor"] = lambda: clients["SMALL"].request("POST", FLOOR_PATH, {"v": 1}, expect=(201,))[0]
                http[phase] = http_rounds(requests, args.http_rounds, args.warmup)
            for k in labels:
                statements[f"{k}/{phase}"] = sql = captured(answer_call(traders[k], retrievals))
                plans[f"{k}/{phase}"] = explain(next(q for q in sql if "LATERAL" in q))
            return time.perf_counter() - started

        wall = measure("1", ("SMALL",))
        print(
            f"  measured SMALL alone (the table holds {SMALL_TOTAL:,} rows): {args.rounds} rounds each of (a) and (b)"
            + (f", {args.http_rounds} of (c)" if clients else "")
            + f" after {args.warmup} warm-up rounds, {wall:.1f}s"
        )

        traders["LARGE"], seed_s = seed_trader(
            "LARGE", MEASURED_LARGE, args.large, min(LARGE_MARKETS, max(args.large // 100, 1)), salt=42
        )
        print(f"\nphase 2: seeded LARGE in {seed_s:.1f}s (COPY + VACUUM ANALYZE); both traders share the table:")
        for line in seed_check(traders):
            print(line)
        paths["LARGE"] = f"/api/v1/markets/{traders['LARGE']['market'].pk}/memory/{query}"

        print(f"\noutputs (limit={LIMIT}, max_length=1000, date_format=human) and the SQL of one call:")
        problems = []
        prompts = {label: prompts_of(t) for label, t in traders.items()}
        for label, by_agent in prompts.items():
            shown = ", ".join(f"{n}{' (truncated)' if cut else ''}" for n, cut, _ in by_agent.values())
            chars = sum(len(text) for _, _, text in by_agent.values())
            print(f"  {label:<5} signals per agent: {shown}; 4 prompt blocks, {chars:,} chars")
            if any(n != LIMIT for n, _, _ in by_agent.values()):
                problems.append(f"{label}: not {LIMIT} signals per agent")
        same = all(prompts["SMALL"][a][2] == prompts["LARGE"][a][2] for a in AGENTS)
        print(f"  SMALL and LARGE prompt blocks byte-identical: {'yes' if same else 'NO'}")
        if not same:
            problems.append("SMALL and LARGE prompts differ")
        endpoint = {label: endpoint_sql(traders[label]["token"], "GET", path) for label, path in paths.items()}
        for label in traders:
            sql = captured(answer_call(traders[label], retrievals))
            print(f"  (a) {label:<5} {len(sql)} SQL: {', '.join(sql_name(q) for q in sql)}")
            print(f"  (c) {label:<5} {len(endpoint[label])} SQL: {', '.join(sql_name(q) for q in endpoint[label])}")
        for label, path in paths.items():
            if clients:
                body = json.loads(clients[label].request("GET", path)[1])
                ok = not body["degraded"] and all(body["agents"][a]["prompt"] == prompts[label][a][2] for a in AGENTS)
                print(f"  (c) {label:<5} GET {path}: same prompts as in process: {'yes' if ok else 'NO'}")
                if not ok:
                    problems.append(f"(c) {label}: prompts differ or degraded")

        wall = measure("2", ("SMALL", "LARGE"))
        steps_rounds = max(args.rounds // 2, 1)
        steps = interleave_calls(
            {k: view_steps(traders[k], retrievals) for k in ("SMALL", "LARGE")}, steps_rounds, args.warmup
        )
        whole = interleave_calls(
            {k: test_client_call(traders[k], paths[k]) for k in ("SMALL", "LARGE")}, steps_rounds, args.warmup
        )
        print(
            f"\nphase 2: {args.rounds} rounds each of (a) and (b)"
            + (f", {args.http_rounds} of (c) (+ two floors)" if clients else "")
            + f", SMALL and LARGE interleaved (order rotated every round) after {args.warmup} warm-up rounds,"
            + f" {wall:.1f}s"
            + (
                f"; gunicorn 1 worker x 4 threads, reconnects={sum(c.reconnects for c in clients.values())}"
                if clients
                else ""
            )
        )
        for problem in problems:
            print(f"  !! {problem}")

        # -- the numbers --
        titles = {"(a)": "in process", "(b)": "retrieval statement", "(c)": "HTTP"}
        long_titles = {
            "(a)": "market_memory_answer, in process",
            "(b)": "retrieval statement alone",
            "(c)": "GET .../memory/ (gunicorn)",
        }
        series: dict[str, dict[str, list[float]]] = {}  # case -> {SMALL/1, SMALL/2, LARGE/2: seconds}
        for case in ("(a)", "(b)"):
            series[case] = {
                f"{k}/{phase}": [s for s, _, _ in results[f"{case}/{phase}"][k]]
                for k, phase in (("SMALL", "1"), ("SMALL", "2"), ("LARGE", "2"))
            }
        if clients:
            series["(c)"] = {
                "SMALL/1": http["1"]["SMALL"],
                "SMALL/2": http["2"]["SMALL"],
                "LARGE/2": http["2"]["LARGE"],
            }
        n_sql = {"(a)": len(statements["LARGE/2"]), "(b)": 1, "(c)": len(endpoint["LARGE"])}
        rows = []
        for case, by_key in series.items():
            for key, values in by_key.items():
                rows.append(
                    [f"{case} {long_titles[case]}", names[key], f"{SMALL_TOTAL if key == 'SMALL/1' else total:,}",
                     *timing_cells(values), n_sql[case]]
                )  # fmt: skip
        if clients:
            for key, title, n in (
                ("floor", f"(c) floor: POST {FLOOR_PATH}", "1+1 auth"),
                ("healthz", "(c) floor: GET /healthz (no auth)", "1+Redis"),
            ):
                rows.append([title, "-", f"{total:,}", *timing_cells(http["2"][key]), n])
        print()
        print_table(
            ["case", "trader", "table rows", "p50 ms", "p95 ms", "p99 ms", "mean ms", "SQL (BEGIN/COMMIT incl.)"], rows
        )

        large_name = f"{args.large // 1000:,}k" if args.large % 1000 == 0 else f"{args.large:,}"
        print(
            f"\nLARGE ({large_name} rows of its own, 4 x {MEASURED_LARGE} on the market) / SMALL"
            f" (4 x {MEASURED_SMALL} on the market), interleaved, same {total:,}-row table:"
        )
        for case, by_key in series.items():
            for p, lv, sv in zip(("p50", "p95", "p99"), pcts(by_key["LARGE/2"]), pcts(by_key["SMALL/2"]), strict=True):
                print(ratio_line(f"{case} {titles[case]} {p}", lv / sv, GOAL))
        print(
            f"LARGE ({total:,}-row table) / SMALL measured alone in phase 1 ({SMALL_TOTAL:,}-row table; not"
            " interleaved, so machine drift between the phases is in it):"
        )
        for case, by_key in series.items():
            for p, lv, sv in zip(("p50", "p95", "p99"), pcts(by_key["LARGE/2"]), pcts(by_key["SMALL/1"]), strict=True):
                print(ratio_line(f"{case} {titles[case]} {p}", lv / sv, GOAL))
        print(f"the same SMALL market, {total:,}-row / {SMALL_TOTAL:,}-row table (no goal; not interleaved):")
        for case, by_key in series.items():
            now_, then = pcts(by_key["SMALL/2"]), pcts(by_key["SMALL/1"])
            print(f"{f'{case} {titles[case]} p50 / p95':<52} {now_[0] / then[0]:7.2f} / {now_[1] / then[1]:.2f}")

        print("\nabsolute:")
        for case in ("(a)", "(c)"):
            for key in ("LARGE/2", "SMALL/2", "SMALL/1") if case in series else ():
                print(absolute_line(f"{case} {titles[case]}, {names[key]}", percentile(series[case][key], 95)))

        print(
            "\nwhere the time goes in (a): each part's percentiles (statements timed by an execute wrapper, same calls)"
        )
        sql_names = [sql_name(q) for q in statements["LARGE/2"] if sql_name(q) not in ("BEGIN", "COMMIT")]
        parts: dict[str, dict[str, list[float]]] = {}
        for key in names:
            label, phase = key.split("/")
            by_part: dict[str, list[float]] = {}
            for elapsed, (memory, retrieval, (first, end)), stmts in results[f"(a)/{phase}"][label]:
                if len(stmts) != len(sql_names):
                    continue
                inside = sum(stmts[first:end])
                by_part.setdefault("total", []).append(elapsed)
                for index, (n, v) in enumerate(zip(sql_names, stmts, strict=True)):
                    where = "retrieval: " if first <= index < end else ""
                    by_part.setdefault(f"  {where}{'BEGIN + ' if n == 'SET LOCAL' else ''}{n}", []).append(v)
                by_part.setdefault("  retrieval: the rest (rows -> signals, audit row in Python)", []).append(
                    memory - inside
                )
                by_part.setdefault("  of the retrieval, its own duration_ms", []).append(retrieval)
                by_part.setdefault("  the rest: MemoryQuery, format x4, MemoryOutput (Python)", []).append(
                    elapsed - memory - (sum(stmts) - inside)
                )
            parts[key] = by_part
        rows = []
        for part in parts["LARGE/2"]:
            p50 = {key: percentile(parts[key][part], 50) for key in names}
            tail = [ms(percentile(parts[key][part], p)) for p in (95, 99) for key in ("SMALL/2", "LARGE/2")]
            rows.append(
                [part, ms(p50["SMALL/1"]), ms(p50["SMALL/2"]), ms(p50["LARGE/2"]),
                 f"{p50['LARGE/2'] / p50['SMALL/2']:.2f}", *tail]
            )  # fmt: skip
        print_table(
            ["part", "SMALL 1k-table p50", "SMALL p50", "LARGE p50", "L/S p50", "SMALL p95", "LARGE p95", "SMALL p99",
             "LARGE p99"],
            rows,
        )  # fmt: skip

        print(
            f"\nwhere the time goes in (c): the view's steps replayed in process ({steps_rounds} interleaved rounds),"
            " the request in process (test client), over HTTP"
        )
        rows = []
        for index, step in enumerate(VIEW_STEPS):
            v = {k: [call[1][index] for call in steps[k]] for k in steps}
            rows.append(
                [f"  {step}", ms(percentile(v["SMALL"], 50)), ms(percentile(v["LARGE"], 50)),
                 ms(percentile(v["LARGE"], 95)), f"{percentile(v['LARGE'], 50) / percentile(v['SMALL'], 50):.2f}"]
            )  # fmt: skip
        top = [index for index, step in enumerate(VIEW_STEPS) if not step.startswith(" ")]
        sums = {k: [sum(call[1][index] for index in top) for call in steps[k]] for k in steps}
        whole_s = {k: [call[0] for call in whole[k]] for k in whole}
        for title, v in [
            ("sum of the steps", sums),
            ("whole request in process (+ middleware, DRF dispatch, pool)", whole_s),
            *([("(c) over HTTP (+ gunicorn, socket)", http["2"])] if clients else []),
        ]:
            rows.append(
                [title, ms(percentile(v["SMALL"], 50)), ms(percentile(v["LARGE"], 50)), ms(percentile(v["LARGE"], 95)),
                 f"{percentile(v['LARGE'], 50) / percentile(v['SMALL'], 50):.2f}"]
            )  # fmt: skip
        if clients:
            for key, title in (
                ("floor", f"floor: POST {FLOOR_PATH} (auth + 1 INSERT)"),
                ("healthz", "floor: GET /healthz"),
            ):
                floor = http["2"][key]
                rows.append([title, "-", ms(percentile(floor, 50)), ms(percentile(floor, 95)), "-"])
        print_table(["part", "SMALL p50", "LARGE p50", "LARGE p95", "L/S p50"], rows)

        print("\nplans: EXPLAIN (ANALYZE, BUFFERS) of the retrieval statement as (a) sent it")
        print(
            "\n".join(
                f"  {line}" for line in next(q for q in statements["LARGE/2"] if "LATERAL" in q).strip().splitlines()
            )
        )
        for key in names:
            rows_in_table = SMALL_TOTAL if key == "SMALL/1" else total
            print(f"\n  {key.split('/')[0]}, {rows_in_table:,}-row table: {plan_verdict(plans[key])}")
            for line in plans[key]:
                print(f"      {line}")
        for client in clients.values():
            client.close()
    return 0


if __name__ == "__main__":
    run_script(main)

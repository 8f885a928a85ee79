"""Does the memory context cost grow with a deployment's trade history?

    .venv/bin/python bench/context_latency.py [--rounds 400] [--warmup 30]

One trader, one skill version (recent_trades_k=30), deployments with identical recent activity:
A has 10 closed trades, B has 100,000, and C (a control) has 30. Trade j (0 = newest) is the same
in every deployment and they are one hour apart, so all three have the same 10 exits on the last
tick's UTC day, and B and C render the same 30-row block. Each also has one open position and
the same 120 one-minute decision snapshots (the newest is the last tick; materialized_through ==
latest_tick_at, so no catch-up runs on read). gunicorn serves the app; each round requests
A-context, B-context, C-context and the floor, GET /api/v1/deployments/{A}/ (token auth + one
indexed select + a small serializer), in an order rotated every round, on one keep-alive
connection.

Prints p50/p99 per endpoint, the ratios context(100k)/context(10) (goal <= 1.3) and
context(10)/floor (goal <= 3), the history-only ratio context(100k)/context(30) (same rendered
block, no goal), and the memory block's token estimate for A, B and C.

The manual section (`## From your manual and playbooks`, agentcontext.manual) is on for A, B and C: the trader
has a TRADING_MANUAL.md of MANUAL_SECTIONS sections, --notes other workspace and journal files that match the
same words (never in the section: recall's search reads the manual alone of the workspace files), staff playbooks
and runbooks, and --others other traders with --notes files each (all indexed through recall's document_upsert;
no embedding: the section reads the keyword side only). A0 is A with the section off (a skill version with
manual_enabled false): its context is measured beside A's over HTTP, and in process the section's build alone
(`agentcontext.selectors.manual_section`) beside the memory block without it and with it, in the trader's scope,
then where the section's time goes (per kind of statement, the Python rest, the candidate function alone).

Degrade, never fail (agentcontext.degrade): the sections' reads share one savepoint under CONTEXT_SECTION_TIMEOUT_MS,
each allowed to fail on its own; the last table gives, in process, how long each section's reads take in A's, B's and
C's context, and the timeout's margin over the slowest of them.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import sys
import time
import uuid
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import BenchRun, Client, ms, parse_args, percentile, print_table, ratio_line, run_script, token_for

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 10, "warmup": 2, "big": 300, "notes": 10, "others": 1}

LAST_TICK = dt.datetime(2026, 6, 4, 10, 5, tzinfo=dt.UTC)
NEWEST_ENTRY = dt.datetime(2026, 6, 4, 9, 10, tzinfo=dt.UTC)  # trade j enters j hours before this
HOLD = dt.timedelta(minutes=40)
SNAPSHOTS = 120
RECENT_TRADES_K = 30
MANUAL_SECTIONS = 40
PLAYBOOKS = 12
RUNBOOKS = 6
RULES = ("max_daily_loss", "R3_POSITION_CAP", "R6_RATE_LIMIT", "max_leverage", "min_notional", "R9_FUNDING_WINDOW")
TOPICS = ("breakout", "pullback", "funding", "volatility", "liquidity", "stops", "sizing", "weekends", "news", "fees")
SYMBOLS = ("BTC", "ETH", "SOL")
BASE_PRICE = {"BTC": Decimal("65200"), "ETH": Decimal("3410"), "SOL": Decimal("142.35")}
REASONS = (
    "breakout above prior swing high",
    "BB lower-band bounce with rising volume",
    "trend continuation after pullback to EMA20",
    "mean reversion: RSI below 25 on the 1m",
    "failed breakdown, reclaim of VWAP",
)
REGIMES = ("trend_up_lowvol", "trend_up_hivol", "trend_down_lowvol", "trend_down_hivol", "chop_lowvol", "chop_hivol")


def _trade(deployment, skill_version, j: int):
    """Closed trade number j (0 = newest): every field is a function of j alone, never of the history size."""
    from ledger.models import TradeHistory, TradeStatus

    symbol = SYMBOLS[j % 3]
    side = "long" if j % 2 == 0 else "short"
    entry_at = NEWEST_ENTRY - dt.timedelta(hours=j)
    entry_price = BASE_PRICE[symbol] * (1 + Decimal((j * 37) % 200 - 100) / 2000)
    size_usd = Decimal(150 + (j * 13) % 250)
    move = Decimal((j * 7919) % 41 - 17) / 1000  # -1.7% .. +2.3%
    exit_price = entry_price * (1 + (move if side == "long" else -move))
    pnl = size_usd * move
    return TradeHistory(
        id=uuid.uuid4(),
        owner_id=deployment.owner_id,
        deployment=deployment,
        skill_id=skill_version.skill_id,
        skill_version=skill_version.version,
        symbol=symbol,
        side=side,
        status=TradeStatus.CLOSED,
        entry_tick_at=entry_at,
        entry_price=entry_price.quantize(Decimal("0.0001")),
        entry_size_usd=size_usd,
        entry_reason=REASONS[j % len(REASONS)],
        entry_regime_tag=REGIMES[j % len(REGIMES)],
        size_base=(size_usd / entry_price).quantize(Decimal("0.00000001")),
        avg_entry_price=entry_price.quantize(Decimal("0.0001")),
        accrued_pnl_usd=Decimal(0),
        last_mark_price=exit_price.quantize(Decimal("0.0001")),
        exit_tick_at=entry_at + HOLD,
        exit_price=exit_price.quantize(Decimal("0.0001")),
        exit_reason="liquidated" if j % 11 == 5 else REASONS[(j + 2) % len(REASONS)],
        holding_minutes=Decimal(40),
        realized_pnl_usd=pnl.quantize(Decimal("0.00000001")),
        mfe_usd=abs(pnl) + 3,
        mae_usd=-(abs(pnl) / 2 + 1),
    )


def _bars(end: dt.datetime, n: int = 100) -> dict:
    bars = []
    for i in range(n):
        t = end - dt.timedelta(minutes=n - 1 - i)
        close = 65200 + 40 * ((i * 17) % 23 - 11)
        bars.append(
            {"t": t.isoformat(), "o": close - 5, "h": close + 25, "l": close - 30, "c": close, "v": 12.5 + i % 7}
        )
    return {"BTC": bars}


def _snapshots(deployment) -> list:
    from ledger.models import DecisionSnapshot

    open_at = LAST_TICK - dt.timedelta(minutes=10)
    rows = []
    for i in range(SNAPSHOTS):
        tick_at = LAST_TICK - dt.timedelta(minutes=SNAPSHOTS - 1 - i)
        holding = tick_at >= open_at
        if tick_at == open_at:
            action = {"kind": "propose_order", "symbol": "BTC", "reason": REASONS[0]}
        elif i % 5 == 0:
            action = {"kind": "propose_order", "symbol": "ETH", "reason": REASONS[1]}
        else:
            action = {"kind": "hold", "reason": "no setup"}
        engine = {"kind": "executed"}
        if action["kind"] == "propose_order" and tick_at != open_at:
            engine = {"kind": "rejected", "rule": "max_daily_loss"} if i % 3 else {"kind": "skipped"}
        rows.append(
            DecisionSnapshot(
                id=uuid.uuid4(),
                owner_id=deployment.owner_id,
                deployment=deployment,
                tick_at=tick_at,
                equity_usd=Decimal("10040.5"),
                positions=[{"symbol": "BTC", "side": "long", "size": 0.004, "mark_price": 65230}] if holding else [],
                marks={"BTC": 65230, "ETH": 3411.2},
                proposed_action=action,
                engine=engine,
                bars=_bars(tick_at),
                engine_kind=engine["kind"],
                engine_rule=engine.get("rule", ""),
                materialized_at=tick_at,
                materialized_ops=[],
            )
        )
    return rows


def _open_trade(deployment, skill_version):
    from ledger.models import TradeHistory, TradeStatus

    return TradeHistory(
        id=uuid.uuid4(),
        owner_id=deployment.owner_id,
        deployment=deployment,
        skill_id=skill_version.skill_id,
        skill_version=skill_version.version,
        symbol="BTC",
        side="long",
        status=TradeStatus.OPEN,
        entry_tick_at=LAST_TICK - dt.timedelta(minutes=10),
        entry_price=Decimal("65200"),
        entry_size_usd=Decimal("260.8"),
        entry_reason=REASONS[0],
        entry_regime_tag="trend_up_lowvol",
        size_base=Decimal("0.004"),
        avg_entry_price=Decimal("65200"),
        accrued_pnl_usd=Decimal(0),
        last_mark_price=Decimal("65230"),
        mfe_usd=Decimal("0.4"),
        mae_usd=Decimal("-0.2"),
    )


def _manual() -> str:
    """The trader's manual: MANUAL_SECTIONS sections of rules on symbols, sides, topics and engine rules."""
    lines = ["# Trading manual", ""]
    for n in range(MANUAL_SECTIONS):
        symbol, side, topic, rule = SYMBOLS[n % 3], ("long", "short")[n % 2], TOPICS[n % 10], RULES[n % 6]
        lines += [
            f"## {topic.title()} rule {n + 1}",
            f"When {symbol} is {side} and the setup is a {topic}, size at most {n % 4 + 1}% of equity.",
            f"If the engine rejects with {rule}, do not resubmit the same shape; wait {n % 5 + 1} bars.",
            f"Never hold a {side} {symbol} position through {TOPICS[(n + 3) % 10]} without a stop.",
            "",
        ]
    return "\n".join(lines)


def _staff_document(kind: str, n: int) -> str:
    topic, rule = TOPICS[n % 10], RULES[n % 6]
    return (
        f"# {kind.title()} {n}: {topic}\n\n"
        f"When a deployment is rejected with {rule} during {topic}, check the open positions first.\n"
        f"{SYMBOLS[n % 3]} desks: hold no new {('long', 'short')[n % 2]} until the {topic} clears.\n"
    )


def _note(j: int) -> str:
    symbol, side, topic, rule = SYMBOLS[j % 3], ("long", "short")[j % 2], TOPICS[j % 10], RULES[j % 6]
    return (
        f"# Note {j}\n{symbol} {side} on a {topic}: {REASONS[j % len(REASONS)]}.\n"
        f"Rejected by {rule} twice; held {j % 90} minutes; no setup after that.\n"
    )


def seed_documents(owner, *, notes: int, others: int) -> int:
    """The trader's manual, notes and journal, staff playbooks and runbooks, other traders' files; the chunks made."""
    from django.contrib.auth import get_user_model

    from recall.models import Chunk
    from recall.services import document_upsert

    def upsert(user, path: str, content: str, source: str) -> None:
        document_upsert(owner=user, path=path, content=content, source=source, queue_embedding=False)

    upsert(owner, "TRADING_MANUAL.md", _manual(), "workspace")
    upsert(
        owner,
        "SOUL.md",
        "# Soul\nPatient BTC long breakouts; no setup, no trade; respect max_daily_loss.\n",
        "workspace",
    )
    for n in range(PLAYBOOKS):
        upsert(None, f"playbooks/{TOPICS[n % 10]}-{n}.md", _staff_document("playbook", n), "playbook")
    for n in range(RUNBOOKS):
        upsert(None, f"runbooks/{TOPICS[n % 10]}-{n}.md", _staff_document("runbook", n), "runbook")
    for j in range(notes):
        folder, source = ("notes", "workspace") if j % 2 else ("journal", "journal")
        upsert(owner, f"{folder}/{j:05}.md", _note(j), source)
    for i in range(others):
        other, _ = get_user_model().objects.get_or_create(username=f"bench-other-{i}")
        upsert(other, "TRADING_MANUAL.md", _manual().replace("Trading manual", f"Manual of trader {i}"), "workspace")
        for j in range(notes):
            upsert(other, f"notes/{j:05}.md", _note(j + i), "workspace")
    return Chunk.objects.count()


def seed(trade_counts: dict[str, int]) -> tuple[str, dict[str, int], float]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from ledger.models import DecisionSnapshot, Deployment, DeploymentMode, Skill, SkillVersion, TradeHistory

    started = time.perf_counter()
    token = token_for("bench-trader")
    owner = get_user_model().objects.get(username="bench-trader")
    skill = Skill.objects.create(owner=owner, name="BTC breakout")
    skill_version = SkillVersion.objects.create(
        owner=owner,
        skill=skill,
        version=1,
        strategy_text="Buy breakouts above the prior swing high; cut losers fast.",
        recent_trades_k=RECENT_TRADES_K,
        reflection_cadence="off",
    )
    without_manual = SkillVersion.objects.create(
        owner=owner,
        skill=skill,
        version=2,
        strategy_text=skill_version.strategy_text,
        recent_trades_k=RECENT_TRADES_K,
        reflection_cadence="off",
        manual_enabled=False,
    )
    ids = {}
    for label, count in trade_counts.items():
        version = without_manual if label == "A0" else skill_version
        deployment = Deployment.objects.create(
            owner=owner,
            skill_version=version,
            mode=DeploymentMode.PAPER,
            day_start_on=LAST_TICK.date(),
            day_start_equity_usd=Decimal("10000"),
            latest_tick_at=LAST_TICK,
            materialized_through=LAST_TICK,
        )
        ids[label] = deployment.pk
        DecisionSnapshot.objects.bulk_create(_snapshots(deployment), batch_size=500)
        TradeHistory.objects.bulk_create([_open_trade(deployment, version)])
        batch = []
        for j in range(count):
            batch.append(_trade(deployment, version, j))
            if len(batch) == 5000:
                TradeHistory.objects.bulk_create(batch)
                batch = []
        TradeHistory.objects.bulk_create(batch)
    with connection.cursor() as cursor:  # what autovacuum would have done to a table this size
        cursor.execute("VACUUM ANALYZE trade_history")
        cursor.execute("VACUUM ANALYZE decision_snapshots")
        cursor.execute("VACUUM ANALYZE deployments")
    return token, ids, time.perf_counter() - started


def analyze_recall() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for table in ("recall_documents", "recall_chunks", "recall_lexeme_stats"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def token_check(bodies: dict[str, dict]) -> list[str]:
    from agentcontext.formatting import memory_block_token_ceiling
    from memorysite.text import estimate_tokens

    lines = []
    separators = 3 * estimate_tokens("\n\n")  # last decision | recent activity | memory block | manual
    ceiling = memory_block_token_ceiling(RECENT_TRADES_K)
    for label, body in bodies.items():
        per = body["token_estimate"]["per_section"]
        bound = ceiling + per["last_decision"] + per["recent_activity"] + per["manual"] + separators
        rows = (body["sections"]["recent_trades"] or "").count("\n")
        total = body["token_estimate"]["total"]
        lines.append(
            f"  {label}: total={total} tokens  per_section={json.dumps(per)}  recent_trades rows={rows}"
            f"  bound={bound} (memory_block_token_ceiling({RECENT_TRADES_K})={ceiling}"
            f" + last_decision + recent_activity + manual + 3 separators)"
            f"  within bound: {'yes' if total <= bound else 'NO'}"
        )
    return lines


def count_queries(ids: dict[str, int]) -> dict[str, int]:
    """SQL statements each endpoint's view runs after authentication (which adds 1), in process."""
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from access import scope
    from agentcontext.selectors import deployment_memory_context
    from ledger import selectors

    owner = get_user_model().objects.get(username="bench-trader")
    counts = {}
    with scope.owner_scope(owner):  # as served: recall's keyword function answers only in the trader's scope
        for label, pk in ids.items():
            with CaptureQueriesContext(connection) as captured:
                deployment = selectors.deployment_get(user=owner, deployment_id=pk)
                deployment_memory_context(deployment=deployment)
            counts[label] = len(captured.captured_queries)
        with CaptureQueriesContext(connection) as captured:
            selectors.deployment_get(user=owner, deployment_id=ids["A"])
        counts["floor"] = len(captured.captured_queries)
    return counts


def manual_build_times(ids: dict[str, int], rounds: int, warmup: int) -> tuple[dict[str, list[float]], str | None]:
    """In process, in the trader's scope: the memory block of A0 (no manual section), the manual section of A
    alone, and A's block with it, interleaved; and A's section."""
    from django.contrib.auth import get_user_model

    from access import scope
    from agentcontext.selectors import deployment_memory_context, manual_section, manual_settings
    from bench._harness import interleave
    from ledger import selectors
    from ledger.models import Deployment

    owner = get_user_model().objects.get(username="bench-trader")
    with_manual, without = (
        Deployment.objects.select_related("skill_version", "owner").get(pk=ids[label]) for label in ("A", "A0")
    )
    with scope.owner_scope(owner):
        inputs = selectors.context_inputs(deployment=with_manual, recent_k=RECENT_TRADES_K)
        settings = manual_settings(with_manual.skill_version)

        def section():
            return manual_section(user=owner, deployment_id=with_manual.pk, inputs=inputs, settings=settings)

        samples, _ = interleave(
            {
                "memory block without the section (A0)": lambda: deployment_memory_context(deployment=without),
                "the manual section alone (A)": section,
                "memory block with it (A)": lambda: deployment_memory_context(deployment=with_manual),
            },
            rounds,
            warmup,
        )
        return samples, section()


def section_read_times(ids: dict[str, int], rounds: int, warmup: int) -> tuple[dict[str, dict[str, list[float]]], int]:
    """In process, in the trader's scope: how long each section's reads take (agentcontext.degrade.SectionReads)
    in A's, B's and C's context, against the per-section statement timeout. Returns
    {deployment: {section: [ms per round]}} and the timeout in ms; a degraded read makes the run fail."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from access import scope
    from agentcontext.degrade import section_reads
    from agentcontext.selectors import deployment_memory_context_with, deployment_system_prompt, manual_settings
    from ledger.models import Deployment

    owner = get_user_model().objects.get(username="bench-trader")
    times: dict[str, dict[str, list[float]]] = {label: {} for label in ("A", "B", "C")}
    with scope.owner_scope(owner):
        deployments = {
            label: Deployment.objects.select_related("skill_version", "owner").get(pk=ids[label]) for label in times
        }
        for round_no in range(warmup + rounds):
            for label, deployment in deployments.items():
                version = deployment.skill_version
                with section_reads(deployment_id=deployment.pk) as reads:
                    deployment_memory_context_with(
                        deployment=deployment,
                        recent_trades_k=version.recent_trades_k,
                        memory_enabled=version.memory_enabled,
                        manual=manual_settings(version),
                        reads=reads,
                    )
                    deployment_system_prompt(deployment=deployment, reads=reads)
                if reads.degraded:
                    raise RuntimeError(f"context {label} degraded on the bench: {reads.degraded}")
                if round_no >= warmup:
                    for section, elapsed in reads.durations_ms.items():
                        times[label].setdefault(section, []).append(elapsed)
    return times, settings.CONTEXT_SECTION_TIMEOUT_MS


def statement_kind(sql: str) -> str:
    """Which of the manual section's statements sql is: recall.selectors.keyword_query's stats, the keyword
    candidates (the SECURITY DEFINER function inside the exact BM25 of its best, which are read whole), load (the
    hits' texts; before 277ab0c, also the candidates' rows, read apart), or other."""
    if "recall_lexeme_stats" in sql:
        return "stats"
    if "recall_keyword_candidates" in sql:
        return "keyword"
    if "JOIN recall_documents" in sql or sql.startswith("SELECT c.id, c.text FROM recall_chunks"):
        return "load"
    return "other"


STATEMENT_KINDS = ("stats", "keyword", "load", "other")


def manual_section_profile(ids: dict[str, int], rounds: int, warmup: int) -> list[list[str]]:
    """In process, the trader's scope: where A's manual section spends its time, per kind of statement (p50 of the
    per-call sums, and statements per call), the Python rest (the call's p50 minus its statements' p50s), and the
    keyword statement's candidate function alone (EXPLAIN ANALYZE's Function Scan node, p50 over the rounds)."""
    import re

    from django.contrib.auth import get_user_model
    from django.db import connection

    from access import scope
    from agentcontext.selectors import manual_section, manual_settings
    from bench._harness import KindTimer, captured
    from ledger import selectors
    from ledger.models import Deployment

    owner = get_user_model().objects.get(username="bench-trader")
    deployment = Deployment.objects.select_related("skill_version").get(pk=ids["A"])
    rows = []
    with scope.owner_scope(owner):
        inputs = selectors.context_inputs(deployment=deployment, recent_k=RECENT_TRADES_K)
        settings = manual_settings(deployment.skill_version)

        def section():
            return manual_section(user=owner, deployment_id=deployment.pk, inputs=inputs, settings=settings)

        for _ in range(warmup):
            section()
        timer = KindTimer(statement_kind)
        totals, per_call = [], []
        with connection.execute_wrapper(timer):
            for _ in range(rounds):
                timer.current = []
                started = time.perf_counter()
                section()
                totals.append(time.perf_counter() - started)
                per_call.append(timer.current)
        in_sql = 0.0
        for kind in STATEMENT_KINDS:
            sums = [sum(seconds for k, seconds in call if k == kind) for call in per_call]
            count = sum(1 for k, _ in per_call[0] if k == kind)
            if count:
                rows.append([f"statement: {kind}", count, ms(percentile(sums, 50)), ms(percentile(sums, 99))])
                in_sql += percentile(sums, 50)
        total = percentile(totals, 50)
        rows.append(["Python (call p50 minus statements' p50s)", "", ms(total - in_sql), ""])
        rows.append(["the section (call)", len(per_call[0]), ms(total), ms(percentile(totals, 99))])
        keyword = [sql for sql in captured(section) if statement_kind(sql) == "keyword"]
        node = re.compile(r"Function Scan on recall_keyword_candidates .*actual time=[0-9.]+\.\.([0-9.]+)")
        for index, sql in enumerate(keyword):
            function_ms, execution_ms = [], []
            with connection.cursor() as cursor:
                for _ in range(max(rounds // 4, 5)):
                    cursor.execute(f"EXPLAIN (ANALYZE) {sql}")
                    plan = "\n".join(row[0] for row in cursor.fetchall())
                    found = node.search(plan)
                    function_ms.append(float(found.group(1)) / 1000 if found else math.nan)
                    execution = re.search(r"Execution Time: ([0-9.]+) ms", plan)
                    execution_ms.append(float(execution.group(1)) / 1000 if execution else math.nan)
            rows.append(
                [
                    f"  keyword #{index + 1}: its candidate function (EXPLAIN ANALYZE)",
                    "",
                    ms(percentile(function_ms, 50)),
                    "",
                ]
            )
            rows.append(
                [f"  keyword #{index + 1}: the statement (EXPLAIN ANALYZE)", "", ms(percentile(execution_ms, 50)), ""]
            )
    return rows


def same_context_at_k(ids: dict[str, int], k: int) -> tuple[int, int, bool]:
    """In process, same data: the memory block of A and B with recent_trades_k = k (both have >= k trades)."""
    from django.contrib.auth import get_user_model

    from access import scope
    from agentcontext.selectors import deployment_memory_context
    from ledger.models import Deployment

    owner = get_user_model().objects.get(username="bench-trader")
    contexts = []
    with scope.owner_scope(owner):  # as served: recall's keyword function answers only in the trader's scope
        for label in ("A", "B"):
            deployment = Deployment.objects.select_related("skill_version").get(pk=ids[label])
            deployment.skill_version.recent_trades_k = k  # in memory only
            contexts.append(deployment_memory_context(deployment=deployment))
    a, b = contexts
    return a.token_estimate["total"], b.token_estimate["total"], a.text == b.text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--big", type=int, default=100_000, help="closed trades of deployment B")
    parser.add_argument("--notes", type=int, default=2_000, help="the trader's (and each other trader's) files")
    parser.add_argument("--others", type=int, default=3, help="other traders with as many files")
    args = parse_args(parser, argv, SMOKE)

    with BenchRun("context_latency") as run:
        token, ids, seed_s = seed({"A": 10, "B": args.big, "C": 30, "A0": 10})
        print(
            f"seeded A=10 (A0: the same, manual off), B={args.big:,}, C=30 closed trades in {seed_s:.1f}s"
            f" (database {run.database})"
        )
        from django.contrib.auth import get_user_model

        started = time.perf_counter()
        chunks = seed_documents(
            get_user_model().objects.get(username="bench-trader"), notes=args.notes, others=args.others
        )
        analyze_recall()
        print(
            f"indexed the manual ({MANUAL_SECTIONS} sections), {PLAYBOOKS} playbooks, {RUNBOOKS} runbooks,"
            f" {args.notes:,} files of the trader and {args.notes:,} of each of {args.others} others:"
            f" {chunks:,} chunks in {time.perf_counter() - started:.1f}s (keyword side only: no embedding)"
        )
        queries = count_queries(ids)
        web = run.start_gunicorn(workers=1, threads=4)
        client = Client(web.port, token)
        endpoints = [  # (key, label, path)
            ("A", "context A (10 trades)", f"/api/v1/deployments/{ids['A']}/context/"),
            ("B", f"context B ({args.big:,} trades)", f"/api/v1/deployments/{ids['B']}/context/"),
            ("C", "context C (30 trades, control)", f"/api/v1/deployments/{ids['C']}/context/"),
            ("A0", "context A0 (A, manual section off)", f"/api/v1/deployments/{ids['A0']}/context/"),
            ("floor", "floor: GET deployment A", f"/api/v1/deployments/{ids['A']}/"),
        ]
        bodies = {key: json.loads(client.request("GET", path)[1]) for key, _, path in endpoints if key != "floor"}
        for _ in range(args.warmup):
            for _, _, path in endpoints:
                client.request("GET", path)
        samples: dict[str, list[float]] = {key: [] for key, _, _ in endpoints}
        run.statements.reset()
        started = time.perf_counter()
        for round_no in range(args.rounds):
            shift = round_no % len(endpoints)
            for key, _, path in endpoints[shift:] + endpoints[:shift]:
                samples[key].append(client.request("GET", path)[0])
        wall = time.perf_counter() - started
        client.close()
        run.statements.report("the interleaved rounds")

        print(
            f"\n{args.rounds} interleaved rounds (A, B, C, A0, floor; order rotated each round) after {args.warmup}"
            f" warm-up rounds, {wall:.1f}s; gunicorn 1 worker x 4 threads, one keep-alive connection,"
            f" reconnects={client.reconnects}"
        )
        p50 = {key: percentile(values, 50) for key, values in samples.items()}
        p99 = {key: percentile(values, 99) for key, values in samples.items()}
        print_table(
            ["endpoint", "p50 ms", "p99 ms", "mean ms", "view SQL (+1 auth)"],
            [
                [label, ms(p50[key]), ms(p99[key]), ms(sum(samples[key]) / len(samples[key])), queries[key]]
                for key, label, _ in endpoints
            ],
        )
        print()
        big = f"{args.big // 1000}k" if args.big % 1000 == 0 else f"{args.big:,}"
        print(ratio_line(f"context({big})/context(10) p50", p50["B"] / p50["A"], 1.3))
        print(ratio_line(f"context({big})/context(10) p99", p99["B"] / p99["A"], 1.3))
        print(ratio_line("context(10) p50 / floor p50", p50["A"] / p50["floor"], 3))
        print(f"{f'context({big})/context(30) p50, same block (no goal)':<52} {p50['B'] / p50['C']:7.2f}")
        print(f"{f'context({big})/context(30) p99, same block (no goal)':<52} {p99['B'] / p99['C']:7.2f}")
        print(f"{'context(10) with/without manual section p50 (no goal)':<52} {p50['A'] / p50['A0']:7.2f}")
        print(f"{'context(10) with/without manual section p99 (no goal)':<52} {p99['A'] / p99['A0']:7.2f}")

        build, section = manual_build_times(ids, args.rounds, args.warmup)
        print(
            f"\nin process, the trader's scope, {args.rounds} interleaved rounds after {args.warmup} warm-up:"
            " the manual section's build beside the memory block without it"
        )
        print_table(
            ["call", "p50 ms", "p99 ms", "mean ms"],
            [[label, ms(percentile(v, 50)), ms(percentile(v, 99)), ms(sum(v) / len(v))] for label, v in build.items()],
        )
        alone, without = build["the manual section alone (A)"], build["memory block without the section (A0)"]
        print(
            f"{'manual section / block without it p50 (no goal)':<52}"
            f" {percentile(alone, 50) / percentile(without, 50):7.2f}"
        )
        print(
            f"\nin process, the trader's scope, {args.rounds} rounds after {args.warmup} warm-up: where A's manual"
            " section spends its time"
        )
        print_table(["part", "per call", "p50 ms", "p99 ms"], manual_section_profile(ids, args.rounds, args.warmup))
        from ledger.models import MANUAL_TOKEN_CAP_DEFAULT

        shown = bodies["A"]["sections"]["manual"]
        print(
            f"  A's manual section: {len((shown or '').splitlines()) - 1 if shown else 0} rows,"
            f" {bodies['A']['token_estimate']['per_section']['manual']} tokens (cap"
            f" {MANUAL_TOKEN_CAP_DEFAULT}); in process identical: {'yes' if section == shown else 'NO'};"
            f" A0 has none: {'yes' if bodies['A0']['sections']['manual'] is None else 'NO'}"
        )
        for line in (shown or "").splitlines():
            print(f"    {line[:160]}")

        times, timeout_ms = section_read_times(ids, args.rounds, args.warmup)
        print(
            f"\nin process, the trader's scope, {args.rounds} rounds after {args.warmup} warm-up: each section's reads"
            f" (agentcontext.degrade) against CONTEXT_SECTION_TIMEOUT_MS={timeout_ms}"
        )
        rows, slowest = [], 0.0
        for label, sections in times.items():
            for section, values in sections.items():
                slowest = max(slowest, max(values))
                p50, p99 = percentile(values, 50), percentile(values, 99)
                rows.append([label, section, ms(p50 / 1000), ms(p99 / 1000), ms(max(values) / 1000)])
        print_table(["context", "section", "p50 ms", "p99 ms", "max ms"], rows)
        print(f"{'per-section timeout / slowest section read (no goal)':<52} {timeout_ms / slowest:7.1f}")

        print(f"\nmemory-block token estimate, recent_trades_k={RECENT_TRADES_K} (from the responses above):")
        for line in token_check(bodies):
            print(line)
        total = {key: body["token_estimate"]["total"] for key, body in bodies.items()}
        print(
            f"  A={total['A']}  B={total['B']}  equal: {'yes' if total['A'] == total['B'] else 'no'}"
            + ("" if total["A"] == total["B"] else f"  (A has 10 closed trades < k={RECENT_TRADES_K}: 10 rows, B 30)")
        )
        print(
            f"  B={total['B']}  C={total['C']}  equal: {'yes' if total['B'] == total['C'] else 'no'}"
            f"  identical text: {'yes' if bodies['B']['text'] == bodies['C']['text'] else 'no'}"
            f"  (both have >= k={RECENT_TRADES_K} closed trades)"
        )
        k_a, k_b, same_text = same_context_at_k(ids, 10)
        print(
            f"  same data at recent_trades_k=10 (both have >= k trades): A={k_a}  B={k_b}"
            f"  equal: {'yes' if k_a == k_b else 'no'}  identical text: {'yes' if same_text else 'no'}"
        )
    return 0


if __name__ == "__main__":
    run_script(main)

"""Do the coach's tools and the facts block cost the same at 10 or 100,000 trades, 10 or 10,000 facts?

    .venv/bin/python bench/chat_tools.py [--rounds 400] [--warmup 40] [--http-rounds 300]
                                         [--trades 100000] [--facts 10000] [--explain]

Three traders, each with one skill, one skill version, one deployment (plus one open position the
tool must leave out) and one active lessons note on that deployment:

  SMALL  10 closed trades (one a day over the last 10 days), 10 active facts;
  LARGE  100,000 closed trades over the last 365 days (5 symbols, both sides, PnL of both signs,
         regime tags incl. unclassified, entry and exit reasons), 10,000 facts (40% archived;
         last_referenced_at varied, shared by facts injected together, null for a quarter);
  C30    a control for get_skill_performance: 30 closed trades (one a day), so it returns the
         same 30 trade rows as LARGE; 10 facts.

Rows go in with COPY; trade_daily_pnl is then computed from the seeded trades with one
INSERT ... SELECT ... GROUP BY (what the materializer keeps: per deployment and UTC exit day), and
the tables are VACUUM ANALYZEd. All traders share the tables, as in production.

In process (Django set up by the harness on the benchmark database, production settings), after
`--warmup` rounds, `--rounds` rounds call each trader once per case, the order rotated every round
(for two traders: swapped every pair):

  (a) call_tool(user, "get_skill_performance", {"skill_id": ..., "detail": "full"}): summary from
      the trade_daily_pnl rollup, the last 30 closed trades, the active lessons (SMALL, C30, LARGE);
  (b) the facts block: chat_system(user=..., mode="coach"), i.e. facts_for_prompt
      (one indexed read) + compose_chat_system (SMALL, LARGE);
  (c) POST /api/v1/chat/tools/get_skill_performance/ {"detail": "full"} to gunicorn (1 worker x 4
      threads), one keep-alive connection per trader, `--http-rounds` rounds (0 skips it).

Prints p50/p99 per case and trader, the goal ratios LARGE/SMALL (<= 1.5) for p50 and p99, the
control ratio LARGE/C30 (same rows returned; no goal), the SQL statements per call, each
statement's p50 (timed by an execute wrapper during the timed calls) and its plan at each size
(scans, indexes, sorts); the full EXPLAIN ANALYZE of a LARGE statement that is over the goal and
accounts for a quarter or more of the call's extra time (every LARGE statement with --explain).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    BenchRun,
    Client,
    captured,
    copy_rows,
    explain,
    http_rounds,
    measure_cases,
    ms,
    parse_args,
    percentile,
    print_full_plan,
    print_table,
    ratio_line,
    run_script,
    statement_split,
    timing_cells,
    token_for,
)

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 10, "warmup": 2, "http_rounds": 5, "trades": 300, "facts": 40}

GOAL = 1.5
NOW = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)  # the newest exit; facts are referenced up to it
SYMBOLS = ("BTC", "ETH", "SOL", "DOGE", "AVAX")
BASE_PRICE = {"BTC": 65200.0, "ETH": 3410.0, "SOL": 142.35, "DOGE": 0.1612, "AVAX": 27.41}
REGIMES = ("trend_up_lowvol", "trend_up_hivol", "trend_down_lowvol", "trend_down_hivol", "chop_lowvol", "chop_hivol")
ENTRY_REASONS = (
    "breakout above prior swing high",
    "BB lower-band bounce with rising volume",
    "trend continuation after pullback to EMA20",
    "mean reversion: RSI below 25 on the 1m",
    "failed breakdown, reclaim of VWAP",
    "funding flipped negative while price held support",
)
EXIT_REASONS = (
    "target reached",
    "stop loss hit",
    "trailing stop",
    "signal reversed",
    "time stop: no follow-through after 4h",
    "flattened before CPI",
    "liquidated",
)
FACT_TEMPLATES = (
    ("risk", "You don't take leverage above {n}x."),
    ("risk", "You cap any single position at {n}% of equity."),
    ("symbols", "You only trade {sym} and avoid low-cap alts."),
    ("symbols", "You stopped trading {sym} after the drawdown in week {n}."),
    ("style", "You seem to favour mean-reversion setups on the {n}m chart."),
    ("style", "You prefer to scale out in {n} steps rather than all at once."),
    ("schedule", "You trade from Lisbon and are offline after {n}:00 UTC."),
    ("goals", "Your goal is a {n}% monthly return with drawdowns under 10%."),
    (None, "You review the journal every Sunday and want weekly summaries."),
    (None, "You asked to be warned {n} hours before FOMC and CPI releases."),
)
LESSONS = (
    "- Breakouts in chop_lowvol failed 7 of the last 10 times: wait for a retest before entering.\n"
    "- Losers held past 90 minutes lost 2.1x more than those cut at the stop: honour the time stop.\n"
    "- Shorts in trend_up_hivol were the worst bucket (win rate 31%): skip them.\n"
    "- Scaling out in two steps kept 60% of MFE on winners versus 35% when exiting all at once.\n"
    "- Entries right after funding flips worked on ETH and SOL, not on BTC."
)
TRADE_COLUMNS = (
    "id", "owner_id", "deployment_id", "skill_id", "skill_version", "symbol", "side", "status",
    "entry_tick_at", "entry_price", "entry_size_usd", "entry_leverage", "entry_reason", "entry_regime_tag",
    "size_base", "avg_entry_price", "accrued_pnl_usd", "last_mark_price", "exit_tick_at", "exit_price",
    "exit_price_carried", "exit_reason", "holding_minutes", "realized_pnl_usd", "fees_usd", "mfe_usd", "mae_usd",
    "created_at", "updated_at",
)  # fmt: skip
FACT_COLUMNS = (
    "id", "user_id", "fact", "source", "confidence", "topic", "last_referenced_at", "created_at", "updated_at",
    "archived_at", "archived_reason",
)  # fmt: skip
DAILY_PNL_FROM_TRADES = """
    INSERT INTO trade_daily_pnl
        (owner_id, deployment_id, skill_id, skill_version, day, realized_pnl_usd, n_closed, n_wins)
    SELECT owner_id, deployment_id, skill_id, skill_version, (exit_tick_at AT TIME ZONE 'UTC')::date,
           SUM(realized_pnl_usd), COUNT(*), COUNT(*) FILTER (WHERE realized_pnl_usd > 0)
    FROM trade_history
    WHERE status = 'closed'
    GROUP BY owner_id, deployment_id, skill_id, skill_version, (exit_tick_at AT TIME ZONE 'UTC')::date
"""


def _mix(i: int, salt: int = 0) -> int:
    """A cheap deterministic hash of i: fields picked from its bits do not move in lockstep."""
    x = (i * 2654435761 + salt * 40503 + 12345) & 0xFFFFFFFF
    x ^= x >> 15
    return (x * 2246822519) & 0xFFFFFFFF


# -- seeding ----------------------------------------------------------------------------------------


def _trade_rows(owner_id: int, deployment_id: int, skill_id: int, count: int, span: dt.timedelta):
    """`count` closed trades, trade j (0 = newest) exiting j * span / count before NOW."""
    step = span / count
    for j in range(count):
        h = _mix(j)
        symbol = SYMBOLS[h % len(SYMBOLS)]
        side = "long" if (h >> 3) & 1 else "short"
        exit_at = NOW - j * step
        holding = 5 + (h >> 4) % 236  # minutes
        entry_at = exit_at - dt.timedelta(minutes=holding)
        entry_price = round(BASE_PRICE[symbol] * (1 + ((h >> 12) % 200 - 100) / 2000), 6)
        size_usd = float(100 + (h >> 20) % 400)
        move = ((h >> 8) % 61 - 30) / 1000  # -3% .. +3% in the trade's favour
        exit_price = round(entry_price * (1 + (move if side == "long" else -move)), 6)
        pnl = round(size_usd * move, 8)
        regime = None if (h >> 24) % 10 == 0 else REGIMES[(h >> 24) % len(REGIMES)]
        yield (
            uuid.uuid4(), owner_id, deployment_id, skill_id, 1, symbol, side, "closed",
            entry_at, entry_price, size_usd, 2.0 if (h >> 28) % 4 == 0 else None,
            ENTRY_REASONS[(h >> 5) % len(ENTRY_REASONS)], regime,
            round(size_usd / entry_price, 8), entry_price, 0.0, exit_price, exit_at, exit_price,
            False, EXIT_REASONS[(h >> 9) % len(EXIT_REASONS)], float(holding), pnl, round(size_usd * 0.0008, 8),
            round(max(pnl, 0) + size_usd * 0.003, 8), round(min(pnl, 0) - size_usd * 0.002, 8),
            exit_at, exit_at,
        )  # fmt: skip


def _fact_rows(user_id: int, count: int):
    """`count` facts, fact i created i * 365 days / count before NOW. With more than 10, 40% are
    archived, and active ones are numbered so no two texts are the same."""
    step = dt.timedelta(days=365) / count
    for i in range(count):
        h = _mix(i, salt=7)
        topic, template = FACT_TEMPLATES[h % len(FACT_TEMPLATES)]
        text = template.format(n=2 + (h >> 5) % 20, sym=SYMBOLS[(h >> 9) % len(SYMBOLS)])
        created = NOW - i * step - dt.timedelta(minutes=5)
        # Facts injected together share a timestamp: 2,000 distinct ones (3 h apart), a quarter never referenced.
        referenced = None if (h >> 13) % 4 == 0 else max(created, NOW - dt.timedelta(hours=3 * ((h >> 16) % 2000)))
        archived = count > 10 and (h >> 20) % 10 < 4
        archived_at = created + dt.timedelta(days=1 + (h >> 24) % 30) if archived else None
        reason = ("user_deleted", "user_corrected", "agent_forget")[(h >> 26) % 3] if archived else None
        yield (
            uuid.uuid4(), user_id, f"{text} (#{i})" if count > 10 else text, ("chat", "profile", "inferred")[h % 3],
            "inferred" if (h >> 3) % 3 == 0 else "asserted", topic, referenced, created, archived_at or created,
            archived_at, reason,
        )  # fmt: skip


def seed(sizes: dict[str, tuple[int, int]]) -> tuple[dict[str, dict], float]:
    """sizes: {label: (closed trades, facts)}; returns {label: {user, token, skill_id, deployment_id}}."""
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from ledger.domain import hash_lessons_text
    from ledger.models import Deployment, DeploymentMode, Skill, SkillVersion, TradeHistory, TradeStatus
    from reflection.models import ReflectionNote

    started = time.perf_counter()
    traders = {}
    with transaction.atomic():
        for label, (n_trades, n_facts) in sizes.items():
            username = f"bench-{label.lower()}"
            token = token_for(username)
            user = get_user_model().objects.get(username=username)
            skill = Skill.objects.create(owner=user, name="BTC/ETH breakout")
            version = SkillVersion.objects.create(
                owner=user,
                skill=skill,
                version=1,
                strategy_text="Buy breakouts above the prior swing high; cut losers fast.",
                recent_trades_k=30,
                reflection_cadence="per_n_trades",
                reflection_every_n_trades=50,
            )
            deployment = Deployment.objects.create(
                owner=user,
                skill_version=version,
                mode=DeploymentMode.PAPER,
                day_start_on=NOW.date(),
                day_start_equity_usd=10_000,
                latest_tick_at=NOW,
                materialized_through=NOW,
                active_lessons_hash=hash_lessons_text(LESSONS),
            )
            span = dt.timedelta(days=365) if n_trades > 365 else dt.timedelta(days=n_trades)
            copy_rows("trade_history", TRADE_COLUMNS, _trade_rows(user.pk, deployment.pk, skill.pk, n_trades, span))
            TradeHistory.objects.create(  # one open position: the tool must leave it out
                owner=user, deployment=deployment, skill=skill, skill_version=1, symbol="BTC", side="long",
                status=TradeStatus.OPEN, entry_tick_at=NOW - dt.timedelta(minutes=10), entry_price=65200,
                entry_size_usd=260.8, entry_reason=ENTRY_REASONS[0], entry_regime_tag=REGIMES[0], size_base=0.004,
                avg_entry_price=65200, last_mark_price=65230, mfe_usd=0.4, mae_usd=-0.2,
            )  # fmt: skip
            ReflectionNote.objects.create(
                owner=user, skill=skill, skill_version=1, deployment=deployment, generated_at=NOW,
                window_start=NOW - dt.timedelta(days=3), window_end=NOW, trades_considered=min(50, n_trades),
                lessons_text=LESSONS, model_used="claude-sonnet-5", content_hash=hash_lessons_text(LESSONS),
            )  # fmt: skip
            copy_rows("user_facts", FACT_COLUMNS, _fact_rows(user.pk, n_facts))
            traders[label] = {"user": user, "token": token, "skill_id": skill.pk, "deployment_id": deployment.pk}
        with connection.cursor() as cursor:
            cursor.execute(DAILY_PNL_FROM_TRADES)
    with connection.cursor() as cursor:  # what autovacuum would have done to tables this size
        for table in ("trade_history", "trade_daily_pnl", "user_facts", "reflection_notes", "skills", "deployments"):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return traders, time.perf_counter() - started


def seed_check(traders: dict[str, dict]) -> list[str]:
    """Per trader: the trades, the rollup (must equal them) and the facts."""
    from django.db import connection

    lines = []
    with connection.cursor() as cursor:
        for label, t in traders.items():
            cursor.execute(
                "SELECT COUNT(*), SUM(realized_pnl_usd), COUNT(*) FILTER (WHERE realized_pnl_usd > 0),"
                " COUNT(*) FILTER (WHERE realized_pnl_usd < 0), MIN(exit_tick_at)::date, MAX(exit_tick_at)::date,"
                " COUNT(DISTINCT symbol), COUNT(DISTINCT side), COUNT(DISTINCT entry_regime_tag)"
                " FROM trade_history WHERE status = 'closed' AND skill_id = %s",
                [t["skill_id"]],
            )
            n, pnl, wins, losses, first, last, symbols, sides, regimes = cursor.fetchone()
            cursor.execute(
                "SELECT COUNT(*), SUM(n_closed), SUM(realized_pnl_usd), SUM(n_wins) FROM trade_daily_pnl"
                " WHERE skill_id = %s",
                [t["skill_id"]],
            )
            days, r_n, r_pnl, r_wins = cursor.fetchone()
            cursor.execute(
                "SELECT COUNT(*) FILTER (WHERE archived_at IS NULL), COUNT(*) FILTER (WHERE archived_at IS NOT NULL),"
                " COUNT(*) FILTER (WHERE archived_at IS NULL AND last_referenced_at IS NULL)"
                " FROM user_facts WHERE user_id = %s",
                [t["user"].pk],
            )
            active, archived, never = cursor.fetchone()
            same = (n, pnl, wins) == (r_n, r_pnl, r_wins)
            lines.append(
                f"  {label:<5} {n:,} closed trades {first}..{last} ({symbols} symbols, {sides} sides,"
                f" {regimes} regimes, {wins:,} wins / {losses:,} losses, PnL {pnl:,.2f}) -> {days} trade_daily_pnl days"
                f" (rollup = trades: {'yes' if same else 'NO'}); facts: {active:,} active ({never:,} never"
                f" referenced) + {archived:,} archived"
            )
    return lines


# -- measuring --------------------------------------------------------------------------------------


def table_of(sql: str) -> str:
    match = re.search(r'\bFROM "?(\w+)"?', sql)
    return match.group(1) if match else sql.split()[0]


_SCAN = re.compile(
    r"((?:Parallel )?(?:Index Only Scan|Index Scan|Bitmap Index Scan|Seq Scan)(?: Backward)?(?: using \w+)? on \w+)"
    r".*?\(actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)"
)


def plan_summary(plan: list[str]) -> str:
    """The scans (index, rows), sorts and execution time of an EXPLAIN ANALYZE."""
    parts = []
    for line in plan:
        text = " ".join(line.split())
        if m := _SCAN.search(line):
            parts.append(f"{m.group(1)} rows={m.group(2)}" + (f" x{m.group(3)} loops" if m.group(3) != "1" else ""))
        elif text.startswith("Sort Method:"):
            parts.append(text.replace("Sort Method: ", "sort: "))
        elif text.startswith("Workers Launched:"):
            parts.append(text.lower())
        elif text.startswith("Execution Time:"):
            parts.append(text.replace("Execution Time: ", "executed in "))
    return "; ".join(parts)


def p50_p99(values: list[float]) -> tuple[float, float]:
    return percentile(values, 50), percentile(values, 99)


# -- the run -------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=400, help="timed rounds per in-process case")
    parser.add_argument("--warmup", type=int, default=40)
    parser.add_argument("--http-rounds", type=int, default=300, help="timed rounds over HTTP (0: no gunicorn)")
    parser.add_argument("--trades", type=int, default=100_000, help="closed trades of LARGE")
    parser.add_argument("--facts", type=int, default=10_000, help="facts of LARGE")
    parser.add_argument("--explain", action="store_true", help="full EXPLAIN ANALYZE of every LARGE statement")
    args = parse_args(parser, argv, SMOKE)
    big_t = f"{args.trades // 1000}k" if args.trades % 1000 == 0 else f"{args.trades:,}"
    big_f = f"{args.facts // 1000}k" if args.facts % 1000 == 0 else f"{args.facts:,}"

    with BenchRun("chat_tools") as run:
        sizes = {"SMALL": (10, 10), "C30": (30, 10), "LARGE": (args.trades, args.facts)}
        traders, seed_s = seed(sizes)
        print(f"seeded in {seed_s:.1f}s (database {run.database}, COPY + INSERT ... SELECT rollup + VACUUM ANALYZE):")
        for line in seed_check(traders):
            print(line)

        from chatmemory.chat import chat_system
        from chatmemory.tools import call_tool

        def performance(label: str):
            t = traders[label]
            return lambda: call_tool(t["user"], "get_skill_performance", {"skill_id": t["skill_id"], "detail": "full"})

        def facts_block(label: str):
            user = traders[label]["user"]
            return lambda: chat_system(user=user, mode="coach")

        cases = {  # key: (title, {label: call})
            "(a)": ("get_skill_performance(detail=full)", {label: performance(label) for label in traders}),
            "(b)": ("facts block: chat_system()", {k: facts_block(k) for k in ("SMALL", "LARGE")}),
        }

        print("\noutputs, and the SQL statements of one call (CaptureQueriesContext):")
        statements: dict[tuple[str, str], list[str]] = {}
        problems = []
        for key, (_, calls) in cases.items():
            for label, call in calls.items():
                statements[key, label] = sql = captured(call)
                result = call()
                if key == "(a)":
                    s = result["summary"]
                    detail = (
                        f"trades={len(result['trades'])} lessons={len(result['lessons'])}"
                        f" closed_trades={s['closed_trades']:,} days {s['first_day']}..{s['last_day']}"
                        f" pnl={s['realized_pnl_usd']:,} win_rate={s['win_rate']} sharpe={s['sharpe']}"
                        f" max_dd={s['max_drawdown_usd']:,}"
                    )
                    expected = (min(30, sizes[label][0]), sizes[label][0], 1)
                    if (len(result["trades"]), s["closed_trades"], len(result["lessons"])) != expected:
                        problems.append(f"{key} {label}: (trades, closed_trades, lessons) != {expected}")
                else:
                    shown = [line for line in (result.segments.facts or "").splitlines() if line.startswith("- ")]
                    detail = f"facts in block={len(shown)} prompt={len(result.segments.text):,} chars"
                    if len(shown) != 10 or len(result.fact_ids) != 10:
                        problems.append(f"{key} {label}: {len(shown)} facts in the block, not 10")
                print(f"  {key} {label:<5} {len(sql)} SQL ({', '.join(table_of(q) for q in sql)}); {detail}")

        results, wall = measure_cases(cases, args.rounds, args.warmup)

        http = None
        if args.http_rounds:
            web = run.start_gunicorn(workers=1, threads=4)
            clients = {label: Client(web.port, t["token"]) for label, t in traders.items()}
            path = "/api/v1/chat/tools/get_skill_performance/"

            def post(label: str):
                body = {"skill_id": traders[label]["skill_id"], "detail": "full"}
                return lambda: clients[label].request("POST", path, body)

            posts = {label: post(label) for label in traders}
            for label, call in posts.items():
                body = json.loads(call()[1])
                print(
                    f"  (c) {label:<5} POST {path}: {len(body['trades'])} trades,"
                    f" closed_trades={body['summary']['closed_trades']:,}"
                )
                if len(body["trades"]) != min(30, sizes[label][0]):
                    problems.append(f"(c) {label}: {len(body['trades'])} trades")
            http_started = time.perf_counter()
            samples = http_rounds(  # the client's own timer: send to the body's last byte
                {label: (lambda call=call: call()[0]) for label, call in posts.items()}, args.http_rounds, args.warmup
            )
            http = (samples, time.perf_counter() - http_started, sum(c.reconnects for c in clients.values()))
            for client in clients.values():
                client.close()
        for problem in problems:
            print(f"  !! {problem}")

        print(
            f"\n{args.rounds} rounds per in-process case ({', '.join(traders)} in (a), SMALL and LARGE in (b);"
            f" order rotated every round) after {args.warmup} warm-up rounds, {wall:.1f}s"
            + (
                f"\n{args.http_rounds} rounds over HTTP (gunicorn 1 worker x 4 threads, one keep-alive connection"
                f" per trader), {http[1]:.1f}s, reconnects={http[2]}"
                if http
                else ""
            )
        )
        timings = {key: results[key][0] for key in cases}
        titles = {key: title for key, (title, _) in cases.items()}
        if http:
            timings["(c)"] = http[0]
            titles["(c)"] = "POST /api/v1/chat/tools/get_skill_performance/"
        rows = []
        for key, samples in timings.items():
            for label, values in samples.items():
                n_sql = len(statements["(a)" if key == "(c)" else key, label])
                rows.append(
                    [f"{key} {titles[key]}", label, *timing_cells(values, (50, 99)),
                     f"{n_sql}+1 auth" if key == "(c)" else n_sql]
                )  # fmt: skip
        print_table(["case", "trader", "p50 ms", "p99 ms", "mean ms", "SQL"], rows)
        print()
        names = {
            "(a)": f"(a) perf {big_t} trades / 10",
            "(b)": f"(b) facts block {big_f} facts / 10",
            "(c)": f"(c) HTTP perf {big_t} trades / 10",
        }
        for key, samples in timings.items():
            (s50, s99), (l50, l99) = p50_p99(samples["SMALL"]), p50_p99(samples["LARGE"])
            print(ratio_line(f"{names[key]} p50", l50 / s50, GOAL))
            print(ratio_line(f"{names[key]} p99", l99 / s99, GOAL))
        for key in ("(a)", "(c)"):
            if key in timings:
                c50, l50 = percentile(timings[key]["C30"], 50), percentile(timings[key]["LARGE"], 50)
                print(f"{f'{key} {big_t} / 30 trades p50, same 30 rows (no goal)':<52} {l50 / c50:7.2f}")

        print("\nwhere the time goes: each statement's p50 (execute wrapper, same timed calls), the rest is Python")
        breakdown, full_plans = [], set()
        for key in cases:
            by_statement, rest, heavy = statement_split(*results[key], len(statements[key, "LARGE"]), GOAL)
            full_plans |= {(key, index) for index in heavy}
            for index, sql in enumerate(statements[key, "LARGE"]):
                p = {label: percentile(values, 50) for label, values in by_statement[index].items()}
                breakdown.append(
                    [f"{key} #{index + 1} {table_of(sql)}", ms(p["SMALL"]), ms(p["C30"]) if "C30" in p else "-",
                     ms(p["LARGE"]), f"{p['LARGE'] / p['SMALL']:.2f}"]
                )  # fmt: skip
            breakdown.append(
                [f"{key} rest (Python)", ms(rest["SMALL"]), ms(rest["C30"]) if "C30" in rest else "-",
                 ms(rest["LARGE"]), f"{rest['LARGE'] / rest['SMALL']:.2f}"]
            )  # fmt: skip
        print_table(["statement", "SMALL p50", "C30 p50", "LARGE p50", "L/S"], breakdown)

        print("\nplans (EXPLAIN ANALYZE of the captured statements; full plan where LARGE is over the goal):")
        for key, (_, calls) in cases.items():
            for index, sql in enumerate(statements[key, "LARGE"]):
                for label in calls:
                    print(f"  {key} #{index + 1} {label:<5} {plan_summary(explain(statements[key, label][index]))}")
                if args.explain or (key, index) in full_plans:
                    print_full_plan(f"{key} #{index + 1} LARGE", sql)
    return 0


if __name__ == "__main__":
    run_script(main)

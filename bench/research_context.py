"""Do the research agent's history block and the duplicate check cost the same with 100,000 experiments as with 100?

    .venv/bin/python bench/research_context.py [--rounds 500] [--warmup 50] [--http-rounds 300]
                                               [--large 100000] [--explain] [--no-what-if]

Two traders in the shared experiments and hypotheses tables (as in production):

  SMALL  100 experiments;
  LARGE  100,000 experiments (one every 10.5 minutes over two years).

Experiment j (0 = newest) is a function of j alone and is j x 10.5 minutes before NOW in both, so
the newest 100 are the same in SMALL and LARGE and their `## Experiment History` blocks must be
byte-identical. Each has a realistic raw context (1-4 indicators from a pool of 15 with their
parameters, composition given or derived, timeframe, symbol (sometimes lower-case), zigzag
threshold, NN architecture, epochs, data range, now and then an extra key; ~1% deliberate repeats
of a context recorded up to 50 experiments earlier, with a repeat_reason), stored as
`clean_context(raw)` with `context_fingerprint(clean_context(raw))`; results (test/val accuracy,
gap, Sharpe for 85%, trades, win rate), a verdict that follows from them (3% none), 1-3
observations and 0-2 limitations. 30% of experiments generate 1-3 hypotheses (H_001, H_002, ...
per trader in creation order): open (untested/testing) for 60% of those of the newest 50
experiments and 10% of the older ones, so LARGE has thousands of open hypotheses behind the
`## Open Hypotheses` block. Rows go in with COPY (both traders interleaved in timestamp order),
then VACUUM ANALYZE.

Measured, in process (Django set up by the harness, production settings), after `--warmup` rounds,
`--rounds` rounds calling SMALL and LARGE once per case, the order swapped every round:

  (a) selectors.research_context(user, n=15): the history and open-hypotheses blocks;
  (b) services.duplicates_of(owner, context) with the raw context of an experiment both traders
      recorded exactly once (hit: 1 match each) and with one neither recorded (miss);
  (c) over gunicorn (1 worker x 4 threads, one keep-alive connection per trader, `--http-rounds`
      rounds, the 6 requests rotated every round): GET /api/v1/research/context/?n=15 and
      POST /api/v1/research/experiments/check/ {"context": ...} (hit and miss).

Prints p50/p95/p99 per case and trader, SQL per call, the LARGE/SMALL ratios (goal <= 1.3), each
statement's p50 (execute wrapper, same timed calls) and the Python rest, and EXPLAIN ANALYZE of every
statement at both sizes (checked: no Seq Scan on experiments or hypotheses; rows each scan read);
the full plan where a LARGE statement is over the goal (every one with --explain). The outputs are
checked against the rendering contract of research/rendering.py (history byte-identical; the open
hypotheses shown are the newest by natural id; the "(k more ...)" line).

What-if (unless --no-what-if, when a ratio misses), inside one transaction that is rolled back (the
app code and the schema are untouched): a partial index derived from the open-hypotheses statement as
sent (owner_id, its ORDER BY terms; WHERE its status list), and timed as is and with it, interleaved:
research_context() itself, research_context() + the COUNT(*) the "(k more ...)" line would need, the
statement alone, the count alone, and the query change (prefetch_related of the source experiments
instead of the LEFT JOIN), with their plans.

A default run takes ~2 minutes on 2 cores (seed ~20 s, of which ~9 s are the 100,100 fingerprints).
"""

from __future__ import annotations

import argparse
import datetime as dt
import heapq
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    BenchError,
    BenchRun,
    Client,
    captured,
    checkpoint,
    copy_rows,
    endpoint_sql,
    explain,
    http_rounds,
    interleave,
    measure_cases,
    ms,
    parse_args,
    pcts,
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
SMOKE = {"rounds": 10, "warmup": 2, "http_rounds": 5, "large": 500}

GOAL = 1.3
N = 15  # the history size the endpoint defaults to
NOW = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)  # the newest experiment
STEP = dt.timedelta(seconds=630)  # experiment j is j steps before NOW: 100,000 over ~2 years
SMALL_COUNT = 100
NEWEST_OPEN = 50  # hypotheses of the newest 50 experiments are open more often
CONTEXT_PATH = f"/api/v1/research/context/?n={N}"
CHECK_PATH = "/api/v1/research/experiments/check/"

INDICATOR_PARAMS = {
    "RSI": lambda h: {"period": (7, 9, 14, 21)[h % 4]},
    "DI": lambda h: {"period": (10, 14, 20)[h % 3]},
    "ADX": lambda h: {"period": (10, 14, 20)[h % 3], "threshold": (20, 25)[(h >> 2) % 2]},
    "MACD": lambda h: {"fast": (8, 12)[h % 2], "slow": (21, 26)[(h >> 1) % 2], "signal": 9},
    "EMA": lambda h: {"period": (9, 20, 50, 200)[h % 4]},
    "SMA": lambda h: {"period": (10, 20, 50, 100)[h % 4]},
    "BB": lambda h: {"period": 20, "std": (2.0, 2.5, 1.5)[h % 3]},
    "ATR": lambda h: {"period": (7, 14)[h % 2]},
    "OBV": lambda h: {},  # no parameters: cleaned away
    "STOCH": lambda h: {"k": (5, 14)[h % 2], "d": 3, "smooth": (1, 3)[(h >> 1) % 2]},
    "CCI": lambda h: {"period": (14, 20)[h % 2]},
    "MFI": lambda h: {"period": 14},
    "VWAP": lambda h: {"anchor": ("session", "week")[h % 2]},
    "Ichimoku": lambda h: {"tenkan": 9, "kijun": (26, 30)[h % 2], "senkou": 52},
    "WILLR": lambda h: {"period": (10, 14)[h % 2]},
}
INDICATORS = tuple(INDICATOR_PARAMS)
COMPOSITION_OF = {1: "solo", 2: "pair", 3: "trio"}
TIMEFRAMES = ("1m", "5m", "15m", "1h", "4h", "1d")
SYMBOLS = ("EURUSD", "GBPUSD", "USDJPY", "AUDUSD", "XAUUSD", "BTCUSD", "ETHUSD", "SPX500")
ZIGZAG = (0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.035)
ARCHITECTURES = ([32, 16], [64, 32], [64, 32, 16], [128, 64], [16], [128, 64, 32])
EPOCHS = (50, 100, 150, 200)
DATA_RANGES = ("2015-2023", "2018-2024", "2020-2025", "2012-2022")
OBSERVATIONS = (
    "Combining {a} with {b} improved test accuracy by {x}pp vs {a} solo",
    "Val-test gap of {g}pp suggests {fit} generalization",
    "This is the best result on {tf} {sym} so far",
    "{a} alone stays near chance on {tf}; the signal comes from {b}",
    "Win rate {w}% with {t} trades: enough samples to trust the accuracy",
    "Accuracy drops {x}pp when the zigzag threshold is halved",
    "Sharpe is positive but most of the PnL comes from two weeks in {year}",
    "The deeper network overfits after epoch {e}; early stopping would help",
    "Same plateau at {acc}% as the previous {n} experiments on {sym}",
    "Longer {a} periods smooth the labels but lag the turns by {n} bars",
)
LIMITATIONS = (
    "Only tested on {sym}",
    "Only tested on the {tf} timeframe",
    "No transaction costs in the backtest",
    "Data range excludes the {year} volatility regime",
    "Single random seed: the accuracy may move by a point between runs",
)
HYPOTHESES = (
    ("Multi-timeframe ({tf} with {tf2} context) might break the {acc}% plateau", "Single timeframe seems a ceiling"),
    ("{b} might work as a trend filter when combined with {a}", "{b} solo measures trend strength, not direction"),
    ("Adding a third complementary indicator might help", ""),
    ("This approach might work on other forex pairs than {sym}", ""),
    ("Smaller zigzag thresholds generalize better on {tf}", "Fewer labels, less noise"),
    ("Zigzag threshold should scale with timeframe", ""),
    ("{a} with a {n}-period lookback might reduce the val-test gap", "The gap grew with shorter periods"),
    ("Volatility regime filtering with ATR might lift {sym} accuracy", ""),
    ("A wider first layer ({n} units) might capture {a} and {b} interactions", ""),
    ("Training on {sym} and {sym2} together might generalize better", "More data, same dynamics"),
    ("Session filters (London/NY overlap) might help {sym} on {tf}", ""),
    ("Dropping {b} might not hurt: its contribution looks marginal", ""),
)
CLOSED = ("validated", "refuted", "inconclusive")
EXPERIMENT_COLUMNS = (
    "id", "owner_id", "experiment_id", "timestamp", "strategy_name", "source", "context", "results", "verdict",
    "observations", "limitations", "context_fingerprint", "indicators", "timeframe", "symbol", "repeat_reason",
    "created_at",
)  # fmt: skip
HYPOTHESIS_COLUMNS = (
    "id", "owner_id", "hypothesis_id", "text", "source_experiment_id", "rationale", "status", "created",
)  # fmt: skip
OPEN_INDEX = "bench_whatif_hypothesis_open"  # the what-if's, created and rolled back in one transaction


def _mix(i: int, salt: int = 0) -> int:
    """A cheap deterministic hash of i: fields picked from its bits do not move in lockstep."""
    x = (i * 2654435761 + salt * 40503 + 12345) & 0xFFFFFFFF
    x ^= x >> 15
    return (x * 2246822519) & 0xFFFFFFFF


# -- experiment j --------------------------------------------------------------------------------------


def raw_context(j: int) -> dict:
    """The context the research agent sends for experiment j (as given: not yet cleaned)."""
    h, g = _mix(j, 1), _mix(j, 2)
    count = (1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5)[h % 12]
    pool = list(INDICATORS)
    names = [pool.pop(_mix(j, 20 + k) % len(pool)) for k in range(count)]
    params = {name: INDICATOR_PARAMS[name](_mix(j, 10 + k)) for k, name in enumerate(names)}
    symbol = SYMBOLS[(h >> 4) % len(SYMBOLS)]
    context = {
        "indicators": names,
        "indicator_params": params,
        "timeframe": TIMEFRAMES[(h >> 8) % len(TIMEFRAMES)],
        "symbol": symbol.lower() if (h >> 11) % 5 == 0 else symbol,  # cleaned to upper case
        "zigzag_threshold": ZIGZAG[(h >> 13) % len(ZIGZAG)],
        "nn_architecture": ARCHITECTURES[(h >> 16) % len(ARCHITECTURES)],
        "training_epochs": EPOCHS[(h >> 19) % len(EPOCHS)],
        "data_range": DATA_RANGES[(h >> 21) % len(DATA_RANGES)],
    }
    if (h >> 23) % 3:  # given (must agree with the indicators) or derived by clean_context
        context["composition"] = COMPOSITION_OF.get(count, "ensemble")
    if (g >> 26) % 8 == 0:  # an extra key the agent adds now and then
        context["label_horizon_bars"] = 4 + (g >> 29) % 4
    return context


def context_of(j: int) -> tuple[dict, int | None]:
    """Experiment j's raw context, and the older experiment whose context it deliberately repeats (~1%)."""
    h = _mix(j, 5)
    if h % 100 == 0:
        older = j + 1 + (h >> 8) % 50
        return raw_context(older), older
    return raw_context(j), None


def experiment_id(j: int) -> str:
    return f"exp_{NOW - j * STEP:%Y%m%d_%H%M%S}"


def _words(j: int, context: dict, results: dict) -> dict:
    """Values for the text templates."""
    h = _mix(j, 3)
    names = context["indicators"]
    return {
        "a": names[0],
        "b": names[1] if len(names) > 1 else INDICATORS[(h >> 3) % len(INDICATORS)],
        "tf": context["timeframe"],
        "tf2": TIMEFRAMES[(h >> 6) % len(TIMEFRAMES)],
        "sym": context["symbol"].upper(),
        "sym2": SYMBOLS[(h >> 9) % len(SYMBOLS)],
        "x": f"{0.1 + (h >> 12) % 30 / 10:.1f}",
        "g": f"{results['val_test_gap'] * 100:.1f}",
        "fit": "good" if results["val_test_gap"] < 0.03 else "poor",
        "w": f"{results['win_rate'] * 100:.0f}",
        "t": results["total_trades"],
        "year": 2018 + (h >> 16) % 7,
        "e": 20 + (h >> 19) % 80,
        "acc": f"{results['test_accuracy'] * 100:.1f}",
        "n": 3 + (h >> 22) % 60,
    }


def results_of(j: int) -> dict:
    h = _mix(j, 4)
    test = 0.45 + h % 2500 / 10_000
    gap = (h >> 12) % 120 / 1000
    results = {
        "test_accuracy": round(test, 4),
        "val_accuracy": round(test + gap if (h >> 20) % 4 else max(test - gap, 0.4), 4),
        "val_test_gap": gap,
        "total_trades": 120 + (h >> 22) % 1900,
        "win_rate": round(0.4 + (h >> 8) % 200 / 1000, 3),
    }
    if (h >> 28) % 7:  # 85%: a Sharpe ratio
        results["sharpe_ratio"] = round(((h >> 14) % 200 - 50) / 100, 2)
    return results


def verdict_of(j: int, results: dict) -> str | None:
    if _mix(j, 6) % 100 < 3:
        return None
    if results["val_test_gap"] > 0.08:
        return "overfit"
    if results["test_accuracy"] >= 0.62:
        return "strong_signal"
    return "weak_signal" if results["test_accuracy"] >= 0.56 else "no_signal"


def assessment_of(j: int, context: dict, results: dict) -> tuple[list[str], list[str]]:
    """1-3 observations, 0-2 limitations."""
    h = _mix(j, 7)
    words = _words(j, context, results)
    observations = [OBSERVATIONS[(h >> (4 * k)) % len(OBSERVATIONS)].format(**words) for k in range(1 + h % 3)]
    limitations = [LIMITATIONS[(h >> (20 + 3 * k)) % len(LIMITATIONS)].format(**words) for k in range((h >> 2) % 3)]
    return list(dict.fromkeys(observations)), list(dict.fromkeys(limitations))


def hypotheses_of(j: int, context: dict, results: dict) -> list[tuple[str, str, str]]:
    """(text, rationale, status) of the hypotheses experiment j generated: 30% generate 1-3."""
    h = _mix(j, 8)
    if h % 10 >= 3:
        return []
    words = _words(j, context, results)
    out = {}
    for k in range((1, 1, 1, 1, 1, 1, 2, 2, 2, 3)[(h >> 4) % 10]):
        text, rationale = HYPOTHESES[(h >> (8 + 4 * k)) % len(HYPOTHESES)]
        s = _mix(j * 4 + k, 9)
        open_ = s % 100 < (60 if j < NEWEST_OPEN else 10)
        status = ("untested", "untested", "testing")[(s >> 8) % 3] if open_ else CLOSED[(s >> 8) % 3]
        out.setdefault(text.format(**words), (rationale.format(**words), status))
    return [(text, rationale, status) for text, (rationale, status) in out.items()]


# -- seeding -------------------------------------------------------------------------------------------


class Seeder:
    """Both traders' rows, oldest first and interleaved (the order they would have been recorded in),
    with explicit ids; times what the fingerprints cost."""

    def __init__(self, owners: dict[str, tuple[int, int]]):
        self.owners = owners  # label -> (owner_id, experiment count)
        self.hypotheses: list[tuple] = []
        self.next_hypothesis = dict.fromkeys(owners, 1)
        self.next_id = 1
        self.next_hypothesis_pk = 1
        self.fingerprint_s = 0.0
        self.rows = 0

    def _rows_of(self, label: str) -> Iterator[tuple]:
        from research.experiment_context import experiment_columns

        owner_id, count = self.owners[label]
        for j in range(count - 1, -1, -1):
            raw, older = context_of(j)
            reason = ""  # none when the experiment it repeats is older than this trader's history
            if older is not None and older < count:
                reason = f"re-run of the context of {experiment_id(older)} on a new train/test split"
            started = time.perf_counter()
            columns = experiment_columns(raw)  # what the service stores: cleaned context, fingerprint, filters
            context = columns["context"]
            self.fingerprint_s += time.perf_counter() - started
            results = results_of(j)
            observations, limitations = assessment_of(j, context, results)
            timestamp = NOW - j * STEP
            yield (
                j, label,
                [owner_id, experiment_id(j), timestamp,
                 f"{'_'.join(name.lower() for name in context['indicators'])}_{context['timeframe']}"
                 f"_v{1 + _mix(j, 11) % 30}",
                 "research_agent" if _mix(j, 12) % 10 else "manual", json.dumps(context), json.dumps(results),
                 verdict_of(j, results), json.dumps(observations), json.dumps(limitations),
                 columns["context_fingerprint"], columns["indicators"], columns["timeframe"], columns["symbol"], reason,
                 timestamp + dt.timedelta(minutes=2 + j % 7)],
                hypotheses_of(j, context, results),
            )  # fmt: skip

    def experiments(self) -> Iterator[tuple]:
        streams = [self._rows_of(label) for label in self.owners]
        for _j, label, row, hypotheses in heapq.merge(*streams, key=lambda item: -item[0]):
            pk = self.next_id
            self.next_id += 1
            self.rows += 1
            for text, rationale, status in hypotheses:
                number = self.next_hypothesis[label]
                self.next_hypothesis[label] += 1
                self.hypotheses.append(
                    (self.next_hypothesis_pk, row[0], f"H_{number:03d}", text, pk, rationale, status, row[2].date())
                )
                self.next_hypothesis_pk += 1
            yield (pk, *row)


def seed(sizes: dict[str, int]) -> tuple[dict[str, dict], dict[str, float]]:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    started = time.perf_counter()
    traders = {}
    for label in sizes:
        username = f"bench-{label.lower()}"
        token = token_for(username)
        traders[label] = {"user": get_user_model().objects.get(username=username), "token": token}
    seeder = Seeder({label: (traders[label]["user"].pk, count) for label, count in sizes.items()})
    with transaction.atomic():
        copy_started = time.perf_counter()
        copy_rows("experiments", EXPERIMENT_COLUMNS, seeder.experiments())
        copy_rows("hypotheses", HYPOTHESIS_COLUMNS, seeder.hypotheses)
        copy_s = time.perf_counter() - copy_started - seeder.fingerprint_s
        with connection.cursor() as cursor:
            cursor.execute("SELECT setval(pg_get_serial_sequence('experiments', 'id'), MAX(id)) FROM experiments")
            cursor.execute("SELECT setval(pg_get_serial_sequence('hypotheses', 'id'), MAX(id)) FROM hypotheses")
    vacuum_started = time.perf_counter()
    with connection.cursor() as cursor:  # what autovacuum would have done to tables this size
        for table in ("experiments", "hypotheses"):
            cursor.execute(f"VACUUM ANALYZE {table}")
        checkpoint(cursor)  # the seed's dirty pages flushed now, not during the timed rounds
    vacuum_s = time.perf_counter() - vacuum_started
    timing = {
        "total": time.perf_counter() - started,
        "fingerprint": seeder.fingerprint_s,
        "rows": seeder.rows,
        "copy": copy_s,
        "vacuum": vacuum_s,
    }
    return traders, timing


def seed_check(traders: dict[str, dict]) -> list[str]:
    from django.db import connection

    lines = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_size_pretty(pg_total_relation_size('experiments')),"
            " pg_size_pretty(pg_total_relation_size('hypotheses')), (SELECT COUNT(*) FROM hypotheses)"
        )
        exp_size, hyp_size, n_hyp = cursor.fetchone()
        lines.append(f"  experiments {exp_size}, hypotheses {hyp_size} ({n_hyp:,} rows), indexes included")
        for label, t in traders.items():
            cursor.execute(
                "SELECT COUNT(*), MIN(timestamp)::date, MAX(timestamp)::date, COUNT(DISTINCT context_fingerprint),"
                " COUNT(*) FILTER (WHERE repeat_reason <> ''), COUNT(*) FILTER (WHERE verdict IS NULL),"
                " COUNT(DISTINCT timeframe), COUNT(DISTINCT symbol), AVG(pg_column_size(context))::int,"
                " AVG(pg_column_size(results) + pg_column_size(observations))::int"
                " FROM experiments WHERE owner_id = %s",
                [t["user"].pk],
            )
            n, first, last, distinct, repeats, no_verdict, tfs, syms, ctx_bytes, other_bytes = cursor.fetchone()
            cursor.execute(
                "SELECT COUNT(*), COUNT(DISTINCT source_experiment_id), COUNT(*) FILTER (WHERE status = 'untested'),"
                " COUNT(*) FILTER (WHERE status = 'testing'), (ARRAY_AGG(hypothesis_id ORDER BY id DESC))[1]"
                " FROM hypotheses WHERE owner_id = %s",
                [t["user"].pk],
            )
            hyps, sources, untested, testing, newest = cursor.fetchone()
            lines.append(
                f"  {label:<5} {n:,} experiments {first}..{last}, {distinct:,} distinct fingerprints"
                f" ({repeats:,} repeats), {no_verdict:,} without verdict, {tfs} timeframes, {syms} symbols,"
                f" context ~{ctx_bytes} B, results+observations ~{other_bytes} B;"
                f" {hyps:,} hypotheses from {sources:,} experiments ({sources / n:.0%}), open: {untested:,} untested"
                f" + {testing:,} testing; ids H_001..{newest}"
            )
    return lines


def probes(traders: dict[str, dict]) -> dict[str, tuple[int, dict]]:
    """The raw contexts of the duplicate check: hit (one experiment of each trader has it) and miss (none)."""
    from django.db import connection

    from research.experiment_context import clean_context, context_fingerprint

    def matches(context: dict) -> list[int]:
        fingerprint = context_fingerprint(clean_context(context))
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT COUNT(*) FROM experiments WHERE owner_id = ANY(%s) AND context_fingerprint = %s"
                " GROUP BY owner_id ORDER BY owner_id",
                [[t["user"].pk for t in traders.values()], fingerprint],
            )
            return [count for (count,) in cursor.fetchall()]

    hit = next((j for j in range(20, SMALL_COUNT) if matches(raw_context(j)) == [1] * len(traders)), None)
    miss = next((j for j in range(10**7, 10**7 + 100) if not matches(raw_context(j))), None)
    if hit is None or miss is None:
        raise BenchError("no experiment context recorded exactly once by both traders, or no unseen one")
    return {"hit": (hit, raw_context(hit)), "miss": (miss, raw_context(miss))}


# -- measuring -----------------------------------------------------------------------------------------


def sql_name(sql: str) -> str:
    text = " ".join(sql.split())
    if text.upper() in ("BEGIN", "COMMIT", "ROLLBACK"):
        return text.upper()
    table = (m.group(1) if (m := re.search(r'\bFROM "?(\w+)"?', text)) else text.split()[0]).replace("_token", "")
    if table == "hypotheses" and 'source_experiment_id" IN' in text:
        return "hypotheses generated by the n"
    if table == "hypotheses" and 'status" IN' in text:
        return "open hypotheses (+ source)"
    if table == "experiments" and 'context_fingerprint" =' in text:
        return "experiments by fingerprint"
    if table == "experiments" and "LIMIT" in text:
        return "experiments, newest n"
    return table


_SCAN = re.compile(
    r"((?:Parallel )?(?:Index Only Scan|Index Scan|Bitmap Index Scan|Bitmap Heap Scan|Seq Scan)(?: Backward)?"
    r"(?: using \w+)? on \w+)(?: \w+)?.*?\(actual time=[\d.]+\.\.[\d.]+ rows=(\d+) loops=(\d+)"
)


def plan_summary(plan: list[str]) -> tuple[str, bool, int]:
    """(the scans with their rows, sorts, joins and execution time; no Seq Scan on the two tables; the rows
    the scans of the two tables returned, loops included)."""
    parts, ok, scanned = [], True, 0
    for line in plan:
        text = " ".join(line.split()).lstrip("-> ")
        if m := _SCAN.search(line):
            rows, loops = int(m.group(2)), int(m.group(3))
            parts.append(f"{m.group(1)} rows={rows}" + (f" x{loops} loops" if loops != 1 else ""))
            if re.search(r" on (experiments|hypotheses)\b", m.group(1)):  # a Bitmap Index Scan is on an index
                scanned += rows * loops
                ok &= not m.group(1).startswith(("Seq Scan", "Parallel Seq Scan"))
        elif text.startswith(("Sort Method:", "Rows Removed by Filter:")):
            parts.append(text.replace("Sort Method: ", "sort: ").replace("Rows Removed by Filter: ", "filtered out "))
        elif re.match(r"(Nested Loop|Hash|Merge)( Left| Right)?( Join| Anti Join|$)", text):
            parts.append(text.split("  ")[0].split(" (")[0].lower())
        elif text.startswith("Execution Time:"):
            parts.append(text.replace("Execution Time: ", "executed in "))
    return "; ".join(parts), ok, scanned


# -- the contract, checked on the outputs ------------------------------------------------------------------


def history_block(text: str) -> str:
    return text.split("\n\n## Open Hypotheses")[0]


def open_check(user, text: str) -> tuple[str, list[str]]:
    """The open-hypotheses block against the contract: the newest (natural id order) 20, then "(k more ...)"."""
    from research.ids import natural_key
    from research.models import Hypothesis
    from research.rendering import MAX_OPEN_HYPOTHESES_SHOWN

    ids = list(Hypothesis.objects.filter(owner=user, status__in=("untested", "testing")).values_list("hypothesis_id"))
    expected = sorted((i for (i,) in ids), key=natural_key, reverse=True)[:MAX_OPEN_HYPOTHESES_SHOWN]
    block = text.split("## Open Hypotheses\n\n", 1)[1]
    shown = [line[2:].split(":")[0] for line in block.splitlines() if line.startswith("- ")]
    more = len(ids) - len(shown)
    problems = []
    if shown != expected:
        problems.append(
            f"shows {', '.join(shown[:3])}, ... ({len(shown)}); the newest open by natural id order are"
            f" {', '.join(expected[:3])}, ..."
        )
    if more > 0 and "more open hypotheses not shown" not in block:
        problems.append(f'no "({more} more open hypotheses not shown)" line ({len(ids):,} open)')
    summary = f"{len(shown)} of {len(ids):,} open shown, first {shown[0] if shown else '-'}"
    return summary, problems


# -- what-if ---------------------------------------------------------------------------------------------


def what_if_index(open_sql: str) -> str:
    """A partial index that serves the open-hypotheses statement as sent: the owner, then its ORDER BY terms,
    restricted to its status list (derived from the SQL, so it follows the selector if that changes)."""
    order = re.search(r"ORDER BY (.+?) LIMIT", open_sql)
    statuses = re.search(r'"hypotheses"\."status" IN \(([^)]*)\)', open_sql)
    if not order or not statuses:
        raise BenchError(f"cannot derive an index from the open-hypotheses statement: {open_sql}")
    terms = ", ".join(term.strip().replace('"hypotheses".', "") for term in order.group(1).split(","))
    return f"CREATE INDEX {OPEN_INDEX} ON hypotheses (owner_id, {terms}) WHERE status IN ({statuses.group(1)})"


def open_count_sql(open_sql: str, owner_id: int) -> str:
    """What the "(k more open hypotheses not shown)" line needs and the selector does not read: the count."""
    statuses = re.search(r'"hypotheses"\."status" IN \(([^)]*)\)', open_sql).group(1)
    return f"SELECT COUNT(*) FROM hypotheses WHERE owner_id = {int(owner_id)} AND status IN ({statuses})"  # noqa: S608


def run_sql(sql: str) -> Callable[[], list]:
    from django.db import connection

    def call():
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return cursor.fetchall()

    return call


def orm_order(open_sql: str) -> list[str] | None:
    """The statement's ORDER BY as Django order_by() arguments (plain hypotheses columns only)."""
    fields = []
    for term in re.search(r"ORDER BY (.+?) LIMIT", open_sql).group(1).split(","):
        match = re.fullmatch(r'\s*"hypotheses"\."(\w+)"( DESC| ASC)?\s*', term)
        if not match:
            return None
        fields.append(("-" if match.group(2) == " DESC" else "") + match.group(1))
    return fields


def prefetched_open(user, order: list[str]) -> Callable[[], list]:
    """The query change: the open hypotheses alone (no join), then their source experiments' ids by primary key
    (prefetch_related instead of select_related: 2 statements, the second one over at most 20 ids)."""
    from django.db.models import Prefetch

    from research.assessment import OPEN_STATUSES
    from research.models import Experiment, Hypothesis
    from research.rendering import MAX_OPEN_HYPOTHESES_SHOWN

    def call():
        hypotheses = (
            Hypothesis.objects.owned_by(user)
            .filter(status__in=OPEN_STATUSES)
            .prefetch_related(Prefetch("source_experiment", queryset=Experiment.objects.only("experiment_id")))
            .order_by(*order)[:MAX_OPEN_HYPOTHESES_SHOWN]
        )
        return [
            (h.hypothesis_id, h.text, h.status, h.source_experiment.experiment_id if h.source_experiment else None)
            for h in hypotheses
        ]

    return call


def what_if(traders: dict[str, dict], rounds: int, warmup: int, open_sql: dict[str, str]) -> None:
    """Inside one transaction that is rolled back: research_context() (the app code), the open-hypotheses
    statement as sent, the query change (prefetch instead of the join) and the count the "(k more)" line
    needs, interleaved (SMALL, LARGE), as they are and then with the partial index."""
    from django.db import connection, transaction

    from research.selectors import research_context

    index = what_if_index(open_sql["LARGE"])
    count_sql = {label: open_count_sql(open_sql[label], t["user"].pk) for label, t in traders.items()}
    count_calls = {label: run_sql(sql) for label, sql in count_sql.items()}
    contexts = {label: (lambda u=t["user"]: research_context(user=u, n=N)) for label, t in traders.items()}
    candidates = {
        f"research_context(n={N})": contexts,
        f"research_context(n={N}) + COUNT(*) of the open": {
            label: (lambda c=contexts[label], k=count_calls[label]: (c(), k())) for label in traders
        },
        "  open hypotheses, as sent": {label: run_sql(sql) for label, sql in open_sql.items()},
        "  COUNT(*) of the open (the (k more) line)": count_calls,
    }
    order = orm_order(open_sql["LARGE"])
    if order:
        candidates["  open hypotheses, prefetch instead of join"] = {
            label: prefetched_open(t["user"], order) for label, t in traders.items()
        }
    rows, plans = [], []

    def measure(stage: str) -> None:
        for title, calls in candidates.items():
            samples, _ = interleave(calls, rounds, warmup)
            (s50, s95, s99), (l50, l95, l99) = pcts(samples["SMALL"]), pcts(samples["LARGE"])
            rows.append(
                [f"{title}, {stage}", ms(s50), ms(l50), f"{l50 / s50:.2f}", ms(s95), ms(l95), f"{l95 / s95:.2f}",
                 f"{l99 / s99:.2f}"]
            )  # fmt: skip
        explained = [("open hypotheses", open_sql), ("COUNT(*)", count_sql)]
        if order:
            explained.append(
                ("prefetch #1", {label: captured(prefetched_open(t["user"], order))[0] for label, t in traders.items()})
            )
        for title, by_label in explained:
            for label, sql in by_label.items():
                summary, ok, scanned = plan_summary(explain(sql))
                verdict = "index" if ok else "SEQ SCAN"
                plans.append(f"  {stage}, {title}, {label:<5} [{verdict}, rows read {scanned:>5}] {summary}")

    print(f"  {index}")
    with transaction.atomic():
        measure("as is")
        with connection.cursor() as cursor:
            cursor.execute(index)
            cursor.execute("ANALYZE hypotheses")
        measure("+ index")
        transaction.set_rollback(True)
    print_table(
        ["what-if (one transaction, rolled back)", "SMALL p50", "LARGE p50", "L/S p50", "SMALL p95", "LARGE p95",
         "L/S p95", "L/S p99"],
        rows,
    )  # fmt: skip
    print("\n".join(plans))


# -- the run -------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=500, help="timed rounds per in-process case")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--http-rounds", type=int, default=300, help="timed rounds over HTTP (0: no gunicorn)")
    parser.add_argument("--large", type=int, default=100_000, help="experiments of LARGE")
    parser.add_argument("--explain", action="store_true", help="full EXPLAIN ANALYZE of every LARGE statement")
    parser.add_argument("--no-what-if", action="store_true", help="skip the what-if even when a ratio misses")
    args = parse_args(parser, argv, SMOKE)
    if args.rounds < 1 or args.large < SMALL_COUNT:
        parser.error(f"--rounds must be positive and --large at least {SMALL_COUNT}")
    big = f"{args.large // 1000}k" if args.large % 1000 == 0 else f"{args.large:,}"

    with BenchRun("research_context") as run:
        traders, seeded = seed({"SMALL": SMALL_COUNT, "LARGE": args.large})
        print(
            f"seeded in {seeded['total']:.1f}s (database {run.database}): clean_context + context_fingerprint of"
            f" {seeded['rows']:,} contexts {seeded['fingerprint']:.1f}s"
            f" ({seeded['fingerprint'] / seeded['rows'] * 1e6:.0f} us each), rows built + COPY {seeded['copy']:.1f}s,"
            f" VACUUM ANALYZE + CHECKPOINT {seeded['vacuum']:.1f}s"
        )
        for line in seed_check(traders):
            print(line)

        from research.experiment_context import clean_context, context_fingerprint
        from research.selectors import research_context
        from research.services import duplicates_of

        probe = probes(traders)
        for kind, (j, context) in probe.items():
            fingerprint = context_fingerprint(clean_context(context))
            print(f"  probe {kind}: raw context of experiment j={j:,} ({fingerprint[:12]}…): {json.dumps(context)}")

        def history(label: str):
            user = traders[label]["user"]
            return lambda: research_context(user=user, n=N)

        def check(label: str, kind: str):
            user, context = traders[label]["user"], probe[kind][1]
            return lambda: duplicates_of(owner=user, context=context)

        cases = {  # key: (title, {label: call})
            "(a)": (f"research_context(n={N})", {label: history(label) for label in traders}),
            "(b) hit": ("duplicates_of, hit", {label: check(label, "hit") for label in traders}),
            "(b) miss": ("duplicates_of, miss", {label: check(label, "miss") for label in traders}),
        }

        print("\noutputs, and the SQL statements of one call (CaptureQueriesContext):")
        statements: dict[tuple[str, str], list[str]] = {}
        problems = []
        texts = {}
        for key, (_, calls) in cases.items():
            for label, call in calls.items():
                statements[key, label] = sql = captured(call)
                result = call()
                if key == "(a)":
                    text, tokens, shown = texts[label] = result
                    summary, open_problems = open_check(traders[label]["user"], text)
                    detail = f"{shown} experiments, {len(text):,} chars, ~{tokens:,} tokens; open hypotheses: {summary}"
                    problems += [f"{key} {label}: open hypotheses block {p}" for p in open_problems]
                    if shown != N:
                        problems.append(f"{key} {label}: {shown} experiments shown, not {N}")
                else:
                    ids = [experiment.experiment_id for experiment in result]
                    detail = f"{len(ids)} match{'es' if len(ids) != 1 else ''}: {', '.join(ids) or '-'}"
                    if len(ids) != (1 if key.endswith("hit") else 0):
                        problems.append(f"{key} {label}: {len(ids)} matches")
                print(f"  {key:<8} {label:<5} {len(sql)} SQL ({', '.join(sql_name(q) for q in sql)}); {detail}")
        same = history_block(texts["SMALL"][0]) == history_block(texts["LARGE"][0])
        print(f"  (a) SMALL and LARGE '## Experiment History' blocks byte-identical: {'yes' if same else 'NO'}")
        if not same:
            problems.append("(a) the history blocks differ")
        print("\n  (a) LARGE, as rendered (first experiment and the open hypotheses' head):")
        text = texts["LARGE"][0]
        head = text.split("\n\n")[:3]
        open_block = text.split("## Open Hypotheses\n\n", 1)[1].splitlines()
        for line in [*"\n\n".join(head).splitlines(), "  ...", "## Open Hypotheses", *open_block[:3], "  ..."]:
            print(f"      {line}")

        results, wall = measure_cases(cases, args.rounds, args.warmup)

        http, endpoint = None, {}
        if args.http_rounds:
            requests_of = {
                "(c) context": ("GET", CONTEXT_PATH, None),
                "(c) check hit": ("POST", CHECK_PATH, {"context": probe["hit"][1]}),
                "(c) check miss": ("POST", CHECK_PATH, {"context": probe["miss"][1]}),
            }
            for key, (method, path, body) in requests_of.items():
                for label, t in traders.items():
                    endpoint[key, label] = endpoint_sql(t["token"], method, path, body)
            web = run.start_gunicorn(workers=1, threads=4)
            clients = {label: Client(web.port, t["token"]) for label, t in traders.items()}

            def request(key: str, label: str):
                method, path, body = requests_of[key]
                return lambda: clients[label].request(method, path, body)[0]

            for key, (method, path, body) in requests_of.items():
                for label in traders:
                    answer = json.loads(clients[label].request(method, path, body)[1])
                    if "text" in answer:
                        ok = answer["text"] == texts[label][0]
                        detail = f"{answer['experiments_shown']} experiments, same text as in process: {ok}"
                    else:
                        ok = len(answer["duplicates"]) == (1 if key.endswith("hit") else 0)
                        detail = f"{len(answer['duplicates'])} duplicates, fingerprint {answer['fingerprint'][:12]}…"
                    print(f"  {key:<14} {label:<5} {method} {path}: {detail}; {len(endpoint[key, label])} SQL")
                    if not ok:
                        problems.append(f"{key} {label}: {detail}")
            http_started = time.perf_counter()
            samples = http_rounds(
                {f"{key}/{label}": request(key, label) for key in requests_of for label in traders},
                args.http_rounds,
                args.warmup,
            )
            http = (
                {key: {label: samples[f"{key}/{label}"] for label in traders} for key in requests_of},
                time.perf_counter() - http_started,
                sum(c.reconnects for c in clients.values()),
            )
            for client in clients.values():
                client.close()

        print(
            f"\n{args.rounds} rounds per in-process case (SMALL and LARGE, order swapped every round) after"
            f" {args.warmup} warm-up rounds, {wall:.1f}s"
            + (
                f"\n{args.http_rounds} rounds over HTTP (gunicorn 1 worker x 4 threads, one keep-alive connection"
                f" per trader, 6 requests rotated every round), {http[1]:.1f}s, reconnects={http[2]}"
                if http
                else ""
            )
        )
        timings = {key: results[key][0] for key in cases}
        titles = {key: title for key, (title, _) in cases.items()}
        n_sql = {key: len(statements[key, "LARGE"]) for key in cases}
        if http:
            for key, by_label in http[0].items():
                timings[key] = by_label
                method, path, _ = requests_of[key]
                titles[key] = f"{method} .../{path.split('?')[0].rstrip('/').rsplit('/', 1)[1]}/"
                n_sql[key] = len(endpoint[key, "LARGE"])
        rows = []
        for key, samples in timings.items():
            for label, values in samples.items():
                rows.append([f"{key} {titles[key]}", label, *timing_cells(values), n_sql[key]])
        print_table(["case", "trader", "p50 ms", "p95 ms", "p99 ms", "mean ms", "SQL"], rows)
        print(f"\nLARGE ({big} experiments) / SMALL ({SMALL_COUNT}), interleaved:")
        missed = set()
        for key, samples in timings.items():
            for p, lv, sv in zip(("p50", "p95", "p99"), pcts(samples["LARGE"]), pcts(samples["SMALL"]), strict=True):
                print(ratio_line(f"{key} {titles[key]} {p}", lv / sv, GOAL))
                if lv / sv > GOAL:
                    missed.add(key)

        print("\nwhere the time goes: each statement's p50 (execute wrapper, same timed calls), the rest is Python")
        breakdown, full_plans = [], set()
        for key in cases:
            by_statement, rest, heavy = statement_split(*results[key], len(statements[key, "LARGE"]), GOAL)
            full_plans |= {(key, index) for index in heavy}
            for index, sql in enumerate(statements[key, "LARGE"]):
                p = {label: percentile(values, 50) for label, values in by_statement[index].items()}
                p95 = {label: percentile(values, 95) for label, values in by_statement[index].items()}
                breakdown.append(
                    [f"{key} #{index + 1} {sql_name(sql)}", ms(p["SMALL"]), ms(p["LARGE"]),
                     f"{p['LARGE'] / p['SMALL']:.2f}", ms(p95["SMALL"]), ms(p95["LARGE"])]
                )  # fmt: skip
            breakdown.append(
                [f"{key} rest (Python)", ms(rest["SMALL"]), ms(rest["LARGE"]), f"{rest['LARGE'] / rest['SMALL']:.2f}",
                 "", ""]
            )  # fmt: skip
        print_table(["statement", "SMALL p50", "LARGE p50", "L/S", "SMALL p95", "LARGE p95"], breakdown)

        print("\nplans: EXPLAIN (ANALYZE, BUFFERS) of the captured statements (full plan where LARGE is over the goal)")
        for key, (_, calls) in cases.items():
            for index, sql in enumerate(statements[key, "LARGE"]):
                for label in calls:
                    summary, ok, scanned = plan_summary(explain(statements[key, label][index]))
                    verdict = "index" if ok else "SEQ SCAN"
                    print(f"  {key:<8} #{index + 1} {label:<5} [{verdict}, rows read {scanned:>5}] {summary}")
                    if not ok and not args.smoke:  # a few hundred rows: the planner rightly scans them
                        problems.append(f"{key} #{index + 1} {label}: a Seq Scan on experiments or hypotheses")
                if args.explain or (key, index) in full_plans:
                    print_full_plan(f"{key} #{index + 1} LARGE", sql)
        if http:
            print("  (c): the same statements plus the token lookup (account_tokens by key hash)")

        if (missed or args.smoke) and not args.no_what_if:  # smoke: its code runs whatever the ratios say
            print("\nwhat-if: a partial index for the open-hypotheses statement (app code and schema untouched):")
            open_sql = {
                label: next(q for q in statements["(a)", label] if sql_name(q).startswith("open")) for label in traders
            }
            what_if(traders, max(args.rounds // 2, min(args.rounds, 100)), min(args.warmup, 10), open_sql)
        if problems:
            print("\nproblems:")
        for problem in problems:
            print(f"  !! {problem}")
    return 0


if __name__ == "__main__":
    run_script(main)

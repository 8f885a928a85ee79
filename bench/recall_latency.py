"""How fast is recall search at 10k and 100k chunks, for one trader alone and among 200, and where should
RECALL_EXACT_SCAN_MAX sit between the exact vector scan and HNSW?

    .venv/bin/python bench/recall_latency.py [--rounds 100] [--warmup 10] [--sizes 10000,100000]
                                             [--pool 2000] [--pool-budget 150] [--noise 0.025] [--explain]

Text. Chunks are generated, 400-800 words each (chunking's 400-800 token window) in ~14-word lines
under a "## section" heading, from a mixture of four vocabularies with Zipf-like (1/rank) frequencies:
~200 general trading and English words (62% of the words: "price", "stop", "risk" are in nearly every
chunk, as in real notes), the document's topic (25%: 24 topics of 20 words, "eurusd ecb lagarde ...",
"funding perpetual basis ..."), ~2,000 numbers and prices (5%) and a 15,000-word synthetic tail (8%)
from which the rare query terms come. Documents have 1-15 chunks; an owner's documents are interleaved
with everyone else's in the heap, each document's chunks contiguous (the order they would arrive in).

Vectors. Embedding 100,000 chunks with all-MiniLM-L6-v2 would take hours here, so `--pool` chunk texts
from the same generator (24 topics round-robin) get real embeddings (services.embedding_text(heading,
text), the windowing embedder as indexing runs it); they are cached in bench/.data (keyed by the
generator and the model) and at most `--pool-budget` seconds a run are spent adding to the cache. Every
seeded chunk then gets a pool vector of its document's topic plus gaussian noise (sigma `--noise` per
dimension), re-normalised: the output prints how far the copies are from their pool vector and from
each other. Isotropic noise in 384 dimensions is harder on HNSW than real embeddings (whose intrinsic
dimension is low), so the recall figures are, if anything, pessimistic.

States (each: TRUNCATE, COPY documents and chunks with the chunk indexes dropped, the indexes built again
(timed, maintenance_work_mem 512MB), VACUUM ANALYZE, CHECKPOINT):

  single  N chunks, all one trader's;
  many    N chunks over 200 owners plus 40 global chunks (runbooks, playbooks): measured traders of
          0.5%, 2% and 5% of the rows (and at 100k one of 20,000 for the threshold sweep), the rest
          spread over the other owners with Zipf-like sizes.

Measured, in process, interleaved (every label once a round, the order rotated every round, the query
rotating through the 50 questions), embedding excluded (query_embedding= precomputed):

  exact / hnsw   selectors.search(backend="hybrid", k=10) with RECALL_EXACT_SCAN_MAX forced to 10**9 (exact
                 scan) or 0 (HNSW with over-fetch; only where the over-fetch fits hnsw.ef_search <= 1000, since
                 elsewhere the code scans exactly whatever the setting says). Per statement (execute wrapper):
                 the keyword statement, readable_chunk_counts, the vector statement(s), loading the candidates,
                 and the rest (Python).
  +embed         the same search at default settings with embedder= (the query embedded inside);
  kw common/rare selectors._keyword_candidates with a query of six of the commonest terms / two rare ones;
  hnsw@1000      (100k many) the HNSW statement at the most the code can ask (ef_search = over-fetch = 1000);
  floor          SELECT 1 (the round trip every statement pays).

Then, untimed: HNSW recall (top-10 overlap with the exact answer, on the vector side with the limit search
uses, and on the fused hits; and the cosine given up), how many rows the HNSW path returns, the HNSW
statement at ef_search 80-1000 (sequential), the keyword side uncapped (FTS_CANDIDATE_CAP patched) for the
common query, where the keyword statement's time goes (GIN bitmap, detoasting search_vector, ts_rank;
and the same without the GIN index), and EXPLAIN (ANALYZE, BUFFERS) of the statements (full plans for the
100k states, or every state with --explain).

Embedding: query latency (each question alone, p50/p95) and indexing throughput (services.embed_pending,
batches of 32, on 96 pending chunks of the 10k state: chunks/s end to end and model alone).

Summary: p95 <= 15 ms (embedding excluded) for every measured trader at default settings, with and without
the keyword statement; for RECALL_EXACT_SCAN_MAX, the exact scan's cost per readable chunk and, per
HNSW-eligible trader, the break-even readable count at the code's ef_search and at recall@10 >= 0.9.

A run takes ~6 minutes on 2 cores with the pool cached (the two 100k seeds ~95 s each, HNSW build ~17 s
of that); the first run adds up to --pool-budget seconds of embedding (filling the 2,000 takes ~5-10 min).
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import itertools
import math
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import (
    DATA_DIR,
    BenchRun,
    QueryTimer,
    checkpoint,
    copy_rows,
    explain,
    interleave_calls,
    ms,
    parse_args,
    percentile,
    print_table,
    ratio_line,
    run_script,
    timing_cells,
)

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 2, "warmup": 1, "sizes": "2000", "pool": 24, "pool_budget": 30.0}

GOAL_MS = 15.0
RECALL_GOAL = 0.9
K = 10
APP_ROLE = os.environ.get("BENCH_APP_ROLE", "memory_app")  # the service's role (DATABASE_URL's user)
NOW = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
GENERATOR_VERSION = 1
N_OWNERS = 200
GLOBAL_CHUNKS = 40
PENDING = 96  # chunks of the 10k single state left for services.embed_pending (3 batches of 32)
WORDS_PER_LINE = 14
CHUNK_INDEXES = (
    "recall_chunk_fts",
    "recall_chunk_embedding",
    "recall_chunk_owner",
    "recall_chunk_document",
    "recall_chunk_pending",
)

# -- vocabulary ------------------------------------------------------------------------------------------


def _split(words: str) -> list[str]:
    return words.split()


GENERAL = _split("""
the to and of a in is on for it with at as was price we this that be by trade market not are from but position
stop entry size risk when if or loss after long short close open high low level trend signal move day volume order
hour week before out up down our profit exit target support resistance range break account so all than more time
session candle bar chart setup rule plan fill spread fee strategy agent run still only then into over under again
just below above rally drop spike gap wick sweep liquidity momentum reversal continuation confirmation filter
threshold limit buy sell bid ask book depth tick data model test result return drawdown equity balance capital
percent daily weekly monthly new old first last next previous same other each every most few many much less
higher lower earlier later today yesterday morning afternoon evening night monday friday note lesson review check
watch wait hold add reduce scale trail move tighten widen cut keep avoid follow repeat skip missed late early fast
slow strong weak clean messy choppy quiet busy thin heavy wide tight clear unclear good bad better worse best worst
expected actual average median maximum minimum ratio rate change value cost pnl win winner loser streak edge bias
""")

TOPICS: dict[str, list[str]] = {
    "eurusd": _split(
        "eurusd euro ecb lagarde bund pip london fix dollar dxy eurozone parity yield differential rate hike "
        "cut inflation frankfurt cable"
    ),
    "bitcoin": _split(
        "bitcoin btc funding perpetual basis halving onchain exchange whale liquidation leverage open "
        "interest futures contango miner etf flows stablecoin custody"
    ),
    "gold": _split(
        "gold xauusd bullion ounce safe haven real yields central bank reserves comex silver ratio mine "
        "jewelry demand geopolitical hedge inflation vault"
    ),
    "sizing": _split(
        "sizing kelly fraction leverage margin notional exposure allocation risk budget volatility target "
        "per trade cap portfolio heat correlation concentration limit"
    ),
    "momentum": _split(
        "rsi macd momentum divergence oscillator overbought oversold histogram crossover stochastic "
        "signal line lookback period smoothing acceleration impulse thrust"
    ),
    "meanrev": _split(
        "mean reversion bollinger zscore band deviation revert stretch extreme snapback fade "
        "equilibrium anchor vwap distance envelope keltner channel squeeze"
    ),
    "volatility": _split(
        "atr vix implied realized straddle regime expansion contraction compression clustering garch "
        "skew kurtosis tail event shock calm storm percentile"
    ),
    "execution": _split(
        "latency slippage twap iceberg maker taker queue partial fill routing venue rejection retry "
        "websocket rest throttle nonce timestamp acknowledgement cancel"
    ),
    "backtest": _split(
        "backtest walkforward overfit insample outofsample sharpe sortino calmar monte carlo bootstrap "
        "parameter optimisation curve fitting robustness survivorship lookahead benchmark"
    ),
    "macro": _split(
        "nfp cpi fomc payrolls powell minutes dot plot unemployment gdp pmi retail sales treasury curve "
        "inversion recession soft landing tightening"
    ),
    "journal": _split(
        "mistake lesson discipline revenge tilt fomo patience journal emotion fear greed boredom "
        "overtrading hesitation conviction routine focus fatigue mindset"
    ),
    "incident": _split(
        "outage api timeout reconnect heartbeat stale feed crash restart failover alert pager incident "
        "postmortem rollback degraded recovery runbook escalation"
    ),
    "breakout": _split(
        "breakout consolidation triangle flag pennant wedge retest false fakeout range expansion "
        "accumulation distribution base ceiling floor channel boxes"
    ),
    "orderflow": _split(
        "orderflow delta footprint imbalance absorption aggression tape prints sweep stacked bids "
        "offers cumulative auction profile poc value area"
    ),
    "ethereum": _split(
        "ethereum eth gas staking merge layer rollup defi yield validator burn blob upgrade solana "
        "altcoin dominance rotation narrative"
    ),
    "oil": _split(
        "oil crude wti brent opec barrel inventory eia refinery supply cut production shale rig count "
        "contango backwardation hurricane sanctions"
    ),
    "equities": _split(
        "spx500 nasdaq earnings guidance buyback sector rotation breadth advance decline megacap "
        "semiconductor index futures premarket gap open auction close"
    ),
    "yen": _split(
        "usdjpy yen boj intervention carry trade ueda yield control jgb tokyo risk off repatriation "
        "swap points fiscal year end ministry"
    ),
    "sentiment": _split(
        "sentiment positioning cot report crowd contrarian fear index survey retail longs shorts "
        "funding skew put call ratio euphoria capitulation"
    ),
    "review": _split(
        "weekly review scorecard expectancy win rate average winner loser hit ratio streak variance "
        "sample size significance process outcome grade improvement"
    ),
    "seasonality": _split(
        "seasonality month end quarter rebalancing holiday liquidity summer lull january effect "
        "turn of month window dressing calendar anomaly weekday pattern"
    ),
    "stops": _split(
        "stops trailing breakeven atr multiple structure swing invalidation hard soft mental wide "
        "tight hunt noise buffer placement chandelier"
    ),
    "scalping": _split(
        "scalping one minute five minute tape reading quick flip ticks spread capture micro "
        "structure rebate queue position speed hotkeys"
    ),
    "hedging": _split(
        "hedge hedging options delta gamma theta vega protective put collar basis spread offset "
        "correlation pair cross proxy insurance"
    ),
}
TOPIC_NAMES = tuple(TOPICS)
SECTIONS = ("Context", "Setup", "Entries", "Exits", "Risk", "Observations", "Lessons", "Plan", "Notes", "Results")
SOURCES = ("workspace", "workspace", "journal", "backtest", "transcript")
GLOBAL_SOURCES = ("playbook", "runbook")
_CONSONANTS, _VOWELS = "bdfgklmnprstvz", "aeiou"

QUERIES = (
    "why did the EURUSD breakout fail after the ECB meeting",
    "how should I size positions when ATR doubles",
    "what went wrong with the bitcoin funding rate trade",
    "lessons from stopping out on the gold retest",
    "when is RSI divergence worth trading on the hourly chart",
    "how do I handle an exchange API outage during an open position",
    "what is our rule for trailing stops after a strong move",
    "did the backtest overfit the zigzag threshold",
    "how did the strategy behave around NFP releases",
    "revenge trading after a losing streak what helped",
    "mean reversion entries at the lower bollinger band results",
    "which sessions have the widest spread on EURUSD",
    "what happened when the websocket feed went stale",
    "kelly fraction versus fixed percent risk per trade",
    "false breakouts from a triangle consolidation",
    "order flow absorption at the value area high",
    "ethereum gas spikes and slippage on entries",
    "crude oil inventory report volatility playbook",
    "earnings gap open on the nasdaq how to trade it",
    "yen intervention risk for usdjpy longs",
    "crowded positioning and contrarian signals from the COT report",
    "weekly review expectancy and win rate trend",
    "month end rebalancing flows and liquidity",
    "where to place a stop below swing structure",
    "scalping the one minute chart during the London open",
    "hedging a long position with protective puts",
    "volatility regime change and how to detect it",
    "partial fills and order routing problems",
    "walk forward test results out of sample sharpe",
    "FOMC minutes reaction and the dollar",
    "overtrading on quiet days fatigue and focus",
    "runbook for a crash and restart of the trading agent",
    "liquidity sweep below the previous day low",
    "funding rate flip from positive to negative",
    "gold as a safe haven during geopolitical shocks",
    "correlation between positions and portfolio heat",
    "MACD histogram crossover as an exit signal",
    "VWAP distance as a mean reversion filter",
    "implied versus realized volatility before events",
    "maker taker fees eating the edge",
    "survivorship and lookahead bias in the test",
    "curve inversion and recession signals for equities",
    "patience waiting for confirmation before entry",
    "stale heartbeat alert escalation steps",
    "breakout retest entries with tight stops",
    "cumulative delta divergence at highs",
    "staking yield narrative and ETH rotation",
    "OPEC production cut headline trade",
    "sector rotation into semiconductors",
    "carry trade unwind and risk off moves",
)
COMMON_QUERY = "price trade market stop risk position"


def _mix(i: int, salt: int = 0) -> int:
    x = (i * 2654435761 + salt * 40503 + 12345) & 0xFFFFFFFF
    x ^= x >> 15
    return (x * 2246822519) & 0xFFFFFFFF


def _tail_word(k: int) -> str:
    h = _mix(k, 77)
    syllables = []
    for _ in range(3 + k % 2):
        syllables.append(_CONSONANTS[h % len(_CONSONANTS)] + _VOWELS[(h >> 4) % len(_VOWELS)])
        h >>= 7
    return "".join(syllables) + _CONSONANTS[(k * 7) % len(_CONSONANTS)]


def _number(k: int) -> str:
    h = _mix(k, 91)
    kind = h % 4
    if kind == 0:
        return str(1 + h % 250)
    if kind == 1:
        return f"1.{(h >> 3) % 10000:04d}"
    if kind == 2:
        return f"{(h >> 5) % 100 / 10:.1f}%"
    return str(1000 + (h >> 7) % 99000)


def _zipf_cdf(n: int) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1)
    return np.cumsum(weights) / weights.sum()


class Vocabulary:
    """One array of all words: general, topic (TOPIC_WORDS per topic), numbers, tail; a draw picks the
    component (GENERAL 62%, topic 25%, numbers 5%, tail 8%), then a 1/rank word of it."""

    TOPIC_WORDS = 20
    N_NUMBERS = 2000
    N_TAIL = 15000
    SHARES = (0.62, 0.25, 0.05, 0.08)
    GRID = 1 << 22

    def __init__(self):
        general = list(dict.fromkeys(GENERAL))
        topics = [list(dict.fromkeys(words))[: self.TOPIC_WORDS] for words in TOPICS.values()]
        for words in topics:
            while len(words) < self.TOPIC_WORDS:
                words.append(words[len(words) % 7])
        tail, seen = [], set(general) | {w for words in topics for w in words}
        k = 0
        while len(tail) < self.N_TAIL:
            word = _tail_word(k)
            k += 1
            if word not in seen:
                seen.add(word)
                tail.append(word)
        numbers = [_number(k) for k in range(self.N_NUMBERS)]
        self.words = np.array([*general, *[w for words in topics for w in words], *numbers, *tail], dtype=object)
        self.n_general = len(general)
        self.topic_start = self.n_general
        self.number_start = self.topic_start + len(topics) * self.TOPIC_WORDS
        self.tail_start = self.number_start + self.N_NUMBERS
        # Inverse CDFs as lookup tables (u in [0, 1) -> rank): a numpy index instead of a searchsorted per word.
        grid = (np.arange(self.GRID) + 0.5) / self.GRID
        self.ranks = {
            name: np.searchsorted(_zipf_cdf(n), grid).astype(np.int16)
            for name, n in (
                ("general", self.n_general),
                ("topic", self.TOPIC_WORDS),
                ("number", self.N_NUMBERS),
                ("tail", self.N_TAIL),
            )
        }
        # What chunking.count_tokens counts beyond 1 a word: a number's "." is 2 more ("1", ".", "0842"), "%" 1.
        self.extra_tokens = np.array(
            [2 * w.count(".") + w.count("%") if w[0].isdigit() else 0 for w in self.words], dtype=np.int64
        )
        self.general = general
        self.tail = tail

    def draw(self, rng: np.random.Generator, topics: np.ndarray) -> np.ndarray:
        """One word index per entry of topics (the topic of the chunk each word is for)."""
        n = len(topics)
        component = np.searchsorted(np.cumsum(self.SHARES), rng.random(n) * 0.999999)
        cell = rng.integers(0, self.GRID, size=n)
        out = self.ranks["general"][cell].astype(np.int64)
        topic_word = self.topic_start + topics * self.TOPIC_WORDS + self.ranks["topic"][cell]
        out = np.where(component == 1, topic_word, out)
        out = np.where(component == 2, self.number_start + self.ranks["number"][cell], out)
        return np.where(component == 3, self.tail_start + self.ranks["tail"][cell], out)


@dataclass
class ChunkText:
    heading: str
    text: str
    lines: int
    tokens: int


def chunk_texts(vocab: Vocabulary, seed: int, topics: list[int], headings: list[str]) -> list[ChunkText]:
    """The texts of len(topics) chunks: 400-800 words in lines of WORDS_PER_LINE, under a "## section" line."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(400, 801, size=len(topics))
    per_word_topic = np.repeat(np.asarray(topics), lengths)
    drawn = vocab.draw(rng, per_word_topic)
    words = vocab.words[drawn]
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    extras = np.add.reduceat(vocab.extra_tokens[drawn], starts)
    out = []
    for heading, start, length, extra in zip(headings, starts, lengths, extras, strict=True):
        ws = words[start : start + length].tolist()
        section = heading.rsplit(" > ", 1)[-1]
        lines = [f"## {section}"]
        lines += [" ".join(ws[j : j + WORDS_PER_LINE]) + "." for j in range(0, len(ws), WORDS_PER_LINE)]
        text = "\n".join(lines)
        # chunking.count_tokens of this text: "## section" is 3, a word 1 (plus its extra), a line's final dot 1.
        tokens = 3 + int(length) + int(extra) + len(lines) - 1
        out.append(ChunkText(heading, text, len(lines), tokens))
    return out


# -- the real embedding pool -----------------------------------------------------------------------------


def pool_texts(vocab: Vocabulary, n: int) -> list[str]:
    from recall.services import embedding_text

    texts = []
    for block in range(0, n, 32):  # text p does not depend on n: the cache stays valid when --pool changes
        ps = range(block, min(n, block + 32))
        topics = [p % len(TOPIC_NAMES) for p in ps]
        headings = [f"{TOPIC_NAMES[p % len(TOPIC_NAMES)]} notes > {SECTIONS[p % len(SECTIONS)]}" for p in ps]
        texts += [embedding_text(c.heading, c.text) for c in chunk_texts(vocab, 1_000_003 + block, topics, headings)]
    return texts


@dataclass
class Pool:
    vectors: np.ndarray
    cached: int
    computed: int
    batch_seconds: list[float] = field(default_factory=list)
    batch_windows: list[int] = field(default_factory=list)


def real_pool(embedder, vocab: Vocabulary, n: int, budget_s: float) -> Pool:
    """n real embeddings of pool texts: those cached by earlier runs, then more, batches of 32, within budget_s."""
    texts = pool_texts(vocab, n)
    key = hashlib.sha256(f"{GENERATOR_VERSION}|{embedder.name}|{texts[0]}".encode()).hexdigest()[:16]
    path = DATA_DIR / f"recall_latency_pool_{key}.npy"
    vectors = np.load(path) if path.exists() else np.zeros((0, 384), dtype=np.float32)
    vectors = vectors[:n]
    cached = len(vectors)
    pool = Pool(vectors, cached, 0)
    started = time.perf_counter()
    while len(pool.vectors) < n and time.perf_counter() - started < budget_s:
        batch = texts[len(pool.vectors) : len(pool.vectors) + 32]
        windows = sum(len(embedder.windows(t)) for t in batch)
        t0 = time.perf_counter()
        out = embedder.embed(batch)
        pool.batch_seconds.append(time.perf_counter() - t0)
        pool.batch_windows.append(windows)
        pool.vectors = np.concatenate([pool.vectors, out])
        pool.computed += len(batch)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial.npy")
        np.save(partial, pool.vectors)
        partial.replace(path)  # atomic: an interrupted run leaves the previous cache
    return pool


def noisy_copies(pool: np.ndarray, topics: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """For each topic: a random pool vector of that topic + N(0, sigma) per dimension, re-normalised."""
    n_topics = len(TOPIC_NAMES)
    per_topic = [np.arange(t, len(pool), n_topics) for t in range(n_topics)]
    picks = np.array([per_topic[t][rng.integers(len(per_topic[t]))] for t in topics], dtype=np.int64)
    out = pool[picks] + rng.normal(0.0, sigma, size=(len(topics), pool.shape[1])).astype(np.float32)
    out /= np.linalg.norm(out, axis=1, keepdims=True)
    return out.astype(np.float32)


_VECTOR_FORMAT = "[" + ",".join(["%.6f"] * 384) + "]"


def vector_text(v: np.ndarray) -> str:
    return _VECTOR_FORMAT % tuple(v.tolist())


# -- seeding ---------------------------------------------------------------------------------------------


@dataclass
class State:
    name: str
    total: int
    single: bool
    measured: list[int]  # chunk counts of the measured traders
    owners: dict[int, object] = field(default_factory=dict)  # chunk count -> user
    seed_s: dict[str, float] = field(default_factory=dict)
    table: dict[str, str] = field(default_factory=dict)


def owner_sizes(state: State) -> list[tuple[str, int]]:
    """(username, chunks) of every owner of the state; "" for the global chunks."""
    if state.single:
        return [(f"bench-single-{state.total}", state.total)]
    rest = state.total - GLOBAL_CHUNKS - sum(state.measured)
    others = N_OWNERS - len(state.measured)
    weights = 1.0 / np.arange(1, others + 1) ** 0.8
    sizes = np.maximum(1, np.floor(weights / weights.sum() * rest)).astype(int)
    sizes[0] += rest - sizes.sum()
    out = [(f"bench-many-{state.total}-measured-{s}", s) for s in state.measured]
    out += [(f"bench-many-{state.total}-other-{i}", int(s)) for i, s in enumerate(sizes)]
    return [*out, ("", GLOBAL_CHUNKS)]


def index_definitions() -> dict[str, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'recall_chunks'")
        found = dict(cursor.fetchall())
    missing = [name for name in CHUNK_INDEXES if name not in found]
    if missing:
        raise RuntimeError(f"recall_chunks lacks {missing}: migrations changed?")
    return {name: found[name] for name in CHUNK_INDEXES}


def seed_state(state: State, vocab: Vocabulary, pool: np.ndarray, sigma: float, definitions: dict[str, str]) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    user_model = get_user_model()
    sizes = owner_sizes(state)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("TRUNCATE recall_chunks, recall_documents RESTART IDENTITY CASCADE")
        for name in CHUNK_INDEXES:
            cursor.execute(f"DROP INDEX IF EXISTS {name}")
    usernames = [u for u, _ in sizes if u]
    existing = set(user_model.objects.filter(username__in=usernames).values_list("username", flat=True))
    user_model.objects.bulk_create(
        [user_model(username=u, email=f"{u}@example.com") for u in usernames if u not in existing]
    )
    ids = dict(user_model.objects.filter(username__in=usernames).values_list("username", "id"))
    by_username = {u.username: u for u in user_model.objects.filter(username__in=usernames)}
    for username, size in sizes:
        if username.startswith(("bench-single", f"bench-many-{state.total}-measured")):
            state.owners[size] = by_username[username]

    # Documents of 1-15 chunks per owner, then all documents in a shuffled (arrival) order.
    docs = []  # (owner_id or None, source, topic, n_chunks)
    for o, (username, size) in enumerate(sizes):
        left, d = size, 0
        while left:
            n = min(left, 1 + _mix(o * 100_003 + d, 3) % 15)
            topic = _mix(o * 7 + d, 4) % len(TOPIC_NAMES)
            source = GLOBAL_SOURCES[d % 2] if not username else SOURCES[_mix(o, d) % len(SOURCES)]
            docs.append((ids.get(username), source, topic, n))
            left -= n
            d += 1
    rng = np.random.default_rng(state.total + (0 if state.single else 1))
    order = rng.permutation(len(docs))
    docs = [docs[i] for i in order]
    pending_left = PENDING if state.single and state.total == 10_000 else 0

    def documents() -> Iterator[tuple]:
        for doc_id, (owner_id, source, topic, n) in enumerate(docs, start=1):
            path = f"{source}/{TOPIC_NAMES[topic]}-{doc_id}.md"
            content = f"(bench stand-in: {n} chunks on {TOPIC_NAMES[topic]})"
            stamp = NOW - dt.timedelta(hours=doc_id % 5000)
            yield (
                doc_id, owner_id, None, path, source, "{}", content, hashlib.sha256(content.encode()).hexdigest(),
                1, n, stamp, "", stamp, stamp,
            )  # fmt: skip

    timing = {"text": 0.0, "vectors": 0.0}

    def chunks() -> Iterator[tuple]:
        nonlocal pending_left
        block, block_no = [], 0

        def flush():
            nonlocal block_no
            t0 = time.perf_counter()
            topics = [t for _, t, _ in block]
            texts = chunk_texts(vocab, state.total * 1000 + block_no, topics, [h for _, _, h in block])
            t1 = time.perf_counter()
            vectors = noisy_copies(pool, np.asarray(topics), np.random.default_rng(block_no + 7 * state.total), sigma)
            vector_rows = [vector_text(v) for v in vectors]
            timing["text"] += t1 - t0
            timing["vectors"] += time.perf_counter() - t1
            block_no += 1
            return texts, vector_rows

        def rows_of(meta, texts, vector_rows):
            nonlocal pending_left
            for (info, _, _), text, vector in zip(meta, texts, vector_rows, strict=True):
                doc_id, owner_id, source, path, ordinal, start_line, stamp = info
                pending = pending_left > 0 and owner_id is not None
                if pending:
                    pending_left -= 1
                yield (
                    doc_id, owner_id, None, source, path, ordinal, start_line, start_line + text.lines - 1,
                    text.heading, text.text, text.tokens,
                    hashlib.sha256(f"{text.heading}\n{text.text}".encode()).hexdigest(),
                    None if pending else vector, None if pending else stamp, stamp,
                )  # fmt: skip

        for doc_id, (owner_id, source, topic, n) in enumerate(docs, start=1):
            path = f"{source}/{TOPIC_NAMES[topic]}-{doc_id}.md"
            stamp = NOW - dt.timedelta(hours=doc_id % 5000)
            line = 1
            for ordinal in range(n):
                heading = f"{TOPIC_NAMES[topic]} {source} {doc_id} > {SECTIONS[(doc_id + ordinal) % len(SECTIONS)]}"
                block.append(((doc_id, owner_id, source, path, ordinal, line, stamp), topic, heading))
                line += 60  # ~40-60 lines a chunk plus blank lines: the exact value is never read
                if len(block) == 2000:
                    texts, vector_rows = flush()
                    yield from rows_of(block, texts, vector_rows)
                    block = []
        if block:
            texts, vector_rows = flush()
            yield from rows_of(block, texts, vector_rows)

    doc_columns = (
        "id", "owner_id", "deployment_id", "path", "source", "metadata", "content", "content_hash", "version",
        "chunk_count", "indexed_at", "index_error", "created_at", "updated_at",
    )  # fmt: skip
    chunk_columns = (
        "document_id", "owner_id", "deployment_id", "source", "path", "ordinal", "start_line", "end_line",
        "heading", "text", "token_count", "content_hash", "embedding", "embedded_at", "updated_at",
    )  # fmt: skip
    with transaction.atomic():
        t0 = time.perf_counter()
        copy_rows("recall_documents", doc_columns, documents())
        n = copy_rows("recall_chunks", chunk_columns, chunks())
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('recall_documents', 'id'), MAX(id)) FROM recall_documents"
            )
        state.seed_s["copy"] = time.perf_counter() - t0 - timing["text"] - timing["vectors"]
    if n != state.total:
        raise RuntimeError(f"seeded {n} chunks, expected {state.total}")
    state.seed_s["text"] = timing["text"]
    state.seed_s["vectors"] = timing["vectors"]
    with connection.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '512MB'")
        for name, definition in definitions.items():
            t0 = time.perf_counter()
            cursor.execute(definition)
            state.seed_s[name] = time.perf_counter() - t0
        cursor.execute("RESET maintenance_work_mem")
        t0 = time.perf_counter()
        cursor.execute("VACUUM ANALYZE recall_documents")
        cursor.execute("VACUUM ANALYZE recall_chunks")
        checkpoint(cursor)
        state.seed_s["vacuum"] = time.perf_counter() - t0
        cursor.execute(
            "SELECT pg_size_pretty(pg_table_size('recall_chunks')),"
            " pg_size_pretty(pg_relation_size('recall_chunk_embedding')),"
            " pg_size_pretty(pg_relation_size('recall_chunk_fts')),"
            " (SELECT COUNT(*) FROM recall_documents), (SELECT AVG(token_count)::int FROM recall_chunks)"
        )
        table, hnsw, gin, n_docs, tokens = cursor.fetchone()
    state.table = {"table": table, "hnsw": hnsw, "gin": gin, "documents": f"{n_docs:,}", "tokens": str(tokens)}
    state.seed_s["total"] = time.perf_counter() - started


# -- measuring -------------------------------------------------------------------------------------------


def statement_kind(sql: str) -> str:
    """The statements of selectors.search: keyword (_KEYWORD), readable_chunk_counts, SET LOCAL, HNSW, exact,
    loading the candidates (_CANDIDATES: the union, each scored on both sides)."""
    if sql.startswith("SET"):
        return "set"
    if "CROSS JOIN LATERAL" in sql or "recall_keyword_matches" in sql:
        return "kw"
    if "chunk_count" in sql or "reltuples" in sql:
        return "count"
    if "h.distance" in sql:
        return "hnsw"
    if "c.id = ANY(" in sql or '"recall_chunks"."path"' in sql:
        return "load"
    if "+ 0" in sql and "<=>" in sql:
        return "exact"
    return "other"


def tsquery_sql() -> str:
    """The keyword side's tsquery as selectors builds it, one %s for the raw query text."""
    from recall import selectors

    return selectors.OR_TSQUERY


def tsquery_param(query: str) -> str:
    return query


class NamedTimer(QueryTimer):
    """QueryTimer whose entries are (kind of statement, seconds)."""

    def __call__(self, execute, sql, params, many, context):
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.current.append((statement_kind(sql), time.perf_counter() - started))


@dataclass
class Measured:
    seconds: list[float]
    outcomes: list[object]
    statements: list[list[tuple[str, float]]]

    def stat(self, kind: str, p: float = 50) -> float:
        values = [sum(s for k, s in call if k == kind) for call in self.statements]
        return percentile(values, p)

    def plans(self) -> str:
        plans = [getattr(o, "vector_plan", "") for o in self.outcomes]
        counts = {p: plans.count(p) for p in dict.fromkeys(plans) if p}
        return "/".join(f"{p}" if c == len(plans) else f"{p} {c}" for p, c in counts.items()) or "-"

    def short(self) -> int:
        return sum(1 for o in self.outcomes if hasattr(o, "hits") and len(o.hits) != K)


def exact_max(value: int):
    from django.test.utils import override_settings

    return override_settings(RECALL_EXACT_SCAN_MAX=value)


def search_call(user, queries: list[str], vectors: dict[str, list[float]], force: int | None, embedder=None):
    from recall import selectors

    counter = itertools.count()
    context = exact_max(force) if force is not None else None

    def call():
        query = queries[next(counter) % len(queries)]
        kwargs = {"embedder": embedder} if embedder is not None else {"query_embedding": vectors[query]}
        if context is None:
            return selectors.search(user=user, query=query, k=K, backend="hybrid", now=NOW, **kwargs)
        with context:
            return selectors.search(user=user, query=query, k=K, backend="hybrid", now=NOW, **kwargs)

    return call


def role_search_call(user, queries: list[str], vectors: dict[str, list[float]], role: str):
    """search() at default settings in a transaction connected as `role` with the trader's scope set,
    as the service runs it: the app role is under row-level security, the owner (a superuser here)
    bypasses it. Both labels send the same statements; only the role differs."""
    from django.db import connection, transaction

    from access import scope
    from recall import selectors

    counter = itertools.count()
    trader = scope.owner_scope_of(user)

    def call():
        query = queries[next(counter) % len(queries)]
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f'SET LOCAL ROLE "{role}"')
                scope.apply_to_cursor(cursor, trader)
            return selectors.search(
                user=user, query=query, k=K, backend="hybrid", now=NOW, query_embedding=vectors[query]
            )

    return call


def _owner_role() -> str:
    from django.db import connection

    return connection.settings_dict["USER"]


def keyword_call(user, query: str):
    from recall import selectors

    scope = selectors.SearchScope(user.pk)
    fetch = max(K * 4, 40)
    readable, _ = selectors.readable_chunk_counts(scope)
    return lambda: selectors._keyword_candidates(scope, query, fetch, readable=readable)


def raw_hnsw_call(user, queries: list[str], vectors: dict[str, list[float]], ef: int):
    """The HNSW statement as _vector_candidates sends it, at ef_search = over-fetch = ef (pgvector's max)."""
    from django.db import connection, transaction

    from recall import selectors

    scope = selectors.SearchScope(user.pk)
    where, params = scope.sql("h")
    sql = selectors._HNSW.format(scope=where)
    counter = itertools.count()

    def call():
        v = selectors._vector_literal(vectors[queries[next(counter) % len(queries)]])
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL hnsw.ef_search = %s", [ef])
            cursor.execute(sql, [v, v, v, ef, *params, max(K * 4, 40)])
            return cursor.fetchall()

    return call


def floor_call():
    from django.db import connection

    def call():
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone()

    return call


def measure(calls: dict[str, Callable[[], object]], rounds: int, warmup: int) -> dict[str, Measured]:
    from django.db import connection

    timer = NamedTimer()
    with connection.execute_wrapper(timer):
        out = interleave_calls(calls, rounds, warmup, timer)
    return {
        label: Measured([s for s, _, _ in values], [r for _, r, _ in values], [st for _, _, st in values])
        for label, values in out.items()
    }


def hnsw_eligible(user, total_fetch: int = 40) -> tuple[int, int, int, bool]:
    """(readable, total, over-fetch, whether the HNSW path can run) as _vector_candidates decides it."""
    from recall import selectors

    readable, total = selectors.readable_chunk_counts(selectors.SearchScope(user.pk))
    over_fetch = min(total, math.ceil(total_fetch / max(readable / total, 1e-6) * 2))
    return readable, total, over_fetch, over_fetch <= selectors.HNSW_EF_SEARCH_MAX


def top_ids(rows: dict[int, float], n: int = K) -> set[int]:
    return {i for i, _ in sorted(rows.items(), key=lambda item: (-item[1], item[0]))[:n]}


def exact_reference(user, queries: list[str], vectors: dict[str, list[float]]) -> dict[str, dict[int, float]]:
    """The exact vector side (forced) per question, with the limit search uses: {chunk id: cosine}."""
    from recall import selectors

    scope = selectors.SearchScope(user.pk)
    out = {}
    with exact_max(10**9):
        for query in queries:
            out[query], _ = selectors._vector_candidates(
                scope, selectors._vector_literal(vectors[query]), max(K * 4, 40)
            )
    return out


def cosine_lost(exact_rows: dict[int, float], rows: dict[int, float]) -> float:
    """Mean cosine of the exact top-10 minus that of the other top-10 (a missing row counts 0)."""
    best = sorted(exact_rows.values(), reverse=True)[:K]
    got = sorted(rows.values(), reverse=True)[:K]
    return (sum(best) - sum(got)) / K


def recall_check(user, queries: list[str], vectors, reference: dict[str, dict[int, float]]) -> dict[str, float]:
    """The HNSW path (RECALL_EXACT_SCAN_MAX=0) against the exact answer, per question: top-10 overlap on the
    vector side (limit 40, as search asks) and on the fused hits; rows it returned; fallbacks to exact."""
    from recall import selectors

    scope = selectors.SearchScope(user.pk)
    overlaps, hit_overlaps, lost, fallbacks, rows_back = [], [], [], 0, []
    for query in queries:
        vector = vectors[query]
        with exact_max(10**9):
            exact_hits = selectors.search(user=user, query=query, k=K, now=NOW, query_embedding=vector).hits
        with exact_max(0):
            hnsw_rows, plan = selectors._vector_candidates(scope, selectors._vector_literal(vector), max(K * 4, 40))
            hnsw_hits = selectors.search(user=user, query=query, k=K, now=NOW, query_embedding=vector).hits
        fallbacks += plan != "hnsw"
        rows_back.append(len(hnsw_rows))
        overlaps.append(len(top_ids(reference[query]) & top_ids(hnsw_rows)) / K)
        lost.append(cosine_lost(reference[query], hnsw_rows))
        exact_ids = {h.candidate.chunk_id for h in exact_hits}
        hit_overlaps.append(len(exact_ids & {h.candidate.chunk_id for h in hnsw_hits}) / max(len(exact_ids), 1))
    return {
        "recall": sum(overlaps) / len(overlaps),
        "recall_min": min(overlaps),
        "lost": sum(lost) / len(lost),
        "hits": sum(hit_overlaps) / len(hit_overlaps),
        "fallbacks": fallbacks,
        "rows_min": min(rows_back),
    }


def raw_recall(user, queries: list[str], vectors, ef: int, reference: dict[str, dict[int, float]]) -> dict:
    """The HNSW statement at ef_search = over-fetch = ef, each question once (sequential, not interleaved):
    rows that survive the owner filter (of 40), recall@10 and cosine lost against the exact answer, p50 ms."""
    raw_hnsw_call(user, queries, vectors, ef)()  # warm (its own question counter)
    call = raw_hnsw_call(user, queries, vectors, ef)
    got, overlaps, lost, seconds = [], [], [], []
    for query in queries:
        t0 = time.perf_counter()
        rows = {r[0]: float(r[1]) for r in call()}
        seconds.append(time.perf_counter() - t0)
        got.append(len(rows))
        overlaps.append(len(top_ids(reference[query]) & top_ids(rows)) / K)
        lost.append(cosine_lost(reference[query], rows))
    return {
        "rows_p50": percentile(got, 50),
        "rows_min": min(got),
        "recall": sum(overlaps) / len(overlaps),
        "lost": sum(lost) / len(lost),
        "p50": percentile(seconds, 50) * 1000,
        "p95": percentile(seconds, 95) * 1000,
    }


def keyword_cost_split(user, query: str, rounds: int = 7) -> dict[str, float]:
    """Where the keyword statement's time goes, on the same rows (its inner LATERAL, capped): the matching
    ids alone, + detoasting search_vector (length()), + ts_rank (and ts_rank_cd, for comparison); and a
    what-if without the GIN index (ids, and with ts_rank). p50 ms of `rounds` rotated rounds."""
    from django.db import connection

    from recall import selectors

    where, params = selectors.SearchScope(user.pk).sql()
    variants = {
        "ids": "0",
        "detoast": "length(c.search_vector)",
        "rank": "ts_rank(c.search_vector, q.query)",
        "ts_rank_cd": "ts_rank_cd(c.search_vector, q.query)",
        "ids, no GIN": "0",
        "rank, no GIN": "ts_rank(c.search_vector, q.query)",
    }
    samples: dict[str, list[float]] = {name: [] for name in variants}
    for round_no in range(rounds + 1):
        names = list(variants)
        names = names[round_no % len(names) :] + names[: round_no % len(names)]
        for name in names:
            expr = variants[name]
            # "no GIN": the match as an expression the GIN index cannot serve, so the rows come from the
            # owner index (or a scan) and @@ is checked on each.
            match = "(c.search_vector @@ q.query) IS TRUE" if "no GIN" in name else "c.search_vector @@ q.query"
            sql = (
                f"SELECT COUNT(*), SUM(x) FROM (SELECT {tsquery_sql()} AS query) AS q"  # noqa: S608 (bench SQL)
                f" CROSS JOIN LATERAL (SELECT c.id, {expr} AS x FROM recall_chunks c"
                f" WHERE {match} AND {where} LIMIT %s) AS m"
            )
            args = [tsquery_param(query), *params, selectors.FTS_CANDIDATE_CAP]
            t0 = time.perf_counter()
            with connection.cursor() as cursor:
                cursor.execute(sql, args)
                cursor.fetchone()
            if round_no:
                samples[name].append(time.perf_counter() - t0)
    return {name: percentile(values, 50) * 1000 for name, values in samples.items()}


def question_matches(user, queries: list[str]) -> list[int]:
    """Readable rows each question's OR query matches, counted up to FTS_CANDIDATE_CAP + 1."""
    from django.db import connection

    from recall import selectors

    where, params = selectors.SearchScope(user.pk).sql()
    out = []
    with connection.cursor() as cursor:
        for query in queries:
            cursor.execute(
                f"SELECT COUNT(*) FROM (SELECT {tsquery_sql()} AS query) AS q"  # noqa: S608 (bench SQL)
                f" CROSS JOIN LATERAL (SELECT 1 FROM recall_chunks c WHERE c.search_vector @@ q.query AND {where}"
                " LIMIT %s) AS m",
                [tsquery_param(query), *params, selectors.FTS_CANDIDATE_CAP + 1],
            )
            out.append(cursor.fetchone()[0])
    return out


def keyword_matches(user, query: str) -> tuple[int, int]:
    """(rows the trader can read that match the OR query, rows in the table that match)."""
    from django.db import connection

    from recall import selectors

    where, params = selectors.SearchScope(user.pk).sql()
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT COUNT(*) FILTER (WHERE {where}), COUNT(*) FROM recall_chunks c"  # noqa: S608 (bench SQL)
            f" WHERE c.search_vector @@ {tsquery_sql()}",
            [*params, tsquery_param(query)],
        )
        return cursor.fetchone()


def uncapped_keyword_ms(user, query: str, calls: int = 5) -> float:
    from recall import selectors

    saved = selectors.FTS_CANDIDATE_CAP
    selectors.FTS_CANDIDATE_CAP = 10**9
    try:
        call = keyword_call(user, query)
        call()
        samples = []
        for _ in range(calls):
            t0 = time.perf_counter()
            call()
            samples.append(time.perf_counter() - t0)
    finally:
        selectors.FTS_CANDIDATE_CAP = saved
    return percentile(samples, 50)


# -- plans -----------------------------------------------------------------------------------------------

_NODE = re.compile(r"->\s+([A-Za-z ]+?)(?: using (\w+))?(?: on (\w+)(?: \w+)?)?\s+\(")


def plan_summary(lines: list[str]) -> str:
    nodes = []
    first = re.match(r"\s*([A-Za-z ]+?)\s+\(", lines[0])
    if first:
        nodes.append(first.group(1))
    for line in lines[1:]:
        m = _NODE.search(line)
        if m:
            nodes.append(
                m.group(1) + (f" {m.group(2)}" if m.group(2) else "") + (f" {m.group(3)}" if m.group(3) else "")
            )
    buffers = next((line.strip() for line in lines if "Buffers:" in line), "")
    total = next((line.split(":")[1].strip() for line in lines if line.startswith("Execution Time")), "?")
    return f"{total}; {' > '.join(nodes)}; {buffers}"


_VECTOR_LITERAL = re.compile(r"'\[[-0-9.e,]+\]'")
_ID_LIST = re.compile(r"'\{([0-9,]+)\}'")


def shorten(line: str) -> str:
    """A plan line with the query vector and long id lists elided."""
    line = _VECTOR_LITERAL.sub("'[query vector]'", line)
    return _ID_LIST.sub(lambda m: f"'{{{m.group(1).count(',') + 1} ids}}'", line)


def statements_of(call: Callable[[], object]) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as ctx:
        call()
    return [q["sql"] for q in ctx.captured_queries]


def explain_statements(sqls: list[str]) -> dict[str, list[str]]:
    """EXPLAIN (ANALYZE, BUFFERS) of each statement a search sent, by kind; SET LOCAL replayed first."""
    from django.db import connection, transaction

    out, pending_set = {}, None
    for sql in sqls:
        kind = statement_kind(sql)
        if kind == "set":
            pending_set = sql
            continue
        if kind not in ("kw", "count", "hnsw", "exact", "load"):
            continue
        with transaction.atomic():
            if pending_set and kind == "hnsw":
                with connection.cursor() as cursor:
                    cursor.execute(pending_set)
            out[kind] = explain(sql)
    return out


# -- output ----------------------------------------------------------------------------------------------


def print_state_table(state: State, results: dict[str, Measured], floor: float) -> None:
    headers = [
        "label", "plan", "p50", "p95", "p99", "mean", "x floor p50", "kw", "count", "vector", "load", "rest", "short",
    ]  # fmt: skip
    rows = []
    for label, m in results.items():
        p50 = percentile(m.seconds, 50)
        vector = m.stat("hnsw") + m.stat("exact") + m.stat("set")
        rest = [total - sum(s for _, s in call) for total, call in zip(m.seconds, m.statements, strict=True)]
        rows.append(
            [
                label, m.plans(), *timing_cells(m.seconds), f"{p50 / floor:.0f}x",
                ms(m.stat("kw")), ms(m.stat("count")), ms(vector), ms(m.stat("load")), ms(percentile(rest, 50)),
                m.short() if any(hasattr(o, "hits") for o in m.outcomes) else "",
            ]
        )  # fmt: skip
    print_table(headers, rows)


# -- main ------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100, help="timed rounds per state (each label once a round)")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--sizes", default="10000,100000", help="table sizes, comma-separated")
    parser.add_argument("--pool", type=int, default=2000, help="real chunk embeddings the vectors are drawn from")
    parser.add_argument("--pool-budget", type=float, default=150.0, help="seconds a run may spend adding to the pool")
    parser.add_argument("--noise", type=float, default=0.025, help="gaussian sigma per dimension of the copies")
    parser.add_argument("--explain", action="store_true", help="full plans for every state (default: 100k states)")
    args = parse_args(parser, argv, SMOKE)
    sizes = [int(s) for s in args.sizes.split(",")]
    run_started = time.perf_counter()

    with BenchRun("recall_latency") as run:
        from django.conf import settings
        from django.db import connection

        from recall import selectors, services
        from recall.embeddings import get_embedder

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT version(), (SELECT extversion FROM pg_extension WHERE extname = 'vector'),"
                " current_setting('shared_buffers'), current_setting('max_parallel_maintenance_workers')"
            )
            pg_version, vector_version, shared_buffers, parallel = cursor.fetchone()
        print(
            f"database {run.database}: {pg_version.split(' on ')[0]}, pgvector {vector_version}, shared_buffers"
            f" {shared_buffers}, max_parallel_maintenance_workers {parallel}; {os.cpu_count()} CPUs, load average"
            f" {' '.join(f'{x:.1f}' for x in os.getloadavg())} (shared machine: read the ratios)"
        )
        print(
            f"settings: RECALL_EXACT_SCAN_MAX {settings.RECALL_EXACT_SCAN_MAX:,}, FTS_CANDIDATE_CAP"
            f" {selectors.FTS_CANDIDATE_CAP:,}, HNSW_EF_SEARCH_MAX {selectors.HNSW_EF_SEARCH_MAX:,}, k {K}, search"
            f" fetch {max(K * 4, 40)} a side"
        )

        # -- embeddings: the model, the queries, the pool ---------------------------------------------------
        embedder = get_embedder()
        t0 = time.perf_counter()
        embedder.load()
        load_s = time.perf_counter() - t0
        vectors, first_s = {}, []
        for query in QUERIES:
            t0 = time.perf_counter()
            vectors[query] = embedder.embed([query])[0].tolist()
            first_s.append(time.perf_counter() - t0)
        query_s = []
        for _ in range(2):
            for query in QUERIES:
                t0 = time.perf_counter()
                embedder.embed([query])
                query_s.append(time.perf_counter() - t0)
        print(
            f"\nembedder {embedder.name}: loaded in {load_s:.2f}s; {len(QUERIES)} queries embedded once"
            f" (first pass, kept: p50 {ms(percentile(first_s, 50))} ms, total {sum(first_s):.2f}s)"
        )
        print(
            f"query embedding latency, each question alone, {len(query_s)} calls: p50 {ms(percentile(query_s, 50))}"
            f" ms, p95 {ms(percentile(query_s, 95))} ms, p99 {ms(percentile(query_s, 99))} ms"
        )
        vocab = Vocabulary()
        t0 = time.perf_counter()
        pool = real_pool(embedder, vocab, args.pool, args.pool_budget)
        print(
            f"vector pool: {len(pool.vectors):,} real chunk embeddings ({pool.cached:,} cached by earlier runs,"
            f" {pool.computed:,} computed now in {time.perf_counter() - t0:.1f}s; goal {args.pool:,})"
        )
        if pool.batch_seconds:
            seconds, windows = sum(pool.batch_seconds), sum(pool.batch_windows)
            print(
                f"  model throughput on those batches of 32: {pool.computed / seconds:.1f} chunks/s,"
                f" {windows / seconds:.1f} windows/s ({windows / pool.computed:.2f} windows of <= 254 word pieces"
                " per chunk)"
            )
        if len(pool.vectors) < len(TOPIC_NAMES):
            print("benchmark failed: the pool has fewer vectors than topics", file=sys.stderr)
            return 1
        rng = np.random.default_rng(5)
        topics = rng.integers(len(TOPIC_NAMES), size=400)
        copies = noisy_copies(pool.vectors, topics, rng, args.noise)
        n_pool = len(pool.vectors)
        same = [
            float(pool.vectors[i] @ pool.vectors[j])
            for i in range(min(n_pool, 240))
            for j in range(i + len(TOPIC_NAMES), min(n_pool, 240), len(TOPIC_NAMES))
        ]
        other = [float(pool.vectors[i] @ pool.vectors[i + 1]) for i in range(min(n_pool - 1, 240))]
        twins = [float(a @ b) for a, b in zip(copies[::2], copies[1::2], strict=True)]
        print(
            f"  copies: pool vector + N(0, {args.noise}) per dimension, re-normalised. Mean cosine: real pool pairs,"
            f" same topic {np.mean(same):.3f}, neighbouring topics {np.mean(other):.3f}; copies of random topics"
            f" {np.mean(twins):.3f}; expected: a copy to its pool vector {1 / math.sqrt(1 + 384 * args.noise**2):.3f},"
            f" two copies of one pool vector {1 / (1 + 384 * args.noise**2):.3f}"
        )

        definitions = index_definitions()
        states = []
        for size in sizes:
            states.append(State(f"{size // 1000}k single", size, True, [size]))
            measured = [size // 200, size // 50, size // 20] + ([20_000] if size >= 100_000 else [])
            states.append(State(f"{size // 1000}k many", size, False, measured))

        summary: dict[str, dict] = {}
        sweep_points: list[dict] = []
        for state in states:
            print(f"\n=== {state.name}: {state.total:,} chunks", end="")
            print(
                ", all one trader's"
                if state.single
                else f", {N_OWNERS} owners + {GLOBAL_CHUNKS} global chunks;"
                f" measured traders of {', '.join(f'{s:,}' for s in state.measured)} chunks"
            )
            seed_state(state, vocab, pool.vectors, args.noise, definitions)
            s = state.seed_s
            print(
                f"seeded in {s['total']:.1f}s: texts {s['text']:.1f}s, vectors {s['vectors']:.1f}s, COPY (tsvector"
                f" generated) {s['copy']:.1f}s; index builds: HNSW {s['recall_chunk_embedding']:.1f}s, GIN"
                f" {s['recall_chunk_fts']:.1f}s, btrees {s['recall_chunk_owner'] + s['recall_chunk_document']:.1f}s;"
                f" VACUUM ANALYZE + CHECKPOINT {s['vacuum']:.1f}s"
            )
            print(
                f"  table {state.table['table']} (TOAST included), HNSW index {state.table['hnsw']}, GIN"
                f" {state.table['gin']}; {state.table['documents']} documents; {state.table['tokens']} tokens a chunk"
                " on average"
            )

            if state.single and state.total == 10_000:
                proxy = TimedEmbedder(embedder)
                batch_s = []
                for _ in range(PENDING // services.EMBED_BATCH):
                    t0 = time.perf_counter()
                    services.embed_pending(embedder=proxy, max_batches=1)
                    batch_s.append(time.perf_counter() - t0)
                n = PENDING
                print(
                    f"indexing throughput, services.embed_pending on {n} pending chunks, {len(batch_s)} batches of"
                    f" {services.EMBED_BATCH}: {n / sum(batch_s):.1f} chunks/s end to end (p50 batch"
                    f" {ms(percentile(batch_s, 50))} ms), model alone {n / sum(proxy.seconds):.1f} chunks/s,"
                    f" {sum(proxy.windows) / sum(proxy.seconds):.1f} windows/s"
                    f" ({sum(proxy.windows) / n:.2f} windows, {sum(proxy.pieces) / n:.0f} word pieces per chunk"
                    f" of ~{state.table['tokens']} chunking tokens); DB part"
                    f" {(sum(batch_s) - sum(proxy.seconds)) / len(batch_s) * 1000:.0f} ms a batch"
                )

            main_sizes = state.measured if state.single else [m for m in state.measured if m <= state.total // 20]
            calls: dict[str, Callable[[], object]] = {"floor": floor_call()}
            eligibility = {}
            for size in state.measured:
                user = state.owners[size]
                eligibility[size] = hnsw_eligible(user)
                readable, total, over_fetch, eligible = eligibility[size]
                calls[f"{size:,} exact"] = search_call(user, list(QUERIES), vectors, 10**9)
                if eligible:
                    calls[f"{size:,} hnsw"] = search_call(user, list(QUERIES), vectors, 0)
                elif state.total >= 100_000:
                    calls[f"{size:,} hnsw@1000"] = raw_hnsw_call(user, list(QUERIES), vectors, 1000)
                # Row-level security's cost: the same search as the app role (RLS) and as the owner (none).
                calls[f"{size:,} as owner"] = role_search_call(user, list(QUERIES), vectors, _owner_role())
                calls[f"{size:,} as app (RLS)"] = role_search_call(user, list(QUERIES), vectors, APP_ROLE)
            main_user = state.owners[main_sizes[len(main_sizes) // 2]]
            main_label = f"{main_sizes[len(main_sizes) // 2]:,}"
            calls[f"{main_label} +embed"] = search_call(main_user, list(QUERIES), vectors, None, embedder=embedder)
            calls[f"{main_label} kw common"] = keyword_call(main_user, COMMON_QUERY)
            rare_terms = " ".join(vocab.tail[3000:3002])
            calls[f"{main_label} kw rare"] = keyword_call(main_user, rare_terms)
            t0 = time.perf_counter()
            results = measure(calls, args.rounds, args.warmup)
            floor = percentile(results["floor"].seconds, 50)
            print(
                f"\n{args.rounds} rounds x {len(calls)} labels, interleaved, in {time.perf_counter() - t0:.1f}s (load"
                f" average {os.getloadavg()[0]:.1f}); ms; kw/count/vector/load: p50 of the statements (keyword,"
                " readable_chunk_counts, vector incl. SET LOCAL, loading candidates); rest: p50 of the call minus its"
                " statements (Python: fusion, snippets, vector literals; the embedding for +embed); short: searches"
                " with != k hits"
            )
            print_state_table(state, results, floor)
            for size in state.measured:
                readable, total, over_fetch, eligible = eligibility[size]
                default = "exact" if readable <= settings.RECALL_EXACT_SCAN_MAX or not eligible else "hnsw"
                print(
                    f"  {size:,}: readable {readable:,} of {total:,} ({readable / total:.1%});"
                    f" over-fetch {over_fetch:,}"
                    + (
                        f" -> HNSW eligible; default ({settings.RECALL_EXACT_SCAN_MAX:,}) picks {default}"
                        if eligible
                        else f" > {selectors.HNSW_EF_SEARCH_MAX} -> exact whatever RECALL_EXACT_SCAN_MAX says"
                    )
                )
            summary[state.name] = {"results": results, "eligibility": eligibility, "main": main_sizes}

            # Ratios.
            print()
            for size in state.measured:
                exact = results[f"{size:,} exact"].seconds
                if f"{size:,} hnsw" in results:
                    hnsw = results[f"{size:,} hnsw"].seconds
                    print(
                        f"  {size:,}: hnsw / exact  p50 {percentile(hnsw, 50) / percentile(exact, 50):.2f}"
                        f"  p95 {percentile(hnsw, 95) / percentile(exact, 95):.2f}"
                    )
            for size in state.measured:
                owner_s, rls_s = results[f"{size:,} as owner"].seconds, results[f"{size:,} as app (RLS)"].seconds
                p50 = percentile(rls_s, 50) / percentile(owner_s, 50)
                p95 = percentile(rls_s, 95) / percentile(owner_s, 95)
                print(f"  {size:,}: RLS / no RLS (default settings)  p50 {p50:.2f}  p95 {p95:.2f}")
            common = results[f"{main_label} kw common"].seconds
            rare = results[f"{main_label} kw rare"].seconds
            print(
                f"  {main_label}: kw common / kw rare  p50 {percentile(common, 50) / percentile(rare, 50):.1f}"
                f"  p95 {percentile(common, 95) / percentile(rare, 95):.1f}"
            )

            # Untimed: recall, keyword matches, the uncapped keyword side.
            print(
                "\nHNSW against the exact answer, the 50 questions, untimed (recall@10: top-10 overlap of the vector"
                " side, limit 40 as search asks; lost: mean top-10 cosine the HNSW answer gives up):"
            )
            for size in state.measured:
                user = state.owners[size]
                readable, total, over_fetch, eligible = eligibility[size]
                reference = exact_reference(user, list(QUERIES), vectors)
                point = {"state": state.name, "size": size, "readable": readable}
                ef_used = selectors.hnsw_ef_search(over_fetch)
                if eligible:
                    r = recall_check(user, list(QUERIES), vectors, reference)
                    print(
                        f"  {size:,} search with RECALL_EXACT_SCAN_MAX=0 (ef_search {ef_used}): recall@10"
                        f" {r['recall']:.3f} (worst question {r['recall_min']:.1f}), lost {r['lost']:.4f}, fused hits"
                        f" overlap {r['hits']:.3f}; fell back to exact {r['fallbacks']}/{len(QUERIES)}; fewest rows"
                        f" back {r['rows_min']} of 40"
                    )
                    point.update(r)
                    point["ef_used"] = ef_used
                    point["hnsw_p95"] = percentile(results[f"{size:,} hnsw"].seconds, 95) * 1000
                    point["hnsw_vec"] = results[f"{size:,} hnsw"].stat("hnsw", 95) * 1000
                    point["hnsw_vec50"] = results[f"{size:,} hnsw"].stat("hnsw", 50) * 1000
                efs = sorted({ef_used, 200, 400, 1000}) if eligible else [1000]
                if eligible or state.total >= 100_000:
                    for ef in efs:
                        r = raw_recall(user, list(QUERIES), vectors, ef, reference)
                        print(
                            f"  {size:,} HNSW statement at ef_search = over-fetch = {ef}: p50 {r['p50']:.2f} ms, p95"
                            f" {r['p95']:.2f} ms; rows kept p50 {r['rows_p50']:.0f} (fewest {r['rows_min']}) of 40;"
                            f" recall@10 {r['recall']:.3f}, lost {r['lost']:.4f}"
                        )
                        point.setdefault("efs", []).append((ef, r))
                else:
                    print(f"  {size:,}: not eligible (over-fetch {over_fetch:,} > 1000): exact")
                point["exact_p95"] = percentile(results[f"{size:,} exact"].seconds, 95) * 1000
                point["exact_p50"] = percentile(results[f"{size:,} exact"].seconds, 50) * 1000
                point["exact_vec"] = results[f"{size:,} exact"].stat("exact", 95) * 1000
                point["exact_vec50"] = results[f"{size:,} exact"].stat("exact", 50) * 1000
                sweep_points.append(point)
            readable_common, table_common = keyword_matches(main_user, COMMON_QUERY)
            readable_rare, table_rare = keyword_matches(main_user, rare_terms)
            uncapped = uncapped_keyword_ms(main_user, COMMON_QUERY)
            matched = question_matches(main_user, list(QUERIES))
            capped = sum(1 for n in matched if n > selectors.FTS_CANDIDATE_CAP)
            print(
                f"\nkeyword side for {main_label}: common {COMMON_QUERY!r} matches {readable_common:,} readable rows"
                f" ({table_common:,} in the table), rare {rare_terms!r} {readable_rare:,} ({table_rare:,}); the 50"
                f" questions match p50 {percentile(matched, 50):,.0f} readable rows, {capped} of them more than"
                f" FTS_CANDIDATE_CAP {selectors.FTS_CANDIDATE_CAP:,}. Common: capped p50 {ms(percentile(common, 50))}"
                f" ms vs uncapped {ms(uncapped)} ms (5 calls, not interleaved)"
            )
            median_question = sorted(zip(matched, QUERIES, strict=True))[len(QUERIES) // 2][1]
            for label, text in (("common", COMMON_QUERY), (f"median question {median_question!r}", median_question)):
                split = keyword_cost_split(main_user, text)
                print(
                    f"  where the keyword statement's time goes ({label}, the capped inner scan, p50 of 7): matching"
                    f" ids {split['ids']:.2f} ms, + detoast search_vector {split['detoast']:.2f} ms, + ts_rank"
                    f" {split['rank']:.2f} ms (ts_rank_cd instead: {split['ts_rank_cd']:.2f} ms); without the GIN index"
                    f" (owner index or scan, @@ checked per row): ids {split['ids, no GIN']:.2f} ms, + ts_rank"
                    f" {split['rank, no GIN']:.2f} ms"
                )

            # Plans.
            full = args.explain or state.total >= 100_000
            print(
                f"\nEXPLAIN (ANALYZE, BUFFERS), trader {main_label}, the median question"
                + ("" if full else " (summary)")
            )
            query = median_question
            plans = {}
            for force in (10**9, 0):
                with exact_max(force):
                    sqls = statements_of(
                        lambda q=query, u=main_user: selectors.search(
                            user=u, query=q, k=K, now=NOW, query_embedding=vectors[q]
                        )
                    )
                for kind, lines in explain_statements(sqls).items():
                    plans.setdefault(kind if kind != "kw" else "kw (question)", lines)
            common_sql = statements_of(calls[f"{main_label} kw common"])
            plans["kw (common)"] = explain_statements(common_sql).get("kw", ["?"])
            for kind, lines in plans.items():
                print(f"  {kind}: {plan_summary(lines)}")
                if full:
                    for line in map(shorten, lines):
                        print(f"      {line}")

        # -- across states ----------------------------------------------------------------------------------
        print("\n=== summary (search, embedding excluded; default settings pick the plan per trader) ===")
        goal_rows = []
        for state in states:
            info = summary[state.name]
            for size in info["main"] if not state.single else state.measured:
                readable, total, over_fetch, eligible = info["eligibility"][size]
                plan = "hnsw" if eligible and readable > settings.RECALL_EXACT_SCAN_MAX else "exact"
                m = info["results"][f"{size:,} {plan}"]
                p95 = percentile(m.seconds, 95) * 1000
                no_kw = [
                    total - sum(s for k, s in call if k == "kw")
                    for total, call in zip(m.seconds, m.statements, strict=True)
                ]
                goal_rows.append(
                    [
                        state.name, f"{size:,}", f"{readable / total:.1%}", plan, *timing_cells(m.seconds),
                        ms(percentile(no_kw, 50)), ms(percentile(no_kw, 95)),
                    ]
                )  # fmt: skip
                print(ratio_line(f"{state.name}, trader {size:,} ({plan}) p95", p95, GOAL_MS, " ms"))
        print()
        print_table(
            ["state", "trader", "share", "plan", "p50", "p95", "p99", "mean", "p50 w/o kw stmt", "p95 w/o kw stmt"],
            goal_rows,
        )
        print("\nwith the query embedded inside search (embedder=, default settings):")
        for state in states:
            label = next(label for label in summary[state.name]["results"] if label.endswith("+embed"))
            m = summary[state.name]["results"][label]
            print(f"  {state.name} {label}: {' / '.join(timing_cells(m.seconds))} ms (p50/p95/p99/mean)")
        by_state = {st.name: summary[st.name]["results"] for st in states}
        if len(sizes) > 1:
            small, big = sizes[0] // 1000, sizes[-1] // 1000
            for label_small, label_big, what in (
                (f"{sizes[0]:,} exact", f"{sizes[-1]:,} exact", "single, exact"),
                (f"{sizes[0]:,} hnsw", f"{sizes[-1]:,} hnsw", "single, hnsw"),
            ):
                a = by_state[f"{small}k single"].get(label_small)
                b = by_state[f"{big}k single"].get(label_big)
                if a and b:
                    print(
                        f"  {big}k/{small}k {what}: p50 {percentile(b.seconds, 50) / percentile(a.seconds, 50):.2f}x,"
                        f" p95 {percentile(b.seconds, 95) / percentile(a.seconds, 95):.2f}x"
                    )

        print("\n=== RECALL_EXACT_SCAN_MAX ===")
        rows = []
        for p in sweep_points:
            rows.append(
                [
                    p["state"], f"{p['size']:,}", f"{p['readable']:,}", f"{p['exact_p50']:.2f}",
                    f"{p['exact_p95']:.2f}",
                    f"{p['exact_vec50']:.2f}", f"{p['exact_vec']:.2f}",
                    f"{p['hnsw_p95']:.2f}" if "hnsw_p95" in p else "-",
                    f"{p['hnsw_vec50']:.2f}" if "hnsw_vec50" in p else "-",
                    f"{p['recall']:.3f}" if "recall" in p else "-",
                ]
            )  # fmt: skip
        print_table(
            [
                "state", "trader", "readable", "exact p50", "exact p95", "exact stmt p50", "exact stmt p95",
                "hnsw p95", "hnsw stmt p50", "hnsw recall@10",
            ],
            rows,
        )  # fmt: skip
        per_row = {id(p): p["exact_vec50"] / p["readable"] for p in sweep_points}
        print(
            "exact vector statement p50 per readable chunk: "
            + ", ".join(f"{p['state']} {p['size']:,}: {per_row[id(p)] * 1000:.2f} us" for p in sweep_points)
        )
        print(
            "break-even: the readable count whose exact scan (at that table's cost per chunk) costs what the HNSW"
            " statement costs (p50), per HNSW-eligible trader:"
        )
        at_goal, at_best = [], []
        for p in sweep_points:
            if "recall" not in p:
                continue
            cost = per_row[id(p)]
            efs = dict(p.get("efs", []))
            used = efs.get(p["ef_used"])
            reaching = [(ef, r) for ef, r in sorted(efs.items()) if r["recall"] >= RECALL_GOAL and r["rows_min"] >= 40]
            best_ef, best = max(efs.items(), key=lambda item: (item[1]["recall"], -item[0]))
            parts = []
            if used:
                parts.append(
                    f"at the code's ef_search {p['ef_used']}: {used['p50']:.2f} ms, recall {used['recall']:.3f}"
                    f" -> {used['p50'] / cost:,.0f}"
                )
            if reaching:
                ef, r = reaching[0]
                at_goal.append(r["p50"] / cost)
                parts.append(
                    f"recall >= {RECALL_GOAL} from ef_search {ef}: {r['p50']:.2f} ms -> {r['p50'] / cost:,.0f}"
                )
            else:
                at_best.append(best["p50"] / cost)
                parts.append(
                    f"recall never >= {RECALL_GOAL} (best {best['recall']:.3f} at ef_search {best_ef}:"
                    f" {best['p50']:.2f} ms -> {best['p50'] / cost:,.0f})"
                )
            print(f"  {p['state']} {p['size']:,} (exact {p['exact_vec50']:.2f} ms): " + "; ".join(parts))
        min_share = 2 * max(K * 4, 40) / selectors.HNSW_EF_SEARCH_MAX
        print(
            f"RECALL_EXACT_SCAN_MAX is now {settings.RECALL_EXACT_SCAN_MAX:,}; it only decides for traders whose"
            f" over-fetch fits ef_search <= {selectors.HNSW_EF_SEARCH_MAX} (share >= {min_share:.0%} of the table),"
            " the others always scan exactly."
        )
        if at_goal:
            print(
                f"break-even at recall >= {RECALL_GOAL}: {', '.join(f'{x:,.0f}' for x in at_goal)} readable chunks"
                + (
                    f"; where the goal is not reached, at the best recall: {', '.join(f'{x:,.0f}' for x in at_best)}"
                    if at_best
                    else ""
                )
            )
        else:
            print(f"HNSW never reached recall {RECALL_GOAL}: by that criterion keep the exact scan")
        print(f"\ntotal run {time.perf_counter() - run_started:.0f}s")
    return 0


class TimedEmbedder:
    """The embedder with each embed() call timed and its windows counted (services.embed_pending's view)."""

    def __init__(self, inner):
        self.inner = inner
        self.name, self.dimensions = inner.name, inner.dimensions
        self.seconds: list[float] = []
        self.windows: list[int] = []
        self.pieces: list[int] = []

    def embed(self, texts):
        windows = [w for t in texts for w in self.inner.windows(t)]
        self.windows.append(len(windows))
        self.pieces.append(sum(len(w) for w in windows))
        t0 = time.perf_counter()
        out = self.inner.embed(texts)
        self.seconds.append(time.perf_counter() - t0)
        return out


if __name__ == "__main__":
    run_script(main)

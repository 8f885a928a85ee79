"""Situation recall (memory-layer.md phase 3, "have I seen this specific situation before?"): the
text embedded for a trade when it opens, the outcome attached when it closes, the ranking of past
situations, the ``## Similar past situations`` context section, and the in-memory situation memory of
the sim ledger (``SituationMemory``).

Pure (stdlib and pure helpers only): no Django, no I/O, no clock. The embedding only ranks: symbol and side are
matched as structured fields by the query (MiniLM ranks "went short… stopped out" above a
paraphrase of "went long… hit target", so the model is not trusted with them).

Live and sim rank with the same function (``rank_similar``) over the same float32 vectors, so the section is
byte for byte the same for the same tick stream: the similarity is computed here, exactly (``cosine_similarity``),
never taken from the database's vector arithmetic, whose float rounding is not Python's.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import statistics
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Protocol

from ledger.domain import Bar, ClosedTrade, OpenTrade, Tick
from memorysite.text import estimate_tokens, one_line

HEADER = "## Similar past situations"
TOKEN_BUDGET = 500
REASON_CHARS = 160
SUMMARY_CHARS = 240
OUTCOME_CHARS = 200
SITUATIONS_K = 3  # past situations shown per open trade
OPEN_SITUATIONS_MAX = 5  # open trades the section looks up (by symbol)


@dataclass(frozen=True)
class BarStats:
    bars: int
    change_pct: float
    range_pct: float
    volatility_pct: float


def bar_stats(
    closes: Sequence[Decimal | float], highs: Sequence[Decimal | float], lows: Sequence[Decimal | float]
) -> BarStats | None:
    """Statistics of the bar window the runner sent with the opening tick; None when it has fewer
    than 2 finite bars."""
    values = [float(c) for c in closes]
    if len(values) < 2 or not all(math.isfinite(v) and v > 0 for v in values):
        return None
    returns = [math.log(b / a) for a, b in itertools.pairwise(values)]
    high = max(float(h) for h in highs) if highs else max(values)
    low = min(float(x) for x in lows) if lows else min(values)
    return BarStats(
        bars=len(values),
        change_pct=(values[-1] / values[0] - 1) * 100,
        range_pct=(high - low) / values[-1] * 100 if values[-1] else 0.0,
        volatility_pct=statistics.pstdev(returns) * 100,
    )


def situation_summary(
    *, symbol: str, side: str, regime_tag: str | None, entry_reason: str, stats: BarStats | None
) -> str:
    """The text embedded for a trade at open: what the agent saw and why it entered."""
    parts = [f"{side} {symbol}", f"regime {regime_tag or 'unknown'}"]
    if stats is not None:
        parts.append(
            f"last {stats.bars} bars: change {stats.change_pct:+.2f}%, range {stats.range_pct:.2f}%, "
            f"volatility {stats.volatility_pct:.2f}% per bar"
        )
    reason = one_line(entry_reason or "")[:REASON_CHARS]
    if reason:
        parts.append(f"entry reason: {reason}")
    return "; ".join(parts)


def summary_at_open(trade: OpenTrade, bars: Sequence[Bar]) -> str:
    """The summary of a trade opened by a tick, from the trade and that tick's bars of its symbol (the
    live materializer and the sim ledger both call this with the tick they apply)."""
    stats = bar_stats([bar.c for bar in bars], [bar.h for bar in bars], [bar.l for bar in bars])
    return situation_summary(
        symbol=trade.symbol,
        side=trade.side,
        regime_tag=trade.entry_regime_tag,
        entry_reason=trade.entry_reason,
        stats=stats,
    )


def outcome_text(*, realized_pnl_usd: Decimal, holding_minutes: Decimal, exit_reason: str) -> str:
    """How the trade ended, attached at close."""
    verdict = "won" if realized_pnl_usd > 0 else "lost" if realized_pnl_usd < 0 else "flat"
    pnl = f"{'+' if realized_pnl_usd >= 0 else '−'}${abs(realized_pnl_usd):,.2f}"
    minutes = int(holding_minutes)
    reason = one_line(exit_reason or "")[:OUTCOME_CHARS]
    return f"{verdict} {pnl} after {minutes}m" + (f"; exit: {reason}" if reason else "")


@dataclass(frozen=True)
class SimilarSituation:
    entry_tick_at: dt.datetime
    summary: str
    outcome: str
    similarity: float


@dataclass(frozen=True)
class PastSituation:
    """A closed trade's situation as ranking reads it: its embedding as float32 values (Python floats)."""

    entry_tick_at: dt.datetime
    summary: str
    outcome: str
    embedding: Sequence[float]


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float:
    """1 - pgvector's cosine distance, computed exactly: for float32 components every product is exact in
    a double, and ``math.fsum`` rounds each sum once, so the result does not depend on summation order (or
    on the platform), as a database's or numpy's vectorised float sums do. 0.0 for a zero vector."""
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norms = math.fsum(x * x for x in a) * math.fsum(y * y for y in b)
    return dot / math.sqrt(norms) if norms > 0 else 0.0


def ranking_key(situation: SimilarSituation) -> tuple[float, float, str, str]:
    """Most similar first; ties: the newest entry first, then by text (equal keys render equal rows)."""
    return (-situation.similarity, -situation.entry_tick_at.timestamp(), situation.summary, situation.outcome)


def rank_similar(query: Sequence[float], candidates: Iterable[PastSituation], k: int) -> list[SimilarSituation]:
    """The k past situations most similar to ``query``, in ``ranking_key`` order."""
    scored = [
        SimilarSituation(
            entry_tick_at=candidate.entry_tick_at,
            summary=candidate.summary,
            outcome=candidate.outcome,
            similarity=cosine_similarity(query, candidate.embedding),
        )
        for candidate in candidates
    ]
    scored.sort(key=ranking_key)
    return scored[:k]


def render_similar_situations(
    groups: Sequence[tuple[str, Sequence[SimilarSituation]]], *, budget_tokens: int = TOKEN_BUDGET
) -> str | None:
    """``## Similar past situations``: per open position (label), its nearest closed trades, most
    similar first, cut to the token budget line by line. None when nothing was found."""
    lines = [HEADER]
    for label, situations in groups:
        if not situations:
            continue
        heading = f"Now: {one_line(label)[:SUMMARY_CHARS]}"
        rows: list[str] = []
        for situation in situations:
            stamp = situation.entry_tick_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M")
            row = (
                f"- {stamp} (similarity {situation.similarity:.2f}) {one_line(situation.summary)[:SUMMARY_CHARS]}"
                f" → {one_line(situation.outcome)[:OUTCOME_CHARS]}"
            )
            if estimate_tokens("\n".join([*lines, heading, *rows, row])) > budget_tokens:
                break
            rows.append(row)
        if not rows:
            break
        lines += [heading, *rows]
        if len(rows) < len(situations):
            break
    if len(lines) == 1:
        return None
    return "\n".join(lines)


# -- the sim ledger's situation memory ------------------------------------------------------------------


class TextEmbedder(Protocol):
    """What situation memory needs of recall's embedder (recall.embeddings.Embedder): one vector per text."""

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]: ...


def float32_values(vector: Sequence[float]) -> tuple[float, ...]:
    """A vector as the database stores it (float4 components), as Python floats."""
    return tuple(array("f", vector.tolist() if hasattr(vector, "tolist") else vector).tolist())


@dataclass
class _Situation:
    symbol: str
    side: str
    entry_tick_at: dt.datetime
    summary: str
    embedding: tuple[float, ...] | None
    # While open: the best k past situations scored so far, and how many of its (symbol, side) list that covers.
    ranked: list[SimilarSituation] = field(default_factory=list)
    ranked_k: int = 0
    seen: int = 0


class SituationMemory:
    """One deployment's situation memory in process, kept by the sim ledger (``ledger.sim.SimLedger(situations=
    SituationMemory(embedder))``): what the live ledger writes to recall_trade_situations as it materializes a
    tick (recall.receivers), with the same embedder, and the same section read from it (``section``).

    ``record`` is called once per tick with the trades it opened and closed, before the ledger changes its own
    state; it embeds first, so an embedder error changes nothing. Past situations are this memory's own closed
    trades: live, a deployment also recalls the closed trades of the other deployments of its skill."""

    def __init__(self, embedder: TextEmbedder | None):
        self.embedder = embedder
        self._open: dict[str, _Situation] = {}  # by symbol: one open trade per symbol
        self._past: dict[tuple[str, str], list[PastSituation]] = {}  # closed, by (symbol, side), in close order

    def record(self, tick: Tick, *, opened: Sequence[OpenTrade], closed: Sequence[ClosedTrade]) -> None:
        summaries = [summary_at_open(trade, tick.bars.get(trade.symbol, ())) for trade in opened]
        vectors: list[tuple[float, ...] | None] = [None] * len(opened)
        if summaries and self.embedder is not None:
            vectors = [float32_values(vector) for vector in self.embedder.embed(summaries)]
            if len(vectors) != len(summaries):
                raise ValueError(f"the embedder returned {len(vectors)} vectors for {len(summaries)} texts")
        for done in closed:  # a flip closes the old side before it opens the new one
            situation = self._open.pop(done.symbol, None)
            if situation is None or situation.embedding is None:
                continue
            outcome = outcome_text(
                realized_pnl_usd=done.realized_pnl_usd,
                holding_minutes=done.holding_minutes,
                exit_reason=done.exit_reason,
            )
            past = PastSituation(situation.entry_tick_at, situation.summary, outcome, situation.embedding)
            self._past.setdefault((situation.symbol, situation.side), []).append(past)
        for trade, summary, vector in zip(opened, summaries, vectors, strict=True):
            self._open[trade.symbol] = _Situation(trade.symbol, trade.side, trade.entry_tick_at, summary, vector)

    def section(self, *, k: int = SITUATIONS_K) -> str | None:
        """``## Similar past situations`` as of the latest recorded tick: for the open trades with an embedding
        (by symbol, at most OPEN_SITUATIONS_MAX), the k most similar closed ones of the same symbol and side."""
        groups: list[tuple[str, Sequence[SimilarSituation]]] = []
        for symbol in sorted(self._open):
            situation = self._open[symbol]
            if situation.embedding is not None and len(groups) < OPEN_SITUATIONS_MAX:
                groups.append((situation.summary, self._nearest(situation, situation.embedding, k)))
        return render_similar_situations(groups) if groups else None

    def _nearest(self, situation: _Situation, embedding: Sequence[float], k: int) -> list[SimilarSituation]:
        """Past situations only join the list (the sim's clock moves forward), so each is scored once per
        open trade: the best k so far merged with the best k of the newcomers are the best k of all."""
        past = self._past.get((situation.symbol, situation.side), [])
        if situation.ranked_k != k:
            situation.ranked, situation.ranked_k, situation.seen = [], k, 0
        if situation.seen < len(past):
            newcomers = rank_similar(embedding, past[situation.seen :], k)
            situation.ranked = sorted([*situation.ranked, *newcomers], key=ranking_key)[:k]
            situation.seen = len(past)
        return situation.ranked

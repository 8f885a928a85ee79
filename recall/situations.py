"""Situation recall (memory-layer.md phase 3, "have I seen this specific situation before?"): the
text embedded for a trade when it opens, the outcome attached when it closes, and the
``## Similar past situations`` context section.

Pure (stdlib and pure helpers only): no Django, no I/O, no clock. The embedding only ranks: symbol and side are
matched as structured fields by the query (MiniLM ranks "went short… stopped out" above a
paraphrase of "went long… hit target", so the model is not trusted with them).
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from memorysite.text import estimate_tokens, one_line

HEADER = "## Similar past situations"
TOKEN_BUDGET = 500
REASON_CHARS = 160
SUMMARY_CHARS = 240
OUTCOME_CHARS = 200


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

"""The rolling-window risk-state slot: "## Recent activity (this session)" (seed: memory-layer.md).

Pure: stdlib, ledger.domain and memorysite.text only; no Django, no I/O, no clock (``now`` is an argument).
Times are aware datetimes (any offset; windows are computed in UTC); a naive datetime is refused with
ValueError. Money is Decimal and must be finite.

Windows, all closed at ``now`` (anything after ``now`` is ignored everywhere):

- rejections: ``now - OUTCOME_WINDOW < tick_at <= now``;
- executed orders and realized PnL: ``today 00:00 UTC <= t <= now``;
- the losing streak: every closed trade with ``exit_tick_at <= now``, newest exit first.

So callers fetch engine outcomes with ``tick_at >= risk_window_start(now)`` (= min(now - 1h, today 00:00 UTC));
older ones are harmless but unused. Closed trades: at least today's plus enough of the most recent ones to cover
the streak (the streak stops at the first non-losing close).

The rendered text is a contract that runners diff byte for byte; see ``render_recent_activity``.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

from ledger.domain import ClosedTrade
from memorysite.text import estimate_tokens

__all__ = [
    "LOSING_STREAK_HINT_AT",
    "OUTCOME_WINDOW",
    "REPEAT_THRESHOLD",
    "RISK_STATE_TOKEN_CEILING",
    "SECTION_HEADER",
    "SEQUENCE_TAIL",
    "TOP_RULES",
    "UNSPECIFIED_RULE",
    "EngineOutcome",
    "RiskState",
    "aggregate_risk_state",
    "is_empty",
    "render_recent_activity",
    "risk_window_start",
]

SECTION_HEADER = "## Recent activity (this session)"

# The rejection look-back. Callers pass outcomes since risk_window_start(now) = min(now - OUTCOME_WINDOW,
# today 00:00 UTC): the hour covers the rejection counts and the tail, the UTC day the executed-order count.
OUTCOME_WINDOW = dt.timedelta(hours=1)

SEQUENCE_TAIL = 4  # rejection codes kept for the "recent rejection sequence" line (the seed example shows 4)
REPEAT_THRESHOLD = 3  # the nudge needs the last this-many codes equal; never fewer ("never accuses on two")
LOSING_STREAK_HINT_AT = 3  # the regime hint shows from this many consecutive losing closes
TOP_RULES = 5  # the rejection-counts line names at most this many rules, then ", +N more"
UNSPECIFIED_RULE = "UNSPECIFIED"  # the rule a rejection with an empty (or blank) engine_rule counts under

# Documented ceiling for the whole section, by estimate_tokens (ceil(chars / 4)). The full-detail rendering of a
# populated slot can exceed it (5 rule codes of up to 64 chars, 5 codes in the sequence, every hint); the renderer
# then steps down _LEVELS until the text fits. The last level fits with every line populated, every hint shown,
# 64-char (or longer) codes and every count, streak and number of distinct rules below 10**9 (far more outcomes than
# any caller holds in memory); the PnL display is clamped (PNL_DISPLAY_LIMIT).
RISK_STATE_TOKEN_CEILING = 120

PNL_QUANTUM = Decimal("0.01")  # the PnL percentage renders quantized to this with ROUND_HALF_EVEN
PNL_DISPLAY_LIMIT = Decimal("99999.99")  # beyond +/- this the line shows ">+99999.99%" / "<-99999.99%"

_ARROW = " → "
_NUDGE = " ← same code in the last 3+ rejections; do not repeat the same proposal shape"
_STREAK_HINT = " (consider whether your read of the regime still holds)"
_ELLIPSIS = "…"

# (rules named in the counts line, codes shown in the sequence, max chars per displayed code), most detailed first.
# Level 0 is the seed's format; codes longer than the level's width are cut to width - 1 chars + "…".
_LEVELS: tuple[tuple[int, int, int], ...] = (
    (TOP_RULES, SEQUENCE_TAIL, 64),
    (TOP_RULES, SEQUENCE_TAIL, 24),
    (3, SEQUENCE_TAIL, 24),
    (3, 4, 24),
    (2, REPEAT_THRESHOLD, 24),
    (1, REPEAT_THRESHOLD, 20),
    (1, REPEAT_THRESHOLD, 15),  # 15: the seed's R3_POSITION_CAP stays whole at every level
)

# A fixed decimal context, so the percentage does not depend on the caller's thread-local context.
_DECIMAL_CONTEXT = Context(prec=28, rounding=ROUND_HALF_EVEN)


@dataclass(frozen=True)
class EngineOutcome:
    """One tick's risk-engine result, as a decision snapshot (live) or the engine-tick ring (sim) records it."""

    tick_at: dt.datetime
    engine_kind: str  # "executed" | "rejected" | "skipped" | ""
    engine_rule: str  # e.g. "R3_POSITION_CAP"; may be ""


@dataclass(frozen=True)
class RiskState:
    """The aggregate the slot renders. Rule codes are whitespace-normalized (see aggregate_risk_state)."""

    rejections_last_hour: tuple[tuple[str, int], ...]  # (rule, count), count desc then rule asc
    recent_rejection_codes: tuple[str, ...]  # the last <= SEQUENCE_TAIL rejection codes of the hour, oldest first
    executed_orders_today: int
    realized_pnl_today_pct: Decimal | None  # unrounded; None without a positive finite day-start equity
    consecutive_losing_closes: int


def risk_window_start(now: dt.datetime) -> dt.datetime:
    """The earliest tick_at the caller must fetch outcomes from: min(now - 1h, today 00:00 UTC), in UTC."""
    now_utc = _utc(now, "now")
    return min(now_utc - OUTCOME_WINDOW, _day_start(now_utc))


def aggregate_risk_state(
    *,
    now: dt.datetime,
    outcomes: Sequence[EngineOutcome],
    closed_trades: Sequence[ClosedTrade],
    day_start_equity_usd: Decimal | None,
) -> RiskState:
    """The risk state at ``now``. Outcomes with equal tick_at keep their input order (the caller's event order)."""
    now_utc = _utc(now, "now")
    hour_start = now_utc - OUTCOME_WINDOW
    day_start = _day_start(now_utc)
    for outcome in outcomes:
        _utc(outcome.tick_at, "EngineOutcome.tick_at")
    for trade in closed_trades:
        _utc(trade.exit_tick_at, "ClosedTrade.exit_tick_at")
        _utc(trade.entry_tick_at, "ClosedTrade.entry_tick_at")
        if not trade.realized_pnl_usd.is_finite():
            raise ValueError(f"ClosedTrade.realized_pnl_usd must be finite, got {trade.realized_pnl_usd!r}")

    rejected = [
        _normalized_rule(o.engine_rule)
        for o in sorted(outcomes, key=lambda o: o.tick_at)
        if o.engine_kind == "rejected" and hour_start < o.tick_at <= now_utc
    ]
    counts = sorted(Counter(rejected).items(), key=lambda item: (-item[1], item[0]))
    executed = sum(1 for o in outcomes if o.engine_kind == "executed" and day_start <= o.tick_at <= now_utc)

    closed = [t for t in closed_trades if t.exit_tick_at <= now_utc]
    today = [t.realized_pnl_usd for t in closed if t.exit_tick_at >= day_start]
    return RiskState(
        rejections_last_hour=tuple(counts),
        recent_rejection_codes=tuple(rejected[-SEQUENCE_TAIL:]),
        executed_orders_today=executed,
        realized_pnl_today_pct=_pnl_pct(today, day_start_equity_usd),
        consecutive_losing_closes=_losing_streak(closed),
    )


def render_recent_activity(state: RiskState) -> str | None:
    """The slot's text, or None when every line is omitted (the section is suppressed).

    Lines joined with "\\n", no trailing newline, in this order, each only when it has something to say:

        ## Recent activity (this session)
        - engine rejections (last 1h): R3_POSITION_CAP=4, R6_RATE_LIMIT=1
        - recent rejection sequence: R3_POSITION_CAP → R3_POSITION_CAP → R3_POSITION_CAP ← same code in ...
        - executed orders today (UTC): 2
        - realized PnL today (UTC, vs day-start equity): -1.23%
        - consecutive losing closes: 3 (consider whether your read of the regime still holds)

    Deterministic in the state. When the full rendering exceeds RISK_STATE_TOKEN_CEILING it steps down _LEVELS
    (fewer rules named, shorter sequence, shorter codes) and returns the first level that fits.
    """
    text = None
    for level in _LEVELS:
        lines = _lines(state, *level)
        if not lines:
            return None
        text = "\n".join([SECTION_HEADER, *lines])
        if estimate_tokens(text) <= RISK_STATE_TOKEN_CEILING:
            return text
    return text


def is_empty(state: RiskState) -> bool:
    """True when the section is suppressed: nothing to say (render_recent_activity returns None)."""
    return not _lines(state, *_LEVELS[0])


# Helpers ------------------------------------------------------------------------------------------------------


def _utc(value: dt.datetime, name: str) -> dt.datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{name} must be timezone-aware, got {value!r}")
    return value.astimezone(dt.UTC)


def _day_start(now_utc: dt.datetime) -> dt.datetime:
    return now_utc.replace(hour=0, minute=0, second=0, microsecond=0)


def _normalized_rule(rule: str) -> str:
    """Whitespace runs (line breaks included) collapse to one space; an empty or blank rule is UNSPECIFIED."""
    return " ".join(rule.split()) or UNSPECIFIED_RULE


def _pnl_pct(pnls: Iterable[Decimal], day_start_equity_usd: Decimal | None) -> Decimal | None:
    if day_start_equity_usd is None or not day_start_equity_usd.is_finite() or day_start_equity_usd <= 0:
        return None
    with localcontext(_DECIMAL_CONTEXT):
        return sum(pnls, Decimal(0)) / day_start_equity_usd * 100


def _losing_streak(closed: Iterable[ClosedTrade]) -> int:
    """Leading losing closes, newest exit first; ties by entry, symbol, side, PnL (all descending)."""
    newest_first = sorted(
        closed,
        key=lambda t: (t.exit_tick_at, t.entry_tick_at, t.symbol, t.side, t.realized_pnl_usd),
        reverse=True,
    )
    streak = 0
    for trade in newest_first:
        if trade.realized_pnl_usd >= 0:
            break
        streak += 1
    return streak


def _lines(state: RiskState, top_rules: int, tail_codes: int, code_chars: int) -> list[str]:
    lines = []
    if state.rejections_last_hour:
        named = [f"{_code(rule, code_chars)}={count}" for rule, count in state.rejections_last_hour[:top_rules]]
        more = len(state.rejections_last_hour) - top_rules
        if more > 0:
            named.append(f"+{more} more")
        lines.append("- engine rejections (last 1h): " + ", ".join(named))
    codes = state.recent_rejection_codes[-SEQUENCE_TAIL:]
    if len(codes) >= 2:
        shown = _ARROW.join(_code(code, code_chars) for code in codes[-tail_codes:])
        last = codes[-REPEAT_THRESHOLD:]
        repeated = len(last) == REPEAT_THRESHOLD and len(set(map(_normalized_rule, last))) == 1
        lines.append("- recent rejection sequence: " + shown + (_NUDGE if repeated else ""))
    if state.executed_orders_today > 0:
        lines.append(f"- executed orders today (UTC): {state.executed_orders_today}")
    pnl = _pnl_text(state.realized_pnl_today_pct)
    if pnl is not None:
        lines.append(f"- realized PnL today (UTC, vs day-start equity): {pnl}")
    if state.consecutive_losing_closes > 0:
        hint = _STREAK_HINT if state.consecutive_losing_closes >= LOSING_STREAK_HINT_AT else ""
        lines.append(f"- consecutive losing closes: {state.consecutive_losing_closes}{hint}")
    return lines


def _code(rule: str, width: int) -> str:
    rule = _normalized_rule(rule)
    return rule if len(rule) <= width else rule[: width - 1] + _ELLIPSIS


def _pnl_text(pct: Decimal | None) -> str | None:
    """Signed, two decimals, ROUND_HALF_EVEN ("+0.45%", "-1.23%"); None when absent or it rounds to 0.00."""
    if pct is None or not pct.is_finite():
        return None
    if pct > PNL_DISPLAY_LIMIT:
        return f">+{PNL_DISPLAY_LIMIT}%"
    if pct < -PNL_DISPLAY_LIMIT:
        return f"<-{PNL_DISPLAY_LIMIT}%"
    with localcontext(_DECIMAL_CONTEXT):
        rounded = pct.quantize(PNL_QUANTUM, rounding=ROUND_HALF_EVEN)
    if rounded == 0:
        return None
    return f"{rounded:+.2f}%"

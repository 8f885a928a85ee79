"""Deterministic renderers for the memory sections of the agent's per-tick context.

Pure: stdlib, ``ledger.domain``, ``ledger.risk_state`` and ``memorysite.text`` (estimate_tokens and the
prompt-text rule, replace_unsafe) (all pure) only. No Django, no I/O, no clock (``now`` is an argument).
Port of the seed's ``assembleContext()`` memory sections (memory-layer.md, "Context injection"
and "Token budget"). The rendered text is a contract that runners diff byte for byte, so every
rule below is exact. Sections are lines joined by ``"\\n"`` with no trailing newline; a section
with no rows is ``None`` (suppressed).

Sections::

    ## Last decision
    - 2026-06-04T10:00Z propose_order BTC "breakout above prior swing high" → executed

    ## Recent trades on this skill (closed)
    - 2026-06-04T10:00 → 12:30 BTC long $250 65,200 → 65,940 +$28.40 (+11.4%) 120m "breakout above prior swing high"

    ## Open positions (memory view)
    - ETH long $200 @ 3,410 mark=3,438 MFE=+$22 / MAE=-$8 held 30m "BB lower-band bounce"

Number rules (all rounding is ROUND_HALF_EVEN, done in a private Decimal context so the caller's
context never changes the output):

- ``format_price``: see its docstring (tiers by magnitude, thousands separators).
- ``format_usd``: ``$`` amounts with thousands separators; the sign is taken from the *rounded*
  value: negative → ``-$``, positive → ``+$`` only when ``signed``, and a value that rounds to
  zero never carries a sign (``$0``, ``$0.00``).
- Percentages: ``realized_pnl_usd / entry_size_usd × 100``, one decimal, same sign rule
  (``+1.1%``, ``-0.5%``, ``0.0%``), thousands separators; the ``(…%)`` part is omitted when
  ``entry_size_usd`` is not positive (no meaningful base).

Time rules: datetimes are converted to UTC (a naive datetime is taken as UTC) and cut to the
minute (seconds are truncated, not rounded).

Text rules:

- Reasons (``entry_reason``, the proposal's ``reason``): every unsafe character of the service's one
  prompt-text rule (``memorysite.text.replace_unsafe``: Unicode categories Cc, Cf, Cs, Co, Zl, Zp,
  the tag block and the variation selectors supplement) becomes one space (runs are not collapsed),
  ``"`` becomes ``'``, outer whitespace is stripped, and a result longer than ``REASON_MAX_CHARS``
  is cut to ``REASON_MAX_CHARS - 1`` characters plus ``…``. A reason that is empty after this is
  omitted together with its quotes.
- Identifiers (symbol, side, action kind, engine rule, regime tag) get the same unsafe-character
  replacement and stripping and are cut with ``…`` to their ``*_MAX_CHARS``; an identifier that is
  empty after this is omitted from the row.

Token ceilings: ``estimate_tokens`` is the seed's ``ceil(chars / 4)``. The ``*_TOKEN_CEILING``
constants are derived below from the widest string each field can render to, and hold for
inputs in the documented domain: prices in [1e-6, 1e6]; USD amounts (entry size, realized PnL,
MFE, MAE) with absolute value ≤ 1e7; ``|realized / entry size|`` ≤ 100 (±10,000%); holding and
held times ≤ 1e7 minutes; text fields of any length and content (they are cut). The typical
rows of the seed are 30-35 tokens; the ceilings are worst cases (an 80-char reason alone is
20 tokens), so they sit above the seed's "~30 tokens per row".
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, localcontext
from typing import TypedDict

from ledger.domain import ClosedTrade, OpenTrade, Tick
from ledger.memory_view import ContextInputs
from ledger.risk_state import aggregate_risk_state, render_recent_activity
from memorysite.text import (
    estimate_tokens,  # the seed's ceil(chars / 4), shared with the risk-state slot
    replace_unsafe,
)

__all__ = [
    "DEGRADABLE_SECTIONS",
    "LAST_DECISION_HEADER",
    "LAST_DECISION_TOKEN_CEILING",
    "LESSONS_KEY",
    "OPEN_POSITIONS_HEADER",
    "OPEN_POSITIONS_MAX_ROWS",
    "OPEN_POSITIONS_ROW_TOKEN_CEILING",
    "OPEN_POSITIONS_TOKEN_CEILING",
    "REASON_MAX_CHARS",
    "RECENT_TRADES_HEADER",
    "RECENT_TRADES_K_MAX",
    "RECENT_TRADES_K_MIN",
    "RECENT_TRADES_ROW_TOKEN_CEILING",
    "SECTION_KEYS",
    "MemoryContext",
    "assemble_context",
    "clamp_recent_trades_k",
    "format_price",
    "format_usd",
    "memory_block_token_ceiling",
    "recent_trades_token_ceiling",
    "render_last_decision",
    "render_open_positions",
    "render_recent_trades",
]

RECENT_TRADES_K_MIN = 1
RECENT_TRADES_K_MAX = 30  # the seed's schema cap on memory.recentTradesK
REASON_MAX_CHARS = 80
SYMBOL_MAX_CHARS = 24
SIDE_MAX_CHARS = 5  # "short"
KIND_MAX_CHARS = 16  # "adjust_position" is 15
RULE_MAX_CHARS = 40
REGIME_TAG_MAX_CHARS = 24  # "trend_down_lowvol" is 17
OPEN_POSITIONS_MAX_ROWS = 10  # more open trades than this end in one "- (+N more …)" row

LAST_DECISION_HEADER = "## Last decision"
RECENT_TRADES_HEADER = "## Recent trades on this skill (closed)"
OPEN_POSITIONS_HEADER = "## Open positions (memory view)"
# similar_situations is recall's (memory-layer phase 3): assemble_context leaves it None and the live
# service fills it from the situation index; the sim ledger has no situation memory.
# manual is recall's too (the manual at run start, agentcontext.manual): assemble_context leaves it None and
# agentcontext.selectors fills it, for live and sim alike, from the same ContextInputs and the recall index.
SECTION_KEYS = (
    "last_decision",
    "recent_activity",
    "recent_trades",
    "open_positions",
    "similar_situations",
    "manual",
)
# The names a context's `degraded` list may hold (agentcontext.degrade: sections whose reads failed), in its
# order: the memory sections, then the system prompt's lessons segment (reflection's active note, read per tick).
LESSONS_KEY = "lessons"
DEGRADABLE_SECTIONS = (*SECTION_KEYS, LESSONS_KEY)

LIQUIDATED = "liquidated"
EXTERNAL_FLATTEN = "external_flatten"
_SHOWN_EXIT_REASONS = (LIQUIDATED, EXTERNAL_FLATTEN)

_ELLIPSIS = "…"
_ARROW = " → "
_SECTION_SEPARATOR = "\n\n"
_MIN_PRECISION = 60
# Every arithmetic step runs in a copy of this context, never in the caller's.
_CONTEXT = Context(prec=_MIN_PRECISION, rounding=ROUND_HALF_EVEN, Emax=MAX_EMAX, Emin=MIN_EMIN)


# --- token ceilings -------------------------------------------------------------------------
# Widest rendering of each field within the documented domain (see the module docstring).
_W_MINUTE_STAMP = len("2026-06-04T10:00")
_W_PRICE = len("0.000001000")  # 1e-6 at 4 significant digits; 1e6 is "1,000,000"
_W_USD_WHOLE = len("-$10,000,000")
_W_USD_CENTS = len("-$10,000,000.00")
_W_PERCENT = len(" (-1,000,000.0%)")  # the base cap is ±10,000%; one more digit of slack
_W_MINUTES = len("10000000m")
_W_QUOTED_REASON = len(' ""') + REASON_MAX_CHARS

_LAST_DECISION_ROW_MAX_CHARS = (
    len("- ")
    + len("2026-06-04T10:00Z")
    + 1
    + KIND_MAX_CHARS
    + 1
    + SYMBOL_MAX_CHARS
    + _W_QUOTED_REASON
    + len(_ARROW)
    + len("rejected ()")
    + RULE_MAX_CHARS
)
_RECENT_TRADES_ROW_MAX_CHARS = (
    len("- ")
    + _W_MINUTE_STAMP
    + len(_ARROW)
    + _W_MINUTE_STAMP
    + 1
    + SYMBOL_MAX_CHARS
    + 1
    + SIDE_MAX_CHARS
    + 1
    + _W_USD_WHOLE
    + 1
    + _W_PRICE
    + len(_ARROW)
    + _W_PRICE
    + 1
    + _W_USD_CENTS
    + _W_PERCENT
    + 1
    + _W_MINUTES
    + _W_QUOTED_REASON
    + len(" exit=")
    + len(EXTERNAL_FLATTEN)
    + len(" regime=")
    + REGIME_TAG_MAX_CHARS
)
_OPEN_POSITIONS_ROW_MAX_CHARS = (
    len("- ")
    + SYMBOL_MAX_CHARS
    + 1
    + SIDE_MAX_CHARS
    + 1
    + _W_USD_WHOLE
    + len(" @ ")
    + _W_PRICE
    + len(" mark=")
    + _W_PRICE
    + len(" MFE=")
    + _W_USD_WHOLE
    + len(" / MAE=")
    + _W_USD_WHOLE
    + len(" held ")
    + _W_MINUTES
    + _W_QUOTED_REASON
)

# A row's ceiling counts the "\n" that joins it to the line above; since ceil(a + b) ≤
# ceil(a) + ceil(b), a section's estimate is at most its header's plus the sum of its rows'.
LAST_DECISION_TOKEN_CEILING = estimate_tokens(LAST_DECISION_HEADER) + math.ceil(
    (1 + _LAST_DECISION_ROW_MAX_CHARS) / 4
)  # 54
RECENT_TRADES_ROW_TOKEN_CEILING = math.ceil((1 + _RECENT_TRADES_ROW_MAX_CHARS) / 4)  # 72
OPEN_POSITIONS_ROW_TOKEN_CEILING = math.ceil((1 + _OPEN_POSITIONS_ROW_MAX_CHARS) / 4)  # 53
OPEN_POSITIONS_TOKEN_CEILING = (
    estimate_tokens(OPEN_POSITIONS_HEADER) + (OPEN_POSITIONS_MAX_ROWS + 1) * OPEN_POSITIONS_ROW_TOKEN_CEILING
)  # 591: the overflow row is shorter than a full row


def clamp_recent_trades_k(k: int) -> int:
    """``k`` clamped to ``RECENT_TRADES_K_MIN..RECENT_TRADES_K_MAX`` (1..30)."""
    return max(RECENT_TRADES_K_MIN, min(RECENT_TRADES_K_MAX, int(k)))


def recent_trades_token_ceiling(k: int) -> int:
    """Upper bound of ``estimate_tokens`` of the recent-trades section at this (clamped) ``k``."""
    return estimate_tokens(RECENT_TRADES_HEADER) + clamp_recent_trades_k(k) * RECENT_TRADES_ROW_TOKEN_CEILING


def memory_block_token_ceiling(k: int) -> int:
    """Upper bound of the memory-only block: recent trades and open positions joined by a blank line.

    These two sections exist only when memory is enabled; last decision and recent activity are
    there either way and are bounded on their own (``LAST_DECISION_TOKEN_CEILING``; recent activity
    by its renderer). At k=30 this is 2,762 tokens; at the seed's default k=10, 1,322.
    """
    return recent_trades_token_ceiling(k) + estimate_tokens(_SECTION_SEPARATOR) + OPEN_POSITIONS_TOKEN_CEILING


# --- numbers --------------------------------------------------------------------------------


def _decimal(value: Decimal | int | float | str) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def _round(value: Decimal, places: int) -> Decimal:
    """``value`` quantized to ``places`` decimals (negative: tens, hundreds…), half-even."""
    with localcontext(_CONTEXT) as ctx:
        ctx.prec = max(_MIN_PRECISION, value.adjusted() + places + 2)
        return value.quantize(Decimal(1).scaleb(-places))


def _grouped(value: Decimal) -> str:
    """A non-negative Decimal with thousands separators and exactly its own digits."""
    return format(value, ",f")


def _signed_text(rounded: Decimal, body: str, *, signed: bool) -> str:
    if rounded.is_zero():
        return body
    if rounded < 0:
        return "-" + body
    return "+" + body if signed else body


def format_price(value: Decimal) -> str:
    """A price for the agent to read, by magnitude of the value *after* rounding:

    - ≥ 1000: rounded half-even to a whole number, thousands separators
      (``65200`` → ``65,200``; ``3410.50`` → ``3,410``; ``3411.5`` → ``3,412``).
    - 1 ≤ p < 1000: rounded half-even to 2 decimals; ``.00`` is dropped when the rounded value
      is whole (``142.35``, ``142.3`` → ``142.30``, ``95.001`` → ``95``). A value that rounds up
      to 1000 prints by the tier above (``999.995`` → ``1,000``).
    - 0 < p < 1: rounded half-even to 4 significant digits, trailing zeros kept, never in
      exponent notation (``0.5234``, ``0.5`` → ``0.5000``, ``0.00001234``). A carry keeps 4
      significant digits (``0.099996`` → ``0.1000``) and one that reaches 1 prints by the tier
      above (``0.99996`` → ``1``).
    - 0 prints ``0``; a negative price prints ``-`` and its absolute value by these rules (a
      value that rounds to zero has no sign); NaN and infinities print as ``str(value)``.
    """
    value = _decimal(value)
    if not value.is_finite():
        return str(value)
    if value.is_zero():
        return "0"
    body = _format_positive_price(value.copy_abs())
    return body if value > 0 or body == "0" else "-" + body


def _format_positive_price(value: Decimal) -> str:
    if value < 1:
        significant = _round(value, 3 - value.adjusted())
        if significant.adjusted() > value.adjusted():  # a carry added a digit: keep four
            significant = _round(significant, 3 - significant.adjusted())
        if significant < 1:
            return format(significant, "f")
        value = significant
    if value < 1000:
        cents = _round(value, 2)
        if cents < 1000:
            whole = _round(cents, 0)
            if whole == cents:
                return _grouped(whole)
            return _grouped(cents)
        value = cents
    return _grouped(_round(value, 0))


def format_usd(value: Decimal, *, signed: bool, decimals: int) -> str:
    """A dollar amount: ``$`` + the absolute value rounded half-even to ``decimals`` places with
    thousands separators. The sign follows the rounded value: ``-$`` when negative, ``+$`` when
    positive and ``signed``, none when it rounds to zero (``$0``, ``$0.00``) — so ``"$250"``,
    ``"+$28.40"``, ``"-$9.70"``, ``"+$22"``. NaN and infinities print as ``$`` + ``str(value)``.
    """
    if decimals < 0:
        raise ValueError("decimals must be >= 0")
    value = _decimal(value)
    if not value.is_finite():
        return "-$" + str(value.copy_abs()) if value.is_signed() else "$" + str(value)
    rounded = _round(value, decimals)
    return _signed_text(rounded, "$" + _grouped(rounded.copy_abs()), signed=signed)


def _format_percent(pnl: Decimal, base: Decimal) -> str | None:
    pnl, base = _decimal(pnl), _decimal(base)
    if not (base.is_finite() and pnl.is_finite()) or base <= 0:
        return None
    with localcontext(_CONTEXT):
        ratio = pnl * 100 / base
    rounded = _round(ratio, 1)
    return _signed_text(rounded, _grouped(rounded.copy_abs()) + "%", signed=True)


def _format_minutes(value: Decimal) -> str:
    value = _decimal(value)
    if not value.is_finite():
        return str(value) + "m"
    rounded = _round(value, 0)
    return f"{0 if rounded.is_zero() else int(rounded)}m"


# --- text and time --------------------------------------------------------------------------


def _sanitize(text: str) -> str:
    return replace_unsafe(text).strip()


def _cut(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[: max_chars - 1] + _ELLIPSIS


def _clip(text: str | None, max_chars: int) -> str:
    """An identifier: control characters to spaces, stripped, cut with ``…``."""
    if not text:
        return ""
    return _cut(_sanitize(str(text)), max_chars)


def _quoted_reason(reason: str | None) -> str:
    """``"reason"`` (sanitized, ``"`` → ``'``, cut to REASON_MAX_CHARS), or ``""`` when empty."""
    if not reason:
        return ""
    text = _cut(_sanitize(str(reason).replace('"', "'")), REASON_MAX_CHARS)
    return f'"{text}"' if text else ""


def _utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def _minute_stamp(moment: dt.datetime) -> str:
    return _utc(moment).strftime("%Y-%m-%dT%H:%M")


def _row(parts: Sequence[str]) -> str:
    return "- " + " ".join(part for part in parts if part)


def _section(header: str, rows: Sequence[str]) -> str | None:
    if not rows:
        return None
    return "\n".join([header, *rows])


# --- sections -------------------------------------------------------------------------------


def _verdict(tick: Tick) -> str:
    kind = tick.engine_kind
    if not kind:
        return "no engine verdict"
    if kind == "rejected":
        rule = _clip(tick.engine_rule, RULE_MAX_CHARS)
        return f"rejected ({rule})" if rule else "rejected"
    return _clip(kind, KIND_MAX_CHARS) or "no engine verdict"


def render_last_decision(tick: Tick | None) -> str | None:
    """``## Last decision`` with one row for the previous tick, or ``None`` when there is none.

    Row: ``- <YYYY-MM-DDTHH:MMZ> <kind> <symbol> "<reason>" → <verdict>``; the symbol and the
    quoted reason are omitted when empty; without a proposal the row is
    ``- <time> no proposal → <verdict>``. Verdict: ``executed``, ``skipped``, ``rejected``,
    ``rejected (<rule>)`` when the engine named a rule, ``no engine verdict`` when the engine kind
    is empty. The rule is shown for rejections only.
    """
    if tick is None:
        return None
    stamp = _minute_stamp(tick.tick_at) + "Z"
    action = tick.proposed_action
    if action is None:
        parts = [stamp, "no proposal"]
    else:
        parts = [
            stamp,
            _clip(action.kind, KIND_MAX_CHARS),
            _clip(action.symbol, SYMBOL_MAX_CHARS),
            _quoted_reason(action.reason),
        ]
    row = _row(parts) + _ARROW + _verdict(tick)
    return _section(LAST_DECISION_HEADER, [row])


def _closed_trade_row(trade: ClosedTrade) -> str:
    entry_at, exit_at = _utc(trade.entry_tick_at), _utc(trade.exit_tick_at)
    exit_stamp = exit_at.strftime("%H:%M") if exit_at.date() == entry_at.date() else _minute_stamp(exit_at)
    percent = _format_percent(trade.realized_pnl_usd, trade.entry_size_usd)
    regime = _clip(trade.entry_regime_tag, REGIME_TAG_MAX_CHARS) if trade.entry_regime_tag is not None else ""
    return _row(
        [
            _minute_stamp(entry_at) + _ARROW + exit_stamp,
            _clip(trade.symbol, SYMBOL_MAX_CHARS),
            _clip(trade.side, SIDE_MAX_CHARS),
            format_usd(trade.entry_size_usd, signed=False, decimals=0),
            format_price(trade.entry_price) + _ARROW + format_price(trade.exit_price),
            format_usd(trade.realized_pnl_usd, signed=True, decimals=2),
            f"({percent})" if percent is not None else "",
            _format_minutes(trade.holding_minutes),
            _quoted_reason(trade.entry_reason),
            f"exit={trade.exit_reason}" if trade.exit_reason in _SHOWN_EXIT_REASONS else "",
            f"regime={regime}" if regime else "",
        ]
    )


def render_recent_trades(trades: Sequence[ClosedTrade], *, k: int) -> str | None:
    """``## Recent trades on this skill (closed)``: the newest ``k`` closed trades, or ``None``.

    ``k`` is clamped to 1..30. Rows are sorted by entry time, newest first; ties by symbol
    ascending, then by the row text, so the output does not depend on the input order.

    Row: ``- <entry YYYY-MM-DDTHH:MM> → <exit> <symbol> <side> $<size> <entry price> → <exit
    price> <±$pnl.cc> (<±pct.p%>) <minutes>m "<entry reason>" exit=<…> regime=<tag>`` where the
    exit time is ``HH:MM`` on the entry's UTC date and a full stamp otherwise; the size is whole
    dollars; minutes are ``holding_minutes`` rounded half-even; the percent part is omitted when
    the size is not positive, the quoted reason when empty, ``exit=`` unless the exit reason is
    exactly ``liquidated`` or ``external_flatten``, ``regime=`` when the tag is None or empty.
    """
    if not trades:
        return None
    keyed = [(trade, _closed_trade_row(trade)) for trade in trades]
    keyed.sort(key=lambda pair: (pair[0].symbol, pair[1]))
    keyed.sort(key=lambda pair: _utc(pair[0].entry_tick_at), reverse=True)  # stable: ties keep the order above
    rows = [row for _, row in keyed[: clamp_recent_trades_k(k)]]
    return _section(RECENT_TRADES_HEADER, rows)


def _held_minutes(entry_at: dt.datetime, now: dt.datetime) -> int:
    return max(0, (_utc(now) - _utc(entry_at)) // dt.timedelta(minutes=1))


def _open_trade_row(trade: OpenTrade, now: dt.datetime) -> str:
    return _row(
        [
            _clip(trade.symbol, SYMBOL_MAX_CHARS),
            _clip(trade.side, SIDE_MAX_CHARS),
            format_usd(trade.entry_size_usd, signed=False, decimals=0),
            "@ " + format_price(trade.entry_price),
            "mark=" + format_price(trade.last_mark_price),
            "MFE=" + format_usd(trade.mfe_usd, signed=True, decimals=0),
            "/ MAE=" + format_usd(trade.mae_usd, signed=True, decimals=0),
            f"held {_held_minutes(trade.entry_tick_at, now)}m",
            _quoted_reason(trade.entry_reason),
        ]
    )


def render_open_positions(trades: Sequence[OpenTrade], *, now: dt.datetime) -> str | None:
    """``## Open positions (memory view)``: one row per open trade, or ``None`` when there are none.

    Row: ``- <symbol> <side> $<size> @ <entry price> mark=<last mark> MFE=<±$> / MAE=<±$> held
    <N>m "<entry reason>"`` with whole-dollar size/MFE/MAE (``format_usd`` sign rule, so zero is
    ``$0``: ``MFE=$0 / MAE=$0``) and N = whole minutes from entry to ``now``, floored, never
    below 0. Rows are sorted by symbol ascending (ties by the row text). At most
    ``OPEN_POSITIONS_MAX_ROWS`` rows are shown; the rest are counted in a last row
    ``- (+N more open positions not shown)``.
    """
    if not trades:
        return None
    keyed = sorted((trade.symbol, _open_trade_row(trade, now)) for trade in trades)
    rows = [row for _, row in keyed[:OPEN_POSITIONS_MAX_ROWS]]
    hidden = len(keyed) - len(rows)
    if hidden:
        rows.append(f"- (+{hidden} more open positions not shown)")
    return _section(OPEN_POSITIONS_HEADER, rows)


class TokenEstimate(TypedDict):
    """``MemoryContext.token_estimate``: per-section estimates and the joined text's."""

    per_section: dict[str, int]
    total: int


@dataclass(frozen=True)
class MemoryContext:
    """The memory sections of one tick's context, their joined text and its token estimate.

    ``sections`` has the keys of ``SECTION_KEYS`` in that order; ``text`` joins the non-None
    sections by a blank line (``""`` when all are None); ``token_estimate`` is
    ``{"per_section": {key: estimate_tokens(section)}, "total": estimate_tokens(text)}`` — the
    total is the estimate of the joined text, separators included, not the sum of the parts.
    ``degraded`` names the sections (in ``SECTION_KEYS`` order) that are None because a read failed, not
    because there was nothing to show (``agentcontext.degrade``); empty for a complete context.
    """

    sections: dict[str, str | None]
    text: str
    token_estimate: TokenEstimate
    degraded: tuple[str, ...] = ()

    def with_section(self, key: str, section: str | None) -> MemoryContext:
        """This context with one section set (recall's similar past situations, the manual): in its place
        among ``SECTION_KEYS`` (a key assemble_context already holds keeps its position)."""
        sections = {**self.sections, key: section}
        text = _SECTION_SEPARATOR.join(part for part in sections.values() if part is not None)
        return MemoryContext(
            sections=sections,
            text=text,
            token_estimate={
                "per_section": {**self.token_estimate["per_section"], key: estimate_tokens(section)},
                "total": estimate_tokens(text),
            },
            degraded=self.degraded,
        )

    def with_degraded(self, keys: Sequence[str]) -> MemoryContext:
        """This context with the sections ``keys`` emptied (None) and named in ``degraded``: their reads
        failed, so what they would hold is unknown."""
        unknown = set(keys) - set(self.sections)
        if unknown:
            raise ValueError(f"with_degraded: not a section: {sorted(unknown)}")
        context = self
        for key in keys:
            context = context.with_section(key, None)
        named = set(self.degraded) | set(keys)
        return replace(context, degraded=tuple(key for key in self.sections if key in named))


def assemble_context(
    *,
    last_tick: Tick | None,
    recent_activity: str | None,
    closed_trades: Sequence[ClosedTrade],
    open_trades: Sequence[OpenTrade],
    now: dt.datetime | None,
    recent_trades_k: int,
    memory_enabled: bool,
) -> MemoryContext:
    """The four memory-layer sections for one tick.

    ``recent_activity`` arrives rendered (by ``ledger.risk_state``); an empty string counts as
    suppressed. When ``memory_enabled`` is False the recent-trades and open-positions sections are
    ``None`` (the seed adds them only when ``skill.context.memory.enabled``); last decision and
    recent activity are unaffected. ``now`` (the held minutes of open positions) may be None only
    when there are no open trades: a ledger that has seen no tick yet.
    """
    if memory_enabled and open_trades and now is None:
        raise ValueError("assemble_context: open trades need `now` for their held minutes")
    sections: dict[str, str | None] = {
        "last_decision": render_last_decision(last_tick),
        "recent_activity": recent_activity or None,
        "recent_trades": render_recent_trades(closed_trades, k=recent_trades_k) if memory_enabled else None,
        "open_positions": render_open_positions(open_trades, now=now) if memory_enabled and now is not None else None,
        "similar_situations": None,
        "manual": None,
    }
    text = _SECTION_SEPARATOR.join(section for section in sections.values() if section is not None)
    token_estimate: TokenEstimate = {
        "per_section": {key: estimate_tokens(section) for key, section in sections.items()},
        "total": estimate_tokens(text),
    }
    return MemoryContext(sections=sections, text=text, token_estimate=token_estimate)


def render_context(inputs: ContextInputs, *, recent_trades_k: int, memory_enabled: bool) -> MemoryContext:
    """The memory block from a ledger's ContextInputs: the one rendering path for live and sim."""
    tick = inputs.last_tick
    if tick is None:
        return assemble_context(
            last_tick=None,
            recent_activity=None,
            closed_trades=(),
            open_trades=(),
            now=None,
            recent_trades_k=recent_trades_k,
            memory_enabled=memory_enabled,
        )
    state = aggregate_risk_state(
        now=tick.tick_at,
        outcomes=inputs.outcomes,
        closed_trades=inputs.closed_for_risk,
        day_start_equity_usd=inputs.day_start_equity_usd,
    )
    return assemble_context(
        last_tick=tick,
        recent_activity=render_recent_activity(state),
        closed_trades=inputs.recent_closed,
        open_trades=inputs.open_trades,
        now=tick.tick_at,
        recent_trades_k=recent_trades_k,
        memory_enabled=memory_enabled,
    )

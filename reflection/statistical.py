"""The offline reflection engine: deterministic lessons from the trades window, no model call.

Pure: stdlib and ``reflection.core`` only; no Django, no I/O, no clock. Used when no Anthropic key
is configured. ``statistical_lessons(trades)`` writes the same five slots the model is asked for
(``reflection.core.SLOTS``, rendered by ``render_slots``), each bullet grounded in numbers from
the window and ending in what to do about it. Same trades (in any order) → the same text.

PnL basis: ``realized_pnl_usd`` throughout, i.e. before fees (the ledger's basis, and the one MFE
is measured on). A trade is a win when its realized PnL is above zero. Money is rounded to cents
and percentages to whole numbers with ROUND_HALF_EVEN; every decision about a sign or an order is
taken on the rounded value the text shows, so a bullet never contradicts its own numbers.

Rules per slot (``(no clear pattern yet)`` when no bullet qualifies):

- Entry timing: trades grouped by setup reason (``entry_reason`` on one line, whitespace runs
  collapsed, casefolded; blank reasons are left out), shown as the earliest trade's wording,
  quoted (``"`` → ``'``), cut to ``LABEL_MAX_CHARS`` with "…". Each setup with at least
  ``MIN_GROUP_TRADES`` trades gets wins, win rate and realized PnL, and a verdict: in profit with
  more than half won → keep taking it; in profit otherwise → it pays because winners outsize
  losers; not in profit with at least half won → losers outweigh winners, cut them sooner;
  otherwise → demand stronger confirmation.
- Sizing: trades with a positive ``entry_size_usd`` (at least ``2 * MIN_GROUP_TRADES``) split at
  the median size into the strictly bigger and strictly smaller tickets (trades at the median sit
  out); with at least ``MIN_GROUP_TRADES`` on each side, compare realized PnL per $100 of notional
  (sum of PnL ÷ sum of size) and win rate, with the average leverage where any is recorded, and say
  whether size is going where the edge is. The same comparison over the trades with a recorded
  leverage, split at the median leverage, gives a second bullet.
- Symbol selection: needs at least two symbols (grouped casefolded) in the window. Symbols with at
  least ``MIN_GROUP_TRADES`` trades: up to ``MAX_SYMBOL_BULLETS_EACH`` biggest contributors
  (realized PnL above zero, biggest first) then as many biggest drags (below zero, worst first),
  with trade and win counts and their share of all symbol gains (the sum over every symbol in the
  green, whatever its count) or of all symbol losses (every symbol in the red).
- Exit timing: captured-MFE ratio = realized ÷ MFE (capped at 100%). Over winners with a positive
  MFE (at least ``MIN_GROUP_TRADES``): the median ratio, how many kept less than
  ``GIVE_BACK_RATIO`` of their peak and the open profit they left on the table; the verdict
  compares the median with ``CAPTURE_HIGH`` (banks most of the move; the risk is cutting runners)
  and ``CAPTURE_LOW`` (hands most of it back). Over losers with a recorded MFE (at least
  ``MIN_GROUP_TRADES``): how many were in profit (MFE of at least a cent) before closing red; when
  at least ``LOSERS_IN_PROFIT_SHARE`` of them were, move the stop to breakeven once up about their
  average peak; otherwise the leak is the entry, not the exit.
- Regime fit: trades grouped by ``entry_regime_tag`` (casefolded; None or blank = unclassified);
  regimes with at least ``MIN_GROUP_TRADES`` trades get wins, win rate and realized PnL, and a
  verdict on whether the strategy works there, with the same four cases as entry timing.

Setups and regimes are ordered by trade count (most first), then by the size of their realized PnL
(largest first, a gain before an equal loss), then by their key. At most ``MAX_BULLETS_PER_SLOT``
bullets per slot; should the text exceed ``LESSONS_MAX_CHARS``, the last bullet of the slot with
the most bullets (the later slot on a tie) is dropped until it fits, so all five headings survive
and ``validate_reflection_output`` accepts the text unchanged.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Context, Decimal, localcontext

from memorysite.text import one_line
from reflection.core import (
    LESSONS_MAX_CHARS,
    MAX_BULLETS_PER_SLOT,
    SLOTS,
    ReflectionInput,
    ReflectionResult,
    ReflectionTrade,
    render_slots,
    signed_usd,
)

__all__ = ["MODEL_USED", "StatisticalReflectionEngine", "statistical_lessons"]

MODEL_USED = "statistical-v1"

# A setup, symbol or regime (and each side of a size or leverage split, and the winners or losers
# of the exit-timing slot) needs this many trades before it earns a bullet: fewer is anecdote.
MIN_GROUP_TRADES = 3
# At most this many contributors, and this many drags, are named under symbol selection.
MAX_SYMBOL_BULLETS_EACH = 2
# A winner that kept less than this share of its peak open profit (MFE) "gave back" the move.
GIVE_BACK_RATIO = Decimal("0.5")
# A median captured-MFE ratio of winners at or above this: exits bank most of the move.
CAPTURE_HIGH = Decimal("0.75")
# A size or leverage split only counts when the larger side's average is at least this much above
# the smaller side's (25%): below that the "two sizes" are one size plus rounding noise.
MIN_SPLIT_SPREAD = Decimal("0.25")
# A median captured-MFE ratio of winners below this: exits hand back most of the open profit.
CAPTURE_LOW = Decimal("0.5")
# When at least this share of losers had been in profit first, the exit (not the entry) is the leak.
LOSERS_IN_PROFIT_SHARE = Decimal("0.5")
# Setup reasons and regime tags are quoted in bullets, cut to this many characters (with "…").
LABEL_MAX_CHARS = 60
# Symbols are shown unquoted, cut to this many characters (with "…").
SYMBOL_MAX_CHARS = 24
# A safety cap on one bullet (real bullets stay well below it): five capped bullets plus the
# headings always fit in LESSONS_MAX_CHARS, so trimming to fit can never drop a heading.
BULLET_MAX_CHARS = 300

# A fixed context, so the text does not depend on the caller's thread context. 40 digits hold any
# sum of ledger amounts (28 digits, 8 decimal places) exactly.
_CONTEXT = Context(prec=40, rounding=ROUND_HALF_EVEN)
_CENT = Decimal("0.01")
_TENTH = Decimal("0.1")
_WHOLE = Decimal(1)
_HUNDRED = Decimal(100)
_ZERO = Decimal(0)

_ENTRY, _SIZING, _SYMBOLS, _EXITS, _REGIMES = SLOTS


class StatisticalReflectionEngine:
    """The offline engine: ``statistical_lessons`` over the window, free and deterministic."""

    model_used = MODEL_USED

    def reflect(self, inp: ReflectionInput) -> ReflectionResult:
        return ReflectionResult(
            text=statistical_lessons(inp.trades),
            model_used=self.model_used,
            input_tokens=0,
            output_tokens=0,
            cost_usd=Decimal("0"),
        )


def statistical_lessons(trades: Sequence[ReflectionTrade]) -> str:
    """Lessons text in the five-slot format from the closed trades of one window (any order)."""
    with localcontext(_CONTEXT):
        ordered = sorted(trades, key=_canonical_key)
        bullets = {
            _ENTRY: _entry_timing(ordered),
            _SIZING: _sizing(ordered),
            _SYMBOLS: _symbol_selection(ordered),
            _EXITS: _exit_timing(ordered),
            _REGIMES: _regime_fit(ordered),
        }
    return _fit(bullets)


# -- slots -------------------------------------------------------------------------------------------


def _entry_timing(trades: Sequence[ReflectionTrade]) -> list[str]:
    groups = _groups(trades, key=lambda t: _fold(t.entry_reason), label=lambda t: _label(t.entry_reason))
    bullets = []
    for group in _ranked(g for g in groups if g.key and g.n >= MIN_GROUP_TRADES):
        verdict = _verdict(
            group,
            good="keep taking it.",
            carried="it pays because winners outsize losers; expect losing streaks and keep size modest.",
            leaky="its losers outweigh its winners; cut them sooner.",
            bad="demand stronger confirmation before entering.",
        )
        bullets.append(f'Setup "{group.label}" {_record(group)}: {verdict}')
    return bullets


def _sizing(trades: Sequence[ReflectionTrade]) -> list[str]:
    sized = [t for t in trades if t.entry_size_usd > 0]
    bullets = []
    split = _median_split(sized, lambda t: t.entry_size_usd)
    if split is not None:
        smaller, bigger = _Side(split[0]), _Side(split[1])
        if bigger.per_100 <= 0 and smaller.per_100 <= 0:
            verdict = "neither size earns yet, so keep tickets small until a setup proves itself."
        elif bigger.per_100 > smaller.per_100:
            verdict = "size is going where the edge is."
        elif bigger.per_100 < smaller.per_100:
            verdict = "size is going where the edge isn't; scale the big tickets down until they earn it."
        else:
            verdict = "the edge per $ is the same at both sizes."
        bullets.append(
            f"Bigger tickets ({bigger.n} trades, avg {_dollars(bigger.avg_size)}{bigger.leverage_note}) made"
            f" {signed_usd(bigger.per_100)} per $100 notional with {bigger.win_pct} wins; smaller ({smaller.n},"
            f" avg {_dollars(smaller.avg_size)}{smaller.leverage_note}) made {signed_usd(smaller.per_100)} with"
            f" {smaller.win_pct} wins: {verdict}"
        )
    levered = [t for t in sized if t.entry_leverage is not None and t.entry_leverage > 0]
    split = _median_split(levered, lambda t: t.entry_leverage or _ZERO)  # levered: never None
    if split is not None:
        lower, higher = _Side(split[0]), _Side(split[1])
        if higher.per_100 <= 0 and lower.per_100 <= 0:
            verdict = "neither leverage level earns yet; keep it low."
        elif higher.per_100 > lower.per_100:
            verdict = "the extra leverage is going where the edge is."
        elif higher.per_100 < lower.per_100:
            verdict = f"the extra leverage isn't paying; cap it near {_leverage(lower.avg_leverage)}."
        else:
            verdict = "the edge per $ is the same at both leverage levels."
        bullets.append(
            f"Higher leverage ({higher.n} trades, avg {_leverage(higher.avg_leverage)}) made"
            f" {signed_usd(higher.per_100)} per $100 with {higher.win_pct} wins; lower"
            f" ({lower.n}, avg {_leverage(lower.avg_leverage)}) made {signed_usd(lower.per_100)} with"
            f" {lower.win_pct} wins: {verdict}"
        )
    return bullets


def _symbol_selection(trades: Sequence[ReflectionTrade]) -> list[str]:
    groups = _groups(
        trades, key=lambda t: _fold(t.symbol), label=lambda t: _label(t.symbol, SYMBOL_MAX_CHARS, quote=False)
    )
    if len(groups) < 2:
        return []
    gains = sum((g.net for g in groups if g.net_cents > 0), _ZERO)
    losses = sum((g.net for g in groups if g.net_cents < 0), _ZERO)
    eligible = [g for g in groups if g.n >= MIN_GROUP_TRADES]
    contributors = sorted((g for g in eligible if g.net_cents > 0), key=lambda g: (-g.net_cents, g.key))
    drags = sorted((g for g in eligible if g.net_cents < 0), key=lambda g: (g.net_cents, g.key))
    bullets = []
    for group in contributors[:MAX_SYMBOL_BULLETS_EACH]:
        bullets.append(
            f"{group.label or '(blank symbol)'} netted {signed_usd(group.net)} over {group.n} trades"
            f" ({group.wins} won),"
            f" {_pct(group.net / gains)} of symbol gains: keep it on the list."
        )
    for group in drags[:MAX_SYMBOL_BULLETS_EACH]:
        bullets.append(
            f"{group.label or '(blank symbol)'} netted {signed_usd(group.net)} over {group.n} trades"
            f" ({group.wins} won),"
            f" {_pct(group.net / losses)} of symbol losses: cut its size or drop it."
        )
    return bullets


def _exit_timing(trades: Sequence[ReflectionTrade]) -> list[str]:
    bullets = []
    # (trade, its MFE) pairs: the MFE known not None.
    winners = [(t, t.mfe_usd) for t in trades if t.realized_pnl_usd > 0 and t.mfe_usd is not None and t.mfe_usd > 0]
    if len(winners) >= MIN_GROUP_TRADES:
        # Realized can only exceed the best mark seen through fill timing; such a trade kept it all.
        ratios = [min(t.realized_pnl_usd / mfe, Decimal(1)) for t, mfe in winners]
        median = _median(ratios)
        gave_back = [pair for pair, ratio in zip(winners, ratios, strict=True) if ratio < GIVE_BACK_RATIO]
        if median >= CAPTURE_HIGH:
            verdict = "exits bank most of the move seen at tick marks; no sign of leaving PnL on the table."
        elif median < CAPTURE_LOW:
            verdict = "most of the move is handed back; take partial profit or trail the stop once well up."
        else:
            verdict = "decent capture; trail the stop once well up to keep more."
        given_back = ""
        if gave_back:
            left = sum((mfe - t.realized_pnl_usd for t, mfe in gave_back), _ZERO)
            given_back = (
                f"; {len(gave_back)} kept under {_pct(GIVE_BACK_RATIO)}, leaving {_dollars(left, _CENT)} on the table"
            )
        bullets.append(
            f"Winners kept a median {_pct(median)} of their peak profit (realized ÷ MFE, {len(winners)}"
            f" winners){given_back}: {verdict}"
        )
    losers = [t.mfe_usd for t in trades if t.realized_pnl_usd < 0 and t.mfe_usd is not None]  # their MFEs
    if len(losers) >= MIN_GROUP_TRADES:
        in_profit = [mfe for mfe in losers if _cents(mfe) > 0]
        if not in_profit:
            bullets.append(
                f"None of the {len(losers)} losers was ever in profit: they failed straight from entry, so fix"
                " entries rather than exits."
            )
        else:
            peak = sum(in_profit, _ZERO) / len(in_profit)
            if len(in_profit) >= LOSERS_IN_PROFIT_SHARE * len(losers):
                up = _dollars(peak, _CENT)
                verdict = f"move the stop to breakeven once a trade is up about {up}."
            else:
                verdict = "most losers failed straight from entry, so the exit is not the main leak."
            were = "was" if len(in_profit) == 1 else "were"
            avg = "" if len(in_profit) == 1 else "avg "
            bullets.append(
                f"{len(in_profit)} of {len(losers)} losers {were} in profit first ({avg}peak {signed_usd(peak)}) before"
                f" closing red: {verdict}"
            )
    return bullets


def _regime_fit(trades: Sequence[ReflectionTrade]) -> list[str]:
    groups = _groups(
        trades, key=lambda t: _fold(t.entry_regime_tag or ""), label=lambda t: _label(t.entry_regime_tag or "")
    )
    bullets = []
    for group in _ranked(g for g in groups if g.n >= MIN_GROUP_TRADES):
        where = f'In regime "{group.label}" entries' if group.key else "Unclassified-regime entries"
        verdict = _verdict(
            group,
            good="the strategy works here.",
            carried="it pays only because winners outsize losers; stay selective here.",
            leaky="bigger losses outweigh the wins; tighten stops in this regime.",
            bad="the strategy does not work here; stand aside or trade smaller.",
        )
        bullets.append(f"{where} {_record(group)}: {verdict}")
    return bullets


# -- grouping and statistics -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Group:
    key: str
    label: str  # from the earliest trade of the group (canonical order)
    trades: tuple[ReflectionTrade, ...]

    @property
    def n(self) -> int:
        return len(self.trades)

    @property
    def wins(self) -> int:
        return sum(1 for t in self.trades if t.realized_pnl_usd > 0)

    @property
    def net(self) -> Decimal:
        return sum((t.realized_pnl_usd for t in self.trades), _ZERO)

    @property
    def net_cents(self) -> Decimal:
        return _cents(self.net)


def _groups(
    trades: Sequence[ReflectionTrade], *, key: Callable[[ReflectionTrade], str], label: Callable[[ReflectionTrade], str]
) -> list[_Group]:
    """Trades grouped by ``key`` (in canonical order, so the first trade seen is the earliest)."""
    members: dict[str, list[ReflectionTrade]] = {}
    for trade in trades:
        members.setdefault(key(trade), []).append(trade)
    return [_Group(k, label(group[0]), tuple(group)) for k, group in sorted(members.items())]


def _ranked(groups: Iterable[_Group]) -> list[_Group]:
    """Most trades first, then the largest realized PnL either way (a gain before an equal loss), then key."""
    return sorted(groups, key=lambda g: (-g.n, -abs(g.net_cents), -g.net_cents, g.key))


def _record(group: _Group) -> str:
    return f"won {group.wins} of {group.n} ({_pct(Decimal(group.wins) / group.n)}, {signed_usd(group.net)})"


def _verdict(group: _Group, *, good: str, carried: str, leaky: str, bad: str) -> str:
    mostly_wins = 2 * group.wins > group.n
    if group.net_cents > 0:
        return good if mostly_wins else carried
    return leaky if 2 * group.wins >= group.n else bad


class _Side:
    """One side of a size or leverage split."""

    def __init__(self, trades: Sequence[ReflectionTrade]):
        self.n = len(trades)
        notional = sum((t.entry_size_usd for t in trades), _ZERO)
        pnl = sum((t.realized_pnl_usd for t in trades), _ZERO)
        self.avg_size = notional / self.n
        self.per_100 = _cents(pnl * _HUNDRED / notional)
        self.win_pct = _pct(Decimal(sum(1 for t in trades if t.realized_pnl_usd > 0)) / self.n)
        levered = [t.entry_leverage for t in trades if t.entry_leverage is not None and t.entry_leverage > 0]
        self.avg_leverage = sum(levered, _ZERO) / len(levered) if levered else None
        self.leverage_note = f" at {_leverage(self.avg_leverage)}" if levered else ""


def _median_split(
    trades: Sequence[ReflectionTrade], value: Callable[[ReflectionTrade], Decimal]
) -> tuple[list[ReflectionTrade], list[ReflectionTrade]] | None:
    """(strictly below the median, strictly above it), or None when either side is too small or
    the two sides' averages differ by less than ``MIN_SPLIT_SPREAD`` (sizes of $249.97 and $250.03
    are one size, not "bigger" and "smaller" tickets)."""
    if len(trades) < 2 * MIN_GROUP_TRADES:
        return None
    median = _median([value(t) for t in trades])
    below = [t for t in trades if value(t) < median]
    above = [t for t in trades if value(t) > median]
    if len(below) < MIN_GROUP_TRADES or len(above) < MIN_GROUP_TRADES:
        return None
    low = sum((value(t) for t in below), Decimal(0)) / len(below)
    high = sum((value(t) for t in above), Decimal(0)) / len(above)
    if low <= 0 or high < low * (1 + MIN_SPLIT_SPREAD):
        return None
    return below, above


def _median(values: Sequence[Decimal]) -> Decimal:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def _canonical_key(trade: ReflectionTrade) -> tuple[object, ...]:
    """A total order on everything the text reads, earliest exit first, so input order never matters."""
    return (
        _naive_utc(trade.exit_tick_at),
        _naive_utc(trade.entry_tick_at),
        trade.symbol,
        trade.entry_reason,
        trade.entry_regime_tag is not None,
        trade.entry_regime_tag or "",
        trade.realized_pnl_usd,
        trade.entry_size_usd,
        trade.entry_leverage is not None,
        trade.entry_leverage or _ZERO,
        trade.mfe_usd is not None,
        trade.mfe_usd or _ZERO,
    )


def _naive_utc(moment: dt.datetime) -> dt.datetime:
    if moment.utcoffset() is None:
        return moment
    return moment.astimezone(dt.UTC).replace(tzinfo=None)


# -- text --------------------------------------------------------------------------------------------


def _fit(bullets: dict[str, list[str]]) -> str:
    """Render the slots, dropping trailing bullets of the fullest slot until the text fits."""
    kept = {slot: [_cap(b) for b in bullets.get(slot, [])][:MAX_BULLETS_PER_SLOT] for slot in SLOTS}
    text = render_slots(kept)
    while len(text) > LESSONS_MAX_CHARS:
        fullest = max(reversed(SLOTS), key=lambda slot: len(kept[slot]))  # on a tie, the later slot
        if not kept[fullest]:
            break
        kept[fullest].pop()
        text = render_slots(kept)
    return text


def _cap(bullet: str) -> str:
    bullet = one_line(bullet)
    return bullet if len(bullet) <= BULLET_MAX_CHARS else bullet[: BULLET_MAX_CHARS - 1].rstrip() + "…"


def _fold(text: str) -> str:
    return one_line(text).casefold()


def _label(text: str, limit: int = LABEL_MAX_CHARS, *, quote: bool = True) -> str:
    """One line, ``"`` → ``'`` when quoted; cut to ``limit`` with "…", at a word break in its second half."""
    label = one_line(text)
    if quote:
        label = label.replace('"', "'")
    if len(label) <= limit:
        return label
    cut = label[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_EVEN)


def _dollars(value: Decimal, quantum: Decimal = _WHOLE) -> str:
    """An unsigned amount: $2,500 (whole dollars) or $120.40 (with ``quantum=_CENT``)."""
    rounded = abs(value.quantize(quantum, rounding=ROUND_HALF_EVEN))
    return f"${rounded:,.2f}" if quantum == _CENT else f"${rounded:,.0f}"


def _pct(ratio: Decimal) -> str:
    return f"{int((ratio * _HUNDRED).quantize(_WHOLE, rounding=ROUND_HALF_EVEN))}%"


def _leverage(value: Decimal | None) -> str:
    rounded = (value or _ZERO).quantize(_TENTH, rounding=ROUND_HALF_EVEN)
    return f"{rounded.normalize():f}x"

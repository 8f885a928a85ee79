"""Analyst memory's pure core: row validation, the memory-context text, the prompt block, evolution.

Pure: stdlib only; no Django, no I/O, no clock (``now`` is an argument). Port of
analyst-signals-memory.md §1 (transformToHistoricalSignal), §2 (formatMemoryContext), §5 (the
prompt block) and §6 (trackEvolution). The text is a contract rendered into every analyst agent's
system prompt, so its format is exact::

    Previous Analysis History (3 signals):

    Analysis from Jun 1, 2026, 09:05 AM UTC:
      Direction: YES
      Fair Probability: 62.5%
      Confidence: 80.0%
      Key Drivers:
        • Polling lead widened

    Analysis from Jun 3, 2026, 12:00 AM UTC:
      ...

and, when the history does not fit ``max_length``::

    Previous Analysis History (5 signals):
    [Additional signals truncated for brevity]

    Analysis from <the newest signals that fit, oldest of them first>

Rules (and where they differ from the seed's code, why):

- Validation (Property 9, ``signal_from_row``): a row missing ``agent_name``, ``market_id``,
  ``created_at``, ``direction``, ``fair_probability`` or ``confidence`` is skipped (``None``, never
  an exception), and so is one whose direction is not exactly one of ``DIRECTIONS``, whose
  probability or confidence is not a finite number in [0, 1] (int, float, Decimal or a numeric
  string; ``bool`` is not a number), whose ``created_at`` is not an aware datetime, whose
  ``key_drivers`` is not a list of strings (``None`` → no drivers) or whose ``metadata`` is not a
  mapping (``None`` → ``{}``). The seed only range-checks (``NaN``, ``"abc"`` and ``null`` pass its
  ``< 0 || > 1`` test) and never checks ``created_at`` (an ``Invalid Date`` slips through). A float
  is read through its shortest repr (``0.1`` → ``Decimal("0.1")``, not the binary expansion), so
  thresholds compare the value the writer meant.
- Formatting: header ``Previous Analysis History (N signals):`` with N the agent's signals in the
  memory (``signal_count``, dropped ones included when truncated); one block per signal, blocks
  separated by one blank line (the seed's ``signalText + "\\n\\n"`` after a newline-terminated
  block left two), oldest first; percentages are value × 100 with one decimal,
  rounded half-up on the exact Decimal (JS ``toFixed`` rounds the binary float: 0.0005 → "0.1%" by
  luck, 0.0015 → "0.1%" by error); ``Key Drivers:`` only when the signal has drivers;
  ``Metadata: <JSON, indent 2>`` only with ``include_metadata`` and non-empty metadata.
- Memory is data, not instructions: each driver is rendered on ONE line (control, format and
  line/paragraph-separator characters become a space, whitespace runs collapse, blank drivers are
  not rendered), so a driver such as ``"x\\n\\nAnalysis from ..."`` can never forge a block. The
  metadata JSON escapes the same characters as ``\\uXXXX`` (still valid JSON), so every metadata
  line starts inside the JSON's own indentation.
- Isolation (Property 6): only signals whose ``agent_name`` is the memory's agent are rendered; a
  stray signal of another agent in the tuple is dropped rather than shown to the wrong agent.
- Dates are always UTC (a naive datetime is read as UTC). ``iso`` is JS ``toISOString``
  (``2026-06-04T10:00:00.000Z``, milliseconds truncated); ``human`` is JS ``toLocaleString('en-US',
  {month: 'short', hour: '2-digit', ..., timeZone: 'UTC', timeZoneName: 'short'})``, i.e.
  ``Jun 4, 2026, 09:05 AM UTC`` (12-hour clock: 00:05 → ``12:05 AM``, 12:00 → ``12:00 PM``),
  written out here so it does not depend on the host's locale or ICU version; ``relative`` is the
  seed's getRelativeTime against the ``now`` argument (the seed reads the clock): under an hour —
  or in the future — ``less than 1 hour ago``, under a day ``N hour(s) ago``, under a week
  ``N day(s) ago``, else ``M/D/YYYY`` of the UTC date (the seed used the host's time zone).
  An unknown ``date_format`` is a ValueError.
- Truncation (Property 4). The seed appends the indicator after checking only the block (so the
  output can exceed ``max_length``) and, walking oldest first, drops the NEWEST signals although
  the property says older ones go. Here the output never exceeds ``max_length``: when everything
  does not fit, the newest signals that fit are kept (still printed oldest first), the older ones
  are dropped and ``TRUNCATION_INDICATOR`` goes on its own line right after the header. When not
  even the newest signal fits, its block is cut after its last whole line that fits (a dangling
  ``Key Drivers:`` line is dropped too); as the last resort the text is cut at ``max_length``.
  ``truncated`` is True whenever anything was dropped or cut, and the indicator is present exactly
  then. ``max_length`` below ``MIN_MAX_LENGTH`` is a ValueError (the header and the indicator
  alone need about 85 characters).
- Evolution (Property 8, ``track_evolution``): the new signal is compared with the newest history
  item by timestamp, whatever order the history comes in (Property 12; the seed trusts
  ``history[0]``). Events, in this order: ``direction_change`` when the direction differs
  (magnitude 1); ``probability_shift`` when |Δ fair probability| > 0.1 and ``confidence_change``
  when |Δ confidence| > 0.2 — strictly, in Decimal arithmetic, so a change of exactly 0.1 never
  fires (in the seed's floats 0.4 → 0.3 is 0.10000000000000003 and fires, 0.6 → 0.5 does not);
  magnitude |Δ|, description in percentage points (``Fair probability shifted by 12.0%``);
  ``reasoning_evolution`` when the driver overlap |cur ∩ prev| / max(|cur|, |prev|) is below 0.5,
  over driver sets compared case-insensitively (casefold) with whitespace collapsed and blank
  drivers ignored — when both sets are empty there is nothing to compare and no event (the seed
  divides 0 by 0: NaN < 0.5 is false by accident); magnitude 0.5 as in the seed. Every event
  carries the real ``market_id`` argument (the seed puts the new signal's timestamp there). An
  empty history yields no events.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation, localcontext
from typing import Any

from memorysite.text import is_unsafe, one_line

DIRECTIONS = ("YES", "NO", "NEUTRAL")
DEFAULT_LIMIT = 3
MAX_SIGNALS = 5  # retrieval cap (the seed's Math.min(limit, 5))
DEFAULT_MAX_LENGTH = 1000
MIN_MAX_LENGTH = 100
NO_HISTORY_TEXT = "No previous analysis available for this market."

# Degrade, never fail (Property 10): the steps that fall back instead of failing the request. A memory read's
# (MemoryOutput.degraded_steps), in the order they run: the market lookup, the signals query, each agent's
# formatting (signals.answers). Storing a signal's: the evolution step (signals.services.signal_store).
STEP_MARKET = "market"
STEP_SIGNALS = "signals"
STEP_FORMATTING = "formatting"
MEMORY_STEPS = (STEP_MARKET, STEP_SIGNALS, STEP_FORMATTING)
STEP_EVOLUTION = "evolution"
TRUNCATION_INDICATOR = "[Additional signals truncated for brevity]"
DATE_FORMATS = ("human", "iso", "relative")
HEADER = "Previous Analysis History ({count} signals):"

PROBABILITY_SHIFT_THRESHOLD = Decimal("0.1")
CONFIDENCE_CHANGE_THRESHOLD = Decimal("0.2")
DIRECTION_CHANGE_MAGNITUDE = Decimal(1)
REASONING_EVOLUTION_MAGNITUDE = Decimal("0.5")

DIRECTION_CHANGE = "direction_change"
PROBABILITY_SHIFT = "probability_shift"
CONFIDENCE_CHANGE = "confidence_change"
REASONING_EVOLUTION = "reasoning_evolution"
EVOLUTION_TYPES = (DIRECTION_CHANGE, PROBABILITY_SHIFT, CONFIDENCE_CHANGE, REASONING_EVOLUTION)

MEMORY_INSTRUCTIONS = """## Instructions for Using Memory Context

When you have previous analysis available:
1. Review your previous analysis before generating new analysis
2. Identify what has changed since your last analysis (market conditions, probabilities, key drivers)
3. If your view has changed significantly, explain the reasoning for the change in your key drivers
4. If your view remains consistent, acknowledge the continuity and reinforce your reasoning
5. Reference specific changes from previous analysis when relevant

Your analysis should show thoughtful evolution over time, not random fluctuation."""

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_TENTH = Decimal("0.1")
# Differences of two values in [0, 1] are exact at this precision for any realistic input
# (DECIMAL(5,4) columns, float reprs); a pathological 60+-digit value is rounded, never blown up.
_ARITHMETIC = Context(prec=60)


# -- data ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HistoricalSignal:
    """One validated stored signal (build it with ``signal_from_row``)."""

    agent_name: str
    market_id: str
    timestamp: dt.datetime  # aware, UTC
    direction: str
    fair_probability: Decimal
    confidence: Decimal
    key_drivers: tuple[str, ...] = ()
    metadata: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class AgentMemoryContext:
    """One agent's memory of one market: its signals, newest first."""

    agent_name: str
    market_id: str
    historical_signals: tuple[HistoricalSignal, ...] = ()

    @property
    def has_history(self) -> bool:
        return bool(self.historical_signals)


@dataclass(frozen=True)
class FormattedMemoryContext:
    text: str
    signal_count: int
    truncated: bool


@dataclass(frozen=True)
class NewSignal:
    """The signal an agent just produced, as the evolution tracker reads it."""

    agent_name: str
    direction: str
    fair_probability: Decimal
    confidence: Decimal
    key_drivers: tuple[str, ...]
    timestamp: dt.datetime


@dataclass(frozen=True)
class EvolutionEvent:
    type: str  # one of EVOLUTION_TYPES
    agent_name: str
    market_id: str
    timestamp: dt.datetime
    previous_value: object
    current_value: object
    magnitude: Decimal
    description: str


# -- validation (Property 9) -----------------------------------------------------------------------


def signal_from_row(row: Mapping[str, Any]) -> HistoricalSignal | None:
    """A stored row as a HistoricalSignal, or None when it fails validation (never raises)."""
    if not isinstance(row, Mapping):
        return None
    try:
        agent_name = _required_text(row.get("agent_name"))
        market_id = _required_text(row.get("market_id"))
        direction = row.get("direction")
        probability = _unit_interval(row.get("fair_probability"))
        confidence = _unit_interval(row.get("confidence"))
        created_at = row.get("created_at")
        drivers = _drivers(row.get("key_drivers"))
        metadata = _metadata(row.get("metadata"))
    except Exception:  # a hostile Mapping (a raising __getitem__/get) is invalid data, not an outage
        return None
    if agent_name is None or market_id is None or probability is None or confidence is None:
        return None
    if not isinstance(direction, str) or direction not in DIRECTIONS:
        return None
    timestamp = _aware_utc(created_at)
    if timestamp is None or drivers is None or metadata is None:
        return None
    return HistoricalSignal(
        agent_name=agent_name,
        market_id=market_id,
        timestamp=timestamp,
        direction=direction,
        fair_probability=probability,
        confidence=confidence,
        key_drivers=drivers,
        metadata=metadata,
    )


def _required_text(value: object) -> str | None:
    """A non-blank string; a UUID or an int (ids) is read as its string form."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | uuid.UUID):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        return None
    return value


def _unit_interval(value: object) -> Decimal | None:
    """A finite number in [0, 1] as an exact Decimal, else None."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, Decimal):
            number = value
        elif isinstance(value, int):
            number = Decimal(value)
        elif isinstance(value, float):
            if not math.isfinite(value):
                return None
            number = Decimal(repr(value))
        elif isinstance(value, str):
            number = Decimal(value.strip())
        else:
            return None
    except (InvalidOperation, ValueError, TypeError, OverflowError):
        return None
    if not number.is_finite() or number < 0 or number > 1:
        return None
    return number


def _drivers(value: object) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(isinstance(driver, str) for driver in value):
        return None
    return tuple(value)


def _metadata(value: object) -> dict[str, Any] | None:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        return None
    return dict(value)


def _aware_utc(value: object) -> dt.datetime | None:
    """An aware datetime in UTC; None for a naive one, a non-datetime or one UTC cannot hold."""
    if not isinstance(value, dt.datetime):
        return None
    try:
        if value.utcoffset() is None:
            return None
        return value.astimezone(dt.UTC)
    except (OverflowError, ValueError, TypeError):  # year 1 at +05:00, a broken tzinfo
        return None


# -- formatting (Properties 2, 3, 4, 6) ------------------------------------------------------------


def format_memory_context(
    memory: AgentMemoryContext,
    *,
    now: dt.datetime,
    max_length: int = DEFAULT_MAX_LENGTH,
    include_metadata: bool = False,
    date_format: str = "human",
) -> FormattedMemoryContext:
    """The seed's formatMemoryContext, bounded by ``max_length`` (see the module docstring)."""
    if date_format not in DATE_FORMATS:
        raise ValueError(f"date_format must be one of {', '.join(DATE_FORMATS)}, not {date_format!r}")
    if max_length < MIN_MAX_LENGTH:
        raise ValueError(f"max_length must be at least {MIN_MAX_LENGTH}, not {max_length}")
    own = [signal for signal in memory.historical_signals if signal.agent_name == memory.agent_name]
    if not own:
        return FormattedMemoryContext(text=NO_HISTORY_TEXT, signal_count=0, truncated=False)
    # Oldest first; among equal timestamps the one listed first (newest-first input) counts as newest.
    chronological = sorted(reversed(own), key=lambda signal: _as_utc(signal.timestamp))
    blocks = [format_single_signal(signal, date_format, include_metadata, now) for signal in chronological]
    header = HEADER.format(count=len(blocks))

    text = "\n\n".join([header, *blocks])
    if len(text) <= max_length:
        return FormattedMemoryContext(text=text, signal_count=len(blocks), truncated=False)

    head = f"{header}\n{TRUNCATION_INDICATOR}"
    for keep in range(len(blocks) - 1, 0, -1):  # the newest `keep` signals, oldest of them first
        text = "\n\n".join([head, *blocks[-keep:]])
        if len(text) <= max_length:
            return FormattedMemoryContext(text=text, signal_count=len(blocks), truncated=True)

    newest = blocks[-1].split("\n")
    for keep in range(len(newest) - 1, 0, -1):  # the newest block up to its last whole line that fits
        lines = newest[:keep]
        if lines[-1] == "  Key Drivers:":
            continue
        text = "\n\n".join([head, "\n".join(lines)])
        if len(text) <= max_length:
            return FormattedMemoryContext(text=text, signal_count=len(blocks), truncated=True)

    text = "\n\n".join([head, blocks[-1]])[:max_length].rstrip()
    return FormattedMemoryContext(text=text, signal_count=len(blocks), truncated=True)


def format_single_signal(signal: HistoricalSignal, date_format: str, include_metadata: bool, now: dt.datetime) -> str:
    """One signal's block, without a trailing newline."""
    lines = [
        f"Analysis from {format_timestamp(signal.timestamp, date_format, now)}:",
        f"  Direction: {one_line(signal.direction)}",
        f"  Fair Probability: {format_percentage(signal.fair_probability)}",
        f"  Confidence: {format_percentage(signal.confidence)}",
    ]
    drivers = [driver for driver in (one_line(raw) for raw in signal.key_drivers) if driver]
    if drivers:
        lines.append("  Key Drivers:")
        lines += [f"    • {driver}" for driver in drivers]
    if include_metadata and signal.metadata:
        lines.append(f"  Metadata: {metadata_json(signal.metadata)}")
    return "\n".join(lines)


def format_percentage(value: Decimal) -> str:
    """``Decimal("0.625")`` → ``"62.5%"``: value × 100 (exact), one decimal, half-up."""
    return f"{_percent(value)}%"


def _percent(value: Decimal) -> Decimal:
    value = _decimal(value)
    sign, digits, exponent = value.as_tuple()
    if not isinstance(exponent, int):  # "n", "N" or "F": not finite
        raise ValueError(f"not a finite number: {value}")
    hundredfold = Decimal((sign, digits, exponent + 2))  # exact: no context rounding before the one below
    with localcontext(_ARITHMETIC):
        rounded = hundredfold.quantize(_TENTH, rounding=ROUND_HALF_UP)
    return rounded.copy_abs() if rounded.is_zero() else rounded  # never "-0.0%"


def _decimal(value: Decimal | float | int) -> Decimal:
    """A Decimal as is; a float through its shortest repr (0.1 → Decimal("0.1"))."""
    if isinstance(value, float):
        return Decimal(repr(value))
    return Decimal(value)


def format_timestamp(moment: dt.datetime, date_format: str, now: dt.datetime) -> str:
    moment = _as_utc(moment)
    if date_format == "iso":
        return (
            f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
            f"T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{moment.microsecond // 1000:03d}Z"
        )
    if date_format == "human":
        hour = moment.hour % 12 or 12
        meridiem = "AM" if moment.hour < 12 else "PM"
        return f"{_MONTHS[moment.month - 1]} {moment.day}, {moment.year}, {hour:02d}:{moment.minute:02d} {meridiem} UTC"
    if date_format == "relative":
        return relative_time(moment, now)
    raise ValueError(f"date_format must be one of {', '.join(DATE_FORMATS)}, not {date_format!r}")


def relative_time(moment: dt.datetime, now: dt.datetime) -> str:
    """The seed's getRelativeTime with ``now`` as an argument (floors, like Math.floor)."""
    moment = _as_utc(moment)
    hours = (_as_utc(now) - moment) // dt.timedelta(hours=1)
    days = hours // 24
    if hours < 1:
        return "less than 1 hour ago"
    if hours < 24:
        return f"{hours} hour{'s' if hours > 1 else ''} ago"
    if days < 7:
        return f"{days} day{'s' if days > 1 else ''} ago"
    return f"{moment.month}/{moment.day}/{moment.year}"


def _as_utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def metadata_json(metadata: Mapping[str, Any]) -> str:
    """JSON.stringify(metadata, null, 2), every unsafe character but the indentation's line breaks
    escaped as ``\\uXXXX`` (json.dumps leaves DEL, C1 controls, U+2028/2029 and bidi marks raw)."""
    try:
        text = json.dumps(metadata, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):  # non-string keys of odd types, cycles
        text = json.dumps(repr(metadata), ensure_ascii=False)
    return "".join(
        "".join(f"\\u{unit:04x}" for unit in _utf16_units(ch))
        if ch != "\n" and is_unsafe(ch)  # the indent's own line breaks stay
        else ch
        for ch in text
    )


def _utf16_units(ch: str) -> list[int]:
    code = ord(ch)
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


# -- the prompt block (Property 11) ----------------------------------------------------------------


def agent_prompt_block(formatted: FormattedMemoryContext) -> str:
    """The seed's §5 block appended to an analyst agent's system prompt."""
    return f"## Your Previous Analysis\n\n{formatted.text}\n\n{MEMORY_INSTRUCTIONS}"


# -- evolution (Properties 8, 12) ------------------------------------------------------------------


def track_evolution(new: NewSignal, history: Sequence[HistoricalSignal], *, market_id: str) -> list[EvolutionEvent]:
    """The seed's trackEvolution against the newest history item (see the module docstring)."""
    if not history:
        return []
    previous = max(history, key=lambda signal: _as_utc(signal.timestamp))  # first of equals wins

    def event(kind: str, before: object, after: object, magnitude: Decimal, description: str) -> EvolutionEvent:
        return EvolutionEvent(
            type=kind,
            agent_name=new.agent_name,
            market_id=market_id,
            timestamp=new.timestamp,
            previous_value=before,
            current_value=after,
            magnitude=magnitude,
            description=description,
        )

    events = []
    if new.direction != previous.direction:
        events.append(
            event(
                DIRECTION_CHANGE,
                previous.direction,
                new.direction,
                DIRECTION_CHANGE_MAGNITUDE,
                f"Direction changed from {previous.direction} to {new.direction}",
            )
        )
    probability_shift = _distance(new.fair_probability, previous.fair_probability)
    if probability_shift > PROBABILITY_SHIFT_THRESHOLD:
        events.append(
            event(
                PROBABILITY_SHIFT,
                previous.fair_probability,
                new.fair_probability,
                probability_shift,
                f"Fair probability shifted by {_percent(probability_shift)}%",
            )
        )
    confidence_change = _distance(new.confidence, previous.confidence)
    if confidence_change > CONFIDENCE_CHANGE_THRESHOLD:
        events.append(
            event(
                CONFIDENCE_CHANGE,
                previous.confidence,
                new.confidence,
                confidence_change,
                f"Confidence changed by {_percent(confidence_change)}%",
            )
        )
    if reasoning_changed(new.key_drivers, previous.key_drivers):
        events.append(
            event(
                REASONING_EVOLUTION,
                tuple(previous.key_drivers),
                tuple(new.key_drivers),
                REASONING_EVOLUTION_MAGNITUDE,
                "Key drivers have evolved significantly",
            )
        )
    return events


def _distance(a: Decimal, b: Decimal) -> Decimal:
    with localcontext(_ARITHMETIC):
        return abs(_decimal(a) - _decimal(b))


def driver_key(driver: str) -> str:
    """How drivers are compared: one line, whitespace collapsed, casefolded."""
    return one_line(driver).casefold()


def driver_overlap(current: Sequence[str], previous: Sequence[str]) -> tuple[int, int]:
    """(|cur ∩ prev|, max(|cur|, |prev|)) over the normalised driver sets."""
    current_set = {key for key in map(driver_key, current) if key}
    previous_set = {key for key in map(driver_key, previous) if key}
    return len(current_set & previous_set), max(len(current_set), len(previous_set))


def reasoning_changed(current: Sequence[str], previous: Sequence[str]) -> bool:
    """Overlap below one half; two empty driver lists have nothing to compare (no change)."""
    shared, largest = driver_overlap(current, previous)
    return largest > 0 and 2 * shared < largest

"""Research memory's pure core: context rules and fingerprint, the assessment parser, the hypothesis
lifecycle and the research agent's prompt blocks (seed: research-memory.md).

Pure: stdlib and ``ledger.risk_state.estimate_tokens`` only; no Django, no I/O, no clock. The rendered
text is a contract (it goes into the research agent's prompt), so its format is exact::

    ## Experiment History

    ### Recent Experiments (last 2)

    **exp_v15_rsi_di** (2025-12-27)
    - Context: RSI + DI | 1h | EURUSD | zigzag 1.5% | NN [32,16]
    - Results: 64.8% test (66.5% val, 1.7pp gap) | Sharpe 0.42
    - Verdict: strong_signal
    - Observations:
      - Combining RSI with DI improved by 0.6pp vs RSI solo
    - Hypotheses generated:
      - "Multi-timeframe might break this plateau" (untested)

    **exp_v15_adx_only** (2025-12-27)
    - Context: ADX solo | 1h | EURUSD | zigzag 2.0% | NN [32,16]
    - Results: 50.0% test (58.4% val, 8.4pp gap)
    - Verdict: no_signal

    ## Open Hypotheses

    - H_002: ADX might work as a trend filter when combined with RSI (untested; from exp_v15_adx_only)
    - H_001: Multi-timeframe might break this plateau (testing; from exp_v15_rsi_di)

Context (``clean_context``; a ContextError names the field as a dotted path, e.g. ``context.timeframe``,
``context.indicators[1]``, ``context.indicator_params.RSI.period``, and states the rule):

- ``indicators``: a non-empty list of names, each one line, outer whitespace stripped and inner runs
  collapsed, at most ``INDICATOR_MAX_CHARS``, no ``+`` or ``|`` (the context line's separators), unique
  compared upper-cased. Kept in the given order and spelling.
- ``indicator_params``: ``{indicator: {param: number | string | bool}}``; every indicator key must name
  one of ``indicators`` (compared upper-cased; the cleaned key takes the spelling used in ``indicators``),
  parameter names are short one-line strings unique after stripping; strings are stripped; numbers
  finite (a Decimal becomes an int or a float). Indicators with no parameters are dropped, and so is an
  empty ``indicator_params``: ``{"RSI": {}}`` means the same as nothing.
- ``composition``: one of ``COMPOSITIONS`` (case-insensitive, stored lower-case) and, when
  ``indicators`` is given, consistent with its length (solo=1, pair=2, trio=3, ensemble=4 or more);
  derived from the length when absent.
- ``timeframe``: ``^[1-9][0-9]{0,3}[mhdw]$`` after stripping (``1m``, ``5m``, ``1h``, ``4h``, ``1d``,
  ``1w``); the seed's ``^\\d+[mhdw]$`` without the zero count or a leading zero (``01h`` would otherwise
  fingerprint apart from ``1h``) and bounded in length. Case matters (``1M`` is refused, not guessed).
- ``symbol``: stripped and upper-cased, 1 to ``SYMBOL_MAX_CHARS`` characters, no whitespace.
- ``zigzag_threshold``: a number strictly between 0 and 1. ``nn_architecture``: a non-empty list of
  positive ints (order is meaningful). ``training_epochs``: a positive int. ``data_range``: a non-empty
  one-line string of at most ``SHORT_TEXT_MAX_CHARS``. Booleans are never numbers.
- A known key whose value is ``None`` (JSON null) is treated as absent and dropped.
- Any other key is kept as given (a deep copy, tuples as lists, a Decimal as an int or a float) provided
  it is a JSON value: null, bool, finite number, string, list, or object with string keys, at most
  ``_MAX_DEPTH`` levels deep, no two keys of one object equal once stripped.
- The output is JSON-serialisable, and ``clean_context(clean_context(x)) == clean_context(x)``.

Fingerprint (``context_fingerprint``): the sha256 hex of the UTF-8 text ``[<known>,<extras>]``, two
canonical JSON objects (known and extra keys apart, so an extra key can never pose as a known one) of the
cleaned context: object keys stripped and sorted at every level, strings stripped, numbers written as
their exact decimal value normalised (``0.015`` = ``0.0150`` = ``1.5e-2``, ``14`` = ``14.0``; booleans
are ``true``/``false``, never 1/0), indicators upper-cased and sorted, indicator_params keyed by the
upper-cased indicator, the symbol upper-cased, the derived composition included. ``nn_architecture``
keeps its order ([32,16] ≠ [16,32]). Dict order never matters; any extra key changes the fingerprint.

Assessment (``parse_assessment``), the seed's format::

    ## Assessment
    ### Verdict
    strong_signal
    ### Observations
    - <observation>
    ### Hypotheses Generated
    - H: <text> | Status: untested
    ### Limitations
    - <limitation>
    ### Capability Requests
    - <request>

- CRLF/CR line ends; headings of any level ``#`` to ``######`` (``###Verdict`` without the space too
  when the name is known) or a whole-line bold ``**Verdict**``; names compared case-insensitively with
  whitespace collapsed and a trailing colon ignored; ``### Verdict: strong_signal`` carries its value.
  Aliases: Observation, Hypotheses, Hypothesis, New Hypotheses, Limitation, Capability Request.
  ``## Assessment`` and unknown headings carry nothing (an unknown heading ends the section before it).
- Items: bullets ``-``, ``*``, ``+``, ``•`` or ``1.``/``1)``; a non-bullet line right after an item
  continues it (markdown's lazy continuation), otherwise it is an item of its own. Item text is one line
  (control and line-separator characters become spaces, whitespace runs collapse). Code fences and
  thematic breaks are ignored. Placeholder items (the whole text one ``[...]``) and ``none``/``n/a``/
  ``na``/``nil``/``-`` items are dropped.
- Verdict: the first line of the Verdict section (lines of explanation under it are fine), an optional
  ``Verdict:`` prefix and surrounding ``*``/``_``/backticks/quotes ignored, case-insensitive,
  ``strong signal``/``strong-signal`` accepted, followed by nothing or by a separator (``—``, ``-``,
  ``:``, ``(``, ``.``, ``,``, ``;``) and free text (``strong_signal because …`` is refused).
  Missing (or only a placeholder) or anything else → ``AssessmentError(section="Verdict")``.
- Hypotheses: ``H: <text> | Status: <status>``; the ``H:`` prefix (also ``H1:``, ``H_001:``,
  ``Hypothesis:``) is optional, the status part is the last ``| Status: …`` and optional (absent, blank or
  a placeholder → ``untested``), one pair of quotes around the text is removed; an unknown status →
  ``AssessmentError(section="Hypotheses Generated")``. Repeats (same text, case-insensitive) keep the first.
- Other sections are optional (empty tuples); every item is kept in order, none merged or reworded.

Lifecycle (``hypothesis_status_after``): when an experiment that tests a hypothesis gets a verdict, the
hypothesis takes the status that verdict supports, whatever it was before (the newest test decides; the
tests themselves stay listed in ``tested_by``): strong_signal → validated, no_signal → refuted,
weak_signal → inconclusive, overfit → inconclusive (an overfit model says nothing either way).

Rendering (the ``## Experiment History`` and ``## Open Hypotheses`` blocks):

- Experiments newest first by timestamp (a naive timestamp is read as UTC; equal timestamps keep the given
  order), at most ``n`` (1 ≤ n ≤ ``MAX_HISTORY``); ``(last N)`` counts the experiments shown. None →
  ``## Experiment History``, a blank line, ``No previous experiments recorded.``
- Per experiment: ``**<id>** (<UTC date>)``, ``- Context:`` (``format_context_line``), ``- Results:``
  (``format_results_line``), ``- Verdict:`` (one of ``VERDICTS``, anything else or None → ``unknown``),
  ``- Observations:`` with the first ``MAX_OBSERVATIONS_SHOWN`` non-blank observations, ``- Hypotheses
  generated:`` with the first ``MAX_HYPOTHESES_SHOWN`` as ``"<text>" (<status>)`` (a status outside
  ``HYPOTHESIS_STATUSES`` → ``unknown``); the two lists are left out when empty. One blank line between
  experiments.
- Observations stay contextual: each is printed as recorded, under its own experiment's context line;
  nothing is merged, deduplicated or summarised across experiments.
- Free text (ids, observations, hypothesis texts, the context and results lines) is forced to one line and
  cut to ``FIELD_MAX_CHARS`` characters, the last one ``…`` when cut; so stored data can never forge a line
  or a heading, and the block has a fixed budget (``RESEARCH_CONTEXT_TOKEN_CEILING``).
- Context line: ``RSI + DI | 1h | EURUSD | zigzag 1.5% | NN [32,16]``; one indicator whose composition is
  solo (or absent) → ``ADX solo``; parts missing or of the wrong type are left out; zigzag is
  threshold × 100 with one decimal, half-up; nothing at all → ``n/a``. Parameters are not shown (the seed).
- Results line: ``64.8% test (66.5% val, 1.7pp gap) | Sharpe 0.42``; percentages × 100 with one decimal,
  half-up, on the exact decimal value; the gap is ``val_test_gap`` as recorded, else |val − test| when
  both are known; a missing or non-numeric number is ``n/a`` (``n/a test``, ``n/a val``, ``n/a gap``);
  `` | Sharpe x.xx`` (two decimals) only when ``sharpe_ratio`` is a number.
- Open hypotheses: status untested or testing only; natural id order, highest first (``H_010`` before
  ``H_009``: ids are numbered in creation order, so the newest come first; equal ids keep the given order);
  at most ``MAX_OPEN_HYPOTHESES_SHOWN`` lines ``- <id>: <text> (<status>; from <source experiment>)``
  (``; from …`` only with a source), then ``(<k> more open hypotheses not shown)`` when some were left
  out; none → ``No open hypotheses.``
- ``render_research_context``: the two blocks joined by one blank line, and ``estimate_tokens`` of it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any

from ledger.risk_state import estimate_tokens
from memorysite.text import UNSAFE_CATEGORIES, one_line

VERDICTS = ("strong_signal", "weak_signal", "no_signal", "overfit")
HYPOTHESIS_STATUSES = ("untested", "testing", "validated", "refuted", "inconclusive")
REQUEST_STATUSES = ("pending", "approved", "implemented", "rejected")
COMPOSITIONS = ("solo", "pair", "trio", "ensemble")
OPEN_STATUSES = ("untested", "testing")

DEFAULT_HISTORY = 15
MAX_HISTORY = 50
MAX_OBSERVATIONS_SHOWN = 3
MAX_HYPOTHESES_SHOWN = 3  # per experiment, under "- Hypotheses generated:"
MAX_OPEN_HYPOTHESES_SHOWN = 20
FIELD_MAX_CHARS = 200  # every free-text field of the rendered blocks, "…" included

INDICATOR_MAX_CHARS = 32
SYMBOL_MAX_CHARS = 32
SHORT_TEXT_MAX_CHARS = 64  # parameter names, data_range
PARAM_TEXT_MAX_CHARS = 200  # a string parameter value
_MAX_DEPTH = 32  # nesting of an extra key's value

HISTORY_HEADING = "## Experiment History"
RECENT_HEADING = "### Recent Experiments (last {count})"
NO_EXPERIMENTS = "No previous experiments recorded."
OPEN_HEADING = "## Open Hypotheses"
NO_OPEN_HYPOTHESES = "No open hypotheses."
MORE_OPEN_HYPOTHESES = "({count} more open hypotheses not shown)"
UNKNOWN = "unknown"
NOT_AVAILABLE = "n/a"
ELLIPSIS = "…"

_TIMEFRAME = re.compile(r"[1-9][0-9]{0,3}[mhdw]")
CONTEXT_KEYS = (  # the seed's known context keys, in the seed's order
    "indicators",
    "indicator_params",
    "composition",
    "timeframe",
    "symbol",
    "zigzag_threshold",
    "nn_architecture",
    "training_epochs",
    "data_range",
)


# -- context -------------------------------------------------------------------------------------------------------


class ContextError(ValueError):
    """A context that breaks a rule: ``field`` is the dotted path, ``message`` the rule."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


def clean_context(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The context as stored (see the module docstring); raises ContextError naming the field."""
    if not isinstance(raw, Mapping):
        raise ContextError("context", "must be a mapping (a JSON object)")
    _check_keys(raw, "context")
    cleaned: dict[str, Any] = {}
    indicators = None
    if raw.get("indicators") is not None:
        indicators = _clean_indicators(raw["indicators"])
        cleaned["indicators"] = indicators
    if raw.get("indicator_params") is not None:
        params = _clean_indicator_params(raw["indicator_params"], indicators or [])
        if params:
            cleaned["indicator_params"] = params
    if raw.get("composition") is not None:
        cleaned["composition"] = _clean_composition(raw["composition"], indicators)
    elif indicators is not None:
        cleaned["composition"] = _composition_for(len(indicators))
    if raw.get("timeframe") is not None:
        cleaned["timeframe"] = _clean_timeframe(raw["timeframe"])
    if raw.get("symbol") is not None:
        cleaned["symbol"] = _clean_symbol(raw["symbol"])
    if raw.get("zigzag_threshold") is not None:
        threshold = _number(raw["zigzag_threshold"], "context.zigzag_threshold", "must be a number between 0 and 1")
        if not 0 < threshold < 1:
            raise ContextError("context.zigzag_threshold", "must be a number between 0 and 1 (exclusive)")
        cleaned["zigzag_threshold"] = threshold
    if raw.get("nn_architecture") is not None:
        cleaned["nn_architecture"] = _clean_architecture(raw["nn_architecture"])
    if raw.get("training_epochs") is not None:
        epochs = raw["training_epochs"]
        if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs <= 0:
            raise ContextError("context.training_epochs", "must be a positive integer")
        cleaned["training_epochs"] = int(epochs)
    if raw.get("data_range") is not None:
        cleaned["data_range"] = _short_text(raw["data_range"], "context.data_range", SHORT_TEXT_MAX_CHARS)
    for key, value in raw.items():
        if key not in CONTEXT_KEYS:
            cleaned[key] = _json_value(value, f"context.{key}", 1)
    return cleaned


def _check_keys(mapping: Mapping[str, Any], field: str) -> None:
    seen: dict[str, str] = {}
    for key in mapping:
        if not isinstance(key, str):
            raise ContextError(field, "keys must be strings")
        stripped = key.strip()
        if stripped in seen:
            raise ContextError(f"{field}.{key}", f"duplicates the key {seen[stripped]!r} once whitespace is stripped")
        seen[stripped] = key


def _short_text(value: object, field: str, max_chars: int) -> str:
    """A non-empty one-line string, outer whitespace stripped and inner runs collapsed."""
    if not isinstance(value, str):
        raise ContextError(field, "must be a string")
    if any(unicodedata.category(ch) in UNSAFE_CATEGORIES for ch in value if ch not in " \t"):
        raise ContextError(field, "must be one line without control or invisible format characters")
    text = " ".join(value.split())
    if not text:
        raise ContextError(field, "must not be blank")
    if len(text) > max_chars:
        raise ContextError(field, f"must be at most {max_chars} characters")
    return text


def _clean_indicators(value: object) -> list[str]:
    if not isinstance(value, list | tuple) or not value:
        raise ContextError("context.indicators", "must be a non-empty list of indicator names")
    names: list[str] = []
    seen: dict[str, str] = {}
    for index, item in enumerate(value):
        field = f"context.indicators[{index}]"
        name = _short_text(item, field, INDICATOR_MAX_CHARS)
        if "+" in name or "|" in name:
            raise ContextError(field, "must not contain '+' or '|'")
        key = name.upper()
        if key in seen:
            raise ContextError(field, f"duplicates {seen[key]!r} (indicator names are compared case-insensitively)")
        seen[key] = name
        names.append(name)
    return names


def _clean_indicator_params(value: object, indicators: Sequence[str]) -> dict[str, Any]:
    field = "context.indicator_params"
    if not isinstance(value, Mapping):
        raise ContextError(field, "must be a mapping of indicator name to {parameter: value}")
    spelling = {name.upper(): name for name in indicators}
    cleaned: dict[str, Any] = {}
    seen: set[str] = set()
    for raw_name, params in value.items():
        if not isinstance(raw_name, str):
            raise ContextError(field, "keys must be indicator names (strings)")
        name_field = f"{field}.{raw_name.strip()}"
        key = " ".join(raw_name.split()).upper()
        if key not in spelling:
            raise ContextError(name_field, "names no indicator of context.indicators")
        if key in seen:
            raise ContextError(name_field, "repeats an indicator (indicator names are compared case-insensitively)")
        seen.add(key)
        if not isinstance(params, Mapping):
            raise ContextError(name_field, "must be a mapping of parameter name to a number, string or boolean")
        cleaned_params: dict[str, Any] = {}
        for raw_param, param_value in params.items():
            param_field = f"{name_field}.{raw_param.strip() if isinstance(raw_param, str) else raw_param}"
            param = _short_text(raw_param, param_field, SHORT_TEXT_MAX_CHARS)
            if param in cleaned_params:
                raise ContextError(param_field, "repeats a parameter name")
            cleaned_params[param] = _param_value(param_value, param_field)
        if cleaned_params:
            cleaned[spelling[key]] = cleaned_params
    return cleaned


def _param_value(value: object, field: str) -> object:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if any(unicodedata.category(ch) in UNSAFE_CATEGORIES for ch in value if ch not in " \t"):
            raise ContextError(field, "must be one line without control or invisible format characters")
        text = value.strip()
        if len(text) > PARAM_TEXT_MAX_CHARS:
            raise ContextError(field, f"must be at most {PARAM_TEXT_MAX_CHARS} characters")
        return text
    return _number(value, field, "must be a number, string or boolean")


def _number(value: object, field: str, message: str) -> int | float:
    """A finite int or float (a Decimal becomes one); booleans are not numbers."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ContextError(field, message)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ContextError(field, "must be a finite number")
        return value
    if not value.is_finite():
        raise ContextError(field, "must be a finite number")
    if value == value.to_integral_value():
        return int(value)
    number = float(value)
    if not math.isfinite(number):
        raise ContextError(field, "must be a finite number")
    return number


def _composition_for(count: int) -> str:
    return {1: "solo", 2: "pair", 3: "trio"}.get(count, "ensemble")


def _clean_composition(value: object, indicators: Sequence[str] | None) -> str:
    field = "context.composition"
    composition = value.strip().lower() if isinstance(value, str) else None
    if composition not in COMPOSITIONS:
        raise ContextError(field, f"must be one of {', '.join(COMPOSITIONS)}")
    if indicators is not None and _composition_for(len(indicators)) != composition:
        count = len(indicators)
        raise ContextError(
            field,
            f"is {composition!r} but context.indicators names {count} indicator{'s' if count != 1 else ''} "
            "(solo=1, pair=2, trio=3, ensemble=4 or more)",
        )
    return composition


def _clean_timeframe(value: object) -> str:
    timeframe = value.strip() if isinstance(value, str) else None
    if timeframe is None or not _TIMEFRAME.fullmatch(timeframe):
        raise ContextError(
            "context.timeframe", "must be a count and a unit m, h, d or w, such as 1m, 5m, 1h, 4h, 1d or 1w"
        )
    return timeframe


def _clean_symbol(value: object) -> str:
    field = "context.symbol"
    if not isinstance(value, str):
        raise ContextError(field, "must be a string")
    symbol = value.strip().upper()
    if not symbol:
        raise ContextError(field, "must not be blank")
    if any(ch.isspace() or unicodedata.category(ch) in UNSAFE_CATEGORIES for ch in symbol):
        raise ContextError(field, "must not contain whitespace or control characters")
    if len(symbol) > SYMBOL_MAX_CHARS:
        raise ContextError(field, f"must be at most {SYMBOL_MAX_CHARS} characters")
    return symbol


def _clean_architecture(value: object) -> list[int]:
    field = "context.nn_architecture"
    if not isinstance(value, list | tuple) or not value:
        raise ContextError(field, "must be a non-empty list of positive integers (layer sizes)")
    for index, size in enumerate(value):
        if isinstance(size, bool) or not isinstance(size, int) or size <= 0:
            raise ContextError(f"{field}[{index}]", "must be a positive integer")
    return [int(size) for size in value]


def _json_value(value: object, field: str, depth: int) -> object:
    if depth > _MAX_DEPTH:
        raise ContextError(field, f"is nested too deeply (at most {_MAX_DEPTH} levels)")
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int | float | Decimal):
        return _number(value, field, "must be a JSON value")
    if isinstance(value, Mapping):
        _check_keys(value, field)
        return {key: _json_value(item, f"{field}.{key}", depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(item, f"{field}[{index}]", depth + 1) for index, item in enumerate(value)]
    raise ContextError(field, "must be a JSON value (null, boolean, number, string, list or object)")


def context_fingerprint(context: Mapping[str, Any]) -> str:
    """sha256 hex of the cleaned context's canonical JSON (see the module docstring)."""
    cleaned = clean_context(context)
    known: dict[str, Any] = {key: cleaned[key] for key in CONTEXT_KEYS if key in cleaned}
    extras = {key: value for key, value in cleaned.items() if key not in CONTEXT_KEYS}
    if "indicators" in known:
        known["indicators"] = sorted(name.upper() for name in known["indicators"])
    if "indicator_params" in known:
        known["indicator_params"] = {name.upper(): params for name, params in known["indicator_params"].items()}
    text = f"[{_canonical(known)},{_canonical(extras)}]"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _canonical(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return _canonical_number(value)
    if isinstance(value, str):
        return json.dumps(value.strip())
    if isinstance(value, Mapping):
        items = sorted((key.strip(), item) for key, item in value.items())
        return "{" + ",".join(f"{json.dumps(key)}:{_canonical(item)}" for key, item in items) + "}"
    if isinstance(value, Iterable):  # a list (cleaned: nothing else is left)
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    raise TypeError(f"not a cleaned context value: {value!r}")


def _canonical_number(value: int | float | Decimal) -> str:
    """The exact decimal value, normalised: 0.015, 0.0150 and 1.5e-2 → "0.015"; 14 and 14.0 → "14"."""
    if isinstance(value, int):
        return str(int(value))
    number = Decimal(repr(value)) if isinstance(value, float) else value
    if number == number.to_integral_value():
        return str(int(number))
    with localcontext() as context:
        context.prec = max(28, len(number.as_tuple().digits))
        return format(number.normalize(), "f")


# -- assessment ----------------------------------------------------------------------------------------------------

SECTION_VERDICT = "Verdict"
SECTION_OBSERVATIONS = "Observations"
SECTION_HYPOTHESES = "Hypotheses Generated"
SECTION_LIMITATIONS = "Limitations"
SECTION_REQUESTS = "Capability Requests"
_SECTIONS = (SECTION_VERDICT, SECTION_OBSERVATIONS, SECTION_HYPOTHESES, SECTION_LIMITATIONS, SECTION_REQUESTS)
_SECTION_NAMES: dict[str, str | None] = {
    "assessment": None,
    "verdict": SECTION_VERDICT,
    "observations": SECTION_OBSERVATIONS,
    "observation": SECTION_OBSERVATIONS,
    "hypotheses generated": SECTION_HYPOTHESES,
    "hypotheses": SECTION_HYPOTHESES,
    "hypothesis": SECTION_HYPOTHESES,
    "new hypotheses": SECTION_HYPOTHESES,
    "limitations": SECTION_LIMITATIONS,
    "limitation": SECTION_LIMITATIONS,
    "capability requests": SECTION_REQUESTS,
    "capability request": SECTION_REQUESTS,
}
_HASH_HEADING = re.compile(r"#{1,6}(\s*)(.*?)(?:\s+#+)?")
_BOLD_HEADING = re.compile(r"\*\*([^*]+?)\*\*\s*(:?)\s*(.*)")
_BULLET = re.compile(r"(?:[-*+]\s+|•\s*|\d{1,3}[.)]\s+)(.*)")
_FENCE = re.compile(r"(?:```|~~~).*")
_THEMATIC_BREAK = re.compile(r"([-*_])(?:\s*\1){2,}")
_PLACEHOLDER = re.compile(r"\[[^\[\]]*\]")
_NONE_ITEMS = frozenset({"none", "n/a", "na", "nil", "-", "—", "–"})
_VERDICT = re.compile(r"(strong[ _-]?signal|weak[ _-]?signal|no[ _-]?signal|overfit)(?=$|\s*[-—–:(.,;!*`\"')\]])")
_VERDICT_PREFIX = re.compile(r"verdict\s*[:=—–-]\s*", re.IGNORECASE)
_HYPOTHESIS_PREFIX = re.compile(r"(?:h|hypothesis)\s*(?:[-_#]?\s*\d+)?\s*:\s*", re.IGNORECASE)
_HYPOTHESIS_STATUS = re.compile(r"(.*)\|\s*status\s*[:=]?\s*(.*)", re.IGNORECASE | re.DOTALL)
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’"}


class AssessmentError(ValueError):
    """An assessment the parser cannot use: ``section`` names the section, ``message`` the rule."""

    def __init__(self, section: str, message: str):
        super().__init__(f"{section}: {message}")
        self.section = section
        self.message = message


@dataclass(frozen=True)
class ParsedHypothesis:
    text: str
    status: str


@dataclass(frozen=True)
class ParsedAssessment:
    verdict: str
    observations: tuple[str, ...]
    hypotheses: tuple[ParsedHypothesis, ...]
    limitations: tuple[str, ...]
    capability_requests: tuple[str, ...]


def parse_assessment(markdown: str) -> ParsedAssessment:
    """The seed's structured assessment (see the module docstring); raises AssessmentError."""
    items: dict[str, list[list[str]]] = {section: [] for section in _SECTIONS}
    section: str | None = None
    item: list[str] | None = None
    for raw_line in markdown.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw_line.strip()
        heading = _heading(line)
        if heading is not None:
            section, rest = heading
            item = None
            if section is not None and rest:
                item = [rest]
                items[section].append(item)
            continue
        if not line or _FENCE.fullmatch(line) or _THEMATIC_BREAK.fullmatch(line):
            item = None
            continue
        if section is None:
            continue
        bullet = _BULLET.fullmatch(line)
        if bullet is not None:
            item = [bullet.group(1)]
            items[section].append(item)
        elif item is not None:
            item.append(line)
        else:
            item = [line]
            items[section].append(item)

    def texts(section: str, first_line_only: bool = False) -> list[str]:
        joined = (one_line(pieces[0] if first_line_only else " ".join(pieces)) for pieces in items[section])
        return [text for text in joined if text and not _is_placeholder(text) and not _is_none(text)]

    return ParsedAssessment(
        verdict=_parse_verdict(texts(SECTION_VERDICT, first_line_only=True)),
        observations=tuple(texts(SECTION_OBSERVATIONS)),
        hypotheses=_parse_hypotheses(texts(SECTION_HYPOTHESES)),
        limitations=tuple(texts(SECTION_LIMITATIONS)),
        capability_requests=tuple(texts(SECTION_REQUESTS)),
    )


def _heading(line: str) -> tuple[str | None, str] | None:
    """(section or None for a heading that carries nothing, the rest of the line) or None for no heading."""
    match = _HASH_HEADING.fullmatch(line)
    if match is not None:
        known, section, rest = _section_of(match.group(2))
        if known or match.group(1):
            return section, rest
        return None
    match = _BOLD_HEADING.fullmatch(line)  # **Verdict**, **Verdict:** x, **Verdict**: x; not **Hypothesis** is …
    if match is not None:
        name, colon, rest = match.groups()
        known, section, inline = _section_of(name)
        if known and (not rest or colon or name.rstrip().endswith(":")):
            return section, rest.strip() or inline
    return None


def _section_of(text: str) -> tuple[bool, str | None, str]:
    for name, rest in ((text, ""), text.split(":", 1) if ":" in text else (text, "")):
        key = " ".join(re.sub(r"^\d+[.)]\s*", "", name.strip().strip("*_`").strip()).split()).lower().rstrip(":")
        if key in _SECTION_NAMES:
            return True, _SECTION_NAMES[key], rest.strip()
    return False, None, ""


def _is_placeholder(text: str) -> bool:
    return _PLACEHOLDER.fullmatch(text) is not None


def _is_none(text: str) -> bool:
    return text.strip(" .()*_`").casefold() in _NONE_ITEMS


def _parse_verdict(candidates: list[str]) -> str:
    allowed = ", ".join(VERDICTS)
    if not candidates:
        raise AssessmentError(SECTION_VERDICT, f"missing: write one of {allowed} under ### Verdict")
    prefix = _VERDICT_PREFIX.match(candidates[0])
    text = candidates[0][prefix.end() :] if prefix else candidates[0]
    core = text.strip().lstrip("*_`\"'").strip().lower()
    match = _VERDICT.match(core.rstrip("*_`\"' ")) or _VERDICT.match(core)
    if match is None:
        shown = candidates[0] if len(candidates[0]) <= 80 else candidates[0][:79] + ELLIPSIS
        raise AssessmentError(SECTION_VERDICT, f"{shown!r} is not a verdict: must be one of {allowed}")
    word = re.sub(r"[ _-]", "", match.group(1))
    return {"strongsignal": "strong_signal", "weaksignal": "weak_signal", "nosignal": "no_signal"}.get(word, word)


def _parse_hypotheses(texts: list[str]) -> tuple[ParsedHypothesis, ...]:
    parsed: list[ParsedHypothesis] = []
    seen: set[str] = set()
    for item in texts:
        text, status_text = item, ""
        match = _HYPOTHESIS_STATUS.fullmatch(item)
        if match is not None:
            text, status_text = match.group(1), match.group(2)
        text = text.strip()
        prefix = _HYPOTHESIS_PREFIX.match(text)
        text = _unquote(text[prefix.end() :].strip() if prefix else text)
        if not text or _is_placeholder(text) or _is_none(text):
            continue
        status = _parse_status(status_text, text)
        key = text.casefold()
        if key not in seen:
            seen.add(key)
            parsed.append(ParsedHypothesis(text=text, status=status))
    return tuple(parsed)


def _unquote(text: str) -> str:
    if len(text) >= 2 and _QUOTES.get(text[0]) == text[-1]:
        return text[1:-1].strip()
    return text


def _parse_status(raw: str, text: str) -> str:
    raw = raw.strip()
    if not raw or _is_placeholder(raw):
        return "untested"
    status = raw.strip("*_`\"'. ").lower()
    if status not in HYPOTHESIS_STATUSES:
        shown = text if len(text) <= 60 else text[:59] + ELLIPSIS
        raise AssessmentError(
            SECTION_HYPOTHESES,
            f"unknown status {raw!r} for hypothesis {shown!r}: must be one of {', '.join(HYPOTHESIS_STATUSES)}",
        )
    return status


# -- hypothesis lifecycle ------------------------------------------------------------------------------------------

_STATUS_AFTER_VERDICT = {
    "strong_signal": "validated",
    "no_signal": "refuted",
    "weak_signal": "inconclusive",
    "overfit": "inconclusive",
}


def hypothesis_status_after(current: str, verdict: str) -> str:
    """The status of a hypothesis once an experiment that tests it gets ``verdict``: the newest test decides
    (strong_signal → validated, no_signal → refuted, weak_signal and overfit → inconclusive), whatever
    ``current`` was. ValueError for a status or verdict outside the known ones."""
    if current not in HYPOTHESIS_STATUSES:
        raise ValueError(f"unknown hypothesis status {current!r}: must be one of {', '.join(HYPOTHESIS_STATUSES)}")
    if verdict not in VERDICTS:
        raise ValueError(f"unknown verdict {verdict!r}: must be one of {', '.join(VERDICTS)}")
    return _STATUS_AFTER_VERDICT[verdict]


# -- rendering -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExperimentView:
    id: str
    timestamp: dt.datetime
    context: Mapping[str, Any]
    results: Mapping[str, Any]
    verdict: str | None
    observations: tuple[str, ...]
    hypotheses: tuple[tuple[str, str], ...]  # (text, current status), generated by this experiment


@dataclass(frozen=True)
class HypothesisView:
    id: str
    text: str
    status: str
    source_experiment: str | None
    tested_by: tuple[str, ...]


def _field(value: object, limit: int = FIELD_MAX_CHARS) -> str:
    """Free text as rendered: one line, at most ``limit`` characters (the last one "…" when cut)."""
    text = one_line(value if isinstance(value, str) else str(value))
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def _decimal(value: object) -> Decimal | None:
    """A finite number as its exact decimal value (a float through its shortest repr); else None."""
    if isinstance(value, bool):
        return None
    try:
        if isinstance(value, float):
            number = Decimal(repr(value))
        elif isinstance(value, int | Decimal):
            number = Decimal(value)
        else:
            return None
    except (InvalidOperation, ValueError, OverflowError):
        return None
    return number if number.is_finite() else None


def _fixed(number: Decimal, places: int) -> str:
    """``number`` rounded half-up to ``places`` decimals, exactly (no "-0.0")."""
    quantum = Decimal(1).scaleb(-places)
    with localcontext() as context:
        context.prec = max(28, number.adjusted() + places + 3)
        rounded = number.quantize(quantum, rounding=ROUND_HALF_UP)
    return str(rounded.copy_abs() if rounded.is_zero() else rounded)


def _percent(number: Decimal) -> str:
    sign, digits, exponent = number.as_tuple()
    if not isinstance(exponent, int):  # "n", "N" or "F": NaN or infinity
        raise ValueError(f"not a finite number: {number}")
    return _fixed(Decimal((sign, digits, exponent + 2)), 1)  # × 100, exactly (scaleb would round)


def format_context_line(context: Mapping[str, Any]) -> str:
    """``RSI + DI | 1h | EURUSD | zigzag 1.5% | NN [32,16]`` (see the module docstring)."""
    if not isinstance(context, Mapping):
        return NOT_AVAILABLE
    parts = []
    indicators = context.get("indicators")
    names = (
        [one_line(name) for name in indicators if isinstance(name, str)] if isinstance(indicators, list | tuple) else []
    )
    names = [name for name in names if name]
    if len(names) == 1 and context.get("composition") in (None, "solo"):
        parts.append(f"{names[0]} solo")
    elif names:
        parts.append(" + ".join(names))
    for key in ("timeframe", "symbol"):
        value = context.get(key)
        if isinstance(value, str) and one_line(value):
            parts.append(one_line(value))
    threshold = _decimal(context.get("zigzag_threshold"))
    if threshold is not None:
        parts.append(f"zigzag {_percent(threshold)}%")
    architecture = context.get("nn_architecture")
    if (
        isinstance(architecture, list | tuple)
        and architecture
        and all(isinstance(size, int) and not isinstance(size, bool) for size in architecture)
    ):
        parts.append(f"NN [{','.join(str(size) for size in architecture)}]")
    return _field(" | ".join(parts)) if parts else NOT_AVAILABLE


def format_results_line(results: Mapping[str, Any]) -> str:
    """``64.8% test (66.5% val, 1.7pp gap) | Sharpe 0.42`` (see the module docstring)."""
    if not isinstance(results, Mapping):
        results = {}
    test = _decimal(results.get("test_accuracy"))
    val = _decimal(results.get("val_accuracy"))
    gap = _decimal(results.get("val_test_gap"))
    if gap is None and test is not None and val is not None:
        with localcontext() as context:
            context.prec = max(28, len(test.as_tuple().digits) + len(val.as_tuple().digits) + 2)
            gap = abs(val - test)
    test_part = f"{_percent(test)}% test" if test is not None else f"{NOT_AVAILABLE} test"
    val_part = f"{_percent(val)}% val" if val is not None else f"{NOT_AVAILABLE} val"
    gap_part = f"{_percent(gap)}pp gap" if gap is not None else f"{NOT_AVAILABLE} gap"
    line = f"{test_part} ({val_part}, {gap_part})"
    sharpe = _decimal(results.get("sharpe_ratio"))
    if sharpe is not None:
        line += f" | Sharpe {_fixed(sharpe, 2)}"
    return _field(line)


def _utc(moment: dt.datetime) -> dt.datetime:
    if moment.tzinfo is None or moment.utcoffset() is None:
        return moment.replace(tzinfo=dt.UTC)
    try:
        return moment.astimezone(dt.UTC)
    except (OverflowError, ValueError):  # year 1 at a positive offset: keep its wall-clock date
        return moment.replace(tzinfo=dt.UTC)


def _experiment_block(experiment: ExperimentView) -> str:
    moment = _utc(experiment.timestamp)
    lines = [
        f"**{_field(experiment.id) or UNKNOWN}** ({moment.year:04d}-{moment.month:02d}-{moment.day:02d})",
        f"- Context: {format_context_line(experiment.context)}",
        f"- Results: {format_results_line(experiment.results)}",
        f"- Verdict: {experiment.verdict if experiment.verdict in VERDICTS else UNKNOWN}",
    ]
    observations = [text for text in (_field(raw) for raw in experiment.observations) if text]
    if observations:
        lines.append("- Observations:")
        lines += [f"  - {text}" for text in observations[:MAX_OBSERVATIONS_SHOWN]]
    hypotheses = [(_field(text), status) for text, status in experiment.hypotheses]
    hypotheses = [(text, status) for text, status in hypotheses if text]
    if hypotheses:
        lines.append("- Hypotheses generated:")
        lines += [
            f'  - "{text}" ({status if status in HYPOTHESIS_STATUSES else UNKNOWN})'
            for text, status in hypotheses[:MAX_HYPOTHESES_SHOWN]
        ]
    return "\n".join(lines)


def _history_size(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_HISTORY:
        raise ValueError(f"n must be an integer from 1 to {MAX_HISTORY}, not {n!r}")
    return n


def format_experiment_history(experiments: Sequence[ExperimentView], n: int = DEFAULT_HISTORY) -> str:
    """The ``## Experiment History`` block over the newest ``n`` experiments, newest first."""
    n = _history_size(n)
    if not experiments:
        return f"{HISTORY_HEADING}\n\n{NO_EXPERIMENTS}"
    newest = sorted(experiments, key=lambda experiment: _utc(experiment.timestamp), reverse=True)[:n]
    blocks = [_experiment_block(experiment) for experiment in newest]
    return "\n\n".join([HISTORY_HEADING, RECENT_HEADING.format(count=len(blocks)), *blocks])


def _natural_key(identifier: str) -> tuple[str | int, ...]:
    """``H_010`` after ``H_009``: digit runs compare as numbers (even positions text, odd positions ints)."""
    parts = re.split(r"([0-9]+)", identifier.casefold())
    return tuple(int(part) if index % 2 else part for index, part in enumerate(parts))


def format_open_hypotheses(hypotheses: Sequence[HypothesisView], open_total: int | None = None) -> str:
    """The ``## Open Hypotheses`` block: untested and testing ones, highest (newest) id first.

    ``open_total`` is how many open hypotheses exist when the caller passes only the newest few (a
    database read stops at the cap); the "(k more …)" line counts from it."""
    open_ = [hypothesis for hypothesis in hypotheses if hypothesis.status in OPEN_STATUSES]
    if not open_:
        return f"{OPEN_HEADING}\n\n{NO_OPEN_HYPOTHESES}"
    ordered = sorted(open_, key=lambda hypothesis: _natural_key(str(hypothesis.id)), reverse=True)
    lines = []
    for hypothesis in ordered[:MAX_OPEN_HYPOTHESES_SHOWN]:
        source = _field(hypothesis.source_experiment) if hypothesis.source_experiment is not None else ""
        provenance = f"{hypothesis.status}; from {source}" if source else hypothesis.status
        lines.append(f"- {_field(hypothesis.id) or UNKNOWN}: {_field(hypothesis.text) or UNKNOWN} ({provenance})")
    hidden = max(open_total if open_total is not None else len(ordered), len(ordered)) - min(
        len(ordered), MAX_OPEN_HYPOTHESES_SHOWN
    )
    if hidden > 0:
        lines.append(MORE_OPEN_HYPOTHESES.format(count=hidden))
    return f"{OPEN_HEADING}\n\n" + "\n".join(lines)


def render_research_context(
    experiments: Sequence[ExperimentView],
    hypotheses: Sequence[HypothesisView],
    n: int = DEFAULT_HISTORY,
    open_total: int | None = None,
) -> tuple[str, int]:
    """Both blocks joined by one blank line, and the text's ``estimate_tokens``."""
    text = f"{format_experiment_history(experiments, n)}\n\n{format_open_hypotheses(hypotheses, open_total)}"
    return text, estimate_tokens(text)


def _research_context_ceiling() -> int:
    """Tokens of the longest possible ``render_research_context`` text, for any n ≤ MAX_HISTORY: every
    free-text field at FIELD_MAX_CHARS, the longest verdict and status words, every list at its cap."""
    field = FIELD_MAX_CHARS
    verdict = max(len(word) for word in (*VERDICTS, UNKNOWN))
    status = max(len(word) for word in (*HYPOTHESIS_STATUSES, UNKNOWN))
    experiment_lines = [
        len("**") + field + len("** (YYYY-MM-DD)"),
        len("- Context: ") + field,
        len("- Results: ") + field,
        len("- Verdict: ") + verdict,
        len("- Observations:"),
        *[len("  - ") + field] * MAX_OBSERVATIONS_SHOWN,
        len("- Hypotheses generated:"),
        *[len('  - "') + field + len('" (') + status + len(")")] * MAX_HYPOTHESES_SHOWN,
    ]
    experiment = sum(experiment_lines) + len(experiment_lines) - 1
    history = (
        len(HISTORY_HEADING)
        + 2
        + len(RECENT_HEADING.format(count=MAX_HISTORY))
        + 2
        + MAX_HISTORY * experiment
        + (MAX_HISTORY - 1) * 2
    )
    open_status = max(len(word) for word in OPEN_STATUSES)
    open_line = len("- ") + field + len(": ") + field + len(" (") + open_status + len("; from ") + field + len(")")
    more = len(MORE_OPEN_HYPOTHESES.format(count=sys.maxsize))  # no sequence is longer than sys.maxsize
    open_block = len(OPEN_HEADING) + 2 + MAX_OPEN_HYPOTHESES_SHOWN * (open_line + 1) + more
    return math.ceil((history + 2 + open_block) / 4)


# ≈ 28k tokens: the worst case, with every field of 50 experiments and 20 open hypotheses at its cap.
# A real history runs at roughly 100-150 tokens per experiment.
RESEARCH_CONTEXT_TOKEN_CEILING: int = _research_context_ceiling()

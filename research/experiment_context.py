"""An experiment's context: its rules, its fingerprint and the columns derived from it (seed:
research-memory.md).

Pure: stdlib and ``memorysite.text`` only; no Django, no I/O, no clock.

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

Columns (``experiment_columns``): what an experiment row stores of its context, the one derivation every
write uses (``research.services.experiment_create``): the cleaned context, its fingerprint, and the
denormalised filter columns ``indicators`` (upper-cased names), ``timeframe`` and ``symbol`` (``""`` when
absent).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, localcontext
from typing import Any

from memorysite.text import is_unsafe

COMPOSITIONS = ("solo", "pair", "trio", "ensemble")
INDICATOR_MAX_CHARS = 32
SYMBOL_MAX_CHARS = 32
SHORT_TEXT_MAX_CHARS = 64  # parameter names, data_range
PARAM_TEXT_MAX_CHARS = 200  # a string parameter value
_MAX_DEPTH = 32  # nesting of an extra key's value

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
    if any(is_unsafe(ch) for ch in value if ch not in " \t"):
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
        if any(is_unsafe(ch) for ch in value if ch not in " \t"):
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
    if any(ch.isspace() or is_unsafe(ch) for ch in symbol):
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
    if isinstance(value, list):
        return "[" + ",".join(_canonical(item) for item in value) + "]"
    raise TypeError(f"not a cleaned context value: {type(value).__name__}")  # clean_context leaves nothing else


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


def experiment_columns(context: Mapping[str, Any]) -> dict[str, Any]:
    """The experiment row's context columns: ``context`` (cleaned), ``context_fingerprint``, ``indicators``,
    ``timeframe`` and ``symbol``; raises ContextError naming the field."""
    cleaned = clean_context(context)
    return {
        "context": cleaned,
        "context_fingerprint": context_fingerprint(cleaned),
        "indicators": [name.upper() for name in cleaned.get("indicators", [])],
        "timeframe": cleaned.get("timeframe", ""),
        "symbol": cleaned.get("symbol", ""),
    }

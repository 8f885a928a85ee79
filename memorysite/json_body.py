"""Request bodies as JSON, refused with a 400 unless every value can be stored and sent back.

The API's parser (settings.REST_FRAMEWORK) and POST /mcp/ (before the SDK's own json.loads) parse
through `parse_json`. Apart from memorysite.api because DRF imports the parser class while it
defines its APIView, which memorysite.api extends.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from itertools import accumulate
from typing import NoReturn

from rest_framework import exceptions, parsers, serializers

MAX_JSON_DEPTH = 64
TOO_DEEP = f"JSON parse error - arrays and objects may nest at most {MAX_JSON_DEPTH} levels deep"
LONE_SURROGATE = "must not contain unpaired surrogates (\\ud800-\\udfff): they are not Unicode text"
LONE_SURROGATE_IN_KEY = "keys must not contain unpaired surrogates (\\ud800-\\udfff): they are not Unicode text"
NOT_FINITE = "must be a finite number"
NOT_TEXT = "must be valid {encoding} text (byte 0x{byte:02x} is invalid there)"
NOT_TEXT_IN_KEY = "keys must be valid {encoding} text (byte 0x{byte:02x} is invalid there)"

# An unterminated string (the tail of malformed text) runs to the end in one match: no retry from each later quote.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"?')
_NOT_A_BRACKET = re.compile(r"[^\[\]{}]+")
_BRACKET_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# A surrogate can only arrive as a \uD800-\uDFFF escape (UTF-8 cannot encode one): without one in the
# text, no walk (a false alarm, such as an escaped backslash before "ud800", only costs the walk).
_MAYBE_SURROGATE = re.compile(r"\\u[dD][89abcdefABCDEF]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins the escapes of a valid pair into one character
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")  # an undecodable byte, read with errors="surrogateescape"


def parse_json(raw: bytes, encoding: str = "utf-8"):
    """The body as JSON, or:

    - malformed JSON, the NaN/Infinity literals, or arrays and objects nested deeper than
      MAX_JSON_DEPTH (the parser recurses per level, and so would the renderer echoing the value
      back; measured on the text, so a body within the limit costs no walk): ParseError;
    - a lone surrogate in a string or key (psycopg cannot encode it, nor the renderer echo it), a
      number too large to be finite (1e309 parses as inf; jsonb refuses it) or bytes that are not
      text in the body's encoding (invalid UTF-8) inside a string or key: ValidationError naming its
      dotted path (a key's: the object holding it); invalid bytes outside any string: ParseError.
    """
    infinite = []

    def number(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            infinite.append(literal)
        return value

    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as exc:
        _refuse_undecodable(raw, encoding, exc)
    try:
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=number)
    except RecursionError:  # C json recurses per level: 5,000 levels never parse
        raise exceptions.ParseError(TOO_DEEP) from None
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        # Python 3.13's parser goes deeper than 3.11's and 3.12's before its RecursionError (5,000 levels
        # fail as malformed there): how deep the text it read nests says "too deep" on every version alike.
        if isinstance(exc, json.JSONDecodeError) and _nesting(exc.doc[: exc.pos]) > MAX_JSON_DEPTH:
            raise exceptions.ParseError(TOO_DEEP) from None
        raise exceptions.ParseError(f"JSON parse error - {exc}") from None
    if _nesting(text) > MAX_JSON_DEPTH:
        raise exceptions.ParseError(TOO_DEEP)
    if infinite or _MAYBE_SURROGATE.search(text):
        _refuse_unstorable_values(data)
    return data


def _nesting(text: str) -> int:
    """How deep arrays and objects nest in `text`: valid JSON, or what the parser read of malformed JSON
    (brackets inside strings do not count; one string may be unterminated, at the end)."""
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0)


def _refuse_undecodable(raw: bytes, encoding: str, error: UnicodeDecodeError) -> NoReturn:
    """Raise the error naming the string or key that holds bytes the encoding cannot decode: the body
    read again with each such byte as a lone surrogate (U+DC80–U+DCFF, Python's "surrogateescape")."""
    try:
        data = json.loads(raw.decode(encoding, errors="surrogateescape"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError):  # outside any string: the JSON is malformed anyway
        raise exceptions.ParseError(f"JSON parse error - {error}") from None
    name = "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
    stack = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if escaped := _ESCAPED_BYTE.search(key):
                    rule = NOT_TEXT_IN_KEY.format(encoding=name, byte=ord(escaped.group()) - 0xDC00)
                    raise serializers.ValidationError({path or "non_field_errors": [rule]})
                stack.append((item, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{n}" if path else str(n)) for n, item in enumerate(value))
        elif isinstance(value, str) and path and (escaped := _ESCAPED_BYTE.search(value)):
            rule = NOT_TEXT.format(encoding=name, byte=ord(escaped.group()) - 0xDC00)
            raise serializers.ValidationError({path: [rule]})
    raise exceptions.ParseError(f"JSON parse error - {error}")  # a body that is one string: no field to name


def _refuse_constant(literal: str):
    raise ValueError(f"Out of range float values are not JSON compliant: {literal!r}")


def _refuse_unstorable_values(data) -> None:
    stack = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATE.search(key):
                    raise serializers.ValidationError({path or "non_field_errors": [LONE_SURROGATE_IN_KEY]})
                stack.append((item, f"{path}.{key}" if path else key))
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{n}" if path else str(n)) for n, item in enumerate(value))
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise serializers.ValidationError({path or "non_field_errors": [LONE_SURROGATE]})
        elif isinstance(value, float) and not math.isfinite(value):
            raise serializers.ValidationError({path or "non_field_errors": [NOT_FINITE]})


class JSONParser(parsers.JSONParser):
    """The API's parser (settings.REST_FRAMEWORK): DRF's, with parse_json's rules."""

    def parse(self, stream, media_type=None, parser_context=None):
        return parse_json(stream.read(), parsers.get_encoding(parser_context or {}))  # type: ignore[attr-defined]  # not in the stubs

"""Request bodies as JSON, refused with a 400 unless every value can be stored and sent back.

The API's parser (settings.REST_FRAMEWORK) and POST /mcp/ (before the SDK's own json.loads) parse
through `parse_json`. Apart from memorysite.api because DRF imports the parser class while it
defines its APIView, which memorysite.api extends.
"""

from __future__ import annotations

import json
import math
import re

from rest_framework import exceptions, parsers, serializers

MAX_JSON_DEPTH = 64
TOO_DEEP = f"JSON parse error - arrays and objects may nest at most {MAX_JSON_DEPTH} levels deep"
LONE_SURROGATE = "must not contain unpaired surrogates (\\ud800-\\udfff): they are not Unicode text"
LONE_SURROGATE_IN_KEY = "keys must not contain unpaired surrogates (\\ud800-\\udfff): they are not Unicode text"
NOT_FINITE = "must be a finite number"
_SURROGATE = re.compile("[\ud800-\udfff]")  # json.loads joins the escapes of a valid pair into one character


def parse_json(raw: bytes, encoding: str = "utf-8"):
    """The body as JSON, or:

    - malformed JSON, the NaN/Infinity literals, or arrays and objects nested deeper than
      MAX_JSON_DEPTH (the parser's recursion, then the renderer's, would fail on it): ParseError;
    - a lone surrogate in a string or key (psycopg cannot encode it, nor the renderer echo it) or a
      number too large to be finite (1e309 parses as inf; jsonb refuses it): ValidationError naming
      its dotted path (a key's: the object holding it).
    """
    try:
        data = json.loads(raw.decode(encoding), parse_constant=_refuse_constant)
    except RecursionError:
        raise exceptions.ParseError(TOO_DEEP) from None
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise exceptions.ParseError(f"JSON parse error - {exc}") from None
    _refuse_unstorable_values(data)
    return data


def _refuse_constant(literal: str):
    raise ValueError(f"Out of range float values are not JSON compliant: {literal!r}")


def _refuse_unstorable_values(data) -> None:
    stack = [(data, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, dict | list) and depth > MAX_JSON_DEPTH:
            raise exceptions.ParseError(TOO_DEEP)
        if isinstance(value, dict):
            for key, item in value.items():
                if _SURROGATE.search(key):
                    raise serializers.ValidationError({path or "non_field_errors": [LONE_SURROGATE_IN_KEY]})
                stack.append((item, f"{path}.{key}" if path else key, depth + 1))
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{n}" if path else str(n), depth + 1) for n, item in enumerate(value))
        elif isinstance(value, str) and _SURROGATE.search(value):
            raise serializers.ValidationError({path or "non_field_errors": [LONE_SURROGATE]})
        elif isinstance(value, float) and not math.isfinite(value):
            raise serializers.ValidationError({path or "non_field_errors": [NOT_FINITE]})


class JSONParser(parsers.JSONParser):
    """The API's parser (settings.REST_FRAMEWORK): DRF's, with parse_json's rules."""

    def parse(self, stream, media_type=None, parser_context=None):
        return parse_json(stream.read(), parsers.get_encoding(parser_context or {}))

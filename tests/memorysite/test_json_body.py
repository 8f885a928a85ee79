"""memorysite/json_body.py: the one JSON parser of request bodies (the API's and /mcp/'s), issue 16."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import ParseError, ValidationError

from memorysite.json_body import (
    LONE_SURROGATE,
    LONE_SURROGATE_IN_KEY,
    MAX_JSON_DEPTH,
    NOT_FINITE,
    NOT_TEXT,
    NOT_TEXT_IN_KEY,
    TOO_DEEP,
    parse_json,
)


def nested(depth: int) -> str:
    """`depth` arrays inside each other around a 1."""
    return "[" * depth + "1" + "]" * depth


def errors(raw: str) -> dict:
    with pytest.raises(ValidationError) as refused:
        parse_json(raw.encode())
    return refused.value.detail


def test_it_parses_ordinary_json_and_keeps_valid_surrogate_pairs():
    assert parse_json(b'{"a": [1, 2.5, "x"], "b": null}') == {"a": [1, 2.5, "x"], "b": None}
    assert parse_json(b'{"emoji": "\\ud83d\\ude00"}') == {"emoji": "\U0001f600"}  # a pair is one character
    assert parse_json(nested(MAX_JSON_DEPTH).encode()) is not None
    assert parse_json(b'{"path": "C:\\\\ud800"}') == {"path": "C:\\ud800"}  # an escaped backslash, then text
    assert parse_json(b'{"brackets": "[[[[{{{{"}') == {"brackets": "[[[[{{{{"}  # inside strings: not nesting
    assert parse_json(("1" + "0" * 400).encode()) == 10**400  # an integer stays exact (NumberField bounds it)


@pytest.mark.parametrize(
    "raw",
    [
        nested(MAX_JSON_DEPTH + 1),  # parsed, then measured
        '{"a":' * 5000,  # the parser's own recursion fails first (was a RecursionError: a 500)
        "[" * 100_000,
        '{"x": ' + nested(MAX_JSON_DEPTH) + "}",
        "[" * 100,  # malformed, and past the limit before it breaks: too deep on every Python, 3.13's deeper parser too
        '{"a": "x", "b": ' * 200 + '"unterminated',
    ],
    ids=["one-too-deep", "5000-objects", "100000-arrays", "under-a-key", "100-arrays-unclosed", "200-objects-cut"],
)
def test_nesting_deeper_than_the_limit_is_a_parse_error_naming_it(raw):
    with pytest.raises(ParseError) as refused:
        parse_json(raw.encode())
    assert refused.value.detail == TOO_DEEP
    assert str(MAX_JSON_DEPTH) in TOO_DEEP


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"metadata": {"x": "a\\ud800b"}}', {"metadata.x": [LONE_SURROGATE]}),
        ('{"metadata": {"x": ["ok", "\\udfff"]}}', {"metadata.x.1": [LONE_SURROGATE]}),
        ('{"marks": {"\\ud800": 1}}', {"marks": [LONE_SURROGATE_IN_KEY]}),
        ('{"\\ud800": 1}', {"non_field_errors": [LONE_SURROGATE_IN_KEY]}),
        ('"\\ude00"', {"non_field_errors": [LONE_SURROGATE]}),
        ('{"metadata": {"x": 1e309}}', {"metadata.x": [NOT_FINITE]}),
        ('{"results": {"sharpe_ratio": -1e400}}', {"results.sharpe_ratio": [NOT_FINITE]}),
        ("[1, 2, 1e309]", {"2": [NOT_FINITE]}),
        ('{"x": 1' + "0" * 300 + "e10}", {"x": [NOT_FINITE]}),  # no three-digit exponent, still inf
    ],
)
def test_lone_surrogates_and_infinite_numbers_are_refused_naming_the_field(raw, expected):
    assert errors(raw) == expected


@pytest.mark.parametrize(
    "raw",
    [b"NaN", b'{"x": Infinity}', b'{"x": -Infinity}', b"{", b'"\xed\xa0\x80"'],  # the last: a surrogate in UTF-8
)
def test_malformed_json_and_non_finite_literals_are_parse_errors(raw):
    with pytest.raises(ParseError) as refused:
        parse_json(raw)
    assert str(refused.value.detail).startswith("JSON parse error - ")


@pytest.mark.parametrize("raw", ["[" * MAX_JSON_DEPTH, '[{"a": "x\\"y\\"' + "\\u0041\x01"])
def test_malformed_json_within_the_depth_limit_keeps_the_parsers_message(raw):
    with pytest.raises(ParseError) as refused:
        parse_json(raw.encode())
    assert refused.value.detail != TOO_DEEP
    assert str(refused.value.detail).startswith("JSON parse error - ")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b'{"content": "caf\xe9"}', {"content": [NOT_TEXT.format(encoding="UTF-8", byte=0xE9)]}),
        (b'{"a": [{"b": "ok"}, {"b": "x\xc3("}]}', {"a.1.b": [NOT_TEXT.format(encoding="UTF-8", byte=0xC3)]}),
        (b'{"meta": {"k\xff": 1}}', {"meta": [NOT_TEXT_IN_KEY.format(encoding="UTF-8", byte=0xFF)]}),
        (b'{"s": "\xed\xa0\x80"}', {"s": [NOT_TEXT.format(encoding="UTF-8", byte=0xED)]}),  # a surrogate in UTF-8
    ],
    ids=["latin-1", "nested", "key", "utf8-surrogate"],
)
def test_bytes_that_are_not_utf8_in_a_string_are_a_validation_error_naming_it(raw, expected):
    with pytest.raises(ValidationError) as refused:
        parse_json(raw)
    assert refused.value.detail == expected


@pytest.mark.parametrize("raw", [b'{"a": 1}\xff', b"{\xff: 1}", b'"caf\xe9"'], ids=["after", "bare", "whole-body"])
def test_bytes_that_are_not_utf8_outside_a_field_are_a_parse_error(raw):
    with pytest.raises(ParseError) as refused:
        parse_json(raw)
    assert str(refused.value.detail).startswith("JSON parse error - 'utf-8' codec can't decode byte")

"""Numbers for people (memorysite.numbers and its template filters): money with thousands separators,
counts with the right plural, changes in percentage points."""

from decimal import Decimal

import pytest
from django.template import Context, Template
from hypothesis import given
from hypothesis import strategies as st

from memorysite.numbers import (
    format_count,
    format_percent,
    format_point_change,
    format_points,
    format_signed_usd,
    format_usd,
)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (10000, "$10,000.00"),
        (Decimal("10000.005"), "$10,000.01"),  # half up, to cents
        (-1234.5, "\u2212$1,234.50"),
        (0, "$0.00"),
        (Decimal("-0.001"), "$0.00"),  # rounds to zero: no minus
        ("1234567.891", "$1,234,567.89"),
        (None, ""),
        ("not a number", ""),
        (float("nan"), ""),
    ],
)
def test_money_has_thousands_separators_and_cents(value, shown):
    assert format_usd(value) == shown


@given(st.decimals(min_value=-(10**12), max_value=10**12, allow_nan=False, places=4))
def test_money_reads_back_as_the_amount_to_the_cent(amount):
    shown = format_usd(amount)
    number = Decimal(shown.replace("\u2212", "-").replace("$", "").replace(",", ""))
    assert abs(number - amount) <= Decimal("0.005")
    assert shown.count(".") == 1 and len(shown.split(".")[1]) == 2


@pytest.mark.parametrize(
    ("count", "nouns", "shown"),
    [
        (0, ("signal",), "0 signals"),
        (1, ("signal",), "1 signal"),
        (2, ("signal",), "2 signals"),
        (1500, ("trade",), "1,500 trades"),
        (1, ("hypothesis", "hypotheses"), "1 hypothesis"),
        (3, ("hypothesis", "hypotheses"), "3 hypotheses"),
    ],
)
def test_counts_take_the_right_plural(count, nouns, shown):
    assert format_count(count, *nouns) == shown


@pytest.mark.parametrize(
    ("before", "after", "shown"),
    [
        (0.55, 0.7, "+15 pp"),
        (0.8, 0.675, "\u221212.5 pp"),
        (0.5, 0.5, "±0 pp"),
        (0.625, 0.78, "+15.5 pp"),
        (None, 1, ""),
    ],
)
def test_changes_are_percentage_points(before, after, shown):
    assert format_points(before, after) == shown


def test_percent_drops_trailing_zeros():
    assert [format_percent(v) for v in (0.625, 0.7, 1, Decimal("0.0005"))] == ["62.5%", "70%", "100%", "0.1%"]


def test_the_filters_are_built_into_every_template():
    template = Template(
        '{{ money|usd }} · {{ n|count:"signal" }} · {{ h|count:"hypothesis,hypotheses" }} · {{ a|points:b }}'
    )
    shown = template.render(Context({"money": 10000, "n": 1, "h": 2, "a": 0.5, "b": 0.65}))
    assert shown == "$10,000.00 · 1 signal · 2 hypotheses · +15 pp"


@pytest.mark.parametrize(
    ("change", "shown"), [(4, "+$4.00"), (-1.5, "\u2212$1.50"), (0, "$0.00"), (1234.567, "+$1,234.57"), (None, "")]
)
def test_a_change_of_money_is_signed(change, shown):
    assert format_signed_usd(change) == shown


def test_a_difference_of_rates_is_signed_percentage_points():
    assert [format_point_change(v) for v in (0.35, -0.012, 0, None)] == ["+35 pp", "\u22121.2 pp", "±0 pp", ""]
    shown = Template("{{ d|signed_usd }} · {{ r|pp }}").render(Context({"d": -2, "r": 0.667}))
    assert shown == "\u2212$2.00 · +66.7 pp"

"""Template filters for numbers written for people (memorysite.numbers), built into every template
(settings.TEMPLATES "builtins"): ``{{ equity|usd }}``, ``{{ n|count:"signal" }}``,
``{{ n|count:"hypothesis,hypotheses" }}``, ``{{ before|points:after }}``, ``{{ fraction|percent }}``;
differences: ``{{ change|signed_usd }}`` and ``{{ fraction_change|pp }}``."""

from __future__ import annotations

from django import template

from memorysite.numbers import (
    format_count,
    format_percent,
    format_point_change,
    format_points,
    format_signed_usd,
    format_usd,
)

register = template.Library()


@register.filter
def usd(value) -> str:
    return format_usd(value)


@register.filter
def count(value, nouns: str) -> str:
    singular, _, plural = nouns.partition(",")
    return format_count(int(value), singular, plural or None)


@register.filter
def points(before, after) -> str:
    return format_points(before, after)


@register.filter
def percent(value) -> str:
    return format_percent(value)


@register.filter
def signed_usd(value) -> str:
    return format_signed_usd(value)


@register.filter
def pp(value) -> str:
    return format_point_change(value)

"""Numbers written for people on the pages: money with thousands separators, counts with the right
plural, changes of a percentage in percentage points.

Pure: stdlib only. Pages only; API answers and prompt text keep their own formats (a prompt is a
contract compared byte for byte).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

MINUS = "\u2212"  # a real minus sign, as the charts draw it


def _decimal(value: object) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value)) if not isinstance(value, Decimal) else value
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def format_usd(value: object, *, places: int = 2) -> str:
    """Dollars to `places` decimals (half up) with thousands separators: 10000 → "$10,000.00",
    -1234.5 → "−$1,234.50". A value that is not a finite number → "" (the template shows its own dash)."""
    number = _decimal(value)
    if number is None:
        return ""
    rounded = number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    sign = MINUS if rounded < 0 else ""
    return f"{sign}${abs(rounded):,.{places}f}"


def format_signed_usd(value: object) -> str:
    """A change of money, signed as ``format_points`` signs a change of a rate: 4 → "+$4.00", -1.5 → "−$1.50",
    0 → "$0.00"; "" when it is not a number."""
    text = format_usd(value)
    return f"+{text}" if text and text != "$0.00" and not text.startswith(MINUS) else text


def format_count(count: int, singular: str, plural: str | None = None) -> str:
    """A count and its noun: (1, "signal") → "1 signal", (2, "signal") → "2 signals", (1500, "trade")
    → "1,500 trades"; `plural` for the irregular ones ("hypothesis", "hypotheses")."""
    noun = singular if count == 1 else (plural or f"{singular}s")
    return f"{count:,} {noun}"


def format_points(before: object, after: object) -> str:
    """The change between two fractions (0–1) in percentage points, signed: (0.55, 0.7) → "+15 pp",
    (0.8, 0.675) → "−12.5 pp"; "" when either is not a number."""
    start, end = _decimal(before), _decimal(after)
    if start is None or end is None:
        return ""
    points = ((end - start) * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP).normalize()
    sign = "+" if points > 0 else MINUS if points < 0 else "±"
    return f"{sign}{abs(points):f} pp"


def format_point_change(value: object) -> str:
    """A difference of two fractions (0–1) in percentage points, signed: 0.35 → "+35 pp" (``format_points``
    of 0 and it)."""
    return format_points(0, value)


def format_percent(value: object) -> str:
    """A fraction (0–1) as a percentage to at most one decimal: 0.625 → "62.5%", 0.7 → "70%"."""
    number = _decimal(value)
    if number is None:
        return ""
    percent = (number * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP).normalize()
    return f"{percent:f}%"

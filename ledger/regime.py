"""Regime tagging: the six-bucket classification stamped on a trade row at open time.

Pure (stdlib only): no Django, no I/O, no clock. Port of the seed's ``classifyRegime(bars)``
(memory-layer.md, "Regime tagging and A/B telemetry"): a pure function over a single bar
window with two axes.

- Trend: ``last_close / first_close - 1`` exceeding +/-0.5% gives ``trend_up`` / ``trend_down``;
  else ``chop``. Exactly +/-0.5% does not exceed the threshold and is ``chop``.
- Vol: the standard deviation of bar-to-bar log returns >= 0.4% gives ``hivol``; else ``lowvol``.

The result joins the two, e.g. ``trend_up_lowvol`` or ``chop_hivol``. It is ``unknown`` when the
bar window is too small (< 12 bars) or the prices are non-finite. The thresholds are configurable
per call; the defaults are tuned for the 5m / 100-bar default skill window.

Only closes are read. Ratios are taken in Decimal (so a window and the same window with every
price scaled by a positive constant classify the same), log returns via ``Decimal.ln`` and the
spread as the population standard deviation (``statistics.pstdev``).
"""

from __future__ import annotations

import decimal
import itertools
import logging
import statistics
from collections.abc import Sequence
from decimal import Decimal

from ledger.domain import Bar

logger = logging.getLogger(__name__)

TREND_THRESHOLD = Decimal("0.005")  # +/-0.5%: last_close / first_close - 1
VOL_THRESHOLD = 0.004  # 0.4%: population std-dev of bar-to-bar log returns
MIN_BARS = 12
UNKNOWN = "unknown"
REGIME_TAGS = frozenset(
    {
        "trend_up_lowvol",
        "trend_up_hivol",
        "trend_down_lowvol",
        "trend_down_hivol",
        "chop_lowvol",
        "chop_hivol",
    }
)

# A fixed context, so the result does not depend on whatever the caller's thread context is set to.
# The widest exponent range keeps ratios of extreme (but finite, positive) closes from overflowing.
_CONTEXT = decimal.Context(
    prec=28,
    rounding=decimal.ROUND_HALF_EVEN,
    Emax=decimal.MAX_EMAX,
    Emin=decimal.MIN_EMIN,
    traps=[decimal.InvalidOperation, decimal.DivisionByZero, decimal.Overflow],
)
_ONE = Decimal(1)


def classify_regime(
    bars: Sequence[Bar],
    *,
    trend_threshold: Decimal = TREND_THRESHOLD,
    vol_threshold: float = VOL_THRESHOLD,
) -> str:
    """Classify one bar window into one of ``REGIME_TAGS``, or ``UNKNOWN``.

    Trend: ``last_close / first_close - 1`` exceeding +/-``trend_threshold`` gives ``trend_up`` /
    ``trend_down``; else ``chop``. Vol: std-dev of bar-to-bar log returns >= ``vol_threshold``
    gives ``hivol``; else ``lowvol``. The result is the joined tag, e.g. ``trend_up_lowvol``.

    ``unknown`` when the bar window is too small (fewer than ``MIN_BARS`` bars) or the prices are
    non-finite (a NaN or infinite close) or not positive (a close <= 0).

    A close that is not a ``Decimal`` is malformed data, not an ``unknown`` window: it raises
    ``TypeError`` (``regime_tag_at_open`` turns that into ``None``).
    """
    closes = [bar.c for bar in bars]
    if len(closes) < MIN_BARS:
        return UNKNOWN
    for close in closes:
        if not isinstance(close, Decimal):
            raise TypeError(f"bar close must be a Decimal, got {type(close).__name__}: {close!r}")
    if any(not close.is_finite() or close <= 0 for close in closes):
        return UNKNOWN

    change = _CONTEXT.subtract(_CONTEXT.divide(closes[-1], closes[0]), _ONE)
    if change > trend_threshold:
        trend = "trend_up"
    elif change < -trend_threshold:
        trend = "trend_down"
    else:
        trend = "chop"

    log_returns = [float(_CONTEXT.divide(cur, prev).ln(_CONTEXT)) for prev, cur in itertools.pairwise(closes)]
    vol = "hivol" if statistics.pstdev(log_returns) >= vol_threshold else "lowvol"
    return f"{trend}_{vol}"


def regime_tag_at_open(bars: Sequence[Bar] | None) -> str | None:
    """The ``entry_regime_tag`` to stamp on a trade row that opens this tick.

    ``None`` when there are no bars for the symbol (the runner sent none). Classification failures
    land as ``None`` (honest under-reporting); the tag does not get fabricated. Otherwise
    ``classify_regime(bars)`` with the default thresholds, which may be ``unknown`` (too few bars,
    non-finite or non-positive closes). Symbols already on the books keep the tag they were stamped
    with at their original entry; callers only call this for symbols that transition open.
    """
    if bars is None:
        return None
    try:
        return classify_regime(bars)
    except Exception as exc:
        logger.info("regime classification failed, entry_regime_tag left null: %s: %s", type(exc).__name__, exc)
        return None

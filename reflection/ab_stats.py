"""Uncertainty of the lessons A/B figures: 95% intervals per revision and against "no lessons" (pure).

Pure: stdlib only; no Django, no I/O. The inputs are the summary statistics one SQL aggregate gives per
group of closed trades (count, wins, mean and sample standard deviation of realized PnL), so the A/B
query stays one statement however many trades there are.

- **Win rate**: the Wilson score interval. It is defined at 0 and n wins (where the normal "Wald"
  interval collapses to a point), stays inside [0, 1] and keeps close to its nominal coverage at the
  small samples a lessons revision has.
- **Average PnL per trade**: Student's t interval, mean ± t(0.975, n − 1) · s / √n. It needs only
  n, the mean and s, which PostgreSQL computes exactly over numeric; a bootstrap would need every
  trade's PnL loaded and resampled per revision and per page view. PnL per trade is skewed, so the t
  interval is approximate at small n: below ``MIN_TRADES_TO_TELL`` no interval is given at all.
- **Difference against "no lessons"**: Welch's t interval for the difference of means (unequal
  variances, Welch–Satterthwaite degrees of freedom) and Newcombe's hybrid score interval (his
  method 10, built from the two Wilson intervals) for the difference of win rates.
- **Too few trades to tell**: a group with fewer than ``MIN_TRADES_TO_TELL`` closed trades, and a
  difference where either side has fewer, gets no interval and says so (``too_few_trades``).

The t quantiles are exact (the t distribution's CDF through the regularized incomplete beta
function, inverted by bisection), not a normal approximation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Context, Decimal, localcontext
from statistics import NormalDist

__all__ = [
    "CONFIDENCE",
    "MIN_TRADES_TO_TELL",
    "VERDICTS",
    "VERDICT_HIGHER",
    "VERDICT_LOWER",
    "VERDICT_NO_CLEAR_DIFFERENCE",
    "VERDICT_TOO_FEW_TRADES",
    "DifferenceEstimate",
    "GroupEstimate",
    "Interval",
    "TradeSample",
    "compare_with_baseline",
    "estimate_group",
    "mean_difference_interval",
    "mean_interval",
    "t_quantile",
    "wilson_interval",
    "win_rate_difference_interval",
]

CONFIDENCE = 0.95
# Below this many closed trades in a group (either group, for a difference) the figures say
# "too few trades to tell" instead of an interval: at 20 trades a 95% interval on the win rate is
# still about ±20 points wide, and the t interval of a skewed PnL distribution is rough below it.
MIN_TRADES_TO_TELL = 20

VERDICT_TOO_FEW_TRADES = "too_few_trades"
VERDICT_HIGHER = "higher"  # the revision's average PnL per trade is above "no lessons" (interval > 0)
VERDICT_LOWER = "lower"  # below it (interval < 0)
VERDICT_NO_CLEAR_DIFFERENCE = "no_clear_difference"  # the interval contains 0
VERDICTS = (VERDICT_TOO_FEW_TRADES, VERDICT_HIGHER, VERDICT_LOWER, VERDICT_NO_CLEAR_DIFFERENCE)

_Z = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # 1.959963984540054


@dataclass(frozen=True)
class Interval:
    """A closed interval [low, high]."""

    low: float
    high: float

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class TradeSample:
    """One group's closed trades as summary statistics.

    ``mean_pnl`` is None without trades; ``sd_pnl`` is the sample standard deviation (divisor
    n − 1), None below two trades.
    """

    n: int
    wins: int
    mean_pnl: float | None
    sd_pnl: float | None

    def __post_init__(self) -> None:
        if self.n < 0 or not 0 <= self.wins <= self.n:
            raise ValueError(f"need 0 <= wins <= n, got wins={self.wins}, n={self.n}")

    @classmethod
    def of(cls, pnls: Sequence[float | Decimal]) -> TradeSample:
        """The sample of these realized PnLs (a win is PnL > 0), computed in decimal as PostgreSQL's
        avg and stddev_samp over numeric do, then given as floats."""
        with localcontext(Context(prec=50)):
            values = [v if isinstance(v, Decimal) else Decimal(repr(v)) for v in pnls]
            n = len(values)
            mean = sum(values, Decimal(0)) / n if n else None
            sd = None
            if n >= 2 and mean is not None:
                sd = (sum(((v - mean) ** 2 for v in values), Decimal(0)) / (n - 1)).sqrt()
        return cls(
            n=n,
            wins=sum(1 for v in values if v > 0),
            mean_pnl=None if mean is None else float(mean),
            sd_pnl=None if sd is None else float(sd),
        )

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.n if self.n else None


# -- intervals ---------------------------------------------------------------------------------------


def wilson_interval(wins: int, n: int, z: float = _Z) -> Interval:
    """The Wilson score interval for a proportion wins / n (n >= 1): always inside [0, 1], always
    containing wins / n, mirrored by wins → n − wins."""
    if n < 1 or not 0 <= wins <= n:
        raise ValueError(f"need n >= 1 and 0 <= wins <= n, got wins={wins}, n={n}")
    p = wins / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # At 0 or n wins the exact bound is p itself; rounding must not leave it outside.
    return Interval(low=min(max(centre - half, 0.0), p), high=max(min(centre + half, 1.0), p))


def mean_interval(sample: TradeSample, confidence: float = CONFIDENCE) -> Interval:
    """Student's t interval for the mean PnL per trade (n >= 2): mean ± t · s / √n."""
    if sample.n < 2 or sample.mean_pnl is None or sample.sd_pnl is None:
        raise ValueError(f"a t interval needs at least 2 trades, got {sample.n}")
    half = t_quantile(0.5 + confidence / 2, sample.n - 1) * sample.sd_pnl / math.sqrt(sample.n)
    return Interval(sample.mean_pnl - half, sample.mean_pnl + half)


def mean_difference_interval(a: TradeSample, b: TradeSample, confidence: float = CONFIDENCE) -> Interval:
    """Welch's t interval for mean(a) − mean(b) (each with n >= 2); swapping a and b negates it."""
    if a.mean_pnl is None or b.mean_pnl is None or a.sd_pnl is None or b.sd_pnl is None or min(a.n, b.n) < 2:
        raise ValueError(f"a Welch interval needs at least 2 trades per group, got {a.n} and {b.n}")
    diff = a.mean_pnl - b.mean_pnl
    va, vb = a.sd_pnl**2 / a.n, b.sd_pnl**2 / b.n
    se2 = va + vb
    if se2 == 0:
        return Interval(diff, diff)
    df = se2 * se2 / (va * va / (a.n - 1) + vb * vb / (b.n - 1))
    half = t_quantile(0.5 + confidence / 2, df) * math.sqrt(se2)
    return Interval(diff - half, diff + half)


def win_rate_difference_interval(a: TradeSample, b: TradeSample, z: float = _Z) -> Interval:
    """Newcombe's hybrid score interval for win_rate(a) − win_rate(b), from the two Wilson intervals
    (each group with n >= 1); inside [−1, 1], containing the difference, negated by swapping."""
    wa, wb = wilson_interval(a.wins, a.n, z), wilson_interval(b.wins, b.n, z)
    pa, pb = a.wins / a.n, b.wins / b.n
    diff = pa - pb
    low = diff - math.sqrt((pa - wa.low) ** 2 + (wb.high - pb) ** 2)
    high = diff + math.sqrt((wa.high - pa) ** 2 + (pb - wb.low) ** 2)
    return Interval(max(low, -1.0), min(high, 1.0))


# -- what the A/B figures show -------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupEstimate:
    """One group's figures with their 95% intervals; no interval below MIN_TRADES_TO_TELL trades."""

    n: int
    avg_pnl: float | None
    avg_pnl_interval: Interval | None
    win_rate: float | None
    win_rate_interval: Interval | None
    too_few_trades: bool


@dataclass(frozen=True)
class DifferenceEstimate:
    """A revision minus "no lessons": point differences, their 95% intervals and the verdict on PnL."""

    avg_pnl: float | None
    avg_pnl_interval: Interval | None
    win_rate: float | None
    win_rate_interval: Interval | None
    too_few_trades: bool
    verdict: str  # one of the VERDICT_* constants, about the average PnL per trade


def estimate_group(sample: TradeSample) -> GroupEstimate:
    """The group's average PnL per trade and win rate, with intervals from MIN_TRADES_TO_TELL trades on."""
    too_few = sample.n < MIN_TRADES_TO_TELL
    return GroupEstimate(
        n=sample.n,
        avg_pnl=sample.mean_pnl,
        avg_pnl_interval=None if too_few else mean_interval(sample),
        win_rate=sample.win_rate,
        win_rate_interval=None if too_few else wilson_interval(sample.wins, sample.n),
        too_few_trades=too_few,
    )


def compare_with_baseline(revision: TradeSample, baseline: TradeSample) -> DifferenceEstimate:
    """revision − baseline ("no lessons"): the point differences whenever both have trades, the
    intervals and a verdict only when both have at least MIN_TRADES_TO_TELL trades."""
    avg = None
    if revision.mean_pnl is not None and baseline.mean_pnl is not None:
        avg = revision.mean_pnl - baseline.mean_pnl
    rate = None
    if revision.win_rate is not None and baseline.win_rate is not None:
        rate = revision.win_rate - baseline.win_rate
    if min(revision.n, baseline.n) < MIN_TRADES_TO_TELL:
        return DifferenceEstimate(avg, None, rate, None, too_few_trades=True, verdict=VERDICT_TOO_FEW_TRADES)
    avg_interval = mean_difference_interval(revision, baseline)
    if avg_interval.low > 0:
        verdict = VERDICT_HIGHER
    elif avg_interval.high < 0:
        verdict = VERDICT_LOWER
    else:
        verdict = VERDICT_NO_CLEAR_DIFFERENCE
    return DifferenceEstimate(
        avg_pnl=avg,
        avg_pnl_interval=avg_interval,
        win_rate=rate,
        win_rate_interval=win_rate_difference_interval(revision, baseline),
        too_few_trades=False,
        verdict=verdict,
    )


# -- Student's t ---------------------------------------------------------------------------------------


def t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with df > 0 degrees of freedom (df may be fractional: Welch).

    Bisection on ``t_cdf`` to 1e-12; exact to the precision of the incomplete beta function."""
    if not 0 < p < 1 or not df > 0:
        raise ValueError(f"need 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < p:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    x = df / (df + t * t)
    tail = 0.5 * _regularized_incomplete_beta(x, df / 2, 0.5)
    return 1 - tail if t > 0 else tail


def _regularized_incomplete_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), using the symmetry for fast convergence."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(x, a, b) / a
    return 1 - math.exp(log_front) * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1) < 1e-15:
            break
    return result

"""The research agent's prompt blocks (seed: research-memory.md): ``## Experiment History`` and
``## Open Hypotheses``.

Pure: stdlib, ``memorysite.text`` (one_line, estimate_tokens) and research's pure modules only;
no Django, no I/O, no clock. The rendered text is a contract (it goes into the research agent's prompt), so
its format is exact::

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
  or a heading, and every block has a fixed worst case.
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
- ``render_research_context``: the instructions, the history, the open hypotheses and ``## Available
  Resources`` joined by one blank line, with the experiments shown and ``estimate_tokens`` of it, which never passes
  ``RESEARCH_CONTEXT_TOKEN_CEILING`` (28,010): when it would, the history shows fewer of its oldest
  experiments (45 of 50 when every field, ids too, is at 200 characters); the other blocks are always whole.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from typing import Any

from memorysite.text import estimate_tokens, one_line
from research.assessment import ELLIPSIS, HYPOTHESIS_STATUSES, OPEN_STATUSES, VERDICTS
from research.ids import natural_key

DEFAULT_HISTORY = 15
MAX_HISTORY = 50
MAX_OBSERVATIONS_SHOWN = 3
MAX_HYPOTHESES_SHOWN = 3  # per experiment, under "- Hypotheses generated:"
MAX_OPEN_HYPOTHESES_SHOWN = 20
FIELD_MAX_CHARS = 200  # every free-text field of the rendered blocks, "…" included

HISTORY_HEADING = "## Experiment History"
RECENT_HEADING = "### Recent Experiments (last {count})"
NO_EXPERIMENTS = "No previous experiments recorded."
OPEN_HEADING = "## Open Hypotheses"
NO_OPEN_HYPOTHESES = "No open hypotheses."
MORE_OPEN_HYPOTHESES = "({count} more open hypotheses not shown)"
UNKNOWN = "unknown"
NOT_AVAILABLE = "n/a"

MAX_CAPABILITIES_SHOWN = 20
RESOURCES_HEADING = "## Available Resources"
CAPABILITIES_INTRO = "Capabilities implemented at your request (use them):"
NO_CAPABILITIES = "No requested capabilities implemented yet."
MORE_CAPABILITIES = "({count} more implemented capabilities not shown)"

# The seed's instructions for using the history (phase 2.3), first in the text: the same for every trader and
# every call, so a runner that puts the context at the start of its prompt keeps a constant, cacheable prefix.
INSTRUCTIONS = "\n".join(
    (
        "## How to Use Your Experiment History",
        "",
        "- Each experiment below is an observation tied to its context (indicators, composition, timeframe,"
        " symbol, zigzag threshold, network). It says what happened in those conditions, not what works in"
        ' general: "ADX solo on 1h showed no signal", never "ADX doesn\'t work".',
        "- Before designing, check that the configuration was not run already (check_experiment, POST"
        " /api/v1/research/experiments/check/); repeat one only on purpose, with a reason.",
        "- Reason from the history: cite the experiment ids your design builds on and say how your context"
        " differs from theirs.",
        "- Prefer testing an open hypothesis, and name its id; a result in one context does not settle another.",
        "- Assess each run under ### Verdict (strong_signal, weak_signal, no_signal or overfit), ### Observations"
        " (tied to this run's context), ### Hypotheses Generated (H: <text> | Status: untested), ### Limitations"
        " and ### Capability Requests (what you need that is not under Available Resources).",
    )
)


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


@dataclass(frozen=True)
class CapabilityView:
    """A capability request marked implemented (seed phase 5.4: the agent sees what is available)."""

    id: str
    capability: str
    implemented: dt.date | None


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
    if not isinstance(exponent, int):  # NaN or infinity: _decimal never returns one
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


def _newest_blocks(experiments: Sequence[ExperimentView], n: int) -> list[str]:
    newest = sorted(experiments, key=lambda experiment: _utc(experiment.timestamp), reverse=True)[: _history_size(n)]
    return [_experiment_block(experiment) for experiment in newest]


def _history_text(blocks: Sequence[str]) -> str:
    if not blocks:
        return f"{HISTORY_HEADING}\n\n{NO_EXPERIMENTS}"
    return "\n\n".join([HISTORY_HEADING, RECENT_HEADING.format(count=len(blocks)), *blocks])


def format_experiment_history(experiments: Sequence[ExperimentView], n: int = DEFAULT_HISTORY) -> str:
    """The ``## Experiment History`` block over the newest ``n`` experiments, newest first."""
    return _history_text(_newest_blocks(experiments, n))


def format_open_hypotheses(hypotheses: Sequence[HypothesisView], open_total: int | None = None) -> str:
    """The ``## Open Hypotheses`` block: untested and testing ones, highest (newest) id first.

    ``open_total`` is how many open hypotheses exist when the caller passes only the newest few (a
    database read stops at the cap); the "(k more …)" line counts from it."""
    open_ = [hypothesis for hypothesis in hypotheses if hypothesis.status in OPEN_STATUSES]
    if not open_:
        return f"{OPEN_HEADING}\n\n{NO_OPEN_HYPOTHESES}"
    ordered = sorted(open_, key=lambda hypothesis: natural_key(str(hypothesis.id)), reverse=True)
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


def format_available_resources(capabilities: Sequence[CapabilityView], implemented_total: int | None = None) -> str:
    """The ``## Available Resources`` block: the capability requests marked implemented, highest (newest)
    id first, at most ``MAX_CAPABILITIES_SHOWN``; ``implemented_total`` counts them all when the caller
    passes only the newest few (the "(k more …)" line)."""
    if not capabilities:
        return f"{RESOURCES_HEADING}\n\n{NO_CAPABILITIES}"
    ordered = sorted(capabilities, key=lambda capability: natural_key(str(capability.id)), reverse=True)
    lines = [CAPABILITIES_INTRO]
    for capability in ordered[:MAX_CAPABILITIES_SHOWN]:
        when = f" (implemented {capability.implemented.isoformat()})" if capability.implemented else " (implemented)"
        lines.append(f"- {_field(capability.id) or UNKNOWN}: {_field(capability.capability) or UNKNOWN}{when}")
    total = implemented_total if implemented_total is not None else len(ordered)
    hidden = max(total, len(ordered)) - min(len(ordered), MAX_CAPABILITIES_SHOWN)
    if hidden > 0:
        lines.append(MORE_CAPABILITIES.format(count=hidden))
    return f"{RESOURCES_HEADING}\n\n" + "\n".join(lines)


# The research context's token ceiling: the worst case before issue 20 added the instructions and the
# resources block (every field of 50 experiments, 20 open hypotheses at its cap), kept when they came. When
# the worst case would pass it, the history shows fewer of the oldest experiments (``(last N)`` says how
# many); a real history runs at roughly 100-150 tokens per experiment, so only text at the field caps does.
RESEARCH_CONTEXT_TOKEN_CEILING = 28_010


def render_research_context(
    experiments: Sequence[ExperimentView],
    hypotheses: Sequence[HypothesisView],
    n: int = DEFAULT_HISTORY,
    open_total: int | None = None,
    capabilities: Sequence[CapabilityView] = (),
    implemented_total: int | None = None,
) -> tuple[str, int, int]:
    """The instructions, then the seed's blocks in its order (history, open hypotheses, available
    resources), joined by one blank line; the text's ``estimate_tokens``, at most
    ``RESEARCH_CONTEXT_TOKEN_CEILING`` (the history's oldest experiments give way first); and how many
    experiments the history shows."""
    rest = "\n\n".join(
        (format_open_hypotheses(hypotheses, open_total), format_available_resources(capabilities, implemented_total))
    )
    blocks = _newest_blocks(experiments, n)
    spare = RESEARCH_CONTEXT_TOKEN_CEILING * 4 - len(INSTRUCTIONS) - len(rest) - 4  # estimate_tokens: ceil(chars / 4)
    while len(blocks) > 1 and len(_history_text(blocks)) > spare:
        blocks.pop()
    text = "\n\n".join((INSTRUCTIONS, _history_text(blocks), rest))
    return text, estimate_tokens(text), len(blocks)

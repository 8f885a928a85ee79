"""Reflection's pure core: the trigger, the prompt, output validation (seed: reflection.ts).

Pure: stdlib and other pure modules (``memorysite.text``) only; no Django, no I/O, no clock (``now`` is an argument).
Port of memory-layer.md, "Reflection job". Lessons text is a contract (it is rendered into the
agent's system prompt and hashed for the A/B join), so the formats below are exact:

    ### Entry timing
    - <bullet grounded in numbers>
    ### Sizing
    (no clear pattern yet)
    ### Symbol selection
    ...

Five slots in this order, at most ``MAX_BULLETS_PER_SLOT`` bullets each, ``EMPTY_SLOT`` on its
own line for a slot with nothing to say.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from memorysite.text import clean_text_block, one_line

SLOTS = ("Entry timing", "Sizing", "Symbol selection", "Exit timing", "Regime fit")
SLOT_HEADING = "### {slot}"
EMPTY_SLOT = "(no clear pattern yet)"
MAX_BULLETS_PER_SLOT = 4
LESSONS_MAX_CHARS = 2000  # the reflection_notes CHECK; output is trimmed to it before insert
RAW_OUTPUT_MAX_CHARS = 4000  # longer raw output means the model went off the rails: rejected
# How many of the most recent closed trades one reflection run distils.
WINDOW_TRADES = 50
STRATEGY_SNIPPET_CHARS = 1500

CADENCE_OFF = "off"
CADENCE_PER_N_TRADES = "per_n_trades"
CADENCE_DAILY = "daily"


# -- trigger ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReflectionCadence:
    """The skill version's reflection settings."""

    cadence: str
    every_n_trades: int


@dataclass(frozen=True)
class ReflectionTriggerState:
    """What the trigger needs to know about one deployment at one moment.

    ``closed_since_last_note`` counts closed trades after the active note's window (all closed
    trades when there is no note), including the ``closed_this_tick`` ones.
    """

    now: dt.datetime
    closed_since_last_note: int
    closed_this_tick: int
    last_note_generated_at: dt.datetime | None


def should_run_reflection(state: ReflectionTriggerState, skill: ReflectionCadence) -> bool:
    """The seed's shouldRunReflection.

    - ``off``: never.
    - ``per_n_trades``: a trade closed this tick and the count since the last note reached a
      multiple of N. The seed's ``count % N == 0`` assumes one close per tick; when one tick (or
      one materialization batch) closes several, a multiple crossed inside it counts too, so a
      flip or a two-symbol exit never skips a reflection.
    - ``daily``: the current UTC date differs from the last note's ``generated_at`` date (no note
      yet counts as different).
    """
    if skill.cadence == CADENCE_PER_N_TRADES:
        if state.closed_this_tick <= 0 or skill.every_n_trades <= 0:
            return False
        before = max(state.closed_since_last_note - state.closed_this_tick, 0)
        return state.closed_since_last_note // skill.every_n_trades > before // skill.every_n_trades
    if skill.cadence == CADENCE_DAILY:
        if state.last_note_generated_at is None:
            return True
        return _utc_date(state.now) != _utc_date(state.last_note_generated_at)
    return False


def _utc_date(moment: dt.datetime) -> dt.date:
    if moment.tzinfo is None:
        return moment.date()
    return moment.astimezone(dt.UTC).date()


# -- inputs and results ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReflectionTrade:
    """One closed trade as reflection reads it."""

    symbol: str
    side: str
    entry_tick_at: dt.datetime
    exit_tick_at: dt.datetime
    entry_price: Decimal
    exit_price: Decimal
    entry_size_usd: Decimal
    entry_leverage: Decimal | None
    entry_reason: str
    exit_reason: str
    entry_regime_tag: str | None
    realized_pnl_usd: Decimal
    fees_usd: Decimal
    mfe_usd: Decimal | None
    mae_usd: Decimal | None
    holding_minutes: Decimal


def bullet_key(bullet: str) -> str:
    """One lessons bullet as the trader's veto or pin names it: its text without the "- " marker, whitespace
    runs folded to one space. The same bullet in a later revision has the same key."""
    text = bullet.strip()
    if text[:2] in ("- ", "* "):
        text = text[2:]
    return " ".join(text.split())


_SLOT_NAMES = frozenset(slot.casefold() for slot in SLOTS)


def lesson_bullet_texts(lessons: str) -> list[str]:
    """The note's bullets, in its order, without their "- ": what the agent's prompt lists
    (``agentcontext.prompt.lessons_bullets``) and the trader vetoes or pins. The slot headings (``### Entry
    timing``…) and the empty-slot marker are the reflection format's, not lessons: they are left out. Any other
    line (a staff edit's prose, another heading) becomes a bullet of its own, its leading ``#``/``-``/``*``
    markers dropped, so nothing the note says is lost and no line of it reads as a heading."""
    bullets = []
    for raw in clean_text_block(lessons).split("\n"):
        line = _line_bullet(raw)
        if line:
            bullets.append(line)
    return bullets


def _line_bullet(raw: str) -> str | None:
    """One line of a note as ``lesson_bullet_texts`` reads it: its bullet, or None (a slot heading, the
    empty-slot marker, a blank line)."""
    line = raw.strip()
    heading = line.lstrip("#")
    if line.startswith("#") and (not heading or heading[0] == " "):
        if heading.strip().casefold() in _SLOT_NAMES:
            return None
        line = heading.strip()
    elif line[:2] in ("- ", "* "):
        line = line[2:].strip()
    return line if line and line != EMPTY_SLOT else None


def _is_slot_heading(raw: str) -> bool:
    line = raw.strip()
    heading = line.lstrip("#")
    return line.startswith("#") and heading[:1] == " " and heading.strip().casefold() in _SLOT_NAMES


def lessons_without(lessons: str, vetoed: Collection[str]) -> str:
    """The note's text with every line whose bullet (``bullet_key``) is in ``vetoed`` taken out, everything else
    in its place: the text a trader's veto makes the new revision of (``reflection.services``). A slot left with
    no line under its heading gets ``EMPTY_SLOT``, so the text keeps the reflection format; a note left with no
    line at all is ``EMPTY_SLOT``. Nothing vetoed in it: ``lessons`` unchanged, byte for byte.

    ``lesson_bullet_texts`` of the result is that of ``lessons`` without the vetoed bullets, in the same order:
    the agent's prompt (``agentcontext.prompt.lessons_bullets``, which leaves vetoed bullets out) reads the same."""
    lines = clean_text_block(lessons).split("\n")
    drop = [(bullet := _line_bullet(line)) is not None and bullet_key(bullet) in vetoed for line in lines]
    if not any(drop):
        return lessons
    kept: list[str] = []
    heading_at, said, dropped = -1, False, False  # the open slot's heading (index in kept), and what it holds

    def close_slot() -> None:
        if heading_at >= 0 and dropped and not said:
            kept.insert(heading_at + 1, EMPTY_SLOT)

    for line, gone in zip(lines, drop, strict=True):
        if line.strip().startswith("#") and (_is_slot_heading(line) or _line_bullet(line) is not None):
            close_slot()
            heading_at, said, dropped = (len(kept), False, False) if _is_slot_heading(line) else (-1, False, False)
        if gone:
            dropped = True
            continue
        if heading_at >= 0 and len(kept) > heading_at and line.strip():
            said = True
        kept.append(line)
    close_slot()
    text = "\n".join(kept).strip("\n")
    return text if text.strip() else EMPTY_SLOT


@dataclass(frozen=True)
class ReflectionInput:
    """Everything one reflection run reads: the trades window (exit order), the skill, prior lessons."""

    trades: tuple[ReflectionTrade, ...]
    strategy_text: str
    avoid_rules: tuple[str, ...]
    active_lessons: str | None
    # The skill version's reflection model (seed: modelOverride); None: the engine's own (REFLECTION_MODEL).
    model_override: str | None = None
    # The trader's verdicts on bullets of the skill's lessons (bullet_key texts): vetoed ones must not come
    # back, pinned ones are kept. Empty: the user message is what it was before verdicts existed.
    vetoed_bullets: tuple[str, ...] = ()
    pinned_bullets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReflectionResult:
    """An engine's raw output and what it cost; validated before anything is stored."""

    text: str
    model_used: str
    input_tokens: int | None = None  # neither read from nor written to the prompt cache
    output_tokens: int | None = None
    cost_usd: Decimal | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class ReflectionFailed(Exception):
    """The engine could not produce output (after its retries); the prior note stays active."""


# -- prompt ------------------------------------------------------------------------------------------

_SLOT_GUIDE = {
    "Entry timing": "when entries are working or failing vs. the strategy's setup criteria.",
    "Sizing": "whether typical $ size and leverage match the realized edge.",
    "Symbol selection": "which symbols are contributing PnL vs. dragging.",
    "Exit timing": "captured-MFE ratio (realized PnL ÷ MFE); cutting too early vs. leaving PnL on the table.",
    "Regime fit": "whether the strategy's assumptions held in the period observed; condition on entry regime tags.",
}


def _reflection_instructions() -> str:
    lines = [
        "You review a trading agent's recent closed trades and distil lessons it will read before its next decisions.",
        "",
        "Write exactly these five sections, in this order, each under its heading:",
    ]
    lines += [f"{SLOT_HEADING.format(slot=slot)} — {_SLOT_GUIDE[slot]}" for slot in SLOTS]
    lines += [
        "",
        "Format:",
        f"- Each heading on its own line, as `### <name>`, followed by at most {MAX_BULLETS_PER_SLOT} bullets"
        " starting with `- `.",
        f"- A slot with no clear pattern in the data: write exactly {EMPTY_SLOT} on its own line under the heading."
        " Do NOT invent a lesson to fill the slot.",
        f"- At most {LESSONS_MAX_CHARS} characters in total. No preamble, no closing remarks.",
        "",
        "Hard constraints:",
        "- Every bullet is grounded in numbers from the trade summary (counts, win rates, PnL, ratios).",
        "- Do not invent rules; lessons are signal, not strategy.",
        "- Never contradict the trader's avoid rules, and do not repeat them: they are enforced separately.",
        "- Revise the current lessons incrementally: keep what the new trades still support, drop what they"
        " contradict.",
    ]
    return "\n".join(lines)


# The same for every run of every trader: the prompt's first block, cached (see build_reflection_system_blocks).
REFLECTION_INSTRUCTIONS = _reflection_instructions()
SYSTEM_BLOCK_SEPARATOR = "\n\n"
# Anthropic prompt caching: a breakpoint on a block caches the prompt up to and including it (5-minute TTL).
CACHE_CONTROL = {"type": "ephemeral"}


def build_reflection_system_blocks(avoid_rules: Sequence[str]) -> list[dict[str, object]]:
    """The reflection system prompt as the Messages API's text blocks, each ending in a cache breakpoint:
    the instructions (the five slots, the format, the hard constraints: byte for byte the same for every
    run), then the skill version's avoid rules when it has any (the same for every run of the version).
    Everything that changes from run to run (the trades, the strategy snippet, the current lessons) is in
    the user message, after both breakpoints."""
    blocks: list[dict[str, object]] = [
        {"type": "text", "text": REFLECTION_INSTRUCTIONS, "cache_control": dict(CACHE_CONTROL)}
    ]
    if avoid_rules:
        rules = ["The trader's avoid rules (authoritative; do not restate them):"]
        rules += [f"- {one_line(rule)}" for rule in avoid_rules]
        blocks.append({"type": "text", "text": "\n".join(rules), "cache_control": dict(CACHE_CONTROL)})
    return blocks


def build_reflection_system_prompt(avoid_rules: Sequence[str]) -> str:
    """The reflection system prompt as one text: the blocks joined by a blank line."""
    return SYSTEM_BLOCK_SEPARATOR.join(str(block["text"]) for block in build_reflection_system_blocks(avoid_rules))


def build_reflection_user_message(inp: ReflectionInput) -> str:
    """The user message: the structured trade summary, the strategy snippet, the current lessons."""
    trades = inp.trades
    lines = [f"## Closed trades ({len(trades)}, oldest first)"]
    if trades:
        wins = sum(1 for t in trades if t.realized_pnl_usd > 0)
        total = sum((t.realized_pnl_usd for t in trades), Decimal(0))
        lines.append(
            f"window {_minute(trades[0].entry_tick_at)} → {_minute(trades[-1].exit_tick_at)};"
            f" wins {wins}/{len(trades)}; total realized {_usd(total)}"
        )
        lines.append(
            "entry → exit | symbol side | size lev | entry → exit price | realized fees | MFE MAE | held | regime"
            " | entry reason | exit reason"
        )
        for t in trades:
            leverage = f"{_num(t.entry_leverage)}x" if t.entry_leverage is not None else "-"
            lines.append(
                " | ".join(
                    (
                        f"{_minute(t.entry_tick_at)} → {_minute(t.exit_tick_at)}",
                        f"{one_line(t.symbol)} {t.side}",
                        f"{_usd(t.entry_size_usd)} {leverage}",
                        f"{_num(t.entry_price)} → {_num(t.exit_price)}",
                        f"{_usd(t.realized_pnl_usd)} {_usd(t.fees_usd)}",
                        f"{_usd(t.mfe_usd)} {_usd(t.mae_usd)}",
                        f"{_num(t.holding_minutes)}m",
                        f"regime={one_line(t.entry_regime_tag or 'unclassified')}",
                        f'"{one_line(t.entry_reason)[:120]}"',
                        f'"{one_line(t.exit_reason)[:120]}"',
                    )
                )
            )
    else:
        lines.append("(none)")
    snippet = inp.strategy_text.strip()
    if len(snippet) > STRATEGY_SNIPPET_CHARS:
        snippet = snippet[: STRATEGY_SNIPPET_CHARS - 1] + "…"
    lines += ["", "## Active strategy (snippet)", snippet or "(empty)"]
    lines += ["", "## Current lessons", (inp.active_lessons or "").strip() or "(none yet)"]
    if inp.pinned_bullets:
        lines += ["", "## Bullets the trader pinned (keep each one, word for word, under its heading)"]
        lines += [f"- {one_line(bullet)}" for bullet in inp.pinned_bullets]
    if inp.vetoed_bullets:
        lines += ["", "## Bullets the trader vetoed (they are out of the agent's prompt; never write them again)"]
        lines += [f"- {one_line(bullet)}" for bullet in inp.vetoed_bullets]
    return "\n".join(lines)


def _minute(moment: dt.datetime) -> str:
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%MZ")


def _num(value: Decimal | None) -> str:
    if value is None:
        return "-"
    return format(value.normalize(), "f")  # plain notation without trailing zeros: 100, 1.5


def signed_usd(value: Decimal) -> str:
    """Signed dollars and cents: +$1,234.50, -$48.30, $0.00 (the sign of the value rounded half-even)."""
    rounded = value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
    if rounded == 0:
        return "$0.00"
    return f"{'-' if rounded < 0 else '+'}${abs(rounded):,.2f}"


def _usd(value: Decimal | None) -> str:
    return "-" if value is None else signed_usd(value)


# -- output validation ---------------------------------------------------------------------------------

EMPTY_OUTPUT = "empty output"
OUTPUT_TOO_LONG = "raw output is {length} characters (limit {limit}): the model went off the rails"
CONTAINS_AVOID_RULE = "output repeats the avoid rule {rule!r} verbatim"


@dataclass(frozen=True)
class ValidatedLessons:
    text: str


@dataclass(frozen=True)
class RejectedLessons:
    reason: str


def validate_reflection_output(raw: str, avoid_rules: Sequence[str]) -> ValidatedLessons | RejectedLessons:
    """The seed's output validation.

    Rejected when empty, when the raw output exceeds ``RAW_OUTPUT_MAX_CHARS`` or when it contains an
    avoid rule verbatim (compared case-insensitively with whitespace runs collapsed). Accepted text
    is cleaned (control characters other than line breaks removed, trailing spaces stripped, bullets
    beyond ``MAX_BULLETS_PER_SLOT`` in a slot dropped) and trimmed to ``LESSONS_MAX_CHARS`` at a line
    boundary where there is one.
    """
    if len(raw) > RAW_OUTPUT_MAX_CHARS:
        return RejectedLessons(OUTPUT_TOO_LONG.format(length=len(raw), limit=RAW_OUTPUT_MAX_CHARS))
    text = clean_text_block(raw)
    if not text:
        return RejectedLessons(EMPTY_OUTPUT)
    folded = _fold(text)
    for rule in avoid_rules:
        if _fold(rule) and _fold(rule) in folded:
            return RejectedLessons(CONTAINS_AVOID_RULE.format(rule=rule.strip()))
    return ValidatedLessons(trim_lessons(_cap_bullets(text)))


def trim_lessons(text: str, limit: int = LESSONS_MAX_CHARS) -> str:
    """At most ``limit`` characters, cut after the last whole line that fits when there is one."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    newline = cut.rfind("\n")
    return (cut[:newline] if newline > 0 else cut).rstrip()


def _cap_bullets(text: str) -> str:
    kept, bullets = [], 0
    for line in text.split("\n"):
        if line.startswith("### "):
            bullets = 0
        elif line.lstrip().startswith(("- ", "* ")):
            bullets += 1
            if bullets > MAX_BULLETS_PER_SLOT:
                continue
        kept.append(line)
    return "\n".join(kept)


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def render_slots(bullets_by_slot: Mapping[str, Sequence[str]]) -> str:
    """Lessons text in the slot format from bullets per slot (missing or empty slot → EMPTY_SLOT)."""
    lines = []
    for slot in SLOTS:
        lines.append(SLOT_HEADING.format(slot=slot))
        bullets = list(bullets_by_slot.get(slot, ()))[:MAX_BULLETS_PER_SLOT]
        lines += [f"- {one_line(bullet)}" for bullet in bullets] or [EMPTY_SLOT]
    return "\n".join(lines)

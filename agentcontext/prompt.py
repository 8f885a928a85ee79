"""The trading agent's segmented system prompt (seed: composeSystemPromptSegments, ADR-0012).

Pure: stdlib and ``memorysite.text`` only. Six segments, joined by one blank line in this order, ``paused`` only while
the deployment is paused and ``lessons`` only when an active reflection note exists (a running deployment's prompt
is byte for byte what it was before pausing told the agent anything)::

    header    who the agent is and how it answers
    leash     the trader's hard avoid rules (authoritative)
    paused    only while the trader has paused the deployment (``PAUSED``): no new or larger positions
    strategy  the skill version's strategy text, fenced as the trader's own: every line quoted with "> "
    lessons   "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):"
              followed by the active note's bullets, one "- <bullet>" line each (the seed's shape; see
              ``lessons_bullets``)
    footer    the closing reminder

The text is a contract runners diff byte for byte: every rule here is exact. Free text (strategy,
lessons) keeps its line breaks and goes through ``clean_text_block`` (no control, format, invisible
or separator characters, no trailing spaces), so no segment can smuggle terminal escapes, bidi
overrides or hidden tag text into the prompt; an avoid rule is one line ("- " first). The strategy
is the trader's writing, not ours: each of its lines starts with "> " (a blank one is ">"), so a
line such as "## System" inside it cannot read as a section of this prompt.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass

from memorysite.text import clean_text_block as _clean
from reflection.core import EMPTY_SLOT, bullet_key, lesson_bullet_texts

HEADER = (
    "You are a trading agent. Each tick you receive market data, your portfolio and your own track record, "
    "and you answer with exactly one action: propose_order, close_position, adjust_position, hold or flatten. "
    "A risk engine checks every proposal against hard caps before anything reaches the broker."
)
LEASH_HEADING = "Hard avoid rules (authoritative; never do any of these):"
NO_AVOID_RULES = "- (none set by the trader)"
STRATEGY_HEADING = 'Strategy (the trader\'s own text; each line of it is quoted with "> "):'
LESSONS_HEADING = "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):"
FOOTER = (
    "The avoid rules above override everything else, including the lessons, which are reference only. "
    "When in doubt, hold."
)
# Pausing a deployment keeps its ticks recorded (the ledger follows the venue) and tells the agent this, right
# under the avoid rules: what it may still do is what takes risk off.
PAUSED = (
    "The trader has paused this deployment: do not open new positions or add to open ones "
    "(no propose_order, no adjust_position that increases a position). "
    "You may hold, reduce or close open positions, or flatten."
)
SEGMENT_SEPARATOR = "\n\n"
# A note with no bullet at all (every slot empty) still shows the agent that lessons are active.
NO_LESSON_BULLETS = f"- {EMPTY_SLOT}"


@dataclass(frozen=True)
class SystemPromptSegments:
    header: str
    leash: str
    paused: str | None  # present only while the trader has paused the deployment
    strategy: str
    lessons: str | None  # present only when an active reflection note exists
    footer: str

    def as_dict(self) -> dict[str, str | None]:
        return asdict(self)


def compose_system_prompt_segments(
    *,
    strategy_text: str,
    avoid_rules: Sequence[str],
    lessons: str | None,
    vetoed: Collection[str] = (),
    paused: bool = False,
) -> SystemPromptSegments:
    """``vetoed``: the bullets the trader vetoed (``reflection.core.bullet_key`` of each); they leave the lessons
    segment. None vetoed: the segment is byte for byte what it was before vetoes existed. ``paused``: the
    deployment is paused, so the ``paused`` segment is ``PAUSED`` (else None, and no byte of the text changes)."""
    rules = [_clean(rule) for rule in avoid_rules]
    rules = [" ".join(rule.split()) for rule in rules if rule.strip()]
    leash_lines = [f"- {rule}" for rule in rules] or [NO_AVOID_RULES]
    lessons_text = "\n".join(lessons_bullets(lessons, vetoed=vetoed)) if lessons is not None and _clean(lessons) else ""
    return SystemPromptSegments(
        header=HEADER,
        leash="\n".join([LEASH_HEADING, *leash_lines]),
        paused=PAUSED if paused else None,
        strategy=f"{STRATEGY_HEADING}\n{_quoted(_clean(strategy_text)) or '(empty)'}",
        lessons=f"{LESSONS_HEADING}\n{lessons_text}" if lessons_text else None,
        footer=FOOTER,
    )


def lessons_bullets(lessons: str, *, vetoed: Collection[str] = ()) -> list[str]:
    """The note's text as the seed's prompt shape: one ``- <bullet>`` line per bullet, slot by slot in the
    note's order (``reflection.core.lesson_bullet_texts``: the slot headings and the empty-slot marker are the
    reflection format's, not lessons; any other line becomes a bullet of its own). A bullet whose ``bullet_key``
    is in ``vetoed`` is left out. No bullet at all (none written, or every one vetoed): ``NO_LESSON_BULLETS``."""
    bullets = [f"- {line}" for line in lesson_bullet_texts(lessons) if not (vetoed and bullet_key(line) in vetoed)]
    return bullets or [NO_LESSON_BULLETS]


def _quoted(block: str) -> str:
    """Each line of ``block`` behind "> " (">" alone for a blank line, so no line ends in a space)."""
    if not block:
        return ""
    return "\n".join(f"> {line}" if line else ">" for line in block.split("\n"))


def compose_system_prompt(segments: SystemPromptSegments) -> str:
    parts = [segments.header, segments.leash, segments.paused, segments.strategy, segments.lessons, segments.footer]
    return SEGMENT_SEPARATOR.join(part for part in parts if part is not None)

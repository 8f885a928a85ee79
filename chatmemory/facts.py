"""User facts as the chat coach sees them: validation and the ``## What I know about you`` block.

Pure: stdlib only; no Django, no I/O, no clock. Port of ADR-0020 §2 and §4. The block is part of
the chat system prompt, a contract compared byte for byte::

    ## What I know about you
    - [risk] You don't take leverage above 5×. (fact 3f2a9c1e)
    - [style] (inferred) You seem to favour mean-reversion setups. (fact 0b7d44a2)
    - You trade from Lisbon. (fact 91c0e5d7)

Rules: at most ``FACTS_IN_PROMPT`` lines, in the order given (the selector's: most recently
referenced first, never-referenced last, newer first among equals); ``[topic]`` only when the
fact has a topic; ``(inferred)`` marks a fact the trader did not assert; ``(fact <ref>)`` is the
first 8 hex digits of the fact's id — its provenance, and what the coach passes to ``forget`` (the
ADR's lines carry no id, which would leave ``forget`` unusable); the whole block is ``None``
(suppressed) when there are no facts. Fact text is stored one line (control characters
are refused at the door), so a fact can never start a line of its own.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

FACT_MIN_CHARS, FACT_MAX_CHARS = 4, 500
TOPIC_MAX_CHARS = 32
FACTS_IN_PROMPT = 10
FACTS_HEADING = "## What I know about you"
INFERRED_MARK = "(inferred)"

FACT_TOO_SHORT = f"must be at least {FACT_MIN_CHARS} characters"
FACT_TOO_LONG = f"must be at most {FACT_MAX_CHARS} characters"
TOPIC_TOO_LONG = f"must be at most {TOPIC_MAX_CHARS} characters"
CONTROL_CHARACTERS = "must not contain control characters or line breaks"
BIDI_CHARACTERS = "must not contain bidirectional-override or other invisible format characters"
TOPIC_CHARACTERS = "may use letters, digits, spaces, '-' and '_' only"


class FactError(ValueError):
    """A fact or topic that breaks a rule; ``field`` names it, the message states the rule."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


FACT_REF_CHARS = 8


@dataclass(frozen=True)
class FactLine:
    fact: str
    topic: str | None
    inferred: bool
    ref: str  # the first FACT_REF_CHARS hex digits of the fact's id


def clean_fact(text: str) -> str:
    """The fact as stored: outer whitespace stripped; raises FactError naming the broken rule."""
    _refuse_unsafe("fact", text)
    fact = text.strip()
    if len(fact) < FACT_MIN_CHARS:
        raise FactError("fact", FACT_TOO_SHORT)
    if len(fact) > FACT_MAX_CHARS:
        raise FactError("fact", FACT_TOO_LONG)
    return fact


def clean_topic(text: str | None) -> str | None:
    """A short tag, lower-cased; blank → None."""
    if text is None:
        return None
    _refuse_unsafe("topic", text)
    topic = " ".join(text.split()).lower()
    if not topic:
        return None
    if len(topic) > TOPIC_MAX_CHARS:
        raise FactError("topic", TOPIC_TOO_LONG)
    if not all(ch.isalnum() or ch in " -_" for ch in topic):
        raise FactError("topic", TOPIC_CHARACTERS)
    return topic


def _refuse_unsafe(field: str, text: str) -> None:
    for ch in text:
        category = unicodedata.category(ch)
        if category in {"Cc", "Zl", "Zp"} and ch != " ":
            raise FactError(field, CONTROL_CHARACTERS)
        if category in {"Cf", "Cs", "Co"}:
            raise FactError(field, BIDI_CHARACTERS)


def render_fact_line(line: FactLine) -> str:
    parts = ["-"]
    if line.topic:
        parts.append(f"[{line.topic}]")
    if line.inferred:
        parts.append(INFERRED_MARK)
    parts.append(line.fact)
    parts.append(f"(fact {line.ref})")
    return " ".join(parts)


def render_facts_block(facts: Sequence[FactLine]) -> str | None:
    """The ADR's block over at most FACTS_IN_PROMPT facts, or None when there are none."""
    shown = list(facts)[:FACTS_IN_PROMPT]
    if not shown:
        return None
    return "\n".join([FACTS_HEADING, *(render_fact_line(line) for line in shown)])


# -- near duplicates ----------------------------------------------------------------------------------------

# Two facts at or above this similarity are "nearly the same": the trader is warned before adding the
# second (both would take prompt slots). 0.8 catches rewordings ("above 5x" / "above 10x", a dropped
# "I", trailing punctuation) and leaves facts that share a few words alone. docs/architecture.md says so.
NEAR_DUPLICATE_SIMILARITY = 0.8


def normalise_fact(text: str) -> str:
    """The text compared for duplicates: NFKC, case-folded, every run of non-alphanumeric characters
    (punctuation, symbols, whitespace) one space, no outer spaces."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join("".join(ch if ch.isalnum() else " " for ch in folded).split())


def _trigrams(normalised: str) -> frozenset[str]:
    padded = f" {normalised} "  # the padding lets a word's first and last letters count
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def fact_similarity(a: str, b: str) -> float:
    """How alike two facts read, in [0, 1]: the Dice coefficient of the character trigrams of their
    normalised texts. Symmetric; 1.0 exactly when the normalised texts are equal; 0.0 when either
    normalises to nothing (and the other does not)."""
    left, right = normalise_fact(a), normalise_fact(b)
    if left == right:
        return 1.0
    if not left or not right:
        return 0.0
    grams_a, grams_b = _trigrams(left), _trigrams(right)
    return 2 * len(grams_a & grams_b) / (len(grams_a) + len(grams_b))


def is_near_duplicate(a: str, b: str) -> bool:
    """Whether `b` nearly repeats `a` (similarity at least NEAR_DUPLICATE_SIMILARITY)."""
    return fact_similarity(a, b) >= NEAR_DUPLICATE_SIMILARITY

"""Free text made safe for a prompt: the one rule every renderer shares.

Pure: stdlib only. Control, format, surrogate, private-use and line/paragraph-separator characters
(Unicode categories Cc, Cf, Cs, Co, Zl, Zp) never reach a prompt: bidi overrides, terminal escapes
and zero-width characters cannot survive, and a field rendered on one line can never start a line
of its own.
"""

from __future__ import annotations

import unicodedata

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})


def one_line(text: str) -> str:
    """Unsafe characters become spaces and whitespace runs collapse: the text is one line."""
    return " ".join("".join(" " if unicodedata.category(ch) in UNSAFE_CATEGORIES else ch for ch in text).split())


def clean_text_block(raw: str) -> str:
    """Multi-line free text: line breaks normalised to ``\\n``, tabs to spaces, every other unsafe
    character removed, lines right-stripped and the block stripped."""
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    cleaned = (
        "".join(
            " " if ch == "\t" else ch for ch in line if ch == "\t" or unicodedata.category(ch) not in UNSAFE_CATEGORIES
        )
        for line in lines
    )
    return "\n".join(line.rstrip() for line in cleaned).strip()

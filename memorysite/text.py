"""Free text made safe for a prompt, for an agent and for a human reviewer: the one rule every renderer shares.

Pure: stdlib only. Control, format, surrogate, private-use and line/paragraph-separator characters
(Unicode categories Cc, Cf, Cs, Co, Zl, Zp) and the invisible characters below never reach a prompt:
bidi overrides, terminal escapes and zero-width characters cannot survive, and a field rendered on
one line can never start a line of its own.

Invisible characters render as nothing yet reach a model: every format character (Cf: zero-width
space and joiners, the word joiner and invisible operators U+2060–2064, the byte-order mark, bidi
embeddings, overrides and isolates, the soft hyphen), the whole tag block U+E0000–E007F (tag
characters spell ASCII that no one sees) and the variation selectors supplement U+E0100–E01EF (a
byte each, hidden behind a visible character). Rows keep them as written; what leaves the service
neutralises them: ``strip_invisible`` towards an agent (tool results, MCP, search snippets),
``mark_invisible`` towards a human (pages and admin show ``[U+200B]``).

Document text (recall's documents: any UTF-8 text but NUL is stored and indexed as written) follows
its own output rule, ``document_text_out``, wherever it leaves the index (search snippets, context
lines, pages): see ``DOCUMENT_TEXT_OUT_MAP``.

``estimate_tokens`` is the one token estimate every prompt budget counts with (the seed's ceil(chars / 4)).
"""

from __future__ import annotations

import math
import re
import sys
import unicodedata
from typing import Any

UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Zl", "Zp"})
TAG_BLOCK = range(0xE0000, 0xE0080)
VARIATION_SELECTORS_SUPPLEMENT = range(0xE0100, 0xE01F0)
# Tags U+E0020–E007E mirror printable ASCII (U+E0041 is a hidden "A").
_TAG_ASCII = range(0xE0020, 0xE007F)

INVISIBLE_CHARACTERS = frozenset(
    [chr(code) for code in range(sys.maxunicode + 1) if unicodedata.category(chr(code)) == "Cf"]
    + [chr(code) for code in (*TAG_BLOCK, *VARIATION_SELECTORS_SUPPLEMENT)]
)
_STRIP = dict.fromkeys(map(ord, INVISIBLE_CHARACTERS))


def _character_class(characters: frozenset[str]) -> str:
    codes = sorted(map(ord, characters))
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and code == ranges[-1][1] + 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in ranges)


_INVISIBLE_RUN = re.compile(f"[{_character_class(INVISIBLE_CHARACTERS)}]+")
# What a mark may spell of a tag run as itself: characters with no meaning in HTML, in a JSON string or in
# the mark (the others are spelt by their code, ``{3c}``).
_TAG_SHOWN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;!?-_()/+=*#@%$~^|")


def is_invisible(ch: str) -> bool:
    return ch in INVISIBLE_CHARACTERS


def is_unsafe(ch: str) -> bool:
    """The prompt-text rule: a character of UNSAFE_CATEGORIES or an invisible one never reaches a prompt."""
    return unicodedata.category(ch) in UNSAFE_CATEGORIES or ch in INVISIBLE_CHARACTERS


def replace_unsafe(text: str) -> str:
    """Every unsafe character becomes one space; nothing else changes (whitespace runs are kept)."""
    return "".join(" " if is_unsafe(ch) else ch for ch in text)


def one_line(text: str) -> str:
    """Unsafe characters become spaces and whitespace runs collapse: the text is one line."""
    return " ".join(replace_unsafe(text).split())


def clean_text_block(raw: str) -> str:
    """Multi-line free text: line breaks normalised to ``\\n``, tabs to spaces, every other unsafe
    character removed, lines right-stripped and the block stripped."""
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    cleaned = ("".join(" " if ch == "\t" else ch for ch in line if ch == "\t" or not is_unsafe(ch)) for line in lines)
    return "\n".join(line.rstrip() for line in cleaned).strip()


def strip_invisible(text: str) -> str:
    """The text without its invisible characters (everything else, line breaks included, kept as is):
    what an agent is given."""
    return text.translate(_STRIP)


def strip_invisible_json(value: Any) -> Any:
    """A JSON-like value (dicts, lists, strings, scalars) with every string, keys included, passed
    through ``strip_invisible``; other values are returned as they are."""
    if isinstance(value, str):
        return strip_invisible(value)
    if isinstance(value, dict):
        return {strip_invisible_json(key): strip_invisible_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [strip_invisible_json(item) for item in value]
    return value


def _mark(run: str) -> str:
    marks = []
    tags = ""
    for ch in run + "\0":  # the sentinel flushes the last run of tags
        if ord(ch) in _TAG_ASCII:
            spelt = chr(ord(ch) - 0xE0000)
            tags += spelt if spelt in _TAG_SHOWN else f"{{{ord(spelt):02x}}}"
            continue
        if tags:
            marks.append(f"[tags: {tags}]")
            tags = ""
        if ch != "\0":
            marks.append(f"[U+{ord(ch):04X}]")
    return "".join(marks)


def mark_invisible(text: str) -> str:
    """The text with every invisible character shown as a visible mark, for a human reviewer: each one
    as ``[U+200B]``, and a run of ASCII tag characters as one ``[tags: what they spell]`` (characters
    that mean something in HTML or JSON spelt by their code: ``{3c}``). Text without invisible
    characters is returned unchanged; the marks are plain ASCII without ``<>&"'\\``, so they are safe
    anywhere in HTML, attributes and JSON data blocks included."""
    return _INVISIBLE_RUN.sub(lambda match: _mark(match.group()), text)


def has_invisible(text: str) -> bool:
    return _INVISIBLE_RUN.search(text) is not None


# -- document text leaving the index ----------------------------------------------------------------

# Characters some reader takes for a line or page break (str.splitlines, Unicode's mandatory breaks, a
# terminal, a markdown renderer) that are not one in a document's lines (recall.chunking.document_lines cuts
# at "\r\n", "\r" and "\n" only): each could start a line the document's citations do not count, such as a
# forged "## " heading in a prompt.
OTHER_LINE_BREAKS = frozenset("\v\f\x1c\x1d\x1e\x85\u2028\u2029")
_CONTROLS = frozenset(chr(code) for code in (*range(0x20), *range(0x7F, 0xA0)))  # Unicode category Cc
_SURROGATES = frozenset(chr(code) for code in range(0xD800, 0xE000))
# What ``document_text_out`` does to each character it changes (every other character is kept as is):
#   - invisible characters (INVISIBLE_CHARACTERS: every Cf — bidi marks LRM/RLM/ALM, embeddings and
#     overrides U+202A–202E, isolates U+2066–2069, zero-width space/joiners, word joiner, BOM, soft hyphen
#     — the tag block, the variation selectors supplement): removed, so nothing can reorder or hide text;
#   - OTHER_LINE_BREAKS (VT, FF, FS/GS/RS, NEL, U+2028, U+2029) and every other control character (Cc:
#     C0 but TAB and LF, DEL, C1 — NUL and ESC included): one space, so words stay apart and no line starts
#     where the document has none;
#   - lone surrogates (never stored: PostgreSQL refuses them; listed so the rule is total): U+FFFD.
# "\r\n" and a lone "\r" are line breaks of the document (its citations count them) and become "\n" first.
DOCUMENT_TEXT_OUT_MAP: dict[int, str | None] = {
    **{ord(ch): " " for ch in _CONTROLS - {"\t", "\n"}},
    **{ord(ch): " " for ch in OTHER_LINE_BREAKS},
    **{ord(ch): "\ufffd" for ch in _SURROGATES},
    **dict.fromkeys(map(ord, INVISIBLE_CHARACTERS)),
}
# Never in document_text_out's output: "\n" is its only line break, "\t" its only other control character.
DOCUMENT_TEXT_UNSAFE = frozenset(map(chr, DOCUMENT_TEXT_OUT_MAP)) | {"\r"}


def document_text_out(text: str) -> str:
    """Document text as it may leave the index (a snippet, a context line, a page): line breaks as
    ``\n`` (``\r\n`` and a lone ``\r`` too), every character of DOCUMENT_TEXT_UNSAFE removed or replaced
    as DOCUMENT_TEXT_OUT_MAP says, everything else unchanged. Idempotent; the identity on text without
    an unsafe character."""
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(DOCUMENT_TEXT_OUT_MAP)


def document_line(text: str) -> str:
    """``document_text_out`` on one line: whitespace runs, line breaks included, become one space and the
    ends are stripped. For document text inside a line of a prompt (a context section's row), where a
    line of its own could pose as the prompt's structure (a ``## `` heading)."""
    return " ".join(document_text_out(text).split())


def estimate_tokens(text: str | None) -> int:
    """ceil(len(text) / 4); 0 for None."""
    return 0 if text is None else math.ceil(len(text) / 4)


HIGHLIGHT_MIN_CHARS = 2


def highlight_spans(text: str, terms: list[str]) -> list[tuple[str, bool]]:
    """``text`` cut into (part, is_match) runs, in order, whose parts join back to ``text``: a match is a word
    starting with one of ``terms`` (case-insensitive, so "stop" marks "Stops" as the stemmer matched it);
    terms shorter than HIGHLIGHT_MIN_CHARS mark nothing. For pages to wrap the matches in <mark>."""
    usable = sorted({term.lower() for term in terms if len(term) >= HIGHLIGHT_MIN_CHARS}, key=len, reverse=True)
    if not usable or not text:
        return [(text, False)] if text else []
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(term) for term in usable) + r")\w*", re.IGNORECASE)
    parts: list[tuple[str, bool]] = []
    position = 0
    for match in pattern.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], False))
        parts.append((match.group(), True))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], False))
    return parts

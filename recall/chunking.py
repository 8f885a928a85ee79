"""Markdown chunking for recall: by headings, then token windows, with exact line ranges.

Pure: stdlib only, deterministic, no I/O. The seed asks for chunks "by headings or token windows" of
moderate size (400–800 tokens) so citations are precise, and for change detection by hashing so only
changed chunks are re-embedded.

Lines are the original text's lines as ``document_lines`` cuts them: at ``\\n``, ``\\r\\n`` and ``\\r``
only, so those endings give the same chunks, and a form feed, a vertical tab, NEL, U+2028 or U+2029 is a
character of its line (as for git, grep and editors), never a line break that could start a heading;
line numbers are 1-based and inclusive. A line is *blank* when it holds only whitespace (it then counts
0 tokens; every other line counts at least 1).

Rules, in order:

1. Sections. An ATX heading (up to 3 spaces, 1–6 ``#``, then a space, a tab or the end of the line),
   outside a fenced code block, starts a section that runs to the next heading; the lines before the
   first heading are a section with the trail ``""``. Fences follow CommonMark roughly: up to 3 spaces,
   3+ backticks (info without a backtick) or 3+ tildes; the fence closes with the same character, at
   least as many, and nothing but spaces or tabs after; an unterminated fence runs to the end of the
   document. Setext headings (``Title`` over ``===``) are ignored: they are rare in agent workspaces
   and a ``---`` under a paragraph is too often a rule.
2. Merging. Sections are walked in order; a chunk starts with a section and takes in the next one
   while the chunk is still under ``min_tokens`` and the sum stays within ``max_tokens``. A heading is
   therefore the preferred split point, and small sections do not make tiny citations.
3. Windows. A section over ``max_tokens`` is never merged; it is cut at line boundaries into windows
   of at most ``max_tokens``, each aiming at an even share of what is left of the section (at most
   ``(min_tokens + max_tokens) / 2``). Among the ends that give at least ``min_tokens`` (or the
   furthest possible end when none does), a split outside a fenced block is preferred, then one at a
   paragraph or list-item boundary, then the end nearest the aim. So a fence is split only when no
   split outside it gives ``min_tokens``. A single line over ``max_tokens`` is a chunk of its own, the
   only chunk whose ``token_count`` may exceed ``max_tokens``.
4. Trimming. Blank lines are trimmed from both ends of every chunk, so a chunk starts and ends on
   content; a blank document gives no chunk. Chunks do not overlap: their line ranges are
   ascending and disjoint, and every non-blank line is in exactly one chunk (blank lines between
   chunks are in none).

A chunk's heading is the trail of headings enclosing all of it ("Risk > Stops"; for merged sections
their common part, so "Risk" for "Risk > Stops" merged with "Risk > Sizing"). Its hash covers that
trail and its text, so an identical paragraph moved under another heading is a new chunk, while a
chunk that only moved up or down (lines inserted above it) keeps its hash.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import defaultdict, deque
from collections.abc import Sequence
from dataclasses import dataclass

MIN_TOKENS = 400
MAX_TOKENS = 800
HEADING_SEPARATOR = " > "

# A word run or one punctuation character: stable (no tokenizer dependency, no model download) and
# close to BPE counts for English prose and numbers, where common words are one token and numbers
# split at their punctuation ("1.25" is 3 here). Long rare words and CJK text count low.
_TOKEN = re.compile(r"\w+|[^\w\s]")
_ATX_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*))?")
_CLOSING_HASHES = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_LIST_ITEM = re.compile(r" {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")

_INSIDE_FENCE, _PLAIN_SPLIT, _BLOCK_BOUNDARY = 0, 1, 2


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def document_lines(text: str) -> list[str]:
    """The document's lines, cut at ``\\r\\n``, ``\\r`` and ``\\n`` (a final line break ends the last line,
    it starts no empty one): what line numbers and citations count. Unlike ``str.splitlines()``, the
    other characters Python takes for line breaks (VT, FF, FS, GS, RS, NEL, U+2028, U+2029) stay in
    their line."""
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":
        lines.pop()
    return lines


def count_tokens(text: str) -> int:
    """Approximate model tokens: the number of matches of ``\\w+|[^\\w\\s]`` (word runs and single
    punctuation characters). Additive over lines: joining lines with ``\\n`` never merges tokens."""
    return sum(1 for _ in _TOKEN.finditer(text))


@dataclass(frozen=True)
class Chunk:
    """One citation unit: ``text`` is exactly lines ``start_line..end_line`` (1-based, inclusive) of the
    original text joined with ``\\n``; ``content_hash`` is the sha256 hex of ``heading + "\\n" + text``."""

    index: int
    start_line: int
    end_line: int
    heading: str
    text: str
    token_count: int
    content_hash: str


@dataclass(frozen=True)
class ChunkDiff:
    """What re-indexing a document changes, matching stored rows to new chunks by hash.

    ``keep`` pairs a stored row (its position in ``old_hashes``) with the new chunk of the same hash:
    reuse the row's embedding, update its index and lines. ``add`` are new chunks without a stored row.
    ``drop`` are positions of stored rows left without a chunk. ``to_embed`` are the hashes in ``add``
    that no stored row has, the only texts that need an embedding call."""

    keep: tuple[tuple[int, Chunk], ...]
    add: tuple[Chunk, ...]
    drop: tuple[int, ...]
    to_embed: frozenset[str]


@dataclass(frozen=True)
class _Section:
    start: int  # 0-based, inclusive
    end: int  # 0-based, exclusive
    trail: tuple[str, ...]  # titles of the enclosing headings, outermost first


def chunk_markdown(text: str, *, min_tokens: int = MIN_TOKENS, max_tokens: int = MAX_TOKENS) -> list[Chunk]:
    """Cut a markdown document into chunks by the module's rules: deterministic, line ranges ascending
    and disjoint, every non-blank line in exactly one chunk, ``token_count <= max_tokens`` unless the
    chunk is one line."""
    if min_tokens < 1:
        raise ValueError("min_tokens must be at least 1")
    if max_tokens < min_tokens:
        raise ValueError("max_tokens must be at least min_tokens")
    lines = document_lines(text)
    tokens = [count_tokens(line) for line in lines]
    prefix = [0]
    for count in tokens:
        prefix.append(prefix[-1] + count)
    fence_of, sections = _scan(lines)
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    pending: tuple[int, int, tuple[str, ...], int] | None = None  # start, end, trail, tokens being merged
    for section in sections:
        size = prefix[section.end] - prefix[section.start]
        if size == 0:
            continue  # a preamble of blank lines
        if pending and size <= max_tokens and pending[3] < min_tokens and pending[3] + size <= max_tokens:
            pending = (pending[0], section.end, _common_trail(pending[2], section.trail), pending[3] + size)
            continue
        if pending:
            spans.append(pending[:3])
            pending = None
        if size > max_tokens:
            for start, end in _windows(section, tokens, prefix, fence_of, lines, min_tokens, max_tokens):
                spans.append((start, end, section.trail))
        else:
            pending = (section.start, section.end, section.trail, size)
    if pending:
        spans.append(pending[:3])

    chunks: list[Chunk] = []
    for start, end, trail in spans:
        heading = HEADING_SEPARATOR.join(trail)
        while tokens[start] == 0:
            start += 1
        while tokens[end - 1] == 0:
            end -= 1
        body = "\n".join(lines[start:end])
        chunks.append(
            Chunk(
                index=len(chunks),
                start_line=start + 1,
                end_line=end,
                heading=heading,
                text=body,
                token_count=prefix[end] - prefix[start],
                content_hash=chunk_hash(heading, body),
            )
        )
    return chunks


def chunk_hash(heading: str, text: str) -> str:
    """sha256 hex of the canonical form ``heading + "\\n" + text``."""
    return hashlib.sha256(f"{heading}\n{text}".encode()).hexdigest()


def diff_chunks(old_hashes: Sequence[str], new: Sequence[Chunk]) -> ChunkDiff:
    """Match stored rows (their hashes, in row order) with a document's new chunks.

    Hashes are a multiset: the same section text can occur twice in one document. The n-th new chunk
    with hash h is paired with the n-th stored row with hash h; surplus chunks are added, surplus rows
    dropped. Every stored position is in exactly one of ``keep`` or ``drop``; every new chunk in exactly
    one of ``keep`` or ``add``."""
    rows_by_hash: dict[str, deque[int]] = defaultdict(deque)
    for position, content_hash in enumerate(old_hashes):
        rows_by_hash[content_hash].append(position)
    keep: list[tuple[int, Chunk]] = []
    add: list[Chunk] = []
    for chunk in new:
        rows = rows_by_hash.get(chunk.content_hash)
        if rows:
            keep.append((rows.popleft(), chunk))
        else:
            add.append(chunk)
    drop = sorted(position for rows in rows_by_hash.values() for position in rows)
    stored = set(old_hashes)
    return ChunkDiff(
        keep=tuple(keep),
        add=tuple(add),
        drop=tuple(drop),
        to_embed=frozenset(chunk.content_hash for chunk in add if chunk.content_hash not in stored),
    )


def _scan(lines: list[str]) -> tuple[list[int | None], list[_Section]]:
    """One pass over the lines: which fenced block each line is in (the index of its opening line),
    and the sections the headings outside fences start."""
    fence_of: list[int | None] = [None] * len(lines)
    starts: list[tuple[int, tuple[str, ...]]] = [(0, ())]
    trail: list[tuple[int, str]] = []  # (level, title) of the open headings
    open_at: int | None = None
    open_marker = ""
    for i, line in enumerate(lines):
        if open_at is not None:
            fence_of[i] = open_at
            close = _FENCE_CLOSE.fullmatch(line)
            if close and close.group(1)[0] == open_marker[0] and len(close.group(1)) >= len(open_marker):
                open_at = None
            continue
        fence = _FENCE_OPEN.fullmatch(line)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            open_at, open_marker = i, fence.group(1)
            fence_of[i] = i
            continue
        heading = _ATX_HEADING.fullmatch(line)
        if heading:
            level = len(heading.group(1))
            title = " ".join(_CLOSING_HASHES.sub("", (heading.group(2) or "").strip()).split())
            while trail and trail[-1][0] >= level:
                trail.pop()
            trail.append((level, title))
            starts.append((i, tuple(t for _, t in trail if t)))
    if len(starts) > 1 and starts[1][0] == 0:
        starts.pop(0)  # the document opens with a heading: no preamble
    ends = [start for start, _ in starts[1:]] + [len(lines)]
    return fence_of, [_Section(start, end, trail) for (start, trail), end in zip(starts, ends, strict=True)]


def _common_trail(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    return a[:same]


def _windows(
    section: _Section,
    tokens: list[int],
    prefix: list[int],
    fence_of: list[int | None],
    lines: list[str],
    min_tokens: int,
    max_tokens: int,
) -> list[tuple[int, int]]:
    """Cut an oversized section into line windows (0-based, end exclusive), starting each on content."""
    target = (min_tokens + max_tokens) / 2
    end = section.end

    def quality(split: int) -> int:
        if split == end:
            return _BLOCK_BOUNDARY
        if fence_of[split - 1] is not None and fence_of[split - 1] == fence_of[split]:
            return _INSIDE_FENCE
        if tokens[split - 1] == 0 or tokens[split] == 0 or _LIST_ITEM.match(lines[split]):
            return _BLOCK_BOUNDARY
        return _PLAIN_SPLIT

    windows: list[tuple[int, int]] = []
    start = section.start
    while True:
        while start < end and tokens[start] == 0:
            start += 1
        if start == end:
            return windows
        remaining = prefix[end] - prefix[start]
        if remaining <= max_tokens:
            windows.append((start, end))
            return windows
        aim = remaining / math.ceil(remaining / target)
        furthest = start + 1  # always at least one line, however long
        while furthest < end and prefix[furthest + 1] - prefix[start] <= max_tokens:
            furthest += 1
        candidates = [
            split for split in range(start + 1, furthest + 1) if prefix[split] - prefix[start] >= min_tokens
        ] or [furthest]
        split = min(candidates, key=lambda s: (-quality(s), abs(prefix[s] - prefix[start] - aim), s))
        windows.append((start, split))
        start = split

"""Line diffs between lessons revisions, for the lessons history page.

Pure: stdlib only. The lines are data (lessons text is never HTML); templates escape them.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass
from typing import TypeVar

EQUAL = "equal"
INSERT = "insert"
DELETE = "delete"

T = TypeVar("T")


@dataclass(frozen=True)
class DiffLine:
    op: str  # EQUAL, INSERT or DELETE
    text: str


@dataclass(frozen=True)
class LineDiff:
    lines: tuple[DiffLine, ...]

    @property
    def inserted(self) -> int:
        return sum(1 for line in self.lines if line.op == INSERT)

    @property
    def deleted(self) -> int:
        return sum(1 for line in self.lines if line.op == DELETE)

    @property
    def changed(self) -> bool:
        return any(line.op != EQUAL for line in self.lines)


def line_diff(old: str, new: str) -> LineDiff:
    """`new` against `old`, line by line: unchanged lines, and for each changed block the removed
    lines followed by the added ones (difflib's matching, no junk heuristic)."""
    before, after = old.splitlines(), new.splitlines()
    lines: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            lines += (DiffLine(EQUAL, text) for text in before[i1:i2])
            continue
        lines += (DiffLine(DELETE, text) for text in before[i1:i2])
        lines += (DiffLine(INSERT, text) for text in after[j1:j2])
    return LineDiff(tuple(lines))


def pair_with_previous(items: Iterable[T], *, scope: Callable[[T], Hashable]) -> list[tuple[T, T | None]]:
    """Each item (given oldest first) with the item before it in the same scope, None for the first one."""
    last: dict[Hashable, T] = {}
    pairs: list[tuple[T, T | None]] = []
    for item in items:
        key = scope(item)
        pairs.append((item, last.get(key)))
        last[key] = item
    return pairs

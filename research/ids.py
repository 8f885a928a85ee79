"""Research memory's ids: the numbered ones the service assigns (``H_001``, ``req_001``) and the natural
order every listing, export and prompt block sorts ids in.

Pure: stdlib only; no Django, no I/O.

- A numbered id is ``<prefix>`` and 1 to ``NUMBER_MAX_DIGITS`` digits; a new one takes the next number
  above the highest of its trader's ids of that shape (any other id, ``H_x`` or a twelve-digit one, is
  ignored), zero-padded to three digits (``H_001``, ``H_1000``). ``numbered_id_pattern`` is the one
  definition of the shape: the database aggregate (``research.services``) and ``highest_number`` use it.
- Natural order (``natural_key``): digit runs compare as numbers, the rest case-insensitively (``H_2``
  before ``H_10``, ``h_3`` between them); ids equal that way (``H_01`` and ``H_1``, ``H_1`` and ``h_1``)
  fall back to their plain text, so the order is total and an export never depends on row order.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

HYPOTHESIS_PREFIX = "H_"
REQUEST_PREFIX = "req_"
NUMBER_MAX_DIGITS = 9  # the number fits a database integer


def numbered_id_pattern(prefix: str) -> str:
    """The regular expression (Python's and PostgreSQL's, anchored) of ``prefix``'s numbered ids."""
    return rf"^{re.escape(prefix)}[0-9]{{1,{NUMBER_MAX_DIGITS}}}$"


def highest_number(prefix: str, ids: Iterable[str]) -> int:
    """The highest number among ``ids`` of ``prefix``'s numbered shape; 0 when none has it."""
    pattern = re.compile(numbered_id_pattern(prefix))
    return max((int(value[len(prefix) :]) for value in ids if pattern.fullmatch(value)), default=0)


def numbered_id(prefix: str, number: int) -> str:
    return f"{prefix}{number:03d}"


def natural_key(identifier: str) -> tuple[tuple[str | int, ...], str]:
    """Sort key of the natural order: ``H_009`` before ``H_010`` (see the module docstring)."""
    parts = re.split(r"([0-9]+)", identifier.casefold())
    return (tuple(int(part) if index % 2 else part for index, part in enumerate(parts)), identifier)

"""Degrade, never fail: the reads of one per-tick context, each section's on its own.

Seed memory-layer.md: "Each section's query failure logs and returns its empty default; the layer never takes
a tick down." The whole context runs under ``settings.CONTEXT_SECTION_TIMEOUT_MS`` per statement (``SET LOCAL
statement_timeout``, the request's own timeout back afterwards) and in ONE savepoint
(``memorysite.statement_timeout.timed_reads``). A read that raises a database error (the timeout, a lock it waited
on for that long, a missing table, a refused permission) rolls the transaction back to that savepoint
(``ROLLBACK TO SAVEPOINT`` keeps it, so it serves every later failure too) and the rest of the request's
transaction goes on; the section gets its empty default (None), the failure is logged (logger
``agentcontext.degrade``: the section, the deployment, the error's class) and the section is named in
``degraded``. Sections that cannot be computed without a failed read (every section that needs "now", the
latest tick) are named too: a degraded context says so, it never passes for a complete one.

One savepoint for all the reads, not one per read, because the context's reads are pure: nothing in the block
writes (``materialize_if_behind``, the one write of a context request, runs before it; the test
``test_the_context_reads_write_nothing`` holds every statement of a filled context to that), so rolling back
to the savepoint undoes nothing but the failed statement, and the reads that succeeded before it keep their
results. The happy path costs four statements whatever the number of reads (SAVEPOINT, timeout set, timeout
back, RELEASE), where a savepoint per read cost two per read; a failure costs two more (ROLLBACK TO SAVEPOINT,
the timeout set again) and is never re-run, so a stuck table still costs its timeout once per read that waits
on it.

Only database errors degrade: an exception of our own code (a renderer's bug) still fails the request.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError

from agentcontext.formatting import DEGRADABLE_SECTIONS, LESSONS_KEY
from memorysite.statement_timeout import TimedReads, timed_reads

__all__ = ["DEGRADABLE_SECTIONS", "LESSONS_KEY", "SectionReads", "section_reads"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")


@contextlib.contextmanager
def section_reads(*, deployment_id: int | None, timeout_ms: int | None = None) -> Iterator[SectionReads]:
    """``with section_reads(deployment_id=...) as reads:`` the reads of one context, under the section timeout
    (``settings.CONTEXT_SECTION_TIMEOUT_MS`` unless given) and in one savepoint
    (``memorysite.statement_timeout.timed_reads``). Statements inside the block but outside a ``reads.read`` run
    under that timeout too, and a database error of theirs fails the block: keep every query of the context in
    a read. Nothing in the block may write (a failed read rolls back to the savepoint, undoing the write)."""
    with timed_reads(settings.CONTEXT_SECTION_TIMEOUT_MS if timeout_ms is None else timeout_ms) as timed:
        yield SectionReads(deployment_id=deployment_id, timed=timed)


class SectionReads:
    """``reads.read(section, fn, default)`` runs ``fn``, and on a database error (the transaction rolled back to
    the reads' savepoint) logs it and returns ``default``; ``reads.degraded`` names, in ``DEGRADABLE_SECTIONS``
    order, the sections that degraded. Made by ``section_reads``."""

    def __init__(self, *, deployment_id: int | None, timed: TimedReads):
        self.deployment_id = deployment_id
        self._timed = timed
        self._failed: set[str] = set()
        # Milliseconds each section's reads took, a failure's rollback included (bench/context_latency.py).
        self.durations_ms: dict[str, float] = {}

    @property
    def degraded(self) -> tuple[str, ...]:
        return tuple(key for key in DEGRADABLE_SECTIONS if key in self._failed)

    def read(self, section: str, fn: Callable[[], T], default: D, *, takes_down: Iterable[str] = ()) -> T | D:
        """``fn()``, or ``default`` when it raises a database error: then ``section`` and the sections in
        ``takes_down`` (those that need what ``fn`` reads) are degraded."""
        started = time.perf_counter()
        try:
            return self._timed.attempt(fn)
        except DatabaseError as exc:
            error = type(exc.__cause__ or exc).__name__  # psycopg's class (QueryCanceled, UndefinedTable, …)
            logger.warning(
                "context section %s degraded for deployment %s: %s: %s",
                section,
                self.deployment_id,
                error,
                " ".join(str(exc).split())[:300],
                extra={"section": section, "deployment_id": self.deployment_id, "error_class": error},
            )
            self.degrade(section, *takes_down)
            return default
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            self.durations_ms[section] = self.durations_ms.get(section, 0.0) + elapsed

    def degrade(self, *sections: str) -> None:
        unknown = set(sections) - set(DEGRADABLE_SECTIONS)
        if unknown:
            raise ValueError(f"not a context section: {sorted(unknown)}")
        self._failed.update(sections)

    def is_degraded(self, section: str) -> bool:
        return section in self._failed

"""Degrade, never fail: the reads of one per-tick context, each section's on its own.

Seed memory-layer.md: "Each section's query failure logs and returns its empty default; the layer never takes
a tick down." Every read of a section runs in a savepoint of its own (``transaction.atomic()``), and the
whole context under ``settings.CONTEXT_SECTION_TIMEOUT_MS`` per statement (``SET LOCAL statement_timeout``,
the request's own timeout back afterwards: ``memorysite.statement_timeout``). A read that raises a database
error (the timeout, a lock it waited on for that long, a missing table, a refused permission) is rolled back
to its savepoint, so the rest of the request's transaction goes on; the section gets its empty default
(None), the failure is logged (logger ``agentcontext.degrade``: the section, the deployment, the error's
class) and the section is named in ``degraded``. Sections that cannot be computed without a failed read
(every section that needs "now", the latest tick) are named too: a degraded context says so, it never
passes for a complete one.

Only database errors degrade: an exception of our own code (a renderer's bug) still fails the request.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from django.conf import settings
from django.db import DatabaseError, transaction

from agentcontext.formatting import DEGRADABLE_SECTIONS, LESSONS_KEY
from memorysite.statement_timeout import local_statement_timeout

__all__ = ["DEGRADABLE_SECTIONS", "LESSONS_KEY", "SectionReads", "section_reads"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
D = TypeVar("D")


@contextlib.contextmanager
def section_reads(*, deployment_id: int | None, timeout_ms: int | None = None) -> Iterator[SectionReads]:
    """``with section_reads(deployment_id=...) as reads:`` the reads of one context, under the section timeout
    (``settings.CONTEXT_SECTION_TIMEOUT_MS`` unless given). Statements inside the block but outside a
    ``reads.read`` run under that timeout too, without a savepoint: keep every query of the context in one."""
    reads = SectionReads(deployment_id=deployment_id)
    with local_statement_timeout(settings.CONTEXT_SECTION_TIMEOUT_MS if timeout_ms is None else timeout_ms):
        yield reads


class SectionReads:
    """``reads.read(section, fn, default)`` runs ``fn`` in a savepoint, and on a database error logs it and
    returns ``default``; ``reads.degraded`` names, in ``DEGRADABLE_SECTIONS`` order, the sections that
    degraded. Made by ``section_reads``, which sets the timeout."""

    def __init__(self, *, deployment_id: int | None):
        self.deployment_id = deployment_id
        self._failed: set[str] = set()
        # Milliseconds each section's reads took, savepoints included (bench/context_latency.py reports them).
        self.durations_ms: dict[str, float] = {}

    @property
    def degraded(self) -> tuple[str, ...]:
        return tuple(key for key in DEGRADABLE_SECTIONS if key in self._failed)

    def read(self, section: str, fn: Callable[[], T], default: D, *, takes_down: Iterable[str] = ()) -> T | D:
        """``fn()``, or ``default`` when it raises a database error: then ``section`` and the sections in
        ``takes_down`` (those that need what ``fn`` reads) are degraded."""
        started = time.perf_counter()
        try:
            with transaction.atomic():
                return fn()
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

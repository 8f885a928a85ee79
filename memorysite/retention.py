"""Retention sweeps' one way of deleting or thinning old rows: bounded batches, one transaction each.

A sweep (a beat task, elevated and audited by its caller) picks at most `batch` rows, locks them with
SKIP LOCKED (two concurrent sweeps, or a redelivered task beside a running one, split the rows rather
than wait on each other) and changes them in that batch's own transaction, until a batch comes back
short. Idempotent by construction: what is gone is no longer picked, so a second run finds nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.db.models import QuerySet

# Rows per batch: each batch's transaction holds its locks for a few milliseconds (a DELETE of 1,000 indexed
# rows), so the service's own writes to the same tables never wait long behind a sweep.
BATCH = 1000


def in_batches(rows: QuerySet, change: Callable[[QuerySet], int], *, batch: int = BATCH) -> int:
    """Apply `change` (e.g. `lambda picked: picked.delete()[0]`) to `rows`, `batch` at a time; returns how
    many rows it changed. `rows` must stop matching a row once it was changed (or the loop would not end)."""
    if batch < 1:
        raise ValueError("batch: at least 1")
    total = 0
    while True:
        with transaction.atomic():
            picked = list(rows.select_for_update(skip_locked=True).values_list("pk", flat=True)[:batch])
            if picked:
                total += change(rows.model._default_manager.filter(pk__in=picked))
        if len(picked) < batch:
            return total

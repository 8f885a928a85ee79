"""Counting analyst memory where it happens (memorysite/metrics.py defines the metrics), and the figures
GET /metrics reads at scrape time: the memory's size, from the planner's statistics (pg_class: no row is
read, so a scrape costs the same whatever the tables hold)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from prometheus_client.core import GaugeMetricFamily

from memorysite.metrics import ANALYST_MEMORY_SIGNALS, ANALYST_RETRIEVAL_SECONDS, ANALYST_RETRIEVALS

TABLES = ("agent_signals", "signal_evolution_events", "memory_retrieval_audits")
_SIZES = """
    SELECT c.relname, greatest(c.reltuples, 0)::bigint, pg_total_relation_size(c.oid)
    FROM pg_class c
    WHERE c.relname = ANY(%s) AND c.relkind IN ('r', 'p') AND c.relnamespace = 'public'::regnamespace
"""


def observe_retrieval(*, success: bool, error_type: str, duration_ms: float, signals: int) -> None:
    """One retrieval (audited or not): its latency, its outcome and how many signals it brought back."""
    ANALYST_RETRIEVAL_SECONDS.observe(duration_ms / 1000)
    ANALYST_RETRIEVALS.labels("ok" if success else (error_type or "error")).inc()
    if success:
        ANALYST_MEMORY_SIGNALS.observe(signals)


def families() -> Iterator[GaugeMetricFamily]:
    with connection.cursor() as cursor:
        cursor.execute(_SIZES, [list(TABLES)])
        rows = cursor.fetchall()
    estimated = GaugeMetricFamily(
        "memory_analyst_rows_estimated",
        "Rows of the analyst memory's tables (the planner's estimate).",
        labels=["table"],
    )
    size = GaugeMetricFamily(
        "memory_analyst_table_bytes",
        "Bytes of the analyst memory's tables, indexes and TOAST included.",
        labels=["table"],
    )
    for name, rows_estimate, size_bytes in rows:
        estimated.add_metric([name], float(rows_estimate))
        size.add_metric([name], float(size_bytes))
    yield estimated
    yield size

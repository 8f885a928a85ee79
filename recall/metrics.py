"""Figures GET /metrics reads from recall at scrape time (memorysite/metrics.py runs them elevated).

Each count stops at COUNT_CAP rows, so a scrape costs at most that many index or heap reads whatever the
tables hold: chunks waiting for their embedding through the partial index `recall_chunk_pending`, documents
whose last indexing failed.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from prometheus_client.core import GaugeMetricFamily

from recall.embeddings import embedder_available

COUNT_CAP = 100_000
_COUNTS = f"""
    SELECT
      (SELECT count(*) FROM (SELECT 1 FROM recall_chunks WHERE embedding IS NULL LIMIT {COUNT_CAP}) AS pending),
      (SELECT count(*) FROM (SELECT 1 FROM recall_documents WHERE index_error <> '' LIMIT {COUNT_CAP}) AS failed)
"""  # noqa: S608 (a constant)


def families() -> Iterator[GaugeMetricFamily]:
    with connection.cursor() as cursor:
        cursor.execute(_COUNTS)
        pending, failed = cursor.fetchone()
    yield GaugeMetricFamily(
        "memory_recall_chunks_pending",
        f"Chunks waiting for their embedding (counted up to {COUNT_CAP}).",
        value=pending,
    )
    yield GaugeMetricFamily(
        "memory_recall_documents_index_errors",
        f"Documents whose last indexing failed (index_error set; counted up to {COUNT_CAP}).",
        value=failed,
    )
    yield GaugeMetricFamily(
        "memory_recall_embeddings_enabled",
        "1 when an embeddings provider is configured (EMBEDDINGS_PROVIDER is not none): pending chunks get embedded.",
        value=1 if embedder_available() else 0,
    )

"""Figures GET /metrics reads from the ledger at scrape time (memorysite/metrics.py runs them elevated).

Materialization lag: for every deployment whose materialized cursor is behind its latest tick, the ticks
after the cursor (an index range scan of `snapshot_tick_unique_per_deployment` per lagging deployment, so the
work grows with the lag, not with the table) and how long the oldest of them has waited since it was stored.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import connection
from prometheus_client.core import GaugeMetricFamily

_LAG = """
    SELECT count(*), coalesce(extract(epoch FROM now() - min(s.created_at)), 0), count(DISTINCT d.id)
    FROM deployments d
    JOIN decision_snapshots s
      ON s.deployment_id = d.id AND s.tick_at > coalesce(d.materialized_through, '-infinity'::timestamptz)
    WHERE d.latest_tick_at > coalesce(d.materialized_through, '-infinity'::timestamptz)
"""


def families() -> Iterator[GaugeMetricFamily]:
    with connection.cursor() as cursor:
        cursor.execute(_LAG)
        ticks, seconds, deployments = cursor.fetchone()
    yield GaugeMetricFamily(
        "memory_materialization_lag_ticks", "Ticks stored but not yet applied to trade_history.", value=ticks
    )
    yield GaugeMetricFamily(
        "memory_materialization_lag_seconds",
        "How long the oldest tick not yet applied to trade_history has waited since it was stored.",
        value=float(seconds),
    )
    yield GaugeMetricFamily(
        "memory_materialization_lagging_deployments", "Deployments with ticks not yet materialized.", value=deployments
    )

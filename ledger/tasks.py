"""Celery tasks of the ledger: thin, idempotent, one service each."""

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from access import scope
from ledger import services


@shared_task(
    name="ledger.materialize_deployment",
    ignore_result=True,  # fire-and-forget: no result-backend round trip when enqueuing a tick
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=10,
)
def materialize_deployment(deployment_id: int) -> int:
    """Apply every stored tick of the deployment past its cursor (safe to run any number of times)."""
    return services.materialize_queued(deployment_id=deployment_id)


@shared_task(
    name="ledger.prune_snapshot_bars",
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def prune_snapshot_bars() -> int:
    """Beat: the bars of old materialized ticks that opened no trade, dropped in batches. Returns how many."""
    with scope.elevated("ledger.prune_snapshot_bars: bars of old materialized ticks", atomic=False):
        return services.snapshot_bars_prune(now=timezone.now())


@shared_task(
    name="ledger.prune_served_contexts",
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def prune_served_contexts() -> int:
    """Beat: old served contexts no trade's entry needs, deleted in batches. Returns how many."""
    with scope.elevated("ledger.prune_served_contexts: old contexts no trade entry needs", atomic=False):
        return services.served_contexts_prune(now=timezone.now())

"""Celery tasks of analyst memory: thin, idempotent, one service each."""

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from access import scope
from signals import services


@shared_task(
    name="signals.expire_retrieval_audits",
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def expire_retrieval_audits() -> int:
    """Beat: every trader's retrieval audits past their retention, in batches. Returns how many were deleted."""
    with scope.elevated("signals.expire_retrieval_audits: audits past their retention", atomic=False):
        return services.retrieval_audits_expire(now=timezone.now())

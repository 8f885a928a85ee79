"""Celery tasks of reflection: thin, idempotent, one service each. Never on a tick's request path."""

import datetime as dt
import logging

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from access import scope
from ledger.models import Deployment, DeploymentStatus
from reflection import services

logger = logging.getLogger(__name__)


@shared_task(
    name="reflection.run_reflection",
    ignore_result=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    max_retries=5,
)
def run_reflection(deployment_id: int, through: str | None = None) -> str | None:
    """Distil the deployment's trades closed up to `through` (ISO time; None = its cursor).

    A redelivered or duplicate task finds the window already distilled and does nothing."""
    note = services.reflection_run(
        deployment_id=deployment_id, through=dt.datetime.fromisoformat(through) if through else None
    )
    return str(note.pk) if note else None


@shared_task(name="reflection.daily_sweep", ignore_result=True)
def daily_sweep() -> int:
    """Beat: queue a reflection for every running daily-cadence deployment that is due. Returns how many."""
    now = timezone.now()
    with scope.elevated("reflection.daily_sweep: find due daily-cadence deployments"):
        due = [
            (deployment.pk, deployment.owner_id)
            for deployment in Deployment.objects.filter(
                status=DeploymentStatus.RUNNING, skill_version__reflection_cadence="daily"
            ).select_related("skill_version")
            if services.daily_reflection_due(deployment=deployment, now=now)
        ]
    for deployment_id, owner_id in due:
        with scope.bound(scope.owner_scope_of(owner_id)):  # the task runs as the deployment's trader
            run_reflection.apply_async(args=[deployment_id], retry=False)
    return len(due)

"""Reflection listens to the ledger: a materialization batch that closed trades may trigger a run."""

import datetime as dt
import logging

from django.db import transaction
from django.dispatch import receiver

from ledger.signals import keep_up, trades_closed
from reflection import services

logger = logging.getLogger(__name__)


@receiver(trades_closed, dispatch_uid="reflection.enqueue_when_due")
def enqueue_when_due(sender, *, deployment_id: int, count: int, through: dt.datetime, **kwargs) -> None:
    """Queue run_reflection when the trigger says so. Never runs the engine here: this can be the
    tick request's inline catch-up. A failure only logs; the next closed trade triggers again."""
    from reflection.tasks import run_reflection

    try:
        with transaction.atomic():  # its reads in a transaction: row-level security scopes transactions
            due = services.reflection_due(deployment_id=deployment_id, closed_this_tick=count, through=through)
        if due:
            run_reflection.apply_async(args=[deployment_id, through.isoformat()], retry=False)
    except Exception:
        logger.warning("reflection trigger for deployment %s not queued", deployment_id, exc_info=True)


@receiver(keep_up, dispatch_uid="reflection.keep_up")
def reflect_when_due(sender, *, deployment_id: int, through: dt.datetime, **kwargs) -> None:
    """A simulation keeping up tick by tick: run reflection now when due (a failed run only logs)."""
    services.reflection_keep_up(deployment_id=deployment_id, through=through)

"""Recall listens to the ledger: opened and closed trades get their situation rows (phase 3).

Debounced per deployment (memorysite.redis.enqueue_once): a sync is marked queued and the task clears
the mark when it starts, so a burst of ticks opening and closing trades queues one sync (every trade
still gets its row: the sync picks up everything missing), and the worker's queue stays free for
materialization."""

import logging

from django.dispatch import receiver

from ledger.signals import trades_closed, trades_opened
from memorysite.redis import enqueue_once

logger = logging.getLogger(__name__)

SYNC_DELAY_S = 2
SITUATIONS_QUEUED = "recall:situations"
SITUATIONS_QUEUED_TTL_S = 300  # a lost task message frees the mark after this long


@receiver(trades_opened, dispatch_uid="recall.situations_on_open")
@receiver(trades_closed, dispatch_uid="recall.situations_on_close")
def queue_situation_sync(sender, *, deployment_id: int, **kwargs) -> None:
    """Queue the situation sync unless one is already queued; embedding never runs here (this can be
    a tick request's catch-up). A failure only logs: the next open or close queues it again."""
    from recall.tasks import sync_situations

    try:
        enqueue_once(
            SITUATIONS_QUEUED,
            deployment_id,
            ttl_s=SITUATIONS_QUEUED_TTL_S,
            enqueue=lambda: sync_situations.apply_async(args=[deployment_id], countdown=SYNC_DELAY_S, retry=False),
        )
    except Exception:
        logger.warning("recall situation sync for deployment %s not queued", deployment_id, exc_info=True)

"""Recall listens to the ledger: opened and closed trades get their situation rows (phase 3)."""

import logging

from django.dispatch import receiver

from ledger.signals import trades_closed, trades_opened

logger = logging.getLogger(__name__)


@receiver(trades_opened, dispatch_uid="recall.situations_on_open")
@receiver(trades_closed, dispatch_uid="recall.situations_on_close")
def queue_situation_sync(sender, *, deployment_id: int, **kwargs) -> None:
    """Queue the situation sync; embedding never runs here (this can be a tick request's catch-up).
    A lost message heals on the next open or close of the deployment."""
    from recall.tasks import sync_situations

    try:
        sync_situations.apply_async(args=[deployment_id], retry=False)
    except Exception:
        logger.warning("recall situation sync for deployment %s not queued", deployment_id, exc_info=True)

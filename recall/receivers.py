"""Recall listens to the ledger: the trades a materialization batch opens and closes get their situation
rows (phase 3) in the batch's own transaction, and their embeddings from a task queued on its commit.

Written with the trades, not by a later pass: whether a tick's ``## Similar past situations`` shows a
neighbour depends on the ticks posted alone, never on how far a background worker has got (the section's read
embeds any summary the task has not reached; the sim ledger keeps the same memory with the same embedder:
recall.situations.SituationMemory).

The embedding task is debounced per deployment (memorysite.redis.enqueue_once): a burst of ticks opening
trades queues one run, which embeds everything still missing."""

import logging
from functools import partial

from django.db import transaction
from django.dispatch import receiver

from ledger.signals import trades_materialized
from memorysite.redis import enqueue_once
from recall.services import situations_record

logger = logging.getLogger(__name__)

EMBED_DELAY_S = 2
SITUATIONS_QUEUED = "recall:situations"
SITUATIONS_QUEUED_TTL_S = 300  # a lost task message frees the mark after this long


@receiver(trades_materialized, dispatch_uid="recall.situations_on_materialize")
def record_situations(sender, *, deployment, opened, closed, **kwargs) -> None:
    situations_record(deployment=deployment, opened=opened, closed=closed)
    if opened:
        transaction.on_commit(partial(queue_situation_embedding, deployment.pk))


def queue_situation_embedding(deployment_id: int) -> None:
    """Queue the embedding task unless one is already queued. A failure only logs: reads embed what is
    missing, and the next opened trade queues it again."""
    from recall.tasks import embed_situations

    try:
        enqueue_once(
            SITUATIONS_QUEUED,
            deployment_id,
            ttl_s=SITUATIONS_QUEUED_TTL_S,
            enqueue=lambda: embed_situations.apply_async(args=[deployment_id], countdown=EMBED_DELAY_S, retry=False),
        )
    except Exception:
        logger.warning("recall situation embedding for deployment %s not queued", deployment_id, exc_info=True)

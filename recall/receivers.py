"""Recall listens to the ledger: the trades a materialization batch opens and closes get their situation
rows (phase 3) in the batch's own transaction.

Written with the trades, not by a later pass: whether a tick's ``## Similar past situations`` shows a
neighbour then depends on the ticks posted alone, never on how far a background worker has got (the sim
ledger keeps the same memory with the same embedder: recall.situations.SituationMemory). An embedder error
rolls the batch back, like any other error of materialization: the ticks stay stored and the next pass
(the task's retry, a read's catch-up) applies them."""

from django.dispatch import receiver

from ledger.signals import trades_materialized
from recall.embeddings import background_embedder
from recall.services import situations_record


@receiver(trades_materialized, dispatch_uid="recall.situations_on_materialize")
def record_situations(sender, *, deployment, opened, closed, **kwargs) -> None:
    situations_record(deployment=deployment, opened=opened, closed=closed, embedder=background_embedder())

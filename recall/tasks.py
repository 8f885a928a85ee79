"""Celery tasks of recall: thin, idempotent, one service each. Embedding happens here, never on a
write request's path."""

import io
import logging

from celery import shared_task
from django.core.management import call_command
from django.db import OperationalError

from access import scope
from memorysite.redis import queued_done
from recall import services
from recall.embeddings import background_embedder
from recall.models import SyncedFolder
from recall.receivers import SITUATIONS_QUEUED

logger = logging.getLogger(__name__)


# A database hiccup retries with backoff; the tasks are idempotent, so a retry is harmless.
_RETRY_ON_DATABASE_ERRORS = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "max_retries": 5,
}


@shared_task(name="recall.embed_pending", ignore_result=True, **_RETRY_ON_DATABASE_ERRORS)
def embed_pending() -> int:
    """Embed every chunk still waiting for its vector. Concurrent runs split the rows (SKIP LOCKED);
    a redelivered task finds nothing pending. Returns how many chunks were embedded."""
    embedder = background_embedder()
    if embedder is None:
        return 0
    # Pending chunks of every trader (and global playbooks), a committed batch at a time.
    with scope.elevated("recall.embed_pending: embed every trader's pending chunks", atomic=False):
        return services.embed_pending(embedder=embedder)


@shared_task(name="recall.embed_situations", ignore_result=True, **_RETRY_ON_DATABASE_ERRORS)
def embed_situations(deployment_id: int) -> int:
    """Store the embeddings of the deployment's new situations (written by its materialization). Clears the
    "queued" mark first, so trades opened while it runs queue the next run. Only spares later reads the
    embedding: until it has run, the section's read embeds the summaries itself."""
    queued_done(SITUATIONS_QUEUED, deployment_id)
    return services.situations_embed(deployment_id=deployment_id, embedder=background_embedder())


@shared_task(name="recall.scheduled_sync", ignore_result=True)
def scheduled_sync() -> int:
    """Beat (every RECALL_SYNC_INTERVAL_S): re-sync every remembered workspace folder, then embed
    whatever is pending (heals a lost embed message). Returns how many documents changed."""
    changed = 0
    with scope.elevated("recall.scheduled_sync: list every remembered folder"):
        folders = list(SyncedFolder.objects.values_list("pk", "owner_id"))
    for folder_id, owner_id in folders:
        # Each folder in its trader's scope (global folders: an audited elevation), one transaction each.
        folder_scope = (
            scope.owner_scope(owner_id)
            if owner_id
            else scope.elevated(f"recall.scheduled_sync: global folder {folder_id}")
        )
        with folder_scope:
            folder = SyncedFolder.objects.select_related("owner", "deployment").filter(pk=folder_id).first()
            if folder is not None:
                changed += services.synced_folder_run(folder=folder).changed
    embed_pending.apply_async(retry=False)
    return changed


# How long one hourly run of owner_graphs_sync may go on starting graphs. The sweeps pool runs reflections too
# (memorysite/queues.py), and the first run after an upgrade may find hundreds of traders to build for (a 2,000-chunk
# trader's graph takes ~0.7 s here, a 20,000-chunk one ~8 s); the largest come first, later runs build the rest.
OWNER_GRAPHS_BUDGET_S = 120.0


@shared_task(name="recall.owner_graphs_sync", ignore_result=True)
def owner_graphs_sync() -> str:
    """Beat (hourly): `manage.py recall_owner_graphs --budget OWNER_GRAPHS_BUDGET_S`, which builds the HNSW graphs of
    the traders that have grown into one and drops the ones no longer wanted (recall/owner_graphs.py), as the owner
    role. On the sweeps pool, one process running one task at a time: the command swaps its connection's credentials
    while it runs. Returns what the command printed."""
    out = io.StringIO()
    call_command("recall_owner_graphs", budget=OWNER_GRAPHS_BUDGET_S, stdout=out)
    return out.getvalue()

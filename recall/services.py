"""Recall writes: documents (chunked on write, embedded later by a worker), the embedding pass,
agents' journal appends and edit proposals, citations on decision snapshots, trade situations.

Embedding never runs on the request path of a write: ``document_upsert`` stores the chunks with a
null embedding and queues ``recall.embed_pending`` on commit. On a new version of a document only
chunks whose hash changed are replaced; unchanged chunks keep their row and their embedding.

Lock order: a document's row, then its chunks. A write locks the document first (``select_for_update``)
and then deletes or moves its chunks; the embedding worker holds chunk locks only in a transaction that
waits for nothing (SKIP LOCKED, then updates of those rows) and locks documents only afterwards, in
transactions holding no chunk (and waiting, if at all, while holding nothing). So no transaction ever
waits for a document while holding a chunk, and a write never deadlocks with the worker.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import posixpath
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from ledger.domain import OpenTrade, Tick
from ledger.models import DecisionSnapshot, Deployment, TradeHistory, TradeStatus
from ledger.selectors import snapshot_tick, trade_row_to_open
from memorysite.metrics import RECALL_INDEX_ERRORS
from memorysite.text import strip_invisible
from memorysite.validators import DOCUMENT_TEXT_NUL
from recall import owner_graphs
from recall.chunking import chunk_markdown
from recall.models import (
    DOCUMENT_MAX_CHARS,
    MANUAL_NAME,
    MANUAL_PATH_REGEX,
    Chunk,
    Document,
    DocumentSource,
    EditProposal,
    JournalEntry,
    JournalKind,
    ProposalStatus,
    SyncedFolder,
    TradeSituation,
)
from recall.paths import clean_path
from recall.situations import outcome_text, summary_at_open

logger = logging.getLogger(__name__)

EMBED_BATCH = 32
CITED_SEARCHES_MAX = 20  # searches whose citations one decision snapshot keeps
# Paths an agent may not rewrite: it proposes an edit and the trader approves it (seed §5).
PROTECTED_PATHS = ("SOUL.md", MANUAL_NAME)
JOURNAL_PATHS = {
    JournalKind.JOURNAL: "journal/{date}.md",
    JournalKind.LEARNING: "memory/learnings-{month}.md",
    JournalKind.NOTE: "memory/notes-{month}.md",
}
# Folders only the journal endpoint writes (seed §5: additive, each write attributed to a run).
APPEND_ONLY_FOLDERS = ("journal", "memory")
APPEND_ONLY = (
    "journal/ and memory/ are append-only: append an entry with POST /api/v1/recall/journal/ (attributed to a run)"
)
APPEND_ONLY_DELETE = (
    "path: {path} is append-only (journal/ and memory/): agents cannot delete it; the trader can, on its /recall/ page"
)
PROTECTED_DELETE = "path: {path} is protected: it cannot be deleted through the API"
JOURNAL_DOCUMENT_MAX = 100_000  # characters per journal file before it continues in the next part
# Sources that read as staff's: only staff write them (global ones in admin); a trader's document cannot pose as one.
STAFF_SOURCES = (DocumentSource.PLAYBOOK, DocumentSource.RUNBOOK)
STAFF_SOURCE_ONLY = (
    "playbook and runbook are staff sources (global documents staff publish in admin): "
    "use workspace, transcript, backtest or journal"
)


class ProtectedDocument(Exception):
    """An agent tried to rewrite the manual (or SOUL.md): it may only propose an edit (seed §5)."""


class ManualConflict(Exception):
    """A second manual where a deployment would read two (seed §5: one manual per deployment scope)."""

    def __init__(self, existing: Document):
        self.existing = existing
        where = f"deployment #{existing.deployment_id}" if existing.deployment_id else "all your deployments"
        super().__init__(
            f"one manual per deployment scope: {existing.path} (document {existing.pk}) is already the manual of "
            f"{where}; edit that one (POST /api/v1/recall/proposals/), or the trader deletes it on /recall/ first"
        )


class ProposalConflict(Exception):
    """The document changed since the proposal was made: approving it would overwrite that change."""


class ProposalDecided(Exception):
    """The proposal was already approved or rejected."""


@dataclass(frozen=True)
class UpsertResult:
    document: Document
    created: bool
    changed: bool
    chunks_added: int
    chunks_kept: int
    chunks_removed: int


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def is_protected(path: str) -> bool:
    return posixpath.basename(path).lower() in {name.lower() for name in PROTECTED_PATHS}


def is_manual(path: str) -> bool:
    return posixpath.basename(path).lower() == MANUAL_NAME.lower()


def manuals_in_scope_of(*, owner, deployment: Deployment | None):
    """The owner's manuals a document in this scope would sit beside: every one for the owner-wide
    scope; the owner-wide one and the deployment's own for a deployment."""
    scope = Q() if deployment is None else Q(deployment__isnull=True) | Q(deployment=deployment)
    return Document.objects.filter(scope, owner=owner, path__iregex=MANUAL_PATH_REGEX).order_by("id")


def is_append_only(path: str) -> bool:
    """In a journal/ or memory/ folder: at the workspace's root or an agent's (``agents/btc/journal/``,
    as a synced folder with a prefix stores it), in any case (``Journal/x.md`` is no other file)."""
    return any(folder.lower() in APPEND_ONLY_FOLDERS for folder in path.split("/")[:-1])


def agent_document_upsert(
    *, owner, path: str, content: str, source: str, deployment: Deployment | None = None, **fields
):
    """``document_upsert`` for writes on an agent's token (the API): a protected document (the manual,
    SOUL.md) may be created, but once it exists it changes only through an approved edit proposal; a
    playbook or runbook source is staff's (ValidationError on ``source`` for anyone else); journal/ and
    memory/ are written by ``journal_append`` only (ValidationError on ``path``)."""
    if is_append_only(clean_path(path)):
        raise ValidationError({"path": [APPEND_ONLY]})
    if source in STAFF_SOURCES and not owner.is_staff:
        raise ValidationError({"source": [STAFF_SOURCE_ONLY]})
    return document_upsert(
        owner=owner, path=path, content=content, source=source, deployment=deployment, protect=True, **fields
    )


def document_upsert(
    *,
    owner,
    path: str,
    content: str,
    source: str,
    deployment: Deployment | None = None,
    metadata: Mapping | None = None,
    queue_embedding: bool = True,
    reindex: bool = False,
    protect: bool = False,
) -> UpsertResult:
    """Create or replace the document at ``path`` (for this owner and deployment; owner None =
    global). Same content again changes nothing; new content replaces only the changed chunks.
    ``reindex`` re-chunks and re-embeds every chunk even when nothing changed (staff's reindex)."""
    path = clean_path(path)
    if source not in DocumentSource.values:
        raise ValidationError(f"source must be one of {', '.join(DocumentSource.values)}")
    if len(content) > DOCUMENT_MAX_CHARS:
        raise ValidationError(f"content must be at most {DOCUMENT_MAX_CHARS} characters")
    if "\x00" in content:
        raise ValidationError(f"content {DOCUMENT_TEXT_NUL}")
    if deployment is not None and (owner is None or deployment.owner_id != owner.pk):
        raise ValidationError("deployment must belong to the document's owner")
    digest = content_hash(content)
    chunks = chunk_markdown(content)
    with transaction.atomic():
        if owner is not None and is_manual(path):
            other = manuals_in_scope_of(owner=owner, deployment=deployment).exclude(deployment=deployment, path=path)
            if (clash := other.first()) is not None:
                raise ManualConflict(clash)
        try:
            document, created = Document.objects.select_for_update().get_or_create(
                owner=owner,
                deployment=deployment,
                path=path,
                defaults={
                    "source": source,
                    "metadata": dict(metadata or {}),
                    "content": content,
                    "content_hash": digest,
                },
            )
        except IntegrityError as error:  # a second manual created concurrently: the constraint refused it
            clash = manuals_in_scope_of(owner=owner, deployment=deployment).first()
            if _constraint_of(error) != MANUAL_CONSTRAINT or clash is None:
                raise
            raise ManualConflict(clash) from error
        if protect and not created and document.content_hash != digest and is_protected(path):
            raise ProtectedDocument(
                f"{path} is protected: agents cannot rewrite it; propose the edit with POST /api/v1/recall/proposals/"
                " and the trader approves it on /recall/ (or syncs the file with manage.py recall_sync)"
            )
        if not created and not reindex and document.content_hash == digest and document.source == source:
            if metadata is not None and dict(metadata) != document.metadata:
                document.metadata = dict(metadata)
                document.save(update_fields=["metadata", "updated_at"])
            return UpsertResult(document, False, False, 0, document.chunk_count, 0)
        existing: dict[str, list[Chunk]] = {}
        # Read without locking: the worker may be embedding some of these rows; deleting or moving one
        # waits for its batch to commit (the worker never waits for this document meanwhile).
        for chunk in document.chunks.all().order_by("ordinal"):
            existing.setdefault(chunk.content_hash, []).append(chunk)
        keep, add = [], []
        for new in chunks:
            reusable = existing.get(new.content_hash)
            if reusable and document.source == source and not reindex:
                row = reusable.pop(0)
                row.ordinal, row.start_line, row.end_line = new.index, new.start_line, new.end_line
                keep.append(row)
            else:
                add.append(new)
        stale = [row.pk for rows in existing.values() for row in rows]
        if stale:
            Chunk.objects.filter(pk__in=stale).delete()
        # Kept rows move to their new ordinals and lines: no re-embedding, no FTS change.
        if keep:
            Chunk.objects.bulk_update(keep, ["ordinal", "start_line", "end_line"])
        Chunk.objects.bulk_create(
            [
                Chunk(
                    document=document,
                    owner=owner,
                    deployment=deployment,
                    source=source,
                    path=path,
                    ordinal=new.index,
                    start_line=new.start_line,
                    end_line=new.end_line,
                    # The searchable form: an invisible character (a bidi mark, a zero-width joiner) would glue
                    # itself to a word's lexeme ("widen\u200e") and hide the word from a keyword search.
                    heading=strip_invisible(new.heading),
                    text=strip_invisible(new.text),
                    token_count=new.token_count,
                    content_hash=new.content_hash,
                )
                for new in add
            ]
        )
        embedding_on = settings.EMBEDDINGS_PROVIDER != "none"
        # A kept row may still wait for its vector (an earlier version's, or one the worker skipped
        # because this write held it): the document is not indexed until it has one, and a run is queued.
        pending = bool(add) or any(row.embedding is None for row in keep)
        if not created and (document.content_hash != digest or document.source != source):
            document.version += 1  # a reindex of the same content is the same version (its chunks are new)
        document.source = source
        document.content = content
        document.content_hash = digest
        document.chunk_count = len(chunks)
        if metadata is not None:
            document.metadata = dict(metadata)
        document.indexed_at = None if (pending and embedding_on) else timezone.now()
        document.save()
        if pending and embedding_on and queue_embedding:
            transaction.on_commit(_queue_embedding)
    return UpsertResult(document, created, True, len(add), len(keep), len(stale))


MANUAL_CONSTRAINT = "recall_one_manual_per_deployment"


def _constraint_of(error: IntegrityError) -> str | None:
    diagnostics = getattr(error.__cause__, "diag", None)
    return getattr(diagnostics, "constraint_name", None)


def manual_conflicts() -> list[Document]:
    """Traders' manuals that a deployment reads beside another (only a database from before the
    one-manual constraint has any), by owner and id: what ``manage.py recall_manuals`` lists."""
    manuals = list(
        Document.objects.filter(owner__isnull=False, path__iregex=MANUAL_PATH_REGEX)
        .select_related("owner")
        .order_by("owner__username", "id")
        .defer("content", "metadata")
    )

    def beside(a: Document, b: Document) -> bool:
        same_scope = a.deployment_id is None or b.deployment_id is None or a.deployment_id == b.deployment_id
        return a.pk != b.pk and a.owner_id == b.owner_id and same_scope

    return [manual for manual in manuals if any(beside(manual, other) for other in manuals)]


def manual_keep(*, document: Document) -> list[Document]:
    """Make ``document`` its scope's only manual: every other manual of the owner that a deployment
    would read beside it is renamed ``TRADING_MANUAL.superseded-<id>.md`` in its folder (content,
    chunks and embeddings kept; nothing is deleted). Returns the renamed documents. For traders whose
    database predates the one-manual rule (recall 0003 refuses to migrate until each keeps one)."""
    if document.owner_id is None or not is_manual(document.path):
        raise ValidationError({"document_id": f"{document.path} is not a trader's {MANUAL_NAME}"})
    renamed = []
    with transaction.atomic():
        others = (
            manuals_in_scope_of(owner=document.owner, deployment=document.deployment)
            .exclude(pk=document.pk)
            .select_for_update()
        )
        for other in others:
            folder, name = posixpath.split(other.path)
            stem = name[: -len(".md")]
            other.path = posixpath.join(folder, f"{stem}.superseded-{other.pk}.md")
            other.save(update_fields=["path", "updated_at"])
            Chunk.objects.filter(document=other).update(path=other.path)
            renamed.append(other)
    return renamed


def _queue_embedding() -> None:
    from recall.tasks import embed_pending

    embed_pending.delay()


def agent_document_delete(*, document: Document) -> None:
    """``document_delete`` on an agent's token (the API): the manual and SOUL.md, and the journal/ and
    memory/ files, are not deleted this way (ProtectedDocument); the trader deletes them on the page."""
    if is_protected(document.path):
        raise ProtectedDocument(PROTECTED_DELETE.format(path=document.path))
    if is_append_only(document.path):
        raise ProtectedDocument(APPEND_ONLY_DELETE.format(path=document.path))
    document_delete(document=document)


def document_delete(*, document: Document) -> None:
    """Remove a document and its chunks, locking the document first (the module's lock order)."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().filter(pk=document.pk).first()
        if locked is not None:
            locked.delete()


def document_reindex(*, document: Document) -> UpsertResult:
    """Staff's ``memory.reindex`` (seed §6): chunk the stored content again and re-embed it all."""
    return document_upsert(
        owner=document.owner,
        deployment=document.deployment,
        path=document.path,
        content=document.content,
        source=document.source,
        reindex=True,
    )


def embed_pending(*, embedder, batch: int = EMBED_BATCH, max_batches: int | None = None, now=None) -> int:
    """Embed chunks that have no embedding yet, a batch at a time; rows being embedded by another
    worker, or held by a write of their document, are skipped (SKIP LOCKED; that write queues another
    run). Returns how many chunks were embedded.

    A batch's transaction locks chunks only and waits for nothing; the documents are marked indexed
    after it commits (the module's lock order: never a document while holding a chunk)."""
    done = 0
    batches = 0
    drained = False
    stamp = now or timezone.now()
    while max_batches is None or batches < max_batches:
        failure: Exception | None = None
        with transaction.atomic():
            rows = list(
                Chunk.objects.select_for_update(skip_locked=True)
                .filter(embedding__isnull=True)
                .order_by("id")
                .only("id", "document_id", "heading", "text")[:batch]
            )
            if not rows:
                drained = True
                break
            try:
                vectors = embedder.embed([embedding_text(row.heading, row.text) for row in rows])
            except Exception as error:  # recorded below, outside the transaction it would roll back with
                failure = error
            else:
                stamp = now or timezone.now()
                for row, vector in zip(rows, vectors, strict=True):
                    row.embedding = vector
                    row.embedded_at = stamp
                Chunk.objects.bulk_update(rows, ["embedding", "embedded_at"])
        if failure is None:
            _mark_indexed({row.document_id for row in rows}, stamp)
        if failure is not None:
            logger.error("recall: embedding failed for %d chunks", len(rows), exc_info=failure)
            RECALL_INDEX_ERRORS.inc()
            with transaction.atomic():
                Document.objects.filter(pk__in={row.document_id for row in rows}).update(
                    index_error=f"embedding failed: {type(failure).__name__}: {failure}"[:500]
                )
            raise failure
        done += len(rows)
        batches += 1
    if drained:  # and documents a run stopped short of marking (a worker lost between its transactions)
        _mark_indexed(set(_unmarked_documents()), stamp)
    return done


def embedding_text(heading: str, text: str) -> str:
    """What is embedded for a chunk: its heading trail gives the window its topic."""
    return f"{heading}\n{text}" if heading else text


def _mark_indexed(document_ids: set[int], stamp: dt.datetime) -> None:
    """Mark the documents whose chunks all have their vector indexed. Each document row is locked before
    its pending chunks are looked for (a statement after the lock sees what a write in flight committed):
    the free ones at once (SKIP LOCKED: no wait while holding any), then the others one transaction each,
    waiting for their write while holding nothing (the module's lock order)."""
    pending = Chunk.objects.filter(document_id=OuterRef("pk"), embedding__isnull=True)
    with transaction.atomic():
        free = set(
            Document.objects.select_for_update(skip_locked=True)
            .filter(pk__in=document_ids)
            .order_by("id")
            .values_list("pk", flat=True)
        )
        Document.objects.filter(pk__in=free).exclude(Exists(pending)).update(indexed_at=stamp, index_error="")
    for document_id in sorted(document_ids - free):
        with transaction.atomic():
            if not list(Document.objects.select_for_update().filter(pk=document_id).values_list("pk")):
                continue  # deleted meanwhile
            Document.objects.filter(pk=document_id).exclude(Exists(pending)).update(indexed_at=stamp, index_error="")


def _unmarked_documents():
    pending = Chunk.objects.filter(document_id=OuterRef("pk"), embedding__isnull=True)
    return Document.objects.filter(indexed_at__isnull=True).exclude(Exists(pending)).values_list("pk", flat=True)[:1000]


# ------------------------------------------------------------------------------ agents' writes


def journal_append(
    *,
    deployment: Deployment,
    kind: str,
    content: str,
    run_id: str,
    snapshot: DecisionSnapshot | None = None,
    now: dt.datetime | None = None,
) -> JournalEntry:
    """Append an agent's entry to its journal document (additive only), attributed to the run.

    Journal entries go to the UTC day's file, learnings and notes to the month's; a file that would
    grow past ``JOURNAL_DOCUMENT_MAX`` characters continues in ``…-2.md``, ``…-3.md``. Appends of one
    deployment are serialised (a transaction-level advisory lock), so concurrent runs never lose one."""
    now = now or timezone.now()
    day = now.astimezone(dt.UTC).date()
    base = JOURNAL_PATHS[JournalKind(kind)].format(date=day.isoformat(), month=f"{day:%Y-%m}")
    owner = deployment.owner
    block = (
        f"## {now.astimezone(dt.UTC):%Y-%m-%d %H:%M} UTC · {JournalKind(kind).label} · run {run_id}\n\n"
        f"{content.strip()}\n"
    )
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"recall-journal:{deployment.pk}"])
        path, text = _journal_target(owner, deployment, base, block)
        result = document_upsert(
            owner=owner,
            deployment=deployment,
            path=path,
            content=text,
            source=DocumentSource.JOURNAL,
            metadata={"kind": kind},
        )
        return JournalEntry.objects.create(
            owner=owner,
            deployment=deployment,
            kind=kind,
            content=content.strip(),
            run_id=run_id,
            snapshot=snapshot,
            document=result.document,
        )


def _journal_target(owner, deployment: Deployment, base: str, block: str) -> tuple[str, str]:
    """(path, new content): the newest part of ``base`` (``x.md``, ``x-2.md`` …) with room for the block."""
    stem = base.removesuffix(".md")
    parts = {
        path: text
        for path, text in Document.objects.filter(
            owner=owner, deployment=deployment, path__regex=rf"^{re.escape(stem)}(-[0-9]+)?\.md$"
        ).values_list("path", "content")
    }
    number = max((_part_number(path, stem) for path in parts), default=1)
    path = base if number == 1 else f"{stem}-{number}.md"
    current = parts.get(path)
    if current is None:
        return path, block
    text = f"{current.rstrip()}\n\n{block}"
    if len(text) <= JOURNAL_DOCUMENT_MAX:
        return path, text
    return f"{stem}-{number + 1}.md", block


def _part_number(path: str, stem: str) -> int:
    suffix = path.removesuffix(".md")[len(stem) :]
    return int(suffix[1:]) if suffix else 1


def proposal_create(
    *,
    document: Document,
    proposed_content: str,
    reason: str,
    run_id: str,
    snapshot: DecisionSnapshot | None = None,
) -> EditProposal:
    if document.owner_id is None:
        raise ValidationError({"document_id": "global documents are edited by staff, not proposed by agents"})
    if len(proposed_content) > DOCUMENT_MAX_CHARS:
        raise ValidationError({"proposed_content": f"must be at most {DOCUMENT_MAX_CHARS} characters"})
    if "\x00" in proposed_content:
        raise ValidationError({"proposed_content": DOCUMENT_TEXT_NUL})
    if content_hash(proposed_content) == document.content_hash:
        raise ValidationError({"proposed_content": "is the document's current content: nothing to propose"})
    return EditProposal.objects.create(
        owner_id=document.owner_id,
        document=document,
        base_hash=document.content_hash,
        proposed_content=proposed_content,
        reason=reason,
        run_id=run_id,
        snapshot=snapshot,
    )


def proposal_decide(*, proposal: EditProposal, approve: bool, by, now: dt.datetime | None = None) -> EditProposal:
    """The trader approves (the document becomes the proposed content) or rejects a pending edit.
    Approving an edit of a document that changed since is refused (ProposalConflict)."""
    now = now or timezone.now()
    with transaction.atomic():
        proposal = EditProposal.objects.select_for_update().select_related("document").get(pk=proposal.pk)
        if proposal.status != ProposalStatus.PENDING:
            raise ProposalDecided(f"proposal {proposal.pk} is already {proposal.status}")
        document = Document.objects.select_for_update().get(pk=proposal.document_id)
        if approve:
            if document.content_hash != proposal.base_hash:
                raise ProposalConflict("the document changed after this edit was proposed; reject it and re-propose")
            document_upsert(
                owner=document.owner,
                deployment=document.deployment,
                path=document.path,
                content=proposal.proposed_content,
                source=document.source,
            )
        proposal.status = ProposalStatus.APPROVED if approve else ProposalStatus.REJECTED
        proposal.decided_at = now
        proposal.decided_by = by
        proposal.save(update_fields=["status", "decided_at", "decided_by"])
    return proposal


def citations_attach(*, snapshot: DecisionSnapshot, query: str, citations: Sequence[Mapping]) -> None:
    """Attach a search's citations to the decision snapshot of the tick that made it (appended:
    a tick may search more than once, up to ``CITED_SEARCHES_MAX``; later ones replace the oldest).
    Row-locked so concurrent searches both land."""
    with transaction.atomic():
        locked = DecisionSnapshot.objects.select_for_update().only("id", "citations").get(pk=snapshot.pk)
        entries = list(locked.citations or [])
        entries.append({"query": query, "results": list(citations)})
        entries = entries[-CITED_SEARCHES_MAX:]
        locked.citations = entries
        locked.save(update_fields=["citations"])


# ---------------------------------------------------------------------------------- situations


def situations_record(
    *, deployment: Deployment, opened: Sequence[tuple[TradeHistory, OpenTrade, Tick]], closed: Sequence[TradeHistory]
) -> None:
    """The situation rows of one materialization batch, written in its transaction (``ledger.signals.
    trades_materialized``): a row per trade it opened (the summary of its opening tick) and the outcome of
    each trade it closed. So the rows follow from the ticks posted, whenever and by whom the batch ran. The
    embedding is not computed here (it would hold the deployment's row lock, which ticks wait on): the
    ``recall.embed_situations`` task fills it after the commit, and until it has, the section's read embeds
    the summary itself (``recall.selectors.similar_situations_section``), so the text is the same either way.
    The sim ledger keeps the same memory (``recall.situations.SituationMemory``). Trades materialized before
    situations were written here get theirs from ``situations_sync`` (``manage.py recall_situations``)."""
    rows = [
        TradeSituation(
            trade_id=row.pk,
            owner_id=deployment.owner_id,
            deployment_id=deployment.pk,
            skill_id=row.skill_id,
            symbol=trade.symbol,
            side=trade.side,
            entry_tick_at=trade.entry_tick_at,
            summary=summary_at_open(trade, tick.bars.get(trade.symbol, ())),
            embedding=None,
            **_outcome_fields(row),
        )
        for row, trade, tick in opened
    ]
    if rows:
        TradeSituation.objects.bulk_create(rows)
    new = {row.pk for row, _, _ in opened}
    # By trade id, the order every writer of situation rows takes their locks in (situations_embed too).
    for row in sorted(closed, key=lambda row: str(row.pk)):
        if row.pk not in new:
            TradeSituation.objects.filter(trade_id=row.pk, closed_at__isnull=True).update(**_outcome_fields(row))


def situations_embed(*, deployment_id: int, embedder) -> int:
    """Store the embedding of the deployment's situations that have none (``recall.embed_situations``).
    Embeds with no transaction open, then writes each row in a short one of its own, in trade id order, only
    if it still has none: a concurrent run, or a rebuild that replaced the row, makes it a no-op. Returns the
    rows written."""
    if embedder is None:
        return 0
    written = 0
    while True:
        with transaction.atomic():  # row-level security scopes transactions: the queuing trader's
            pending = list(
                TradeSituation.objects.filter(deployment_id=deployment_id, embedding__isnull=True)
                .order_by("trade_id")
                .values_list("trade_id", "summary")[:EMBED_BATCH]
            )
        if not pending:
            return written
        vectors = embedder.embed([summary for _, summary in pending])
        stored = 0
        for (trade_id, summary), vector in zip(pending, vectors, strict=True):
            with transaction.atomic():
                stored += TradeSituation.objects.filter(
                    trade_id=trade_id, summary=summary, embedding__isnull=True
                ).update(embedding=vector)
        written += stored
        if len(pending) < EMBED_BATCH or not stored:
            return written


def _outcome_fields(trade: TradeHistory) -> dict:
    """A situation's outcome columns for its trade: empty while the trade is open."""
    if trade.status != TradeStatus.CLOSED or trade.realized_pnl_usd is None or trade.holding_minutes is None:
        return {}
    return {
        "outcome": outcome_text(
            realized_pnl_usd=trade.realized_pnl_usd,
            holding_minutes=trade.holding_minutes,
            exit_reason=trade.exit_reason or "",
        ),
        "realized_pnl_usd": trade.realized_pnl_usd,
        "closed_at": trade.exit_tick_at,
    }


SITUATIONS_SYNC_BATCH = 500


def situations_sync(*, deployment_id: int, embedder) -> tuple[int, int]:
    """Backfill: the situation row (summary + embedding) of every trade of the deployment that has none,
    and the outcome of closed trades whose situation has none, as ``situations_record`` would have written
    them. For trades materialized before situations were written with them; idempotent. Returns
    (situations created, outcomes attached)."""
    created = 0
    trades = list(
        TradeHistory.objects.filter(deployment_id=deployment_id)
        .exclude(Exists(TradeSituation.objects.filter(trade_id=OuterRef("pk"))))
        .select_related("entry_snapshot")
        .order_by("entry_tick_at")[:SITUATIONS_SYNC_BATCH]
    )
    if trades:
        summaries = [_summary_for(trade) for trade in trades]
        vectors = list(embedder.embed(summaries)) if embedder is not None else [None] * len(trades)
        rows = [
            TradeSituation(
                trade=trade,
                owner_id=trade.owner_id,
                deployment_id=trade.deployment_id,
                skill_id=trade.skill_id,
                symbol=trade.symbol,
                side=trade.side,
                entry_tick_at=trade.entry_tick_at,
                summary=summary,
                embedding=vector,
            )
            for trade, summary, vector in zip(trades, summaries, vectors, strict=True)
        ]
        created = len(TradeSituation.objects.bulk_create(rows, ignore_conflicts=True))
    attached = 0
    open_outcomes = TradeSituation.objects.filter(deployment_id=deployment_id, closed_at__isnull=True)
    closed = TradeHistory.objects.filter(pk__in=open_outcomes.values("trade_id"), status=TradeStatus.CLOSED).only(
        "id", "status", "realized_pnl_usd", "holding_minutes", "exit_reason", "exit_tick_at"
    )
    for trade in closed:
        attached += TradeSituation.objects.filter(trade_id=trade.pk, closed_at__isnull=True).update(
            **_outcome_fields(trade)
        )
    return created, attached


def _summary_for(trade: TradeHistory) -> str:
    """The summary ``situations_record`` writes, from the stored trade and its opening snapshot."""
    snapshot = trade.entry_snapshot
    bars = snapshot_tick(snapshot).bars.get(trade.symbol, ()) if snapshot is not None else ()
    return summary_at_open(trade_row_to_open(trade), bars)


# ------------------------------------------------------------------------------ workspace folders

WORKSPACE_SUFFIXES = (".md", ".markdown", ".txt")
FILE_MAX_BYTES = DOCUMENT_MAX_CHARS


@dataclass(frozen=True)
class FolderSyncResult:
    scanned: int
    changed: int
    removed: int
    errors: tuple[str, ...]  # "path: reason" of each markdown or text file that could not be indexed
    ignored: tuple[str, ...] = ()  # "path: reason" of each other entry of the folder (hidden, not text...)


HIDDEN_FOLDER = "hidden folder (its name starts with '.'): not read"
HIDDEN_FILE = "hidden file (its name starts with '.')"
NOT_TEXT_FILE = f"not a markdown or text file ({', '.join(WORKSPACE_SUFFIXES)})"
NOT_REGULAR_FILE = "not a regular file (a broken link, a socket, a device...)"
LINKED_FOLDER = "a symbolic link to a folder: not followed"
TOO_LARGE = f"too large: more than {FILE_MAX_BYTES} bytes"
UTF16_FILE = "UTF-16 text (it starts with a UTF-16 byte-order mark): only UTF-8 text is indexed"
BINARY_FILE = "binary (it contains NUL bytes): only UTF-8 text is indexed"
NOT_UTF8 = "not valid UTF-8 (byte 0x{byte:02x} at offset {offset}): only UTF-8 text is indexed"


def folder_scan(root) -> tuple[list, list[str]]:
    """(the workspace's indexable files under ``root``: markdown and text, sorted by relative path;
    "relative path: reason" of every other entry, sorted). A hidden folder (or one that cannot be
    listed) is one entry: nothing under it is read; symbolic links to folders are not followed."""
    import os
    from pathlib import Path

    root = Path(root)
    found: list[Path] = []
    ignored: list[str] = []

    def relative(path) -> str:
        return Path(path).relative_to(root).as_posix()

    def unreadable(error: OSError) -> None:
        ignored.append(f"{relative(error.filename)}/: folder cannot be read ({error.strerror})")

    for folder, folders, files in os.walk(root, onerror=unreadable):
        here = Path(folder)
        for name in folders:
            if name.startswith("."):
                ignored.append(f"{relative(here / name)}/: {HIDDEN_FOLDER}")
            elif (here / name).is_symlink():
                ignored.append(f"{relative(here / name)}/: {LINKED_FOLDER}")
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in files:
            path = here / name
            reason = (
                HIDDEN_FILE
                if name.startswith(".")
                else NOT_TEXT_FILE
                if path.suffix.lower() not in WORKSPACE_SUFFIXES
                else NOT_REGULAR_FILE
                if not path.is_file()
                else None
            )
            if reason is None:
                found.append(path)
            else:
                ignored.append(f"{relative(path)}: {reason}")
    return sorted(found, key=relative), sorted(ignored)


def folder_files(root) -> list:
    """The workspace's indexable files under ``root`` (``folder_scan``'s first half)."""
    return folder_scan(root)[0]


def workspace_file_text(path) -> str:
    """A workspace file's text, or ValueError saying why it is skipped (too large, UTF-16, binary, not
    UTF-8); OSError when it cannot be read. Any valid UTF-8 without NUL is text."""
    if path.stat().st_size > FILE_MAX_BYTES:
        raise ValueError(TOO_LARGE)
    data = path.read_bytes()
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError(UTF16_FILE)
    if b"\x00" in data:
        raise ValueError(BINARY_FILE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(NOT_UTF8.format(byte=data[error.start], offset=error.start)) from None


def folder_sync(
    *,
    owner,
    root,
    deployment: Deployment | None = None,
    source: str = DocumentSource.WORKSPACE,
    prefix: str = "",
    progress=None,
) -> FolderSyncResult:
    """Index a workspace folder: each file becomes the document at its relative path (under
    ``prefix``); unchanged files change nothing; files removed from the folder since its last sync
    are removed from the index. Every file that is not indexed is reported with the reason, never
    silently: a markdown or text file that cannot be read or is refused in ``errors`` (not fatal: the
    sync goes on), any other entry in ``ignored``."""
    from pathlib import Path

    root = Path(root).resolve()
    files, ignored = folder_scan(root)
    folder_key = str(root)
    seen: set[str] = set()
    changed = 0
    errors: list[str] = []
    for done, file in enumerate(files, start=1):
        relative = (prefix.rstrip("/") + "/" if prefix else "") + file.relative_to(root).as_posix()
        try:
            content = workspace_file_text(file)
            result = document_upsert(
                owner=owner,
                deployment=deployment,
                path=relative,
                content=content,
                source=source,
                metadata={"folder": folder_key},
            )
            seen.add(result.document.path)
            changed += result.changed
        except (OSError, ValueError, ValidationError, ManualConflict) as error:
            message = (
                error.messages[0]
                if isinstance(error, ValidationError)
                else f"cannot be read ({error.strerror or error})"
                if isinstance(error, OSError)
                else str(error)
            )
            errors.append(f"{relative}: {message}")
            seen.add(relative)
        if progress is not None:
            progress(done, len(files))
    gone = Document.objects.filter(owner=owner, deployment=deployment, metadata__folder=folder_key).exclude(
        path__in=seen
    )
    removed = len(gone.values_list("pk", flat=True))
    gone.delete()
    return FolderSyncResult(
        scanned=len(files), changed=changed, removed=removed, errors=tuple(errors), ignored=tuple(ignored)
    )


def synced_folder_run(*, folder: SyncedFolder, progress=None, now: dt.datetime | None = None) -> FolderSyncResult:
    """Sync a remembered folder and record when and with which errors (a missing folder is one)."""
    from pathlib import Path

    if not Path(folder.root).is_dir():
        result = FolderSyncResult(0, 0, 0, (f"{folder.root}: not a readable directory",))
    else:
        result = folder_sync(
            owner=folder.owner,
            root=folder.root,
            deployment=folder.deployment,
            source=folder.source,
            prefix=folder.prefix,
            progress=progress,
        )
    folder.last_synced_at = now or timezone.now()
    folder.last_error = "\n".join(result.errors)[:2000]
    folder.save(update_fields=["last_synced_at", "last_error"])
    return result


# The chunks' shared HNSW graph (recall.models); an owner graph is built the same way over a trader's rows
# (recall/owner_graphs.py).
SHARED_GRAPH = "recall_chunk_embedding_half"
# An owner graph's build (and drop) runs without the service's statement timeout, with the memory recall 0011 and
# 0015 give the shared graph's: for the session and reset after when CONCURRENTLY (outside a transaction), else for
# the transaction.
OWNER_GRAPH_SETTINGS = ("statement_timeout", "0"), ("maintenance_work_mem", "512MB")


def owner_graph_index(owner_id: int):
    """The owner graph of ``owner_id``: the shared graph's definition (expression, operator class, m,
    ef_construction) over the rows of that trader's search scope, which is what lets the planner use it."""
    shared = next(index for index in Chunk._meta.indexes if index.name == SHARED_GRAPH)
    _, args, kwargs = shared.deconstruct()
    kwargs.update(name=owner_graphs.index_name(owner_id), condition=Q(owner_id=owner_id) | Q(owner_id__isnull=True))
    return type(shared)(*args, **kwargs)


def owner_graph_state() -> tuple[dict[int, int], int, dict[int, bool]]:
    """(each owner's readable chunks: its own and the global ones; the chunks in the table; the owner graphs there
    are, valid or not), from recall_lexeme_stats' totals rows and the catalog. Elevated: every trader's counts."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT owner_id, df FROM recall_lexeme_stats WHERE lexeme = ''")
        counts = dict(cursor.fetchall())
        cursor.execute(
            "SELECT c.relname, i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
            " WHERE i.indrelid = 'recall_chunks'::regclass AND starts_with(c.relname, %s)",
            [owner_graphs.NAME_PREFIX],
        )
        named = [(owner_graphs.owner_of(name), valid) for name, valid in cursor.fetchall()]
        existing = {owner: valid for owner, valid in named if owner is not None}
    shared = counts.pop(None, 0)
    return {owner: own + shared for owner, own in counts.items()}, shared + sum(counts.values()), existing


def owner_graphs_sync(
    *, minimum: int | None = None, concurrently: bool = True, budget_s: float | None = None, report=None
) -> owner_graphs.GraphPlan:
    """Build the owner graphs recall/owner_graphs.py wants and drop the ones it does not (invalid ones too), as
    the tables' owner (`manage.py recall_owner_graphs`). ``minimum``: settings.RECALL_OWNER_GRAPH_MIN unless
    given. ``concurrently``: CREATE / DROP INDEX CONCURRENTLY, so searches and writes go on meanwhile (outside a
    transaction, which the caller must not be in). ``budget_s``: once that many seconds are spent, no further graph
    is started (drops come first, then builds, the largest trader's first: it gains most); a trader left over keeps
    the exact scan until a later run builds its graph. ``report(verb, owner_id, seconds)`` after each step: "dropped",
    "built", or "deferred" (0 s) for a build the budget left over. Returns the plan, as wanted before the run."""
    with transaction.atomic():
        readable, total, existing = owner_graph_state()
    graph_plan = owner_graphs.plan(
        readable, total, existing, minimum=settings.RECALL_OWNER_GRAPH_MIN if minimum is None else minimum
    )
    builds = sorted(graph_plan.build, key=lambda owner_id: (-readable[owner_id], owner_id))
    steps = [("dropped", owner_id) for owner_id in graph_plan.drop] + [("built", owner_id) for owner_id in builds]
    if not steps:
        return graph_plan
    run_started = time.monotonic()
    with connection.schema_editor(atomic=not concurrently) as editor:
        for name, value in OWNER_GRAPH_SETTINGS:
            editor.execute(f"SET {'' if concurrently else 'LOCAL '}{name} = '{value}'")
        try:
            for verb, owner_id in steps:
                if verb == "built" and budget_s is not None and time.monotonic() - run_started >= budget_s:
                    if report:
                        report("deferred", owner_id, 0.0)
                    continue
                started = time.perf_counter()
                index = owner_graph_index(owner_id)
                sql = index.remove_sql if verb == "dropped" else index.create_sql
                editor.execute(sql(Chunk, editor, concurrently=concurrently))
                if report:
                    report(verb, owner_id, time.perf_counter() - started)
        finally:
            if concurrently:
                for name, _ in OWNER_GRAPH_SETTINGS:
                    editor.execute(f"RESET {name}")
    return graph_plan

"""Recall (seed: hybrid-recall.md, memory-layer.md phase 3): documents split into chunks that are
searched by keyword (PostgreSQL full-text) and by meaning (pgvector), the agents' own journal
writes and manual-edit proposals, and one situation row per trade for "have I seen this before?".

A document with no owner is global (staff playbooks, incident runbooks): every trader's search
reads it, only staff write it. Everything else is owner-scoped like the rest of the service.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.constraints import ExclusionConstraint
from django.contrib.postgres.fields import BigIntegerRangeField, RangeOperators
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Cast, Concat
from pgvector.django import HalfVectorField, HnswIndex, VectorField

from access.models import OwnedModel, OwnedQuerySet
from ledger.models import DecisionSnapshot, Deployment, Skill, TradeHistory
from recall.row_security import OWNER_LEXEMES_SQL, OWNER_SEARCH_VECTOR_SQL

EMBEDDING_DIMENSIONS = 384
PATH_MAX = 500
DOCUMENT_MAX_CHARS = 500_000  # and a request body is at most 1 MiB (memorysite.middleware)
# Every word indexed, stemmed (recall 0004: `english` without its stop words; the query drops them instead).
FTS_CONFIG = "recall_english"
MANUAL_NAME = "TRADING_MANUAL.md"
# A document is the manual when its file name is TRADING_MANUAL.md, in any folder and any case.
MANUAL_PATH_REGEX = r"(^|/)trading_manual\.md$"


class OwnerSearchVector(Func):
    """``search_vector`` with its owner's lexeme (OWNER_SEARCH_VECTOR_SQL): recall 0008's GIN index, which 0013
    replaced with OwnerLexemes'."""

    template = OWNER_SEARCH_VECTOR_SQL.format(alias="")
    output_field = SearchVectorField()


class OwnerLexemes(Func):
    """``search_vector``'s lexemes prefixed with the owner (OWNER_LEXEMES_SQL), for the GIN index."""

    template = OWNER_LEXEMES_SQL.format(alias="")
    output_field = SearchVectorField()


class DocumentSource(models.TextChoices):
    WORKSPACE = "workspace", "agent workspace file"
    TRANSCRIPT = "transcript", "run transcript / decision trace"
    BACKTEST = "backtest", "backtest report"
    JOURNAL = "journal", "agent journal"
    PLAYBOOK = "playbook", "playbook"
    RUNBOOK = "runbook", "incident runbook"


def one_value_range(field: str) -> Func:
    """``[value, value]`` as an int8range (a null value: the infinite range), for exclusion constraints."""
    return Func(F(field), F(field), Value("[]"), function="int8range", output_field=BigIntegerRangeField())


class ReadableQuerySet(OwnedQuerySet):
    """Rows a trader may read: their own and the global ones (owner null); ``owned_by`` as everywhere."""

    def readable_by(self, user):
        if user is None or not user.is_authenticated:
            return self.filter(owner__isnull=True)
        return self.filter(Q(owner_id=user.pk) | Q(owner__isnull=True))


class Document(models.Model):
    """One indexed file, per owner (or global) and optionally per deployment; the newest version."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    path = models.CharField(max_length=PATH_MAX)
    source = models.CharField(max_length=16, choices=DocumentSource.choices)
    metadata = models.JSONField(default=dict, blank=True)
    content = models.TextField()
    content_hash = models.CharField(max_length=64)
    version = models.PositiveIntegerField(default=1)
    chunk_count = models.PositiveIntegerField(default=0)
    # Null while any chunk waits for its embedding; the last indexing error stays until a success.
    indexed_at = models.DateTimeField(null=True, blank=True)
    index_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ReadableQuerySet.as_manager()

    class Meta:
        db_table = "recall_documents"
        ordering = ["path", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "deployment", "path"], nulls_distinct=False, name="recall_document_path_unique"
            ),
            models.CheckConstraint(condition=~Q(path=""), name="recall_document_path_not_empty"),
            models.CheckConstraint(condition=Q(source__in=DocumentSource.values), name="recall_document_source_valid"),
            models.CheckConstraint(
                condition=Q(owner__isnull=False) | Q(deployment__isnull=True), name="recall_global_has_no_deployment"
            ),
            models.CheckConstraint(
                condition=Q(content_hash__regex=r"^[0-9a-f]{64}$"), name="recall_document_hash_sha256"
            ),
            # One manual per deployment scope (seed §5): a trader's manual for all deployments (deployment
            # null: the range (,), overlapping every deployment's) excludes any other, and a deployment's
            # ([d,d]) excludes another of that deployment. recall.services.document_upsert relies on it. The
            # owner is a one-value range too ([o,o] overlaps only itself): GiST indexes ranges natively, where
            # `owner WITH =` would need the btree_gist extension.
            ExclusionConstraint(
                name="recall_one_manual_per_deployment",
                expressions=[
                    (one_value_range("owner"), RangeOperators.OVERLAPS),
                    (one_value_range("deployment"), RangeOperators.OVERLAPS),
                ],
                condition=Q(owner__isnull=False, path__iregex=MANUAL_PATH_REGEX),
            ),
        ]
        indexes = [models.Index(fields=["owner", "source"], name="recall_document_owner")]

    def __str__(self) -> str:
        return self.path


class Chunk(models.Model):
    """A heading-delimited window of a document with its exact line range: the unit of citation. Its heading
    and text are those lines without their invisible characters (the searchable form; the document keeps them)."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    # Denormalised from the document so both search sides filter without a join.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    deployment = models.ForeignKey(
        Deployment, on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    source = models.CharField(max_length=16, choices=DocumentSource.choices)
    path = models.CharField(max_length=PATH_MAX)
    ordinal = models.PositiveIntegerField()
    start_line = models.PositiveIntegerField()
    end_line = models.PositiveIntegerField()
    heading = models.TextField(blank=True, default="")
    text = models.TextField()
    token_count = models.PositiveIntegerField()
    # BM25's length (recall/bm25.py): the words of what search_vector is built from, computed by the database
    # (recall 0007). token_count counts punctuation too, which made code-heavy chunks look long.
    word_count = models.GeneratedField(
        expression=Func(
            Concat("heading", Value(" "), "text", output_field=models.TextField()),
            Value(r"\w+"),
            function="regexp_count",
            output_field=models.IntegerField(),
        ),
        output_field=models.IntegerField(),
        db_persist=True,
    )
    content_hash = models.CharField(max_length=64)
    search_vector = models.GeneratedField(
        expression=SearchVector("heading", "text", config=FTS_CONFIG),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    embedded_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ReadableQuerySet.as_manager()

    class Meta:
        db_table = "recall_chunks"
        ordering = ["document_id", "ordinal"]
        constraints = [
            models.CheckConstraint(condition=Q(start_line__gte=1), name="recall_chunk_lines_positive"),
            models.CheckConstraint(condition=Q(end_line__gte=F("start_line")), name="recall_chunk_lines_ordered"),
            models.CheckConstraint(condition=Q(content_hash__regex=r"^[0-9a-f]{64}$"), name="recall_chunk_hash_sha256"),
        ]
        indexes = [
            GinIndex(OwnerLexemes(), name="recall_chunk_owner_lexemes"),
            # Half precision (recall 0014): the graph holds each vector in 768 bytes rather than 1,536, so the index is
            # ~0.57 of the size and a scan reads half the bytes; the rows keep full precision, and the distances
            # search reports are computed from them (recall/selectors.py's _ITERATIVE).
            HnswIndex(
                OpClass(Cast("embedding", HalfVectorField(dimensions=EMBEDDING_DIMENSIONS)), name="halfvec_cosine_ops"),
                name="recall_chunk_embedding_half",
                m=16,
                ef_construction=800,  # recall 0011 (64 → 400) and 0015 (→ 800): the bench's clustered chunks
            ),
            models.Index(fields=["owner", "deployment"], name="recall_chunk_owner"),
            models.Index(fields=["document", "ordinal"], name="recall_chunk_document"),
            models.Index(fields=["id"], condition=Q(embedding__isnull=True), name="recall_chunk_pending"),
        ]

    def __str__(self) -> str:
        return f"{self.path}:{self.start_line}-{self.end_line}"


class LexemeStat(models.Model):
    """How many of a trader's chunks hold a lexeme (``df``), kept in step with ``recall_chunks`` by the
    triggers of migration 0002 (recall/migrations/0002_lexeme_stats.py): keyword ranking's BM25 takes its idf from it
    and its candidate fetch skips the trader's commonest terms. The row with the empty lexeme (never a
    real one) holds the trader's chunk count (``df``) and token total (``tokens``, for the average
    chunk length). ``owner`` null: the global (staff) documents' counts, read by every trader."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+", db_index=False
    )
    lexeme = models.TextField(blank=True)
    df = models.IntegerField()
    tokens = models.BigIntegerField(default=0)

    objects = ReadableQuerySet.as_manager()

    class Meta:
        db_table = "recall_lexeme_stats"
        constraints = [
            models.UniqueConstraint(fields=["owner", "lexeme"], nulls_distinct=False, name="recall_lexeme_stat_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.lexeme or '(totals)'}: {self.df}"


class JournalKind(models.TextChoices):
    JOURNAL = "journal", "journal entry"
    LEARNING = "learning", "learning"
    NOTE = "note", "note"


class JournalEntry(OwnedModel):
    """An agent's append-only write (seed §5): attributed to a run, visible to the trader, indexed
    as part of a journal document."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=JournalKind.choices)
    content = models.TextField()
    run_id = models.CharField(max_length=100)
    snapshot = models.ForeignKey(DecisionSnapshot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    document = models.ForeignKey(Document, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "recall_journal_entries"
        verbose_name_plural = "journal entries"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=JournalKind.values), name="recall_journal_kind_valid"),
            models.CheckConstraint(condition=~Q(content=""), name="recall_journal_content_not_empty"),
            models.CheckConstraint(condition=~Q(run_id=""), name="recall_journal_run_id_not_empty"),
        ]
        indexes = [models.Index(fields=["owner", "-created_at"], name="recall_journal_recent")]

    def __str__(self) -> str:
        return f"{self.kind} by run {self.run_id}"


class ProposalStatus(models.TextChoices):
    PENDING = "pending", "pending"
    APPROVED = "approved", "approved"
    REJECTED = "rejected", "rejected"


class EditProposal(OwnedModel):
    """An agent's proposed edit to a protected document (the manual): waits for the trader."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="proposals")
    base_hash = models.CharField(max_length=64)
    proposed_content = models.TextField()
    reason = models.TextField()
    run_id = models.CharField(max_length=100)
    snapshot = models.ForeignKey(DecisionSnapshot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    status = models.CharField(max_length=8, choices=ProposalStatus.choices, default=ProposalStatus.PENDING)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "recall_edit_proposals"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=ProposalStatus.values), name="recall_proposal_status_valid"),
            models.CheckConstraint(
                condition=Q(status="pending") | Q(decided_at__isnull=False), name="recall_proposal_decided_at"
            ),
        ]
        indexes = [
            models.Index(fields=["owner", "-created_at"], condition=Q(status="pending"), name="recall_proposal_pending")
        ]

    def __str__(self) -> str:
        return f"edit of {self.document_id} ({self.status})"


class TradeSituation(OwnedModel):
    """Phase 3: what the market looked like when a trade opened, embedded, and how it ended."""

    trade = models.OneToOneField(TradeHistory, on_delete=models.CASCADE, primary_key=True, related_name="+")
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="+", db_index=False)
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="+", db_index=False)
    symbol = models.CharField(max_length=32)
    side = models.CharField(max_length=5)
    entry_tick_at = models.DateTimeField()
    summary = models.TextField()
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    # Attached when the trade closes.
    outcome = models.TextField(blank=True, default="")
    realized_pnl_usd = models.DecimalField(max_digits=20, decimal_places=8, null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "recall_trade_situations"
        ordering = ["-entry_tick_at"]
        indexes = [
            models.Index(
                fields=["skill", "symbol", "side", "-closed_at"],
                condition=Q(closed_at__isnull=False),
                name="recall_situation_closed",
            ),
            models.Index(fields=["deployment", "-entry_tick_at"], name="recall_situation_deployment"),
            # recall.selectors.similar_situations_section: the rows the embedding task has not reached yet
            # (ranked on vectors the read computes itself).
            models.Index(
                fields=["skill", "symbol", "side"],
                condition=Q(embedding__isnull=True),
                name="recall_situation_unembedded",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.symbol} {self.side} @ {self.entry_tick_at.isoformat()}"


class SyncedFolder(models.Model):
    """A workspace folder the scheduled sync re-indexes (remembered by ``recall_sync --remember``)."""

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    root = models.CharField(max_length=1000)
    source = models.CharField(max_length=16, choices=DocumentSource.choices, default=DocumentSource.WORKSPACE)
    prefix = models.CharField(max_length=PATH_MAX, blank=True, default="")
    last_synced_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True, default="")

    class Meta:
        db_table = "recall_synced_folders"
        constraints = [
            models.UniqueConstraint(
                fields=["owner", "deployment", "root"], nulls_distinct=False, name="recall_folder_unique"
            )
        ]

    def __str__(self) -> str:
        return self.root

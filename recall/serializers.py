"""Shapes of the recall API (the seed's citation names in JSON: startLine, endLine)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from memorysite.api import (
    NumberField,
    PageQuery,
    StrictSerializer,
    bounded_int,
    choice,
    document_text,
    reject_nul_in_json,
    text,
)
from recall.models import (
    DOCUMENT_MAX_CHARS,
    PATH_MAX,
    Document,
    DocumentSource,
    EditProposal,
    JournalEntry,
    JournalKind,
)
from recall.paths import clean_path

CITATION_SOURCES = ["fts", "vector", "hybrid"]
CITATION_OWNERS = ["yours", "staff"]
QUERY_MAX_CHARS = 1000
ENTRY_MAX_CHARS = 20_000
RUN_ID_MAX = 100
METADATA_MAX_KEYS = 50


def _path_field(**kwargs):
    return text(max_length=PATH_MAX, **kwargs)


def _validated_path(value: str) -> str:
    try:
        return clean_path(value)
    except DjangoValidationError as error:
        raise serializers.ValidationError(error.messages[0]) from error


class DocumentInput(StrictSerializer):
    path = _path_field()
    content = document_text(max_length=DOCUMENT_MAX_CHARS, allow_blank=True, trim_whitespace=False)
    source = choice(
        DocumentSource,
        default=DocumentSource.WORKSPACE,
        help_text="playbook and runbook are staff sources: a trader who is not staff gets a 400 naming this field.",
    )
    deployment_id = bounded_int(1, required=False, allow_null=True)
    metadata = serializers.DictField(
        required=False, validators=[reject_nul_in_json], error_messages={"not_a_dict": "must be a JSON object"}
    )

    def validate_path(self, value: str) -> str:
        return _validated_path(value)

    def validate_metadata(self, value: dict) -> dict:
        if len(value) > METADATA_MAX_KEYS:
            raise serializers.ValidationError(f"at most {METADATA_MAX_KEYS} keys")
        return value


class DocumentWritten(serializers.Serializer):
    id = serializers.IntegerField()
    path = serializers.CharField()
    version = serializers.IntegerField()
    changed = serializers.BooleanField(help_text="False when the content was already indexed as sent.")
    chunk_count = serializers.IntegerField()
    chunks_added = serializers.IntegerField(help_text="New or changed chunks: these wait for their embedding.")
    chunks_kept = serializers.IntegerField(help_text="Unchanged chunks: kept with their embedding.")
    chunks_removed = serializers.IntegerField()


class ManualRef(serializers.Serializer):
    id = serializers.IntegerField()
    path = serializers.CharField()
    deployment_id = serializers.IntegerField(allow_null=True, help_text="null: the manual of all your deployments")


class ManualConflictOutput(serializers.Serializer):
    """Either 409 of the documents endpoint: a second manual in one deployment scope (with ``manual``), or an
    Idempotency-Key already used with a different request (``detail`` only)."""

    detail = serializers.CharField(
        help_text="`path: ` and the rule (one manual per deployment scope), or `Idempotency-Key: ` and the rule."
    )
    manual = ManualRef(
        required=False, help_text="The manual in place, which the refused one would sit beside (manual conflicts)."
    )


class DocumentOutput(serializers.ModelSerializer):
    deployment_id = serializers.IntegerField(allow_null=True)
    scope = serializers.SerializerMethodField(help_text="owner, deployment or global")

    class Meta:
        model = Document
        fields = [
            "id", "path", "source", "deployment_id", "scope", "version", "content_hash", "chunk_count",
            "indexed_at", "index_error", "metadata", "updated_at",
        ]  # fmt: skip

    def get_scope(self, document: Document) -> str:
        if document.owner_id is None:
            return "global"
        return "deployment" if document.deployment_id else "owner"


class DocumentListQuery(PageQuery):
    source = choice(DocumentSource, required=False)
    deployment_id = bounded_int(1, required=False)


class SearchInput(StrictSerializer):
    query = text(max_length=QUERY_MAX_CHARS, multiline=True)
    k = bounded_int(1, 50, default=10)
    sources = serializers.ListField(
        child=choice(DocumentSource), required=False, allow_empty=False, max_length=len(DocumentSource.values)
    )
    deployment_id = bounded_int(1, required=False, allow_null=True)
    min_score = NumberField(
        at_least=0,
        at_most=1,
        required=False,
        help_text="Drop results scoring below this. Scores are 0..1 and mean the same across queries (0.3 x how "
        "much of the query's indexed words a chunk holds, BM25-weighted and saturating, + 0.7 x its cosine to "
        "the query); unset: the relevance floor, 0.2, so a query about nothing indexed returns no results; 0 "
        "returns the k best whatever they score.",
    )
    per_source_cap = bounded_int(1, 50, required=False, allow_null=True)
    mmr_lambda = NumberField(
        at_least=0,
        at_most=1,
        required=False,
        help_text="Diversity (MMR, off by default): each next result maximises λ·score − (1−λ)·similarity to those "
        "already taken; 1 = plain ranking, 0.7 is OpenClaw's choice.",
    )
    half_life_days = NumberField(
        greater_than=0,
        required=False,
        help_text="Recency (off by default): scores halve every this many days since a chunk changed; documents "
        'whose metadata has "evergreen": true are spared.',
    )
    snapshot_id = serializers.UUIDField(
        required=False, allow_null=True, help_text="Attach the citations to this decision snapshot (the run record)."
    )

    def validate_query(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("must not be blank")
        return value


class CitationOutput(serializers.Serializer):
    path = serializers.CharField()
    startLine = serializers.IntegerField()
    endLine = serializers.IntegerField()
    score = serializers.FloatField()
    snippet = serializers.CharField()
    source = serializers.ChoiceField(choices=CITATION_SOURCES, help_text="Which search side found the chunk.")
    owner = serializers.ChoiceField(
        choices=CITATION_OWNERS,
        help_text="Whose document: yours, or staff (a global playbook or runbook every trader's search reads).",
    )


class SearchOutput(serializers.Serializer):
    backend = serializers.ChoiceField(choices=["hybrid", "fts"])
    results = CitationOutput(many=True)


class HealthError(serializers.Serializer):
    path = serializers.CharField()
    error = serializers.CharField()


class HealthOutput(serializers.Serializer):
    documents = serializers.IntegerField()
    chunks = serializers.IntegerField()
    pending = serializers.IntegerField(help_text="Chunks waiting for their embedding.")
    last_sync_at = serializers.DateTimeField(allow_null=True)
    errors = HealthError(many=True)


class JournalInput(StrictSerializer):
    deployment_id = bounded_int(1)
    kind = choice(JournalKind, default=JournalKind.JOURNAL)
    content = document_text(max_length=ENTRY_MAX_CHARS)
    run_id = text(max_length=RUN_ID_MAX)
    snapshot_id = serializers.UUIDField(required=False, allow_null=True)

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("must not be blank")
        return value


class JournalOutput(serializers.ModelSerializer):
    deployment_id = serializers.IntegerField()
    snapshot_id = serializers.UUIDField(allow_null=True)
    path = serializers.CharField(source="document.path", allow_null=True)

    class Meta:
        model = JournalEntry
        fields = ["id", "deployment_id", "kind", "content", "run_id", "snapshot_id", "path", "created_at"]


class JournalListQuery(PageQuery):
    deployment_id = bounded_int(1, required=False)


class ProposalInput(StrictSerializer):
    document_id = bounded_int(1)
    proposed_content = document_text(max_length=DOCUMENT_MAX_CHARS, trim_whitespace=False)
    reason = text(max_length=2000, multiline=True)
    run_id = text(max_length=RUN_ID_MAX)
    snapshot_id = serializers.UUIDField(required=False, allow_null=True)


class ProposalOutput(serializers.ModelSerializer):
    document_id = serializers.IntegerField()
    path = serializers.CharField(source="document.path")
    snapshot_id = serializers.UUIDField(allow_null=True)

    class Meta:
        model = EditProposal
        fields = [
            "id", "document_id", "path", "base_hash", "proposed_content", "reason", "run_id", "snapshot_id",
            "status", "created_at", "decided_at",
        ]  # fmt: skip


class ProposalListQuery(PageQuery):
    status = choice(["pending", "approved", "rejected"], required=False)

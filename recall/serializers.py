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
    path = _path_field(
        help_text="The document's path in your workspace, e.g. `TRADING_MANUAL.md` or `notes/btc.md` (relative, at "
        "most 500 characters): the same path again is a new version of the same document."
    )
    content = document_text(
        max_length=DOCUMENT_MAX_CHARS,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The whole text (markdown; at most 500,000 characters): it replaces the previous version.",
    )
    source = choice(
        DocumentSource,
        default=DocumentSource.WORKSPACE,
        help_text="playbook and runbook are staff sources: a trader who is not staff gets a 400 naming this field.",
    )
    deployment_id = bounded_int(
        1,
        required=False,
        allow_null=True,
        help_text="Scope the document to one of your deployments (its searches and context); null: all of them.",
    )
    metadata = serializers.DictField(
        required=False,
        validators=[reject_nul_in_json],
        error_messages={"not_a_dict": "must be a JSON object"},
        help_text='Free-form JSON (at most 50 keys), returned as sent; `"evergreen": true` spares it from recency '
        "decay in searches.",
    )

    def validate_path(self, value: str) -> str:
        return _validated_path(value)

    def validate_metadata(self, value: dict) -> dict:
        if len(value) > METADATA_MAX_KEYS:
            raise serializers.ValidationError(f"at most {METADATA_MAX_KEYS} keys")
        return value


class DocumentWritten(serializers.Serializer):
    id = serializers.IntegerField(help_text="The document's id.")
    path = serializers.CharField(help_text="Its path, normalised.")
    version = serializers.IntegerField(help_text="Its version: 1 at first, + 1 at each change of content.")
    changed = serializers.BooleanField(help_text="False when the content was already indexed as sent.")
    chunk_count = serializers.IntegerField(help_text="Chunks the document has now.")
    chunks_added = serializers.IntegerField(help_text="New or changed chunks: these wait for their embedding.")
    chunks_kept = serializers.IntegerField(help_text="Unchanged chunks: kept with their embedding.")
    chunks_removed = serializers.IntegerField(help_text="Chunks of the previous version that are gone.")


class ManualRef(serializers.Serializer):
    id = serializers.IntegerField(help_text="The manual's document id.")
    path = serializers.CharField(help_text="Its path.")
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
    deployment_id = serializers.IntegerField(
        allow_null=True, help_text="The deployment it is scoped to; null: all your deployments (or global)."
    )
    scope = serializers.SerializerMethodField(help_text="owner, deployment or global")

    class Meta:
        model = Document
        fields = [
            "id", "path", "source", "deployment_id", "scope", "version", "content_hash", "chunk_count",
            "indexed_at", "index_error", "metadata", "updated_at",
        ]  # fmt: skip
        extra_kwargs = {
            "id": {"help_text": "The document's id."},
            "path": {"help_text": "Its path, e.g. `TRADING_MANUAL.md` or `journal/2026-06-04.md`."},
            "source": {
                "help_text": "What it is: workspace file, transcript, backtest report, journal, playbook or runbook."
            },
            "version": {"help_text": "1 at first, + 1 at each change of content."},
            "content_hash": {"help_text": "sha256 of the content (hex): what an edit proposal is made against."},
            "chunk_count": {"help_text": "How many chunks it was split into."},
            "indexed_at": {"help_text": "When it was last indexed (UTC); null: not yet."},
            "index_error": {"help_text": "Why the last indexing failed; empty or null when it did not."},
            "metadata": {"help_text": "The JSON sent with it."},
            "updated_at": {"help_text": "When it last changed (UTC)."},
        }

    def get_scope(self, document: Document) -> str:
        if document.owner_id is None:
            return "global"
        return "deployment" if document.deployment_id else "owner"


class DocumentListQuery(PageQuery):
    source = choice(DocumentSource, required=False, help_text="Only documents of this source.")
    deployment_id = bounded_int(1, required=False, help_text="Only documents scoped to this deployment.")


class SearchInput(StrictSerializer):
    query = text(
        max_length=QUERY_MAX_CHARS,
        multiline=True,
        help_text="What to look for, in words (at most 1,000 characters; not blank).",
    )
    k = bounded_int(1, 50, default=10, help_text="At most this many results (1-50, default 10).")
    sources = serializers.ListField(
        child=choice(DocumentSource),
        required=False,
        allow_empty=False,
        max_length=len(DocumentSource.values),
        help_text="Only documents of these sources; omitted: all.",
    )
    deployment_id = bounded_int(
        1,
        required=False,
        allow_null=True,
        help_text="Also search the documents scoped to this deployment (besides yours for all and the global ones).",
    )
    min_score = NumberField(
        at_least=0,
        at_most=1,
        required=False,
        help_text="Drop results scoring below this. Scores are 0..1 and mean the same across queries (0.3 x how "
        "much of the query's indexed words a chunk holds, BM25-weighted and saturating, + 0.7 x its cosine to "
        "the query); unset: the relevance floor, 0.2, so a query about nothing indexed returns no results; 0 "
        "returns the k best whatever they score.",
    )
    per_source_cap = bounded_int(
        1, 50, required=False, allow_null=True, help_text="At most this many results from one source; null: no cap."
    )
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
    path = serializers.CharField(help_text="The document's path.")
    startLine = serializers.IntegerField(help_text="The chunk's first line in the document (1-based).")
    endLine = serializers.IntegerField(help_text="Its last line (inclusive).")
    score = serializers.FloatField(help_text="Relevance, 0..1 (comparable across queries; see `min_score`).")
    snippet = serializers.CharField(help_text="The chunk's text, shortened.")
    source = serializers.ChoiceField(choices=CITATION_SOURCES, help_text="Which search side found the chunk.")
    owner = serializers.ChoiceField(
        choices=CITATION_OWNERS,
        help_text="Whose document: yours, or staff (a global playbook or runbook every trader's search reads).",
    )


class SearchOutput(serializers.Serializer):
    backend = serializers.ChoiceField(
        choices=["hybrid", "fts"],
        help_text="`hybrid` (keywords and vectors), or `fts` (keywords only: the query could not be embedded).",
    )
    results = CitationOutput(many=True, help_text="The citations, best first.")


class HealthError(serializers.Serializer):
    path = serializers.CharField(help_text="The document that failed to index.")
    error = serializers.CharField(help_text="Why.")


class HealthOutput(serializers.Serializer):
    documents = serializers.IntegerField(help_text="Documents you can search.")
    chunks = serializers.IntegerField(help_text="Their chunks.")
    pending = serializers.IntegerField(help_text="Chunks waiting for their embedding.")
    last_sync_at = serializers.DateTimeField(
        allow_null=True, help_text="When a document was last indexed (UTC); null: never."
    )
    errors = HealthError(many=True, help_text="Documents whose last indexing failed.")


class JournalInput(StrictSerializer):
    deployment_id = bounded_int(1, help_text="The deployment whose agent writes.")
    kind = choice(
        JournalKind,
        default=JournalKind.JOURNAL,
        help_text="`journal` (default: what happened), `learning` (what to remember) or `note`.",
    )
    content = document_text(max_length=ENTRY_MAX_CHARS, help_text="The entry (markdown; at most 20,000 characters).")
    run_id = text(max_length=RUN_ID_MAX, help_text="Your runner's id for this run (at most 100 characters).")
    snapshot_id = serializers.UUIDField(
        required=False, allow_null=True, help_text="The tick it is about (`snapshot_id` from `post_tick`), if any."
    )

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("must not be blank")
        return value


class JournalOutput(serializers.ModelSerializer):
    deployment_id = serializers.IntegerField(help_text="The deployment whose agent wrote it.")
    snapshot_id = serializers.UUIDField(allow_null=True, help_text="The tick it is about; null: none.")
    path = serializers.CharField(
        source="document.path", allow_null=True, help_text="The journal document holding it (searchable)."
    )

    class Meta:
        model = JournalEntry
        fields = ["id", "deployment_id", "kind", "content", "run_id", "snapshot_id", "path", "created_at"]
        extra_kwargs = {
            "id": {"help_text": "The entry's id."},
            "kind": {"help_text": "`journal`, `learning` or `note`."},
            "content": {"help_text": "The entry as written."},
            "run_id": {"help_text": "The runner's id for the run that wrote it."},
            "created_at": {"help_text": "When it was written (UTC)."},
        }


class JournalListQuery(PageQuery):
    deployment_id = bounded_int(1, required=False, help_text="Only this deployment's entries.")


class ProposalInput(StrictSerializer):
    document_id = bounded_int(1, help_text="The document to change (one of yours).")
    proposed_content = document_text(
        max_length=DOCUMENT_MAX_CHARS, trim_whitespace=False, help_text="The whole new text, as it should read."
    )
    reason = text(max_length=2000, multiline=True, help_text="Why, for the trader deciding (at most 2,000 characters).")
    run_id = text(max_length=RUN_ID_MAX, help_text="Your runner's id for this run (at most 100 characters).")
    snapshot_id = serializers.UUIDField(
        required=False, allow_null=True, help_text="The tick that prompted it (`snapshot_id` from `post_tick`), if any."
    )


class ProposalOutput(serializers.ModelSerializer):
    document_id = serializers.IntegerField(help_text="The document it would change.")
    path = serializers.CharField(source="document.path", help_text="That document's path.")
    snapshot_id = serializers.UUIDField(allow_null=True, help_text="The tick that prompted it; null: none.")

    class Meta:
        model = EditProposal
        fields = [
            "id", "document_id", "path", "base_hash", "proposed_content", "reason", "run_id", "snapshot_id",
            "status", "created_at", "decided_at",
        ]  # fmt: skip
        extra_kwargs = {
            "id": {"help_text": "The proposal's id."},
            "base_hash": {"help_text": "The document's content hash when proposed: approval applies only on that."},
            "proposed_content": {"help_text": "The whole new text."},
            "reason": {"help_text": "Why, as the agent put it."},
            "run_id": {"help_text": "The runner's id for the run that proposed it."},
            "status": {"help_text": "`pending` until the trader decides, then `approved` or `rejected`."},
            "created_at": {"help_text": "When it was proposed (UTC)."},
            "decided_at": {"help_text": "When the trader decided (UTC); null while pending."},
        }


class ProposalListQuery(PageQuery):
    status = choice(["pending", "approved", "rejected"], required=False, help_text="Only proposals in this state.")

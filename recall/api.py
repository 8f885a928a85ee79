"""REST views of recall: index documents, search with citations, index health, agents' journal
appends and edit proposals. Approving a proposal is a trader's act on the /recall/ page, never an
API call: the runner holds the same token as the agent that proposed the edit."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from ledger import selectors as ledger_selectors
from memorysite.api import UNAUTHORIZED, APIView, Conflict, Page, paginated
from recall import answers, selectors, services
from recall.models import EditProposal, JournalEntry
from recall.serializers import (
    DocumentInput,
    DocumentListQuery,
    DocumentOutput,
    DocumentWritten,
    HealthOutput,
    JournalInput,
    JournalListQuery,
    JournalOutput,
    ManualConflictOutput,
    ProposalInput,
    ProposalListQuery,
    ProposalOutput,
    SearchInput,
    SearchOutput,
)

_ERRORS = {
    400: OpenApiResponse(description="Invalid input: `detail` names each field and the rule it broke."),
    401: OpenApiResponse(description=UNAUTHORIZED),
    404: OpenApiResponse(description="No such deployment, snapshot or document among yours."),
}


class DocumentListCreateView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[DocumentListQuery],
        responses={200: DocumentOutput(many=True), **_ERRORS},
        operation_id="list_documents",
        description="Your indexed documents (manual, journal, notes) and the global playbooks and runbooks that "
        "searches also read.",
        summary="Documents you can search: yours and the global playbooks and runbooks",
        tags=["recall"],
    )
    def get(self, request):
        query = DocumentListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        documents = selectors.document_list(user=request.user)
        if "source" in query.validated_data:
            documents = documents.filter(source=query.validated_data["source"])
        if "deployment_id" in query.validated_data:
            documents = documents.filter(deployment_id=query.validated_data["deployment_id"])
        return paginated(self, documents, DocumentOutput)

    @extend_schema(
        request=DocumentInput,
        responses={
            201: DocumentWritten,
            200: DocumentWritten,
            403: OpenApiResponse(description="A change to SOUL.md or TRADING_MANUAL.md: propose it instead."),
            409: OpenApiResponse(
                response=ManualConflictOutput,
                description="A second TRADING_MANUAL.md where a deployment would read two: one manual per deployment "
                "scope. `manual` is the one in place.",
            ),
            **_ERRORS,
        },
        operation_id="index_document",
        summary="Index a document (same path again = a new version; only changed chunks are re-embedded)",
        description="Chunks by markdown headings, then windows of 400–800 tokens, each with its exact line "
        "range. Returns 201 when the content is new or changed, 200 when it was already indexed as sent. "
        "Embedding runs in a worker: `GET /api/v1/recall/health/` shows the chunks still pending. "
        "`deployment_id` scopes the document to one deployment's searches; without it every search of yours "
        "reads it. SOUL.md and TRADING_MANUAL.md may be created here but not changed (403): an agent proposes "
        "an edit (`POST /api/v1/recall/proposals/`) and the trader approves it. Files under `journal/` and "
        "`memory/` are append-only (seed §5): this endpoint neither creates nor overwrites them (400 on `path`); "
        "append with `POST /api/v1/recall/journal/`, which attributes each entry to a run. There is one manual "
        "(`TRADING_MANUAL.md`, in any folder) per deployment scope: one for all your deployments "
        "(no `deployment_id`), or one per deployment; a second where a deployment would read two is a 409.",
        tags=["recall"],
    )
    def post(self, request):
        data = DocumentInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        try:
            result = services.agent_document_upsert(
                owner=request.user,
                deployment=ledger_selectors.deployment_ref(
                    user=request.user, deployment_id=values.get("deployment_id")
                ),
                path=values["path"],
                content=values["content"],
                source=values["source"],
                metadata=values.get("metadata"),
            )
        except services.ProtectedDocument as error:
            raise PermissionDenied(str(error)) from error
        except services.ManualConflict as error:
            manual = error.existing
            raise Conflict(
                {
                    "detail": f"path: {error}",
                    "manual": {"id": manual.pk, "path": manual.path, "deployment_id": manual.deployment_id},
                }
            ) from error
        document = result.document
        body = {
            "id": document.pk,
            "path": document.path,
            "version": document.version,
            "changed": result.changed,
            "chunk_count": document.chunk_count,
            "chunks_added": result.chunks_added,
            "chunks_kept": result.chunks_kept,
            "chunks_removed": result.chunks_removed,
        }
        code = status.HTTP_201_CREATED if result.changed else status.HTTP_200_OK
        return Response(DocumentWritten(body).data, status=code)


class DocumentDetailView(APIView):
    @extend_schema(
        responses={200: DocumentOutput, **_ERRORS},
        operation_id="get_document",
        description="One document you can search: its path, source, size and indexing state.",
        summary="One document",
        tags=["recall"],
    )
    def get(self, request, document_id: int):
        return Response(DocumentOutput(selectors.document_get(user=request.user, document_id=document_id)).data)

    @extend_schema(
        responses={
            204: None,
            403: OpenApiResponse(
                description="A global document (staff manage those), SOUL.md / TRADING_MANUAL.md, or a file under "
                "journal/ or memory/ (append-only: the trader deletes those on the /recall/ page)."
            ),
            **_ERRORS,
        },
        operation_id="delete_document",
        description="The document and its chunks leave the index; searches stop citing it.",
        summary="Remove one of your documents from the index",
        tags=["recall"],
    )
    def delete(self, request, document_id: int):
        document = selectors.document_get(user=request.user, document_id=document_id)
        if document.owner_id is None:
            raise PermissionDenied("global documents are managed by staff")
        try:
            services.agent_document_delete(document=document)
        except services.ProtectedDocument as error:
            raise PermissionDenied(str(error)) from error
        return Response(status=status.HTTP_204_NO_CONTENT)


class SearchView(APIView):
    @extend_schema(
        request=SearchInput,
        responses={200: SearchOutput, **_ERRORS},
        operation_id="search_recall",
        summary="Hybrid keyword + vector search over your documents and the global ones, with citations",
        description="Each result is a citation: path, startLine, endLine, score (0..1), snippet and source "
        "(`fts`, `vector` or `hybrid`: which side found it). `backend` is the active slot (`hybrid`, or `fts` "
        "when embeddings are off). Scores fuse 0.3·keyword + 0.7·cosine (RECALL_FTS_WEIGHT, RECALL_VECTOR_WEIGHT). "
        "With `snapshot_id` "
        "the citations are attached to that decision snapshot (the trade journal shows them).",
        tags=["recall"],
    )
    def post(self, request):
        return Response(answers.search_answer(user=request.user, data=request.data))


class HealthView(APIView):
    @extend_schema(
        responses={200: HealthOutput, 401: _ERRORS[401]},
        operation_id="get_recall_health",
        description="How your index stands: documents, chunks, chunks still waiting for their embedding, the last "
        "sync and recent indexing errors.",
        summary="Index health: documents, chunks, chunks pending embedding, last sync, indexing errors",
        tags=["recall"],
    )
    def get(self, request):
        return Response(HealthOutput(selectors.index_health(user=request.user)).data)


class JournalView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[JournalListQuery],
        responses={200: JournalOutput(many=True), **_ERRORS},
        operation_id="list_journal",
        description="What your agents appended with `append_journal`, newest first, with the run and tick each "
        "came from; `deployment_id` narrows it to one deployment.",
        summary="Your agents' journal entries, learnings and notes, newest first",
        tags=["recall"],
    )
    def get(self, request):
        query = JournalListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        entries = JournalEntry.objects.owned_by(request.user).select_related("document").order_by("-created_at", "-id")
        if "deployment_id" in query.validated_data:
            entries = entries.filter(deployment_id=query.validated_data["deployment_id"])
        return paginated(self, entries, JournalOutput)

    @extend_schema(
        request=JournalInput,
        responses={201: JournalOutput, **_ERRORS},
        operation_id="append_journal",
        summary="Append a journal entry, learning or note (attributed to a run; visible to the trader)",
        description="Additive only (seed §5): journal entries go to `journal/<UTC date>.md`, learnings to "
        "`memory/learnings.md`, notes to `memory/notes.md` of the deployment, each under a heading with the "
        "time, kind and run id, and are indexed like any document. The manual cannot be written here: "
        "propose an edit with `POST /api/v1/recall/proposals/`.",
        tags=["recall"],
    )
    def post(self, request):
        data = JournalInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        deployment = ledger_selectors.deployment_ref(user=request.user, deployment_id=values["deployment_id"])
        entry = services.journal_append(
            deployment=deployment,
            kind=values["kind"],
            content=values["content"],
            run_id=values["run_id"],
            snapshot=ledger_selectors.snapshot_ref(
                user=request.user, snapshot_id=values.get("snapshot_id"), deployment=deployment
            ),
        )
        return Response(JournalOutput(entry).data, status=status.HTTP_201_CREATED)


class ProposalView(APIView):
    pagination_class = Page

    @extend_schema(
        parameters=[ProposalListQuery],
        responses={200: ProposalOutput(many=True), **_ERRORS},
        operation_id="list_proposals",
        description="Edit proposals on your documents and what became of them, newest first.",
        summary="Edit proposals on your documents, newest first",
        tags=["recall"],
    )
    def get(self, request):
        query = ProposalListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        proposals = EditProposal.objects.owned_by(request.user).select_related("document")
        if "status" in query.validated_data:
            proposals = proposals.filter(status=query.validated_data["status"])
        return paginated(self, proposals.order_by("-created_at", "-id"), ProposalOutput)

    @extend_schema(
        request=ProposalInput,
        responses={201: ProposalOutput, **_ERRORS},
        operation_id="propose_edit",
        summary="Propose an edit to one of your documents (the manual); it waits for the trader's approval",
        description="The proposal records the document's content hash: the trader approves or rejects it on "
        "the /recall/ page, and an approval of a document that changed since is refused.",
        tags=["recall"],
    )
    def post(self, request):
        data = ProposalInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        document = selectors.owned_document_get(user=request.user, document_id=values["document_id"])
        proposal = services.proposal_create(
            document=document,
            proposed_content=values["proposed_content"],
            reason=values["reason"],
            run_id=values["run_id"],
            snapshot=ledger_selectors.snapshot_ref(user=request.user, snapshot_id=values.get("snapshot_id")),
        )
        return Response(ProposalOutput(proposal).data, status=status.HTTP_201_CREATED)

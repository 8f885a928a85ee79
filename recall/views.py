"""HTMX pages of recall: /recall/ (search with citations, pending edit proposals, the agents' recent writes,
index health and the documents), a document with an anchor per line (and Delete for the trader's own), and
an edit proposal's line diff with Approve / Reject. Pages read through selectors and write through services only.

Every string shown here was written by an agent or read from a workspace file: templates escape it, and its
invisible characters (bidirectional controls included) are shown as visible ``[U+202E]`` marks by
memorysite.browser.InvisibleTextMarkMiddleware, so text cannot hide or reorder what is displayed around it.
"""

from __future__ import annotations

import difflib
import re
from typing import cast
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import push_url

from ledger import selectors as ledger_selectors
from memorysite.metrics import RECALL_SEARCH_SECONDS
from memorysite.pages import bad_request, trader_required, wants_partial
from memorysite.text import highlight_spans
from recall import selectors, services
from recall.chunking import document_lines
from recall.embeddings import embedder_available, get_embedder
from recall.fusion import normalise_query_terms
from recall.models import DocumentSource, EditProposal, ProposalStatus
from recall.serializers import QUERY_MAX_CHARS

SEARCH_K = 10
DOCUMENTS_PAGE_SIZE = 100
PROPOSALS_SHOWN = 50
JOURNAL_SHOWN = 20
AGENT_FILES_SHOWN = 10
# Documents in a journal/ or memory/ folder (recall.services.is_append_only, as one regex): the agents' files.
AGENT_FOLDER_REGEX = rf"(^|/)({'|'.join(services.APPEND_ONLY_FOLDERS)})/"
DIFF_CONTEXT_LINES = 3
DECISIONS = ("approve", "reject")

BAD_QUERY = "Invalid query parameter “q”: at most {max} characters without NUL (got {length} characters)."
BAD_SOURCE = (
    "Invalid query parameter “source”: {value!r} is not a document source."
    " Use one of {choices}, or leave it empty for all sources."
)
BAD_DEPLOYMENT = (
    "Invalid query parameter “deployment”: {value!r} is not a deployment id."
    " Use the number of one of your deployments, or leave it empty for all of them."
)
BAD_DECISION = "Invalid form field “decision”: {value!r}. Use approve or reject."


class SearchForm(forms.Form):
    """The search box and its filters. Blank source / deployment mean all of them."""

    q = forms.CharField(required=False, max_length=QUERY_MAX_CHARS, strip=True)
    source = forms.ChoiceField(required=False, choices=[("", "all sources"), *DocumentSource.choices])
    deployment = forms.IntegerField(required=False, min_value=1)
    weak = forms.BooleanField(required=False)  # also the hits under the relevance floor

    def clean_q(self) -> str:
        query = self.cleaned_data["q"]
        if "\x00" in query:
            raise forms.ValidationError("NUL")
        return query

    def error_message(self) -> str:
        parts = []
        if "q" in self.errors:
            parts.append(BAD_QUERY.format(max=QUERY_MAX_CHARS, length=len(self.data.get("q", ""))))
        if "source" in self.errors:
            parts.append(BAD_SOURCE.format(value=self.data.get("source", ""), choices=", ".join(DocumentSource.values)))
        if "deployment" in self.errors:
            parts.append(BAD_DEPLOYMENT.format(value=self.data.get("deployment", "")))
        return " ".join(parts)


def _search_url(query: str, source: str, deployment_id: int | None, weak: bool = False) -> str:
    """The search's canonical URL: only the parameters that are set; no query → the page itself."""
    if not query:
        return reverse("recall")
    params: dict[str, str | int] = {"q": query}
    if source:
        params["source"] = source
    if deployment_id:
        params["deployment"] = deployment_id
    if weak:
        params["weak"] = 1
    return f"{reverse('recall-search')}?{urlencode(params)}"


def _search(request):
    """(context, None) for the search part of the page, or (None, error response) for bad input."""
    form = SearchForm(request.GET)
    if not form.is_valid():
        return None, bad_request(request, form.error_message(), back_url=reverse("recall"), back_label="Back to recall")
    query, source = form.cleaned_data["q"], form.cleaned_data["source"]
    deployment = None
    if form.cleaned_data["deployment"] is not None:
        # Another trader's deployment is a 404, like a missing one.
        deployment = ledger_selectors.deployment_get(user=request.user, deployment_id=form.cleaned_data["deployment"])
    deployment_id = deployment.pk if deployment else None
    weak = form.cleaned_data["weak"]
    context = {
        "query": query,
        "query_shown": query,
        "source": source,
        "deployment_id": deployment_id,
        "source_choices": cast(forms.ChoiceField, form.fields["source"]).choices,
        "search_url": _search_url(query, source, deployment_id, weak),
        "weak": weak,
        "weak_url": _search_url(query, source, deployment_id, weak=True),
        "floor": settings.RECALL_MIN_SCORE,
        "results": None,
        "backend": selectors.effective_backend(embedder_available=embedder_available()),
    }
    if query:
        with RECALL_SEARCH_SECONDS.labels("page").time():
            outcome = selectors.search(
                user=request.user,
                query=query,
                k=SEARCH_K,
                sources=[source] if source else None,
                deployment_id=deployment_id,
                min_score=0.0 if weak else None,
                now=timezone.now(),
                embedder=get_embedder(),
            )
        context["backend"] = outcome.backend
        context["results"] = _results(outcome, normalise_query_terms(query))
    return context, None


def _results(outcome, terms: list[str]) -> list[dict]:
    """The citations with the document each one links to (the citation itself names only the path) and the
    snippet cut into runs, the query's words marked."""
    return [
        {
            **citation,
            "path": citation["path"],
            "snippet": citation["snippet"],
            "snippet_parts": highlight_spans(citation["snippet"], terms),
            "document_id": hit.candidate.document_id,
        }
        for hit, citation in zip(outcome.hits, outcome.citations(), strict=True)
    ]


def _page_link(request, page: int) -> str:
    query = request.GET.copy()
    query["page"] = page
    return f"{reverse('recall')}?{query.urlencode()}"


def _scope(document) -> str:
    if document.owner_id is None:
        return "global"
    return f"deployment #{document.deployment_id}" if document.deployment_id else "all deployments"


@trader_required
@vary_on_headers("HX-Request")  # the same URL answers a partial to htmx and a page otherwise
def recall_search(request):
    context, error = _search(request)
    if error is not None:
        return error
    if wants_partial(request):
        return push_url(render(request, "recall/_results.html", context), context["search_url"])
    return _home_page(request, context)


@trader_required
def recall_home(request):
    context, error = _search(request)
    if error is not None:
        return error
    return _home_page(request, context)


def _home_page(request, context: dict):
    user = request.user
    documents = selectors.document_list(user=user).defer("content", "metadata")
    page = Paginator(documents, DOCUMENTS_PAGE_SIZE).get_page(request.GET.get("page"))
    proposals = list(
        selectors.pending_proposals(user=user).defer("proposed_content", "document__content", "document__metadata")[
            : PROPOSALS_SHOWN + 1
        ]
    )
    context.update(
        {
            "health": selectors.index_health(user=user),
            "embeddings_on": embedder_available(),
            "deployments": list(ledger_selectors.deployment_list(user=user)),
            "documents": [
                {"document": document, "path": document.path, "scope": _scope(document)} for document in page
            ],
            "page": page,
            "previous_url": _page_link(request, page.previous_page_number()) if page.has_previous() else None,
            "next_url": _page_link(request, page.next_page_number()) if page.has_next() else None,
            "proposals": [
                {"proposal": proposal, "path": proposal.document.path, "reason": proposal.reason}
                for proposal in proposals[:PROPOSALS_SHOWN]
            ],
            "more_proposals": len(proposals) > PROPOSALS_SHOWN,
            "journal": [
                {"entry": entry, "content": entry.content}
                for entry in selectors.recent_journal(user=user, limit=JOURNAL_SHOWN)
            ],
        }
    )
    if not context["journal"]:
        # No entry came through the journal API, but journal/ and memory/ files may be indexed (synced from a
        # workspace, or their entries' rows gone): the section names them rather than saying there is nothing.
        agent_files = documents.filter(path__iregex=AGENT_FOLDER_REGEX).order_by("-updated_at", "-id")
        context["agent_files"] = list(agent_files[: AGENT_FILES_SHOWN + 1])
    return render(request, "recall/home.html", context)


@trader_required
def document_detail(request, document_id: int):
    document = selectors.document_get(user=request.user, document_id=document_id)
    chunks = document.chunks.order_by("ordinal").values("ordinal", "start_line", "end_line", "heading", "embedded_at")
    lines = document_lines(document.content)  # numbered as the chunks' citations count them
    cited = cited_lines(request.GET.get("lines", ""), len(lines))
    context = {
        "document": document,
        "path": document.path,
        "scope": _scope(document),
        "lines": [(number, text, number in cited) for number, text in enumerate(lines, start=1)],
        "line_count": len(lines),
        "cited": (min(cited), max(cited)) if cited else None,
        "chunks": list(chunks),
        "embeddings_on": embedder_available(),
    }
    return render(request, "recall/document.html", context)


def cited_lines(value: str, line_count: int) -> range:
    """The lines a citation link marks (``?lines=12-30``, or one line ``?lines=12``), within the document;
    anything else marks none (a stale or hand-made link is not an error: the page still shows the document)."""
    match = re.fullmatch(r"(\d{1,7})(?:-(\d{1,7}))?", value.strip())
    if not match:
        return range(0)
    start = int(match.group(1))
    end = int(match.group(2) or start)
    if start < 1 or end < start:
        return range(0)
    return range(start, min(end, line_count) + 1)


@trader_required
@require_POST
def document_delete(request, document_id: int):
    """The trader deletes one of their documents, whatever its path (the journal's and the manual
    included: the API refuses those to agents, seed §5). Global documents are staff's: a 404 here."""
    document = selectors.owned_document_get(user=request.user, document_id=document_id)
    path = document.path
    services.document_delete(document=document)
    messages.success(request, f"Deleted {path} and its chunks from the index.")
    return redirect("recall")


def _diff_hunks(old: str, new: str) -> list[list[dict]]:
    """The changed blocks of `new` against `old`, each with a few unchanged lines around it; every line
    carries its number in the old and/or the new text."""
    before, after = document_lines(old), document_lines(new)
    hunks = []
    matcher = difflib.SequenceMatcher(a=before, b=after)
    for group in matcher.get_grouped_opcodes(DIFF_CONTEXT_LINES):
        lines = []
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines += [
                    {"op": "equal", "old": i + 1, "new": j + 1, "text": before[i]}
                    for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
                ]
                continue
            lines += [{"op": "delete", "old": i + 1, "new": None, "text": before[i]} for i in range(i1, i2)]
            lines += [{"op": "insert", "old": None, "new": j + 1, "text": after[j]} for j in range(j1, j2)]
        hunks.append(lines)
    return hunks


def _proposal_page(request, proposal: EditProposal, *, error: str = "", status: int = 200):
    document = proposal.document
    hunks = _diff_hunks(document.content, proposal.proposed_content)
    context = {
        "proposal": proposal,
        "document": document,
        "path": document.path,
        "reason": proposal.reason,
        "pending": proposal.status == ProposalStatus.PENDING,
        "stale": document.content_hash != proposal.base_hash,
        "hunks": hunks,
        "inserted": sum(1 for hunk in hunks for line in hunk if line["op"] == "insert"),
        "deleted": sum(1 for hunk in hunks for line in hunk if line["op"] == "delete"),
        "error": error,
    }
    return render(request, "recall/proposal.html", context, status=status)


@trader_required
def proposal_detail(request, proposal_id: int):
    return _proposal_page(request, selectors.proposal_get(user=request.user, proposal_id=proposal_id))


@trader_required
@require_POST
def proposal_decide(request, proposal_id: int):
    proposal = selectors.proposal_get(user=request.user, proposal_id=proposal_id)
    decision = request.POST.get("decision", "")
    if decision not in DECISIONS:
        back = reverse("recall-proposal", args=[proposal.pk])
        return bad_request(
            request, BAD_DECISION.format(value=decision), back_url=back, back_label="Back to the proposal"
        )
    try:
        services.proposal_decide(proposal=proposal, approve=decision == "approve", by=request.user)
    except (services.ProposalConflict, services.ProposalDecided) as conflict:
        fresh = selectors.proposal_get(user=request.user, proposal_id=proposal_id)
        return _proposal_page(request, fresh, error=str(conflict), status=409)
    path = proposal.document.path
    if decision == "approve":
        messages.success(request, f"Approved the edit of {path}: the document now holds the proposed content.")
    else:
        messages.success(request, f"Rejected the edit of {path}: the document is unchanged.")
    return redirect("recall")

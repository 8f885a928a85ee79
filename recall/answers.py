"""The answer POST /api/v1/recall/search/ and the MCP tool `recall_search` share: the request validated by
recall's serializer, then recall's selectors and services. The view and the tool only carry it."""

from __future__ import annotations

from django.utils import timezone

from ledger import selectors as ledger_selectors
from memorysite.api import validated
from memorysite.metrics import RECALL_SEARCH_SECONDS
from memorysite.text import strip_invisible_json
from recall import selectors
from recall.embeddings import get_embedder
from recall.serializers import SearchInput, SearchOutput
from recall.services import citations_attach


def search_answer(*, user, data) -> dict:
    """POST /api/v1/recall/search/'s answer to its request body, and the MCP tool `recall_search`'s:
    validated (a 400's ValidationError), searched, and with `snapshot_id` the citations attached to that
    decision snapshot. It goes to an agent: paths and snippets carry no invisible characters (the
    /recall/ page shows them marked)."""
    values = validated(SearchInput, data)
    deployment = ledger_selectors.deployment_ref(user=user, deployment_id=values.get("deployment_id"))
    snapshot = ledger_selectors.snapshot_ref(user=user, snapshot_id=values.get("snapshot_id"), deployment=deployment)
    with RECALL_SEARCH_SECONDS.labels("api").time():
        outcome = selectors.search(
            user=user,
            query=values["query"],
            k=values["k"],
            sources=values.get("sources"),
            deployment_id=deployment.pk if deployment else None,
            min_score=values.get("min_score"),
            per_source_cap=values.get("per_source_cap"),
            mmr_lambda=values.get("mmr_lambda"),
            half_life_days=values.get("half_life_days"),
            now=timezone.now(),
            embedder=get_embedder(),
        )
    citations = strip_invisible_json(outcome.citations())
    if snapshot is not None:
        citations_attach(snapshot=snapshot, query=values["query"], citations=citations)
    return SearchOutput({"backend": outcome.backend, "results": citations}).data

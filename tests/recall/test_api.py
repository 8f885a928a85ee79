"""The recall API on the real database: indexing documents, listing and deleting them, search with
citations (owner-scoped, attached to decision snapshots), index health, agents' journal appends and
edit proposals (never approved through the API), and a property over arbitrary posted text."""

from __future__ import annotations

import datetime as dt
import string
import time
import uuid

import pytest
from django.test import override_settings
from django.utils import timezone
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from ledger.models import DecisionSnapshot
from memorysite.validators import DOCUMENT_TEXT_NUL
from recall import services
from recall.chunking import document_lines
from recall.embeddings import get_embedder
from recall.models import Chunk, Document, EditProposal, JournalEntry
from recall.selectors import SNIPPET_CHARS
from tests.errors import error_body
from tests.factories import DeploymentFactory, UserFactory, token_client
from tests.openapi import assert_matches_schema

pytestmark = pytest.mark.django_db

DOCUMENTS = "/api/v1/recall/documents/"
SEARCH = "/api/v1/recall/search/"
HEALTH = "/api/v1/recall/health/"
JOURNAL = "/api/v1/recall/journal/"
PROPOSALS = "/api/v1/recall/proposals/"
CITATION_KEYS = {"path", "startLine", "endLine", "score", "snippet", "source", "owner"}
T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)

MANUAL = """# Trading manual

## Entries
Never trade unless two consecutive 5m candles are green.
Wait for the funding rate to be neutral before going long.

## Stops
Place the stop below the last swing low. Never widen a stop.

## Sizing
Risk at most one percent of equity per trade.
"""


WORDS = ("price", "stop", "entry", "exit", "trend", "funding", "volume", "candle", "breakout", "risk", "size", "equity")


def _long_manual(sections: int = 5) -> str:
    """Sections of ~500 tokens each: several chunks, so a one-section edit keeps the others."""
    parts = []
    for n in range(sections):
        parts.append(f"## Section {n}")
        for line in range(40):
            parts.append(" ".join(WORDS[(n + line + i) % len(WORDS)] for i in range(12)) + ".")
        parts.append("")
    return "\n".join(parts)


def post(api, url, body, status):
    response = api.post(url, body, format="json")
    assert response.status_code == status, response.content
    assert_matches_schema(response)
    return response.json()


def index(owner, path, content, *, deployment=None, source="workspace", embed=True):
    result = services.document_upsert(
        owner=owner, path=path, content=content, source=source, deployment=deployment, queue_embedding=False
    )
    if embed:
        services.embed_pending(embedder=get_embedder())
    return result.document


def snapshot_of(api, deployment, at=T0) -> DecisionSnapshot:
    """A decision snapshot made the real way: a tick posted through the tick API."""
    body = {
        "tick_at": at.isoformat(),
        "equity_usd": 10_000,
        "positions": [],
        "marks": {"BTC": 100},
        "proposed_action": {"kind": "hold"},
        "engine": {"kind": "executed"},
    }
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.content
    return DecisionSnapshot.objects.get(pk=response.json()["snapshot_id"])


def assert_400(response, field):
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body["errors"], body
    assert body["detail"].startswith(f"{field}:") or f"{field}:" in body["detail"], body
    return body["errors"][field]


# -- documents: indexing ------------------------------------------------------------------------------


def test_posting_a_document_indexes_it_and_a_new_version_keeps_unchanged_chunks(owner_api, owner):
    content = _long_manual()
    first = post(owner_api, DOCUMENTS, {"path": "agents/btc/playbook.md", "content": content}, 201)
    assert set(first) == {
        "id", "path", "version", "changed", "chunk_count", "chunks_added", "chunks_kept", "chunks_removed",
    }  # fmt: skip
    assert first["path"] == "agents/btc/playbook.md"
    assert (first["version"], first["changed"], first["chunks_kept"], first["chunks_removed"]) == (1, True, 0, 0)
    assert first["chunk_count"] == first["chunks_added"] >= 3
    document = Document.objects.get(pk=first["id"])
    assert (document.owner, document.source, document.deployment, document.content) == (
        owner,
        "workspace",
        None,
        content,
    )
    assert Chunk.objects.filter(document=document).count() == first["chunk_count"]

    again = post(owner_api, DOCUMENTS, {"path": "agents/btc/playbook.md", "content": content}, 200)
    assert (again["id"], again["version"], again["changed"], again["chunks_added"]) == (first["id"], 1, False, 0)
    assert again["chunks_kept"] == first["chunk_count"]

    lines = content.splitlines()
    lines[lines.index("## Section 2") + 3] = "A brand new rule about liquidation cascades."
    edited = "\n".join(lines)
    second = post(owner_api, DOCUMENTS, {"path": "agents/btc/playbook.md", "content": edited}, 201)
    assert (second["id"], second["version"], second["changed"]) == (first["id"], 2, True)
    assert (second["chunks_added"], second["chunks_removed"]) == (1, 1)
    assert second["chunks_kept"] == first["chunk_count"] - 1
    assert Document.objects.count() == 1
    document.refresh_from_db()
    assert (document.version, document.content) == (2, edited)


def test_source_metadata_and_deployment_are_stored(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    body = post(
        owner_api,
        DOCUMENTS,
        {
            "path": "backtests/2026-06.md",
            "content": "# June\nSharpe 1.4\n",
            "source": "backtest",
            "deployment_id": deployment.pk,
            "metadata": {"agent": "btc-5m", "evergreen": True},
        },
        201,
    )
    document = Document.objects.get(pk=body["id"])
    assert (document.source, document.deployment, document.metadata) == (
        "backtest",
        deployment,
        {"agent": "btc-5m", "evergreen": True},
    )
    assert set(Chunk.objects.filter(document=document).values_list("deployment_id", "owner_id")) == {
        (deployment.pk, owner.pk)
    }


BAD_DOCUMENTS = [
    ({"content": "x"}, "path", "required"),
    ({"path": "/abs/manual.md", "content": "x"}, "path", "relative"),
    ({"path": "../x", "content": "x"}, "path", "'..'"),
    ({"path": "a/../../etc/passwd", "content": "x"}, "path", "'..'"),
    ({"path": "a" * 501, "content": "x"}, "path", "at most 500"),
    ({"path": "a.md", "content": 123}, "content", "must be a string"),
    ({"path": "a.md"}, "content", "required"),
    ({"path": "a.md", "content": "nul \x00 here"}, "content", DOCUMENT_TEXT_NUL),
    ({"path": "a.md", "content": "x", "source": "web"}, "source", "must be one of"),
    ({"path": "a.md", "content": "x", "owner": 2}, "owner", "unknown field"),
    ({"path": "a.md", "content": "x", "metadata": ["not", "an", "object"]}, "metadata", "JSON object"),
    ({"path": "a.md", "content": "x", "metadata": "text"}, "metadata", "JSON object"),
    ({"path": "a.md", "content": "x", "metadata": {"k": {"deep": ["nul\u0000"]}}}, "metadata", "NUL"),
    ({"path": "a.md", "content": "x", "metadata": {"nul\u0000key": 1}}, "metadata", "NUL"),
    ({"path": "a.md", "content": "x", "deployment_id": 0}, "deployment_id", "at least 1"),
    ({"path": "a.md", "content": "x", "deployment_id": "one"}, "deployment_id", "integer"),
]


@pytest.mark.parametrize(("body", "field", "message"), BAD_DOCUMENTS)
def test_bad_documents_are_400_naming_the_field_and_write_nothing(owner_api, owner, body, field, message):
    index(owner, "existing.md", "# Existing\nkept\n", embed=False)
    before = (Document.objects.count(), Chunk.objects.count())
    response = owner_api.post(DOCUMENTS, body, format="json")
    rules = assert_400(response, field)
    assert any(message in rule for rule in rules), rules
    assert (Document.objects.count(), Chunk.objects.count()) == before


@pytest.mark.parametrize("source", ["runbook", "playbook"])
def test_a_trader_cannot_write_a_staff_source_but_staff_can(owner_api, owner, source):
    index(owner, "runbooks/outage.md", "# Outage\nmine\n", embed=False)
    before = list(Document.objects.values_list("path", "source", "content_hash"))
    for path in ("runbooks/new.md", "runbooks/outage.md"):  # creating one, or turning one of mine into one
        response = owner_api.post(
            DOCUMENTS, {"path": path, "content": "# Outage\nCall me.\n", "source": source}, format="json"
        )
        assert response.status_code == 400, response.content
        assert response.json()["errors"] == {"source": [services.STAFF_SOURCE_ONLY]}
    assert list(Document.objects.values_list("path", "source", "content_hash")) == before

    staff = token_client(UserFactory(username="curator", is_staff=True))
    body = post(
        staff, DOCUMENTS, {"path": "runbooks/new.md", "content": "# Outage\nCall the desk.\n", "source": source}, 201
    )
    assert Document.objects.get(pk=body["id"]).source == source


def test_a_deployment_of_another_trader_is_404_and_nothing_is_written(owner_api, other):
    theirs = DeploymentFactory(owner=other)
    response = owner_api.post(
        DOCUMENTS, {"path": "a.md", "content": "# A\nx\n", "deployment_id": theirs.pk}, format="json"
    )
    assert response.status_code == 404, response.content
    assert error_body(response) == {"detail": "Not found."}
    assert not Document.objects.exists() and not Chunk.objects.exists()


def test_content_over_the_document_limit_is_400(owner_api):
    response = owner_api.post(DOCUMENTS, {"path": "big.md", "content": "x" * 500_001}, format="json")
    assert any("at most 500000" in rule for rule in assert_400(response, "content"))
    assert not Document.objects.exists()


@pytest.mark.parametrize("path", ["TRADING_MANUAL.md", "agents/btc/SOUL.md"])
def test_a_protected_document_is_created_but_never_rewritten_through_the_api(owner_api, owner, path):
    created = post(owner_api, DOCUMENTS, {"path": path, "content": MANUAL}, 201)
    assert post(owner_api, DOCUMENTS, {"path": path, "content": MANUAL}, 200)["changed"] is False
    response = owner_api.post(DOCUMENTS, {"path": path, "content": "# Manual\nNo rules.\n"}, format="json")
    assert response.status_code == 403, response.content
    assert_matches_schema(response)
    assert "propose" in response.json()["detail"] and "/api/v1/recall/proposals/" in response.json()["detail"]
    document = Document.objects.get(pk=created["id"])
    assert (document.content, document.version) == (MANUAL, 1)
    assert "No rules" not in "".join(Chunk.objects.filter(document=document).values_list("text", flat=True))
    # SOUL.md's name elsewhere is a creation; a second manual beside the first is not (one per deployment scope)
    deployment = DeploymentFactory(owner=owner)
    scoped = {"path": path, "content": "# Manual\nDeployment rules.\n", "deployment_id": deployment.pk}
    if path.endswith("SOUL.md"):
        assert post(owner_api, DOCUMENTS, scoped, 201)["id"] != created["id"]
    else:
        assert post(owner_api, DOCUMENTS, scoped, 409)["manual"]["id"] == created["id"]


def test_the_manual_cannot_be_rewritten_by_deleting_and_recreating_it(owner_api, owner):
    created = post(owner_api, DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": MANUAL}, 201)
    refused = owner_api.delete(f"{DOCUMENTS}{created['id']}/")
    assert refused.status_code == 403 and "protected" in refused.json()["detail"]
    owner_api.post(DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": "# Manual\nNo rules.\n"}, format="json")
    assert Document.objects.get(owner=owner, path="TRADING_MANUAL.md").content == MANUAL


def manual_conflict(api, body, existing: Document) -> None:
    refused = post(api, DOCUMENTS, body, 409)
    assert isinstance(refused.pop("request_id"), str)  # every error body names its request
    where = f"deployment #{existing.deployment_id}" if existing.deployment_id else "all your deployments"
    assert refused == {
        "detail": f"path: one manual per deployment scope: {existing.path} (document {existing.pk}) is already the "
        f"manual of {where}; edit that one (POST /api/v1/recall/proposals/), or the trader deletes it on /recall/ "
        "first",
        "manual": {"id": existing.pk, "path": existing.path, "deployment_id": existing.deployment_id},
    }


def test_one_manual_per_deployment_scope(owner_api, other_api, owner, other):
    first, second = DeploymentFactory(owner=owner), DeploymentFactory(owner=owner)
    manual = {"content": MANUAL}
    # One per deployment: each deployment reads its own.
    mine = post(owner_api, DOCUMENTS, {**manual, "path": "TRADING_MANUAL.md", "deployment_id": first.pk}, 201)
    post(owner_api, DOCUMENTS, {**manual, "path": "agents/b/TRADING_MANUAL.md", "deployment_id": second.pk}, 201)
    first_manual = Document.objects.get(pk=mine["id"])
    # A second in that deployment, under any folder or case, or one for all deployments beside it: refused.
    for body in (
        {**manual, "path": "docs/trading_manual.md", "deployment_id": first.pk},
        {**manual, "path": "TRADING_MANUAL.md"},
    ):
        manual_conflict(owner_api, body, first_manual)
    assert Document.objects.filter(owner=owner).count() == 2
    # Posting the manual in place again is no second manual (unchanged: 200).
    assert post(owner_api, DOCUMENTS, {**manual, "path": "TRADING_MANUAL.md", "deployment_id": first.pk}, 200)
    # Another trader's manuals are theirs: theirs for all deployments is no conflict with mine.
    theirs = post(other_api, DOCUMENTS, {**manual, "path": "TRADING_MANUAL.md"}, 201)
    their_deployment = DeploymentFactory(owner=other)
    body = {**manual, "path": "TRADING_MANUAL.md", "deployment_id": their_deployment.pk}
    manual_conflict(other_api, body, Document.objects.get(pk=theirs["id"]))
    # Once the trader deletes the one in place, another may be created there.
    assert owner_api.delete(f"{DOCUMENTS}{mine['id']}/").status_code == 403  # the manual is protected
    services.document_delete(document=first_manual)
    post(owner_api, DOCUMENTS, {**manual, "path": "docs/trading_manual.md", "deployment_id": first.pk}, 201)


def test_a_synced_folder_reports_a_second_manual_and_indexes_the_rest(owner, tmp_path):
    deployment = DeploymentFactory(owner=owner)
    scoped = services.document_upsert(
        owner=owner, deployment=deployment, path="TRADING_MANUAL.md", content=MANUAL, source="workspace"
    ).document
    (tmp_path / "TRADING_MANUAL.md").write_text(MANUAL)
    (tmp_path / "notes.md").write_text("# Notes\n")
    result = services.folder_sync(owner=owner, root=tmp_path)
    assert (result.scanned, result.changed) == (2, 1)
    assert result.errors == (f"TRADING_MANUAL.md: {services.ManualConflict(scoped)}",)
    assert set(Document.objects.values_list("path", "deployment")) == {
        ("TRADING_MANUAL.md", deployment.pk),
        ("notes.md", None),
    }


@pytest.mark.django_db(transaction=True)
def test_two_manuals_created_at_once_are_a_409_not_a_server_error(owner):
    """The constraint decides a race the check before it cannot see: the second insert waits for the
    first transaction, then is refused."""
    import threading

    from django.db import connection

    from access import scope

    deployment = DeploymentFactory(owner=owner)
    inserted, release = threading.Event(), threading.Event()
    created: list[Document] = []
    responses: list = []

    def first_writer():
        try:
            with scope.owner_scope(owner):
                created.append(
                    services.document_upsert(
                        owner=owner, path="TRADING_MANUAL.md", content=MANUAL, source="workspace"
                    ).document
                )
                inserted.set()
                assert release.wait(20)
        finally:
            connection.close()

    api = token_client(owner)
    api.raise_request_exception = False

    def second_writer():
        try:
            body = {"path": "TRADING_MANUAL.md", "content": MANUAL, "deployment_id": deployment.pk}
            responses.append(api.post(DOCUMENTS, body, format="json"))
        finally:
            connection.close()

    first = threading.Thread(target=first_writer)
    first.start()
    assert inserted.wait(20)
    second = threading.Thread(target=second_writer)
    second.start()
    waiting = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    deadline = time.monotonic() + 20
    with connection.cursor() as cursor:
        while True:
            cursor.execute(waiting)
            if cursor.fetchone()[0]:
                break
            assert time.monotonic() < deadline, "the second insert never waited for the first"
            time.sleep(0.05)
    release.set()
    first.join(20)
    second.join(20)
    (response,) = responses
    assert response.status_code == 409, response.content
    assert_matches_schema(response)
    assert response.json()["manual"] == {"id": created[0].pk, "path": "TRADING_MANUAL.md", "deployment_id": None}
    assert list(Document.objects.values_list("pk", flat=True)) == [created[0].pk]


APPEND_ONLY_RULE = services.APPEND_ONLY


@pytest.mark.parametrize(
    "path",
    ["journal/2026-06-04.md", "memory/learnings-2026-06.md", "memory/notes.md", "journal/week/1.md", "Journal/x.md",
     "MEMORY/x.md", "agents/btc/journal/2026-06-04.md"],
)  # fmt: skip
def test_journal_and_memory_files_are_never_written_through_the_documents_endpoint(owner_api, owner, path):
    deployment = DeploymentFactory(owner=owner)
    for body in ({"path": path, "content": "# Day\nforged\n"}, {"path": path, "content": "x", "source": "journal"}):
        response = owner_api.post(DOCUMENTS, body, format="json")
        assert_matches_schema(response)
        assert assert_400(response, "path") == [APPEND_ONLY_RULE]
        assert response.json()["detail"] == f"path: {APPEND_ONLY_RULE}"
    assert not Document.objects.exists()
    # An existing file (the journal's own) is not overwritten either, nor deleted.
    existing = services.journal_append(deployment=deployment, kind="journal", content="real entry", run_id="r1")
    document = existing.document
    response = owner_api.post(
        DOCUMENTS, {"path": document.path, "content": "rewritten", "deployment_id": deployment.pk}, format="json"
    )
    assert assert_400(response, "path") == [APPEND_ONLY_RULE]
    response = owner_api.delete(f"{DOCUMENTS}{document.pk}/")
    assert response.status_code == 403, response.content
    assert_matches_schema(response)
    assert response.json()["detail"] == services.APPEND_ONLY_DELETE.format(path=document.path)
    document.refresh_from_db()
    assert (document.version, "real entry" in document.content, "rewritten" in document.content) == (1, True, False)


@pytest.mark.parametrize("path", ["journal.md", "notes/journals/x.md", "memory-notes.md", "agents/memory.md"])
def test_paths_that_only_look_like_the_journal_are_ordinary_documents(owner_api, path):
    created = post(owner_api, DOCUMENTS, {"path": path, "content": "# A\nx\n"}, 201)
    assert owner_api.delete(f"{DOCUMENTS}{created['id']}/").status_code == 204


def test_a_deployment_id_beyond_the_integer_range_is_not_a_server_error(owner_api):
    response = owner_api.post(DOCUMENTS, {"path": "a.md", "content": "x", "deployment_id": 2**63}, format="json")
    assert response.status_code in (400, 404), response.content
    assert not Document.objects.exists()


def test_anonymous_callers_are_401_everywhere(anon_api, owner):
    document = index(owner, "a.md", "# A\nx\n", embed=False)
    for method, url, body in (
        ("post", DOCUMENTS, {"path": "a.md", "content": "x"}),
        ("get", DOCUMENTS, None),
        ("get", f"{DOCUMENTS}{document.pk}/", None),
        ("delete", f"{DOCUMENTS}{document.pk}/", None),
        ("post", SEARCH, {"query": "x"}),
        ("get", HEALTH, None),
        ("post", JOURNAL, {"deployment_id": 1, "content": "x", "run_id": "r"}),
        ("get", JOURNAL, None),
        ("post", PROPOSALS, {"document_id": document.pk, "proposed_content": "y", "reason": "r", "run_id": "r"}),
        ("get", PROPOSALS, None),
    ):
        response = getattr(anon_api, method)(url, body, format="json") if body else getattr(anon_api, method)(url)
        assert response.status_code == 401, (method, url, response.content)
    assert Document.objects.count() == 1 and not EditProposal.objects.exists()


# -- documents: list, detail, delete --------------------------------------------------------------------


@pytest.fixture
def three_scopes(owner, other):
    mine = index(owner, "mine.md", "# Mine\nmy notes\n", embed=False)
    journal = index(owner, "journal/2026-06-04.md", "# Day\nnotes\n", source="journal", embed=False)
    global_ = services.document_upsert(
        owner=None, path="runbooks/outage.md", content="# Outage\nCall the desk.\n", source="runbook"
    ).document
    theirs = index(other, "theirs.md", "# Theirs\nsecret\n", embed=False)
    return mine, journal, global_, theirs


def test_the_list_is_own_and_global_documents_never_another_traders(owner_api, three_scopes):
    mine, journal, global_, theirs = three_scopes
    response = owner_api.get(DOCUMENTS)
    assert response.status_code == 200
    assert_matches_schema(response)
    body = response.json()
    assert body["count"] == 3
    listed = {row["id"]: row for row in body["results"]}
    assert set(listed) == {mine.pk, journal.pk, global_.pk} and theirs.pk not in listed
    assert listed[global_.pk]["scope"] == "global" and listed[mine.pk]["scope"] == "owner"
    assert listed[journal.pk]["source"] == "journal"
    filtered = owner_api.get(DOCUMENTS, {"source": "runbook"})
    assert_matches_schema(filtered)
    assert [row["id"] for row in filtered.json()["results"]] == [global_.pk]
    assert [row["id"] for row in owner_api.get(DOCUMENTS, {"source": "journal"}).json()["results"]] == [journal.pk]
    assert owner_api.get(DOCUMENTS, {"source": "transcript"}).json()["count"] == 0
    assert_400(owner_api.get(DOCUMENTS, {"source": "bogus"}), "source")
    assert_400(owner_api.get(DOCUMENTS, {"owner": "1"}), "owner")


def test_the_list_filters_by_deployment(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    scoped = index(owner, "journal/x.md", "# X\nx\n", deployment=deployment, embed=False)
    index(owner, "shared.md", "# S\ns\n", embed=False)
    body = owner_api.get(DOCUMENTS, {"deployment_id": deployment.pk}).json()
    assert [row["id"] for row in body["results"]] == [scoped.pk]
    assert body["results"][0]["scope"] == "deployment"


def test_one_document_is_readable_when_own_or_global_and_404_otherwise(owner_api, three_scopes):
    mine, _, global_, theirs = three_scopes
    for document in (mine, global_):
        response = owner_api.get(f"{DOCUMENTS}{document.pk}/")
        assert response.status_code == 200, response.content
        assert_matches_schema(response)
        assert (response.json()["id"], response.json()["path"]) == (document.pk, document.path)
    response = owner_api.get(f"{DOCUMENTS}{theirs.pk}/")
    assert response.status_code == 404
    assert_matches_schema(response)
    assert owner_api.get(f"{DOCUMENTS}999999/").status_code == 404


def test_delete_removes_own_documents_only(owner_api, three_scopes):
    mine, _, global_, theirs = three_scopes
    assert Chunk.objects.filter(document=mine).exists()
    response = owner_api.delete(f"{DOCUMENTS}{mine.pk}/")
    assert response.status_code == 204, response.content
    assert_matches_schema(response)
    assert not Document.objects.filter(pk=mine.pk).exists()
    assert not Chunk.objects.filter(document_id=mine.pk).exists()

    response = owner_api.delete(f"{DOCUMENTS}{theirs.pk}/")
    assert response.status_code == 404
    assert Document.objects.filter(pk=theirs.pk).exists() and Chunk.objects.filter(document=theirs).exists()

    response = owner_api.delete(f"{DOCUMENTS}{global_.pk}/")
    assert response.status_code == 403, response.content
    assert_matches_schema(response)
    assert Document.objects.filter(pk=global_.pk).exists() and Chunk.objects.filter(document=global_).exists()


# -- search -------------------------------------------------------------------------------------------


def search(api, status=200, **body):
    return post(api, SEARCH, body, status)


def assert_citation(citation):
    assert set(citation) == CITATION_KEYS, citation
    assert isinstance(citation["path"], str) and citation["path"]
    assert isinstance(citation["startLine"], int) and isinstance(citation["endLine"], int)
    assert 1 <= citation["startLine"] <= citation["endLine"]
    assert isinstance(citation["score"], float) and 0 < citation["score"] <= 1
    assert isinstance(citation["snippet"], str) and citation["snippet"]
    assert citation["source"] in {"fts", "vector", "hybrid"}
    assert citation["owner"] in {"yours", "staff"}


def test_search_returns_citations_in_the_seed_shape(owner_api, owner):
    index(owner, "agents/btc/TRADING_MANUAL.md", MANUAL)
    body = search(owner_api, query="when should I place my stop loss?")
    assert set(body) == {"backend", "results"} and body["backend"] == "hybrid"
    assert body["results"]
    for citation in body["results"]:
        assert_citation(citation)
    top = body["results"][0]
    assert top["path"] == "agents/btc/TRADING_MANUAL.md" and "stop" in top["snippet"].lower()
    lines = MANUAL.splitlines()
    assert top["snippet"] == "\n".join(lines[top["startLine"] - 1 : top["endLine"]]).strip()


def test_citations_say_whose_document_it_is(owner_api, three_scopes):
    index(three_scopes[0].owner, "runbooks/outage.md", "# Outage\nCall my own desk.\n", source="workspace")
    services.embed_pending(embedder=get_embedder())
    results = search(owner_api, query="outage desk")["results"]
    owners = {(citation["path"], citation["owner"]) for citation in results}
    assert {("runbooks/outage.md", "staff"), ("runbooks/outage.md", "yours")} <= owners


def test_without_embeddings_the_backend_is_keyword_search(owner_api, owner):
    index(owner, "notes.md", "# Notes\nThe funding rate flipped negative overnight.\n", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        body = search(owner_api, query="funding rate")
    assert body["backend"] == "fts"
    assert [(c["path"], c["source"]) for c in body["results"]] == [("notes.md", "fts")]


def test_another_traders_content_never_appears_for_any_query(owner_api, other_api, owner, other):
    index(other, "secret.md", "# Secret\nzorblaxian strategy: buy every zorblaxian dip at the open.\n")
    index(other, "secret2.md", "# Stops\nPlace the stop below the last swing low, zorblaxian style.\n")
    index(owner, "mine.md", MANUAL)
    deployment = DeploymentFactory(owner=owner)
    for query in (
        "zorblaxian",
        "zorblaxian strategy buy every dip",
        "secret",
        "where do I place my stop?",
        "buy the dip at the open",
    ):
        for extra in ({}, {"deployment_id": deployment.pk}, {"sources": ["workspace"]}):
            body = search(owner_api, query=query, k=50, **extra)
            assert all(c["path"] == "mine.md" for c in body["results"]), (query, body)
            assert all("zorblaxian" not in c["snippet"] for c in body["results"])
    theirs = search(other_api, query="zorblaxian")
    assert theirs["results"][0]["path"] == "secret.md"


def test_k_caps_the_number_of_results(owner_api, owner):
    for n in range(6):
        index(owner, f"notes/{n}.md", f"# Note {n}\nquokka setup number {n}\n", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        assert len(search(owner_api, query="quokka")["results"]) == 6
        assert len(search(owner_api, query="quokka", k=2)["results"]) == 2
        assert len(search(owner_api, query="quokka", k=1)["results"]) == 1
        assert len(search(owner_api, query="quokka", k=50)["results"]) == 6


def test_sources_and_per_source_cap_and_min_score_filter(owner_api, owner):
    for n in range(4):
        index(owner, f"journal/{n}.md", f"# Day {n}\nnarwhal trade {n}\n", source="journal", embed=False)
    index(owner, "backtests/x.md", "# Backtest\nnarwhal backtest\n", source="backtest", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        only = search(owner_api, query="narwhal", sources=["backtest"])["results"]
        assert [c["path"] for c in only] == ["backtests/x.md"]
        capped = search(owner_api, query="narwhal", per_source_cap=2)["results"]
        assert sum(c["path"].startswith("journal/") for c in capped) == 2
        assert any(c["path"] == "backtests/x.md" for c in capped)
        everything = search(owner_api, query="narwhal backtest", min_score=0)["results"]
        strict = search(owner_api, query="narwhal backtest", min_score=everything[0]["score"] - 0.0001)["results"]
        assert strict and all(c["score"] >= everything[0]["score"] - 0.0001 for c in strict)
        assert len(strict) < len(everything)
        # The default floor: the journal entries share only "narwhal", in every chunk (idf near 0).
        floored = search(owner_api, query="narwhal backtest")["results"]
        assert [c["path"] for c in floored] == ["backtests/x.md"]


def test_deployment_scoped_search_reads_that_deployment_and_shared_documents(owner_api, owner):
    first, second = DeploymentFactory(owner=owner), DeploymentFactory(owner=owner)
    index(owner, "journal/a.md", "# A\nquokka setup worked\n", deployment=first, embed=False)
    index(owner, "journal/b.md", "# B\nquokka setup failed\n", deployment=second, embed=False)
    index(owner, "shared.md", "# Shared\nquokka rules for all\n", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        paths = {c["path"] for c in search(owner_api, query="quokka", deployment_id=first.pk)["results"]}
    assert paths == {"journal/a.md", "shared.md"}


BAD_SEARCHES = [
    ({"query": ""}, "query", "blank"),
    ({"query": "   \n "}, "query", "blank"),
    ({"query": "x" * 1001}, "query", "at most 1000"),
    ({"query": 42}, "query", "string"),
    ({"query": "bell \x07"}, "query", "control"),
    ({}, "query", "required"),
    ({"query": "x", "k": 0}, "k", "between 1 and 50"),
    ({"query": "x", "k": 51}, "k", "between 1 and 50"),
    ({"query": "x", "k": "ten"}, "k", "integer"),
    ({"query": "x", "sources": ["web"]}, "sources.0", "must be one of"),
    ({"query": "x", "sources": []}, "sources", "empty"),
    ({"query": "x", "sources": "journal"}, "sources", "list"),
    ({"query": "x", "min_score": 2}, "min_score", "must be <= 1"),
    ({"query": "x", "min_score": -0.1}, "min_score", "must be >= 0"),
    ({"query": "x", "min_score": "high"}, "min_score", "number"),
    ({"query": "x", "min_score": True}, "min_score", "must be a number"),
    ({"query": "x", "per_source_cap": 0}, "per_source_cap", "between 1 and 50"),
    ({"query": "x", "snapshot_id": "not-a-uuid"}, "snapshot_id", "UUID"),
    ({"query": "x", "backend": "vector"}, "backend", "unknown field"),
]


@pytest.mark.parametrize(("body", "field", "message"), BAD_SEARCHES)
def test_bad_searches_are_400_naming_the_field(owner_api, body, field, message):
    response = owner_api.post(SEARCH, body, format="json")
    rules = assert_400(response, field)
    assert any(message in rule for rule in rules), rules
    assert_matches_schema(response)


def test_a_null_snapshot_or_deployment_is_no_snapshot(owner_api, owner):
    index(owner, "mine.md", "# Mine\nquokka\n", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        body = search(owner_api, query="quokka", snapshot_id=None, deployment_id=None, per_source_cap=None)
    assert [c["path"] for c in body["results"]] == ["mine.md"]


def test_a_keyword_deep_in_a_chunk_is_cited_with_the_word_in_its_snippet(owner_api, owner):
    """Chunks run to 800 tokens, snippets to 700 characters: the snippet is the window around the hit."""
    filler = "\n".join(f"filler line {n} about price action and the trend" for n in range(60))
    index(owner, "long.md", f"# Long\n{filler}\nthe qzmarker rule\n", embed=False)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        (hit,) = search(owner_api, query="qzmarker")["results"]
    assert (hit["startLine"], hit["endLine"]) == (1, 62)
    assert "qzmarker" in hit["snippet"] and hit["snippet"].startswith("…")
    assert len(hit["snippet"]) <= SNIPPET_CHARS


def test_a_deployment_or_snapshot_of_another_trader_is_404(owner_api, other_api, owner, other):
    index(owner, "mine.md", "# Mine\nquokka\n", embed=False)
    theirs = DeploymentFactory(owner=other)
    their_snapshot = snapshot_of(other_api, theirs)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        for body in (
            {"query": "quokka", "deployment_id": theirs.pk},
            {"query": "quokka", "snapshot_id": str(their_snapshot.pk)},
            {"query": "quokka", "snapshot_id": str(uuid.uuid4())},
        ):
            response = owner_api.post(SEARCH, body, format="json")
            assert response.status_code == 404, (body, response.content)
            assert_matches_schema(response)
    their_snapshot.refresh_from_db()
    assert their_snapshot.citations is None


def test_citations_are_attached_to_the_callers_snapshot_and_appended(owner_api, owner):
    index(owner, "agents/btc/TRADING_MANUAL.md", MANUAL)
    deployment = DeploymentFactory(owner=owner)
    snapshot = snapshot_of(owner_api, deployment)
    assert snapshot.citations is None
    first = search(owner_api, query="where is the stop?", snapshot_id=str(snapshot.pk), deployment_id=deployment.pk)
    snapshot.refresh_from_db()
    assert snapshot.citations == [{"query": "where is the stop?", "results": first["results"]}]
    second = search(owner_api, query="how much to risk per trade", snapshot_id=str(snapshot.pk), k=2)
    snapshot.refresh_from_db()
    assert snapshot.citations == [
        {"query": "where is the stop?", "results": first["results"]},
        {"query": "how much to risk per trade", "results": second["results"]},
    ]
    assert len(second["results"]) <= 2
    # the snapshot of one deployment is not attached to a search scoped to another
    elsewhere = DeploymentFactory(owner=owner)
    response = owner_api.post(
        SEARCH, {"query": "stop", "snapshot_id": str(snapshot.pk), "deployment_id": elsewhere.pk}, format="json"
    )
    assert response.status_code == 404
    snapshot.refresh_from_db()
    assert len(snapshot.citations) == 2


# -- health -------------------------------------------------------------------------------------------


def health(api):
    response = api.get(HEALTH)
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    return response.json()


def test_health_counts_own_and_global_chunks_and_those_pending_embedding(owner_api, other_api, owner, other):
    empty = health(owner_api)
    assert empty == {"documents": 0, "chunks": 0, "pending": 0, "last_sync_at": None, "errors": []}
    mine = post(owner_api, DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": _long_manual()}, 201)
    services.document_upsert(owner=None, path="runbooks/outage.md", content="# Outage\nCall.\n", source="runbook")
    index(other, "theirs.md", "# Theirs\n" + "\n".join(f"line {n}" for n in range(10)), embed=False)
    pending = health(owner_api)
    assert pending["documents"] == 2
    assert pending["chunks"] == mine["chunk_count"] + 1
    assert pending["pending"] == mine["chunk_count"] + 1 > 0
    assert pending["last_sync_at"] is None
    services.embed_pending(embedder=get_embedder())
    done = health(owner_api)
    assert (done["documents"], done["chunks"], done["pending"], done["errors"]) == (2, pending["chunks"], 0, [])
    assert done["last_sync_at"] is not None
    theirs = health(other_api)
    assert (theirs["documents"], theirs["chunks"]) == (2, 2)


def test_health_lists_indexing_errors_of_readable_documents_only(owner_api, owner, other):
    mine = index(owner, "mine.md", "# A\nx\n", embed=False)
    theirs = index(other, "theirs.md", "# B\ny\n", embed=False)
    Document.objects.filter(pk__in=[mine.pk, theirs.pk]).update(index_error="embedding failed: boom")
    assert health(owner_api)["errors"] == [{"path": "mine.md", "error": "embedding failed: boom"}]


def test_health_pending_is_zero_when_embeddings_are_off(owner_api, owner):
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        body = post(owner_api, DOCUMENTS, {"path": "a.md", "content": "# A\nx\n"}, 201)
        assert Chunk.objects.filter(document_id=body["id"], embedding__isnull=True).exists()
        state = health(owner_api)
    assert (state["documents"], state["pending"]) == (1, 0)
    assert state["last_sync_at"] is not None


def test_a_version_that_only_drops_chunks_stays_pending_while_kept_chunks_wait(owner):
    content = _long_manual(sections=3)
    first = services.document_upsert(owner=owner, path="a.md", content=content, source="workspace")
    assert first.document.indexed_at is None and first.chunks_added == 3
    shorter = content[: content.index("## Section 2")]
    second = services.document_upsert(owner=owner, path="a.md", content=shorter, source="workspace")
    assert (second.chunks_added, second.chunks_kept, second.chunks_removed) == (0, 2, 1)
    assert second.document.indexed_at is None  # its two kept chunks still wait for their vectors
    assert services.embed_pending(embedder=get_embedder()) == 2
    second.document.refresh_from_db()
    assert second.document.indexed_at is not None


def test_a_run_that_finds_nothing_pending_marks_documents_left_unmarked(owner):
    document = index(owner, "a.md", "# A\nx\n")
    Document.objects.filter(pk=document.pk).update(indexed_at=None)  # a worker lost between its transactions
    index(owner, "b.md", "# B\ny\n", embed=False)  # still pending: stays unmarked
    assert services.embed_pending(embedder=get_embedder(), max_batches=0) == 0
    assert Document.objects.get(pk=document.pk).indexed_at is None  # stopped by max_batches, not drained
    assert services.embed_pending(embedder=get_embedder()) == 1
    assert not Document.objects.filter(indexed_at__isnull=True).exists()


# -- journal ------------------------------------------------------------------------------------------


def test_a_journal_entry_is_appended_attributed_and_searchable(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    snapshot = snapshot_of(owner_api, deployment)
    before = dt.datetime.now(dt.UTC).date()
    body = post(
        owner_api,
        JOURNAL,
        {
            "deployment_id": deployment.pk,
            "content": "Skipped the wombatish pump: volume was thin.",
            "run_id": "run-1",
            "snapshot_id": str(snapshot.pk),
        },
        201,
    )
    after = dt.datetime.now(dt.UTC).date()
    assert body["path"] in {f"journal/{before.isoformat()}.md", f"journal/{after.isoformat()}.md"}
    assert (body["run_id"], body["snapshot_id"], body["kind"], body["deployment_id"]) == (
        "run-1",
        str(snapshot.pk),
        "journal",
        deployment.pk,
    )
    second = post(
        owner_api, JOURNAL, {"deployment_id": deployment.pk, "content": "Took the retest long.", "run_id": "run-2"}, 201
    )
    assert second["path"] == body["path"] and second["snapshot_id"] is None
    document = Document.objects.get(owner=owner, deployment=deployment, path=body["path"])
    assert (document.source, document.version) == ("journal", 2)
    assert "run run-1" in document.content and "run run-2" in document.content
    assert document.content.index("wombatish") < document.content.index("retest")
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        hits = search(owner_api, query="wombatish")["results"]
    assert [c["path"] for c in hits] == [body["path"]] and "wombatish" in hits[0]["snippet"]
    assert hits[0]["source"] == "fts"

    learning = post(
        owner_api,
        JOURNAL,
        {"deployment_id": deployment.pk, "kind": "learning", "content": "Fade wicks.", "run_id": "r3"},
        201,
    )
    month = timezone.now().strftime("%Y-%m")
    assert learning["path"] == f"memory/learnings-{month}.md" and learning["kind"] == "learning"
    note = post(
        owner_api, JOURNAL, {"deployment_id": deployment.pk, "kind": "note", "content": "n", "run_id": "r4"}, 201
    )
    assert note["path"] == f"memory/notes-{month}.md"


def test_bad_journal_entries_are_refused_and_nothing_is_written(owner_api, other_api, owner, other):
    mine = DeploymentFactory(owner=owner)
    sibling = DeploymentFactory(owner=owner)
    theirs = DeploymentFactory(owner=other)
    sibling_snapshot = snapshot_of(owner_api, sibling)
    their_snapshot = snapshot_of(other_api, theirs)
    good = {"deployment_id": mine.pk, "content": "entry", "run_id": "run-1"}
    for change, field in (
        ({"kind": "rewrite"}, "kind"),
        ({"kind": "manual"}, "kind"),
        ({"content": ""}, "content"),
        ({"content": "  \n\t "}, "content"),
        ({"content": "nul \x00"}, "content"),
        ({"content": "x" * 20_001}, "content"),
        ({"run_id": "run\n2"}, "run_id"),
        ({"run_id": ""}, "run_id"),
        ({"run_id": "r" * 101}, "run_id"),
        ({"snapshot_id": "nope"}, "snapshot_id"),
        ({"path": "TRADING_MANUAL.md"}, "path"),
    ):
        assert_400(owner_api.post(JOURNAL, {**good, **change}, format="json"), field)
    missing = {key: value for key, value in good.items() if key != "run_id"}
    assert_400(owner_api.post(JOURNAL, missing, format="json"), "run_id")
    for change in (
        {"deployment_id": theirs.pk},
        {"snapshot_id": str(their_snapshot.pk)},
        {"snapshot_id": str(sibling_snapshot.pk)},
        {"snapshot_id": str(uuid.uuid4())},
    ):
        response = owner_api.post(JOURNAL, {**good, **change}, format="json")
        assert response.status_code == 404, (change, response.content)
        assert_matches_schema(response)
    assert not JournalEntry.objects.exists() and not Document.objects.exists()


def test_the_journal_list_is_own_entries_only(owner_api, other_api, owner, other):
    mine, theirs = DeploymentFactory(owner=owner), DeploymentFactory(owner=other)
    services.journal_append(deployment=mine, kind="journal", content="mine 1", run_id="a")
    services.journal_append(deployment=mine, kind="learning", content="mine 2", run_id="b")
    services.journal_append(deployment=theirs, kind="journal", content="theirs", run_id="c")
    response = owner_api.get(JOURNAL)
    assert response.status_code == 200
    assert_matches_schema(response)
    body = response.json()
    assert body["count"] == 2
    assert [row["content"] for row in body["results"]] == ["mine 2", "mine 1"]
    assert owner_api.get(JOURNAL, {"deployment_id": theirs.pk}).json()["count"] == 0
    assert other_api.get(JOURNAL).json()["count"] == 1


def test_a_journal_entry_outlives_its_document_deleted_by_the_trader(owner_api, owner, client):
    deployment = DeploymentFactory(owner=owner)
    entry = post(owner_api, JOURNAL, {"deployment_id": deployment.pk, "content": "x", "run_id": "r1"}, 201)
    document = Document.objects.get(path=entry["path"])
    assert owner_api.delete(f"{DOCUMENTS}{document.pk}/").status_code == 403  # not on the agent's token
    client.force_login(owner)
    assert client.post(f"/recall/documents/{document.pk}/delete/").status_code == 302
    assert not Document.objects.filter(pk=document.pk).exists()
    response = owner_api.get(JOURNAL)
    assert_matches_schema(response)
    (row,) = response.json()["results"]
    assert (row["id"], row["path"], row["content"]) == (entry["id"], None, "x")


# -- edit proposals -----------------------------------------------------------------------------------


def test_a_proposal_waits_for_the_trader_and_cannot_be_approved_through_the_api(owner_api, owner):
    manual = index(owner, "TRADING_MANUAL.md", MANUAL, embed=False)
    deployment = DeploymentFactory(owner=owner)
    snapshot = snapshot_of(owner_api, deployment)
    proposed = MANUAL + "\n## FOMC\nNo trades on FOMC days.\n"
    body = post(
        owner_api,
        PROPOSALS,
        {
            "document_id": manual.pk,
            "proposed_content": proposed,
            "reason": "lost twice on FOMC",
            "run_id": "run-9",
            "snapshot_id": str(snapshot.pk),
        },
        201,
    )
    assert (body["status"], body["document_id"], body["path"], body["run_id"]) == (
        "pending",
        manual.pk,
        "TRADING_MANUAL.md",
        "run-9",
    )
    assert (body["base_hash"], body["proposed_content"], body["decided_at"]) == (manual.content_hash, proposed, None)
    assert body["snapshot_id"] == str(snapshot.pk)
    manual.refresh_from_db()
    assert (manual.content, manual.version) == (MANUAL, 1)
    with override_settings(EMBEDDINGS_PROVIDER="none"):
        assert search(owner_api, query="FOMC")["results"] == []
    for url in (f"{PROPOSALS}{body['id']}/approve/", f"{PROPOSALS}{body['id']}/", f"{PROPOSALS}{body['id']}/decide/"):
        for method in ("post", "put", "patch"):
            response = getattr(owner_api, method)(url, {"status": "approved"}, format="json")
            assert response.status_code == 404, (method, url, response.status_code)
    manual.refresh_from_db()
    assert (manual.content, manual.version) == (MANUAL, 1)
    assert EditProposal.objects.get(pk=body["id"]).status == "pending"
    listed = owner_api.get(PROPOSALS, {"status": "pending"})
    assert_matches_schema(listed)
    assert [row["id"] for row in listed.json()["results"]] == [body["id"]]
    assert owner_api.get(PROPOSALS, {"status": "approved"}).json()["count"] == 0
    assert_400(owner_api.get(PROPOSALS, {"status": "merged"}), "status")


def test_proposals_on_documents_not_owned_are_404(owner_api, owner, other):
    theirs = index(other, "TRADING_MANUAL.md", MANUAL, embed=False)
    global_ = services.document_upsert(
        owner=None, path="playbooks/breakout.md", content="# Breakout\nWait.\n", source="playbook"
    ).document
    for document in (theirs, global_):
        response = owner_api.post(
            PROPOSALS,
            {"document_id": document.pk, "proposed_content": "# Mine now\n", "reason": "r", "run_id": "r1"},
            format="json",
        )
        assert response.status_code == 404, response.content
        assert_matches_schema(response)
    assert not EditProposal.objects.exists()


def test_bad_proposals_are_400(owner_api, other_api, owner, other):
    manual = index(owner, "TRADING_MANUAL.md", MANUAL, embed=False)
    good = {"document_id": manual.pk, "proposed_content": MANUAL + "more\n", "reason": "why", "run_id": "r1"}
    response = owner_api.post(PROPOSALS, {**good, "proposed_content": MANUAL}, format="json")
    assert response.status_code == 400, response.content
    assert "current content" in response.json()["detail"]
    for change, field in (
        ({"reason": ""}, "reason"),
        ({"run_id": "a\nb"}, "run_id"),
        ({"proposed_content": "nul \x00"}, "proposed_content"),
        ({"document_id": "x"}, "document_id"),
        ({"status": "approved"}, "status"),
    ):
        assert_400(owner_api.post(PROPOSALS, {**good, **change}, format="json"), field)
    their_snapshot = snapshot_of(other_api, DeploymentFactory(owner=other))
    response = owner_api.post(PROPOSALS, {**good, "snapshot_id": str(their_snapshot.pk)}, format="json")
    assert response.status_code == 404
    assert not EditProposal.objects.exists()


def test_the_proposal_list_is_own_only(owner_api, other_api, owner, other):
    mine = index(owner, "TRADING_MANUAL.md", MANUAL, embed=False)
    theirs = index(other, "TRADING_MANUAL.md", MANUAL, embed=False)
    services.proposal_create(document=mine, proposed_content="# a\n", reason="r", run_id="r1")
    services.proposal_create(document=theirs, proposed_content="# b\n", reason="r", run_id="r2")
    assert [row["run_id"] for row in owner_api.get(PROPOSALS, {"status": "pending"}).json()["results"]] == ["r1"]
    assert [row["run_id"] for row in other_api.get(PROPOSALS).json()["results"]] == ["r2"]


# -- property: what is posted is what is cited ---------------------------------------------------------

_LINE = st.one_of(
    st.just(""),
    st.sampled_from(["# Title", "## Risk", "### Stops #", "```", "~~~", "- item", "1. step", "> quote", "    code"]),
    # letters, digits, punctuation, symbols, spaces and the Unicode line/paragraph separators
    st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Zs", "Zl", "Zp")), max_size=40),
    # now and then a long paragraph, so a document is cut into several chunks and windows
    st.lists(
        st.sampled_from(["stop", "entry", "risk,", "size", "1.25", "(trend)", "volume"]), min_size=50, max_size=300
    ).map(" ".join),
)


@given(
    lines=st.one_of(st.lists(_LINE, max_size=12), st.lists(_LINE, min_size=20, max_size=40)),
    marker=st.text(alphabet=string.ascii_lowercase, min_size=4, max_size=12),
    position=st.integers(min_value=0, max_value=40),
    ending=st.sampled_from(["\n", "\r\n"]),
    trailing=st.booleans(),
)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_property_every_chunk_is_its_lines_and_a_word_in_the_text_is_cited(
    owner_api, owner, lines, marker, position, ending, trailing
):
    marker = f"qz{marker}"  # never an English stop word
    lines = list(lines)
    at = min(position, len(lines))
    lines.insert(at, f"the {marker} rule")
    content = ending.join(lines) + (ending if trailing else "")
    original = document_lines(content)
    marker_line = next(n for n, line in enumerate(original, start=1) if line == f"the {marker} rule")
    try:
        with override_settings(EMBEDDINGS_PROVIDER="none"):
            response = owner_api.post(DOCUMENTS, {"path": "prop/doc.md", "content": content}, format="json")
            assert response.status_code in (200, 201), response.content
            found = owner_api.post(SEARCH, {"query": marker, "k": 50}, format="json")
        document = Document.objects.get(pk=response.json()["id"])
        assert document.content == content
        chunks = list(Chunk.objects.filter(document=document).order_by("ordinal"))
        assert len(chunks) == document.chunk_count >= 1
        for chunk in chunks:
            assert chunk.text == "\n".join(original[chunk.start_line - 1 : chunk.end_line])
        assert found.status_code == 200, found.content
        citations = found.json()["results"]
        for citation in citations:
            assert_citation(citation)
            whole = "\n".join(original[citation["startLine"] - 1 : citation["endLine"]]).strip()
            shown = citation["snippet"]
            assert len(shown) <= SNIPPET_CHARS
            if shown != whole:  # a window of the chunk, an ellipsis on each side that was cut
                assert len(whole) > SNIPPET_CHARS and (shown.startswith("…") or shown.endswith("…"))
                inner = shown.removeprefix("…").removesuffix("…")
                assert inner in whole
                assert shown.startswith("…") == (not whole.startswith(inner))
        (cited,) = [c for c in citations if c["startLine"] <= marker_line <= c["endLine"]]
        assert cited["path"] == "prop/doc.md"
        holder = next(c for c in chunks if c.start_line <= marker_line <= c.end_line)
        event(f"{min(len(chunks), 3)}{'+' if len(chunks) >= 3 else ''} chunks")
        event("the marker's chunk fits the snippet" if len(holder.text.strip()) <= SNIPPET_CHARS else "a window")
        assert marker in cited["snippet"].lower(), (marker, cited)
    finally:
        Document.objects.filter(path="prop/doc.md").delete()


def test_diversity_and_recency_are_optional_search_settings(owner_api, owner):
    for n in range(3):
        index(owner, f"dup{n}.md", "# Stops\nNever widen a stop loss once it is placed.\n")
    index(owner, "other.md", "# Sizing\nRisk one percent per trade and never widen a stop.\n")
    plain = search(owner_api, query="widen a stop loss", k=2)["results"]
    diverse = search(owner_api, query="widen a stop loss", k=2, mmr_lambda=0.3)["results"]
    assert [r["path"] for r in plain] == ["dup0.md", "dup1.md"]
    assert diverse[0]["path"] == "dup0.md" and diverse[1]["path"] == "other.md"
    assert search(owner_api, query="widen a stop loss", k=2, half_life_days=30)["results"]
    for field, value in (("mmr_lambda", 1.5), ("mmr_lambda", "high"), ("half_life_days", 0), ("half_life_days", True)):
        response = owner_api.post(SEARCH, {"query": "x", field: value}, format="json")
        assert response.status_code == 400 and field in response.json()["errors"], (field, value)

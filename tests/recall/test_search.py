"""Recall on the real database: indexing and change detection, both search sides owner-scoped
(including the HNSW path), k results under a filter, journal appends and edit proposals."""

from __future__ import annotations

import datetime as dt
import random

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from access import scope
from recall import bm25, selectors, services
from recall.embeddings import get_embedder
from recall.models import Chunk, Document, EditProposal, JournalEntry, ProposalStatus
from tests.dbroles import idle_pool_connection, owner_connection
from tests.factories import DeploymentFactory, UserFactory

NOW = dt.datetime(2026, 11, 22, 12, 0, tzinfo=dt.UTC)
pytestmark = pytest.mark.django_db

MANUAL = """# Trading manual

## Entries
Never trade unless two consecutive 5m candles are green.
Wait for the funding rate to be neutral before going long.

## Stops
Place the stop below the last swing low. Never widen a stop.

## Sizing
Risk at most one percent of equity per trade.
"""


def embedder():
    return get_embedder()


def index(owner, path, content, *, deployment=None, source="workspace", embed=True):
    result = services.document_upsert(
        owner=owner, path=path, content=content, source=source, deployment=deployment, queue_embedding=False
    )
    if embed:
        services.embed_pending(embedder=embedder())
    return result


def search(user, query, **options):
    options.setdefault("embedder", embedder())
    return selectors.search(user=user, query=query, now=NOW, **options)


# -- indexing ---------------------------------------------------------------------------------------


def test_a_document_is_chunked_with_line_ranges_and_embedded_by_the_pass(owner):
    result = index(owner, "TRADING_MANUAL.md", MANUAL, embed=False)
    assert (result.created, result.changed, result.chunks_added) == (True, True, result.document.chunk_count)
    assert Chunk.objects.filter(document=result.document, embedding__isnull=True).count() == result.chunks_added
    assert selectors.index_health(user=owner)["pending"] == result.chunks_added
    embedded = services.embed_pending(embedder=embedder())
    assert embedded == result.chunks_added
    document = Document.objects.get(pk=result.document.pk)
    assert document.indexed_at is not None
    health = selectors.index_health(user=owner)
    assert (health["documents"], health["chunks"], health["pending"], health["errors"]) == (
        1,
        document.chunk_count,
        0,
        [],
    )
    lines = MANUAL.splitlines()
    for chunk in Chunk.objects.filter(document=document):
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert len(chunk.embedding) == 384


def _long_manual(sections: int = 6) -> str:
    rng = random.Random(7)
    words = [
        "price",
        "stop",
        "entry",
        "exit",
        "trend",
        "funding",
        "volume",
        "candle",
        "breakout",
        "risk",
        "size",
        "equity",
    ]
    parts = []
    for n in range(sections):
        parts.append(f"## Section {n}")
        for _ in range(40):
            parts.append(" ".join(rng.choice(words) for _ in range(14)) + ".")
        parts.append("")
    return "\n".join(parts)


def test_a_new_version_re_embeds_only_the_chunks_that_changed(owner):
    content = _long_manual()
    first = index(owner, "TRADING_MANUAL.md", content)
    before = {c.content_hash: (c.pk, c.embedded_at) for c in Chunk.objects.filter(document=first.document)}
    assert len(before) >= 4
    lines = content.splitlines()
    target = lines.index("## Section 3") + 2
    lines[target] = "A brand new rule about liquidation cascades."
    second = services.document_upsert(
        owner=owner, path="TRADING_MANUAL.md", content="\n".join(lines), source="workspace", queue_embedding=False
    )
    assert second.changed and not second.created
    assert second.chunks_added == second.chunks_removed == 1
    assert second.chunks_kept == len(before) - 1
    assert Chunk.objects.filter(document=first.document, embedding__isnull=True).count() == 1
    assert services.embed_pending(embedder=embedder()) == 1
    after = {c.content_hash: (c.pk, c.embedded_at) for c in Chunk.objects.filter(document=first.document)}
    assert len(set(after) & set(before)) == len(before) - 1
    for digest in set(after) & set(before):
        assert after[digest] == before[digest]  # same row, same embedding time: not re-embedded
    document = Document.objects.get(pk=first.document.pk)
    assert document.version == 2


def test_the_same_content_again_changes_nothing(owner):
    first = index(owner, "SOUL.md", MANUAL)
    again = services.document_upsert(owner=owner, path="SOUL.md", content=MANUAL, source="workspace")
    assert (again.changed, again.chunks_added, again.document.version) == (False, 0, 1)
    assert Chunk.objects.filter(document=first.document, embedding__isnull=True).count() == 0


@pytest.mark.parametrize("path", ["", "/etc/passwd", "a/../b.md", "a//b.md", "a\\b.md", "x" * 501, "a\nb.md"])
def test_bad_paths_are_refused_and_nothing_is_written(owner, path):
    with pytest.raises(ValidationError):
        services.document_upsert(owner=owner, path=path, content="text", source="workspace")
    assert not Document.objects.exists()


def test_a_deployment_of_another_owner_is_refused(owner, other):
    with pytest.raises(ValidationError):
        services.document_upsert(
            owner=owner, path="a.md", content="x", source="workspace", deployment=DeploymentFactory(owner=other)
        )


# -- search -----------------------------------------------------------------------------------------


def test_search_returns_the_seed_citation_shape(owner):
    index(owner, "agents/btc/TRADING_MANUAL.md", MANUAL)
    outcome = search(owner, "when should I place my stop loss?")
    assert outcome.backend == "hybrid"
    citations = outcome.citations()
    assert citations
    assert set(citations[0]) == {"path", "startLine", "endLine", "score", "snippet", "source", "owner"}
    top = citations[0]
    assert top["owner"] == "yours"
    assert top["path"] == "agents/btc/TRADING_MANUAL.md"
    assert "stop" in top["snippet"].lower()
    assert 0 < top["score"] <= 1 and top["source"] in {"fts", "vector", "hybrid"}
    lines = MANUAL.splitlines()
    assert top["snippet"] == "\n".join(lines[top["startLine"] - 1 : top["endLine"]]).strip()


def test_keyword_search_uses_or_semantics(owner):
    index(owner, "notes.md", "# Notes\nThe funding rate flipped negative overnight.\n", embed=False)
    with override_settings(RECALL_BACKEND="fts"):
        outcome = search(owner, "what happened to the funding rate during the asian session?", embedder=None)
    assert outcome.backend == "fts"
    assert [c["path"] for c in outcome.citations()] == ["notes.md"]
    assert outcome.citations()[0]["source"] == "fts"


def test_a_chunk_only_the_vector_side_found_is_scored_on_the_keyword_side_too(owner):
    """The keyword side returns its best 40 chunks (k 10); the vector side's nearest chunk is one past them.
    It is scored with the BM25 the keyword side gives it, as the chunks both sides found keep theirs."""
    rng = np.random.default_rng(7)
    for n in range(60):
        text = "zebra " * (1 + n % 4) + " ".join(f"filler{m}" for m in range(n))
        index(owner, f"notes/{n:02}.md", f"# Note {n}\n{text}\n", embed=False)
    for chunk in Chunk.objects.filter(owner=owner):
        Chunk.objects.filter(pk=chunk.pk).update(embedding=_unit(rng))
    keyword = search(owner, "zebra", backend="fts", embedder=None, k=60, min_score=0)
    ranks = {(hit.candidate.path, hit.candidate.start_line): hit.candidate.fts_rank for hit in keyword.hits}
    assert len(ranks) == 60
    last = min(ranks, key=ranks.get)  # the weakest keyword match: never among the keyword side's 40
    nearest = Chunk.objects.get(owner=owner, path=last[0], start_line=last[1]).embedding
    outcome = search(owner, "zebra", k=10, min_score=0, embedder=None, query_embedding=list(nearest))
    found = {(hit.candidate.path, hit.candidate.start_line): hit.candidate for hit in outcome.hits}
    assert found[last].found_by == "vector"
    assert {key: candidate.fts_rank for key, candidate in found.items()} == pytest.approx(
        {key: ranks[key] for key in found}, rel=1e-12
    )
    assert {candidate.found_by for candidate in found.values()} >= {"vector", "hybrid"}


@pytest.mark.parametrize("embedded", [60, 30])
def test_a_keyword_fetch_that_would_only_sample_leaves_a_hybrid_search_to_the_vector_sides_candidates(
    owner, monkeypatch, embedded
):
    """bm25.samples_only (SAMPLE_DF lowered to 59 here, for 60 chunks holding 'zebra'): a hybrid search runs no
    keyword fetch and scores the vector side's 40 candidates with the BM25 the keyword side gives them. With 30 of
    the chunks embedded the vector side comes back short of 40, and the keyword side runs after it. Keyword search
    alone always fetches."""
    rng = np.random.default_rng(8)
    for n in range(60):
        text = "zebra " * (1 + n % 4) + " ".join(f"filler{m}" for m in range(n))
        index(owner, f"notes/{n:02}.md", f"# Note {n}\n{text}\n", embed=False)
    for chunk in Chunk.objects.filter(owner=owner).order_by("pk")[:embedded]:
        Chunk.objects.filter(pk=chunk.pk).update(embedding=_unit(rng))
    keyword = search(owner, "zebra", backend="fts", embedder=None, k=60, min_score=0)
    ranks = {(hit.candidate.path, hit.candidate.start_line): hit.candidate.fts_rank for hit in keyword.hits}
    monkeypatch.setattr(bm25, "SAMPLE_DF", 59)
    sent: list[str] = []

    def capture(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        outcome = search(owner, "zebra", k=10, min_score=0, embedder=None, query_embedding=_unit(rng))
    fetched = any("recall_keyword_candidates" in sql for sql in sent)
    found = {(hit.candidate.path, hit.candidate.start_line): hit.candidate for hit in outcome.hits}
    assert len(found) == 10
    assert {key: candidate.fts_rank for key, candidate in found.items()} == pytest.approx(
        {key: ranks[key] for key in found}, rel=1e-12
    )
    if embedded == 60:
        assert outcome.keyword_sampled and not fetched
        assert {candidate.found_by for candidate in found.values()} == {"vector"}
    else:
        assert not outcome.keyword_sampled and fetched
        assert "fts" in {candidate.found_by for candidate in found.values()}  # chunks with no embedding
    again = search(owner, "zebra", backend="fts", embedder=None, k=60, min_score=0)
    assert [hit.candidate.fts_rank for hit in again.hits] == [hit.candidate.fts_rank for hit in keyword.hits]


def test_without_an_embedder_the_slot_serves_keyword_search(owner):
    index(owner, "notes.md", "# Notes\nbreakout failed\n", embed=False)
    outcome = search(owner, "breakout", embedder=None)
    assert outcome.backend == "fts" and outcome.citations()[0]["path"] == "notes.md"


def test_vector_side_finds_paraphrases_keyword_search_misses(owner):
    index(owner, "runbooks/broker.md", "# Broker outage\nWhen MetaAPI disconnects, flatten positions manually.\n")
    outcome = search(owner, "what do we do if the broker connection drops?", backend="vector")
    assert outcome.citations() and outcome.citations()[0]["path"] == "runbooks/broker.md"
    assert outcome.citations()[0]["source"] == "vector"


def test_another_owners_chunks_never_appear_on_either_side(owner, other):
    index(other, "secret.md", "# Secret\nzebracorn strategy: buy every zebracorn dip.\n")
    index(owner, "mine.md", "# Mine\nbuy the dip on strong trends.\n")
    for backend in ("fts", "vector", "hybrid"):
        outcome = search(owner, "zebracorn strategy buy every dip", backend=backend, k=50)
        assert {c["path"] for c in outcome.citations()} <= {"mine.md"}, backend
    assert search(owner, "dip trends", backend="fts").citations()[0]["path"] == "mine.md"
    assert search(other, "zebracorn", backend="fts").citations()[0]["path"] == "secret.md"


def test_global_documents_are_read_by_every_trader(owner, other):
    services.document_upsert(
        owner=None, path="runbooks/outage.md", content="# Outage\nCall the desk.\n", source="runbook"
    )
    services.embed_pending(embedder=embedder())
    for user in (owner, other):
        assert [c["path"] for c in search(user, "outage desk", backend="fts").citations()] == ["runbooks/outage.md"]


def test_deployment_scoped_documents_stay_in_their_deployment(owner):
    first, second = DeploymentFactory(owner=owner), DeploymentFactory(owner=owner)
    index(owner, "journal/a.md", "# A\nquokka setup worked\n", deployment=first)
    index(owner, "journal/b.md", "# B\nquokka setup failed\n", deployment=second)
    index(owner, "shared.md", "# Shared\nquokka rules for all\n")
    paths = {c["path"] for c in search(owner, "quokka", deployment_id=first.pk, backend="fts").citations()}
    assert paths == {"journal/a.md", "shared.md"}
    assert len(search(owner, "quokka", backend="fts").citations()) == 3


def test_sources_filter_and_per_source_cap(owner):
    for n in range(4):
        index(owner, f"journal/{n}.md", f"# Day {n}\nnarwhal trade {n}\n", source="journal", embed=False)
    index(owner, "backtests/x.md", "# Backtest\nnarwhal backtest\n", source="backtest", embed=False)
    only = search(owner, "narwhal", sources=["backtest"], backend="fts").citations()
    assert [c["path"] for c in only] == ["backtests/x.md"]
    capped = search(owner, "narwhal", per_source_cap=2, backend="fts").citations()
    assert sum(c["path"].startswith("journal/") for c in capped) == 2
    assert any(c["path"] == "backtests/x.md" for c in capped)


def test_workspace_manual_only_narrows_the_workspace_files_to_the_manual_on_either_side(owner, other):
    index(owner, "agents/btc/Trading_Manual.md", "# Manual\nwombat rules: cut losers.\n")
    index(owner, "SOUL.md", "# Soul\nwombat wombat rules.\n")
    index(owner, "notes/TRADING_MANUAL.md.bak", "# Old\nwombat rules of old.\n")
    index(owner, "journal/day.md", "# Journal\nwombat rules day.\n", source="journal")  # not a workspace file
    index(None, "playbooks/wombat.md", "# Playbook\nwombat rules for the desk.\n", source="playbook")
    index(other, "TRADING_MANUAL.md", "# Theirs\nwombat rules.\n")
    narrowed = {"agents/btc/Trading_Manual.md", "journal/day.md", "playbooks/wombat.md"}
    for backend in ("fts", "vector", "hybrid"):
        options = {"backend": backend, "k": 50, "min_score": 0.0}
        hits = search(owner, "wombat rules", workspace_manual_only=True, **options).citations()
        assert {c["path"] for c in hits} == narrowed, backend
        everything = {c["path"] for c in search(owner, "wombat rules", **options).citations()}
        assert everything == narrowed | {"SOUL.md", "notes/TRADING_MANUAL.md.bak"}, backend


def test_min_score_drops_weak_matches(owner):
    index(owner, "a.md", "# A\nstop stop stop loss placement\n")
    index(owner, "b.md", "# B\nweather in paris is mild\n")
    everything = search(owner, "stop loss placement", k=10).citations()
    strict = search(owner, "stop loss placement", k=10, min_score=everything[0]["score"] - 0.0001).citations()
    assert [c["path"] for c in strict] == [everything[0]["path"]]


# -- the vector side under a filter: k rows whenever k exist --------------------------------------


def _unit(rng: np.random.Generator) -> list[float]:
    vector = rng.normal(size=384).astype(np.float32)
    return (vector / np.linalg.norm(vector)).tolist()


def _bulk_chunks(owner, count: int, rng, *, path: str) -> None:
    document = Document.objects.create(
        owner=owner, path=path, source="workspace", content="x", content_hash="0" * 64, chunk_count=count
    )
    Chunk.objects.bulk_create(
        [
            Chunk(
                document=document,
                owner=owner,
                source="workspace",
                path=path,
                ordinal=n,
                start_line=n + 1,
                end_line=n + 1,
                text=f"row {n}",
                token_count=2,
                content_hash=f"{n:064x}",
                embedding=_unit(rng),
            )
            for n in range(count)
        ],
        batch_size=1000,
    )


@pytest.mark.django_db(transaction=True)  # ANALYZE is the owner's (autovacuum's in production): rows committed
@pytest.mark.parametrize("exact_scan_max", [10**9, 0], ids=["exact", "hnsw"])
def test_k_results_under_an_owner_filter_and_never_another_owners(owner, exact_scan_max):
    """5% of the rows are the owner's: a filtered HNSW scan alone returns too few; both paths give k."""
    rng = np.random.default_rng(3)
    crowd = UserFactory()
    _bulk_chunks(crowd, 1900, rng, path="crowd.md")
    _bulk_chunks(owner, 100, rng, path="mine.md")
    with owner_connection() as table_owner:
        table_owner.execute("ANALYZE recall_chunks")
    query = _unit(rng)
    with override_settings(RECALL_EXACT_SCAN_MAX=exact_scan_max):
        outcome = search(owner, "anything", backend="vector", k=10, query_embedding=query, embedder=None, min_score=0)
    assert outcome.vector_plan == ("exact" if exact_scan_max else "hnsw")
    citations = outcome.citations()
    assert len(citations) == 10
    assert {c["path"] for c in citations} == {"mine.md"}
    # the exact answer: the owner's 10 nearest rows
    mine = Chunk.objects.filter(owner=owner).values_list("start_line", "embedding")
    expected = sorted(mine, key=lambda row: -float(np.dot(row[1], query)))[:10]
    got = [c["startLine"] for c in citations]
    if exact_scan_max:
        assert got == [row[0] for row in expected]
    else:
        assert len(set(got) & {row[0] for row in expected}) >= 8  # HNSW is approximate


@pytest.mark.django_db(transaction=True)  # a second connection sees committed rows only
@pytest.mark.parametrize("exact_scan_max", [10**9, 0], ids=["exact", "hnsw"])
def test_the_vector_side_beside_the_keyword_side_answers_as_after_it(owner, exact_scan_max):
    """In the trader's transaction, having written nothing, a hybrid search runs its vector side on a second
    connection while its keyword side runs (access/beside.py); once the transaction holds a transaction id (as a
    write gives it) both sides run on its own connection, one after the other. The hits are the same, and the
    trader's alone: three other traders' 600 chunks hold the same words and the same vectors."""
    rng = np.random.default_rng(9)
    for n in range(3):
        _bulk_chunks(UserFactory(), 200, np.random.default_rng(9), path=f"crowd-{n}.md")
    _bulk_chunks(owner, 200, rng, path="mine.md")
    with owner_connection() as table_owner:
        table_owner.execute("ANALYZE recall_chunks")
    query = _unit(rng)

    def hybrid(*, after_a_write: bool):
        with override_settings(RECALL_EXACT_SCAN_MAX=exact_scan_max), scope.owner_scope(owner):
            idle_pool_connection()
            if after_a_write:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_current_xact_id()")
            return search(owner, "row 7 17 170", k=10, query_embedding=query, embedder=None, min_score=0)

    beside, after = hybrid(after_a_write=False), hybrid(after_a_write=True)
    assert (beside.vector_beside, after.vector_beside) == (True, False)
    assert beside.vector_plan == after.vector_plan == ("exact" if exact_scan_max else "hnsw")
    assert beside.citations() == after.citations()
    assert {hit.candidate.found_by for hit in beside.hits} >= {"fts", "vector"}  # both sides answered
    assert {c["path"] for c in beside.citations()} == {"mine.md"}


@pytest.mark.django_db(transaction=True)  # a second connection sees committed rows only
def test_a_searchs_statements_are_prepared_by_the_connections_that_run_them_often(owner):
    """Search's statements bind their values server-side (access.backend's prepared_cursor, access.beside), so a
    connection that runs them again and again prepares them (settings' prepare_threshold) and PostgreSQL stops
    parsing them and, with a generic plan, planning them: the request's connection its counts, keyword side and
    texts, the second connection its iterative scan. The hits stay the first search's."""
    rng = np.random.default_rng(5)
    _bulk_chunks(owner, 200, rng, path="mine.md")
    query = _unit(rng)

    def prepared(cursor) -> list[str]:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]

    outcomes = []
    with override_settings(RECALL_EXACT_SCAN_MAX=0), scope.owner_scope(owner):
        for _ in range(40):  # the pool's idle connections take turns beside: each runs the scan five times or more
            idle_pool_connection()
            outcomes.append(search(owner, "row 7 17 170", k=10, query_embedding=query, embedder=None, min_score=0))
        with connection.cursor() as cursor:
            here = prepared(cursor)
    idle_pool_connection()
    pool, held = connection.pool, []
    while pool.get_stats()["pool_available"]:  # every idle pooled connection: the ones the reads beside ran on
        held.append(pool.getconn())
    try:
        beside_it = [prepared(raw.cursor()) for raw in held]
    finally:
        for raw in held:
            pool.putconn(raw)
    assert all(outcome.vector_beside and outcome.vector_plan == "hnsw" for outcome in outcomes)
    assert all(outcome.citations() == outcomes[0].citations() for outcome in outcomes) and outcomes[0].hits
    markers = {"counts": "recall_lexeme_stats", "keyword side": "recall_keyword_candidates", "texts": "c.text FROM"}
    assert {name: sum(marker in statement for statement in here) for name, marker in markers.items()} == dict.fromkeys(
        markers, 1
    )
    assert any("::halfvec" in statement for statements in beside_it for statement in statements)


def test_the_search_that_runs_both_sides_on_the_requests_connection_keeps_its_statements_prepared(owner):
    """After a write, both sides run on the request's connection (the test's transaction has written the chunks),
    the iterative scan inside a savepoint that is released, its settings set back: a rollback would make psycopg
    deallocate what it prepared there. After seven searches the counts, both sides and the texts are prepared."""
    rng = np.random.default_rng(6)
    _bulk_chunks(owner, 200, rng, path="mine.md")
    query = _unit(rng)
    with override_settings(RECALL_EXACT_SCAN_MAX=0):
        outcomes = [
            search(owner, "row 7 17 170", k=10, query_embedding=query, embedder=None, min_score=0) for _ in range(7)
        ]
    assert not any(outcome.vector_beside for outcome in outcomes) and outcomes[0].vector_plan == "hnsw"
    assert all(outcome.citations() == outcomes[0].citations() for outcome in outcomes) and outcomes[0].hits
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
        cursor.execute("SELECT current_setting('enable_sort'), current_setting('hnsw.iterative_scan')")
        assert cursor.fetchone() == ("on", "off")
    markers = ["recall_lexeme_stats", "recall_keyword_candidates", "::halfvec", "c.text FROM"]
    assert [sum(marker in statement for statement in prepared) for marker in markers] == [1, 1, 1, 1]


@pytest.mark.django_db(transaction=True)
def test_the_iterative_scan_under_row_level_security_returns_the_traders_own_nearest(owner):
    """In the trader's scope (the app role, row-level security, not elevated), 1,900 other traders' chunks
    lie nearer the query than any of the trader's 100: the iterative HNSW scan walks past them all and
    returns 10 of the trader's own, the nearest (HNSW is approximate: 8 of the exact 10 at least)."""
    rng = np.random.default_rng(5)
    query = np.asarray(_unit(rng))
    for n in range(19):
        crowd = UserFactory()
        document = Document.objects.create(
            owner=crowd, path=f"crowd-{n}.md", source="workspace", content="x", content_hash="0" * 64, chunk_count=100
        )
        near = query + rng.normal(scale=0.02, size=(100, 384))
        Chunk.objects.bulk_create(
            [
                Chunk(
                    document=document, owner=crowd, source="workspace", path=document.path, ordinal=i,
                    start_line=i + 1, end_line=i + 1, text=f"row {i}", token_count=2, content_hash=f"{i:064x}",
                    embedding=(vector / np.linalg.norm(vector)).tolist(),
                )
                for i, vector in enumerate(near)
            ]
        )  # fmt: skip
    _bulk_chunks(owner, 100, rng, path="mine.md")
    with owner_connection() as table_owner:
        table_owner.execute("ANALYZE recall_chunks")
    with override_settings(RECALL_EXACT_SCAN_MAX=0), scope.entered(scope.owner_scope_of(owner)):
        assert Chunk.objects.count() == 100  # row-level security is what the scan runs under
        outcome = search(
            owner, "anything", backend="vector", k=10, query_embedding=query.tolist(), embedder=None, min_score=0
        )
    assert outcome.vector_plan == "hnsw"  # the iterative scan answered, not the exact fallback
    citations = outcome.citations()
    assert len(citations) == 10
    assert {c["path"] for c in citations} == {"mine.md"}
    mine = Chunk.objects.filter(owner=owner).values_list("start_line", "embedding")
    expected = {row[0] for row in sorted(mine, key=lambda row: -float(np.dot(row[1], query)))[:10]}
    assert len(expected & {c["startLine"] for c in citations}) >= 8


def test_the_iterative_scan_reads_the_half_precision_index_and_reports_full_precision_cosines(owner):
    """The scan is served by the half-precision index (recall 0014: the only HNSW index on the chunks), and the
    cosines it reports are the full-precision ones, as the exact scan's: to 1e-6 of numpy's over the stored
    vectors, where half precision is off by ~1e-3."""
    rng = np.random.default_rng(11)
    _bulk_chunks(owner, 300, rng, path="mine.md")
    with owner_connection() as table_owner:
        table_owner.execute("ANALYZE recall_chunks")
    query = _unit(rng)
    literal = selectors._vector_literal(query)
    scope_ = selectors.SearchScope(owner.pk)
    where, params = scope_.sql()
    with override_settings(RECALL_EXACT_SCAN_MAX=0), scope.owner_scope(owner):
        found, plan = selectors._vector_candidates(scope_, literal, 40)
        with connection.cursor() as cursor, transaction.atomic():
            cursor.execute(selectors._ITERATIVE_SETTINGS, ["400", "2000"])
            cursor.execute("EXPLAIN " + selectors._ITERATIVE.format(scope=where), [literal, *params, literal, 40])
            explained = "\n".join(row[0] for row in cursor.fetchall())
            transaction.set_rollback(True)
    assert plan == "hnsw" and len(found) == 40
    assert "Index Scan using recall_chunk_embedding_half" in explained, explained
    stored = dict(Chunk.objects.filter(pk__in=found).values_list("pk", "embedding"))
    exact = {
        pk: float(np.dot(np.asarray(vector, dtype=np.float64), np.asarray(query))) for pk, vector in stored.items()
    }
    assert max(abs(found[pk] - exact[pk]) for pk in found) < 1e-6
    half = {
        pk: float(np.dot(np.asarray(vector, dtype=np.float16), np.asarray(query, dtype=np.float16)))
        for pk, vector in stored.items()
    }
    assert max(abs(half[pk] - exact[pk]) for pk in found) > 1e-5  # what the test tells apart


def test_the_iterative_scans_settings_end_with_the_vector_side(owner):
    """The SET LOCALs the iterative scan needs (enable_sort off among them) do not outlive it in the caller's
    transaction (a request's): the rest of the request plans as usual."""
    rng = np.random.default_rng(7)
    _bulk_chunks(owner, 50, rng, path="mine.md")
    with override_settings(RECALL_EXACT_SCAN_MAX=0):
        outcome = search(
            owner, "anything", backend="vector", k=10, query_embedding=_unit(rng), embedder=None, min_score=0
        )
    assert outcome.vector_plan == "hnsw" and len(outcome.hits) == 10
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_sort'), current_setting('hnsw.iterative_scan')")
        assert cursor.fetchone() == ("on", "off")


# -- agents' writes ------------------------------------------------------------------------------


def test_journal_appends_are_attributed_and_indexed(owner):
    deployment = DeploymentFactory(owner=owner)
    first = services.journal_append(
        deployment=deployment, kind="journal", content="Skipped the pump: volume was thin.", run_id="run-1", now=NOW
    )
    second = services.journal_append(
        deployment=deployment, kind="journal", content="Took the retest long.", run_id="run-2", now=NOW
    )
    assert first.document_id == second.document_id
    document = Document.objects.get(pk=first.document_id)
    assert document.path == "journal/2026-11-22.md" and document.deployment == deployment
    assert document.source == "journal" and document.version == 2
    assert "run run-1" in document.content and "run run-2" in document.content
    assert document.content.index("Skipped the pump") < document.content.index("Took the retest")
    assert list(JournalEntry.objects.values_list("run_id", flat=True).order_by("id")) == ["run-1", "run-2"]
    hit = search(owner, "thin volume pump", backend="fts").citations()[0]
    assert hit["path"] == "journal/2026-11-22.md" and "run-1" in hit["snippet"]
    learning = services.journal_append(
        deployment=deployment, kind="learning", content="Fade wicks.", run_id="r3", now=NOW
    )
    assert learning.document.path == "memory/learnings-2026-11.md"


def test_a_full_journal_file_continues_in_the_next_part(owner):
    deployment = DeploymentFactory(owner=owner)
    entry = "x" * 30_000
    paths = [
        services.journal_append(
            deployment=deployment, kind="note", content=entry, run_id=f"r{n}", now=NOW
        ).document.path
        for n in range(7)
    ]
    assert paths == ["memory/notes-2026-11.md"] * 3 + ["memory/notes-2026-11-2.md"] * 3 + ["memory/notes-2026-11-3.md"]
    assert all(len(d.content) <= services.JOURNAL_DOCUMENT_MAX for d in Document.objects.all())
    assert JournalEntry.objects.count() == 7


def test_an_edit_proposal_changes_nothing_until_the_trader_approves(owner):
    manual = index(owner, "TRADING_MANUAL.md", MANUAL).document
    proposal = services.proposal_create(
        document=manual, proposed_content=MANUAL + "\n## New\nNo trades on FOMC days.\n", reason="FOMC", run_id="r9"
    )
    manual.refresh_from_db()
    assert manual.version == 1 and "FOMC" not in manual.content
    assert not search(owner, "FOMC", backend="fts").citations()
    services.proposal_decide(proposal=proposal, approve=True, by=owner, now=NOW)
    manual.refresh_from_db()
    assert manual.version == 2 and "No trades on FOMC days." in manual.content
    assert search(owner, "FOMC", backend="fts").citations()[0]["path"] == "TRADING_MANUAL.md"
    proposal.refresh_from_db()
    assert (proposal.status, proposal.decided_by, proposal.decided_at) == (ProposalStatus.APPROVED, owner, NOW)
    with pytest.raises(services.ProposalDecided):
        services.proposal_decide(proposal=proposal, approve=False, by=owner)


def test_a_rejected_proposal_leaves_the_manual_and_a_stale_one_cannot_be_approved(owner):
    manual = index(owner, "TRADING_MANUAL.md", MANUAL).document
    rejected = services.proposal_create(document=manual, proposed_content="# short\n", reason="r", run_id="r1")
    stale = services.proposal_create(document=manual, proposed_content="# other\n", reason="r", run_id="r2")
    services.proposal_decide(proposal=rejected, approve=False, by=owner)
    manual.refresh_from_db()
    assert manual.version == 1
    services.document_upsert(owner=owner, path="TRADING_MANUAL.md", content=MANUAL + "\nedited\n", source="workspace")
    with pytest.raises(services.ProposalConflict):
        services.proposal_decide(proposal=stale, approve=True, by=owner)
    manual.refresh_from_db()
    assert manual.content == MANUAL + "\nedited\n"
    assert EditProposal.objects.get(pk=stale.pk).status == ProposalStatus.PENDING


@given(query=st.text(min_size=1, max_size=300))
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_any_query_text_is_a_valid_keyword_search(owner, query):
    """The OR tsquery is built from PostgreSQL's own lexemes, quoted and escaped: no text makes it fail."""
    if not Document.objects.exists():
        index(
            owner, "odd.md", "# Odd\nit's a \\back\\slash, 'quotes', R-08 & -1021 | ! ( ) : * <-> naïve\n", embed=False
        )
    outcome = search(owner, query.replace("\x00", ""), backend="fts", embedder=None)
    assert all(c["path"] == "odd.md" for c in outcome.citations())


def test_rule_ids_and_error_codes_match_as_the_documents_were_indexed(owner):
    index(
        owner, "manual.md", "# Rules\nR-08: never average down.\nBinance -1021 means the clock drifted.\n", embed=False
    )
    index(owner, "other.md", "# Other\nrule 08 of something else entirely\n", embed=False)
    assert search(owner, "R-08", backend="fts", embedder=None).citations()[0]["path"] == "manual.md"
    assert search(owner, "-1021 error", backend="fts", embedder=None).citations()[0]["path"] == "manual.md"


def test_the_words_a_question_turns_on_count_and_stop_words_do_not(owner):
    index(owner, "before.md", "# Costs\nThe scalps were profitable before costs.\n", embed=False)
    index(owner, "after.md", "# Costs\nThe scalps were profitable after costs.\n", embed=False)
    index(owner, "other.md", "# Other\nThe the the of and to a in is it was were.\n", embed=False)
    assert selectors.query_lexemes("Were the scalps still profitable AFTER costs, or not?") == [
        "after",
        "cost",
        "not",
        "profit",
        "scalp",
        "still",
    ]
    outcome = search(owner, "profitable after costs", backend="fts", embedder=None, min_score=0)
    assert [c["path"] for c in outcome.citations()][:2] == ["after.md", "before.md"]
    # A query of stop words only looks nothing up: the chunk full of them is not a match.
    assert selectors.query_lexemes("the of and to a in is it was were") == []
    assert search(owner, "the of and to", backend="fts", embedder=None, min_score=0).citations() == []


class _BrokenEmbedder:
    name, dimensions = "broken", 384

    def embed(self, texts):
        raise RuntimeError("model file unreadable")


def test_an_embedding_failure_is_recorded_on_the_documents_and_nothing_is_lost(owner):
    document = index(owner, "a.md", MANUAL, embed=False).document
    with pytest.raises(RuntimeError):
        services.embed_pending(embedder=_BrokenEmbedder())
    document.refresh_from_db()
    assert document.index_error == "embedding failed: RuntimeError: model file unreadable"
    assert selectors.index_health(user=owner)["errors"] == [{"path": "a.md", "error": document.index_error}]
    assert services.embed_pending(embedder=embedder()) == document.chunk_count  # the next pass heals it
    document.refresh_from_db()
    assert document.index_error == "" and document.indexed_at is not None


def test_a_nonsense_query_finds_nothing_relevant_unless_asked_for_the_weakest(owner):
    """The relevance floor (RECALL_MIN_SCORE): scores are absolute, so a query about nothing indexed scores low."""
    index(owner, "TRADING_MANUAL.md", MANUAL)
    index(owner, "notes/eurusd.md", "# EURUSD\n\nThe ECB meets on Thursday; fade the first spike.\n")
    assert search(owner, "zzqxv flurble").hits == []
    weakest = search(owner, "zzqxv flurble", min_score=0).hits
    assert weakest and all(hit.score < django_settings.RECALL_MIN_SCORE for hit in weakest)
    relevant = search(owner, "where do I place the stop?").citations()
    assert (
        relevant
        and relevant[0]["path"] == "TRADING_MANUAL.md"
        and relevant[0]["score"] >= django_settings.RECALL_MIN_SCORE
    )


@pytest.mark.parametrize(
    ("readable", "ef_search", "own_graph_ef_search"),
    [
        (0, 400, 200),
        (selectors.HNSW_LARGE_SCOPE - 1, 400, 200),
        (selectors.HNSW_LARGE_SCOPE, 600, 400),
        (100_000, 600, 400),
    ],
)
def test_a_large_scope_gets_the_longer_candidate_list_and_a_trader_with_its_own_graph_a_shorter_one(
    readable, ef_search, own_graph_ef_search
):
    assert selectors.hnsw_ef_search(readable) == ef_search
    assert selectors.hnsw_ef_search(readable, owner_graph=True) == own_graph_ef_search


@pytest.mark.parametrize(
    ("readable", "owner_graph", "plan"),
    [
        (2_000, False, "exact"),
        (2_001, False, "exact"),
        (8_000, False, "exact"),
        (8_001, False, "hnsw"),
        (2_000, True, "exact"),
        (2_001, True, "hnsw"),
        (8_001, True, "hnsw"),
    ],
)
def test_a_trader_with_its_own_graph_leaves_the_exact_scan_sooner(readable, owner_graph, plan):
    with override_settings(RECALL_EXACT_SCAN_MAX=8_000, RECALL_OWNER_GRAPH_MIN=2_000):
        assert selectors.vector_plan(readable, owner_graph) == plan
    with override_settings(RECALL_EXACT_SCAN_MAX=1_000, RECALL_OWNER_GRAPH_MIN=2_000):  # the lower of the two
        assert selectors.vector_plan(readable, owner_graph) == "hnsw"


@pytest.mark.parametrize(("large_scope", "ef_search"), [(51, "400"), (50, "600")])
def test_the_iterative_scan_runs_with_the_scopes_candidate_list(owner, monkeypatch, large_scope, ef_search):
    """50 readable chunks: below HNSW_LARGE_SCOPE the scan gets HNSW_EF_SEARCH, from it HNSW_EF_SEARCH_LARGE."""
    rng = np.random.default_rng(11)
    _bulk_chunks(owner, 50, rng, path="mine.md")
    monkeypatch.setattr(selectors, "HNSW_LARGE_SCOPE", large_scope)
    seen = []

    def settings_of_the_scan(execute, sql, params, many, context):
        if "relaxed_order" in sql:  # the scan's settings (_SETTINGS_BACK sets the values before back)
            seen.append(params[0])
        return execute(sql, params, many, context)

    with override_settings(RECALL_EXACT_SCAN_MAX=0), connection.execute_wrapper(settings_of_the_scan):
        outcome = search(
            owner, "anything", backend="vector", k=10, query_embedding=_unit(rng), embedder=None, min_score=0
        )
    assert outcome.vector_plan == "hnsw" and seen == [ef_search]

"""Recall reads: hybrid search with citations, index health, situation recall.

Search runs two owner-scoped candidate queries and fuses them in Python (recall.fusion, both sides on
absolute scales; hits under ``RECALL_MIN_SCORE`` are dropped unless the caller passes ``min_score``):

- keyword: BM25 (recall/bm25.py) over PostgreSQL's full-text lexemes, with OR semantics: the query's
  terms' document frequencies, the readable chunk count and their average length come from
  ``recall_lexeme_stats`` (kept by triggers, recall 0002) in one statement; the SECURITY DEFINER function
  `recall_keyword_candidates` (recall/row_security.py: row-level security would keep `@@` off the GIN
  index) fetches the chunks holding the query's non-common terms and keeps the ``bm25.RESCORE_TOP`` with
  the highest idf sum, which are scored exactly here;
- vector: cosine distance over pgvector. A trader with at most ``RECALL_EXACT_SCAN_MAX`` readable chunks
  has them scanned exactly (through the owner index, no HNSW), unless it has an HNSW graph of its own
  (recall/owner_graphs.py) and more than ``RECALL_OWNER_GRAPH_MIN``; above it, or over its own graph, pgvector 0.8's
  iterative HNSW scan (``hnsw.iterative_scan = relaxed_order``) applies the scope as it walks the graph and keeps going
  until ``limit`` rows pass it (or ``hnsw.max_scan_tuples``), re-sorted by distance outside a
  materialized CTE; when it still comes back short (a scope far narrower than its chunk count says,
  e.g. one deployment's), the exact scan answers. Either way the caller gets k rows whenever k exist.

When both sides have a statement to run, the vector side's runs on a second pooled connection at the same
time as the keyword side's (access/beside.py), in the same sealed scope, whenever that connection sees what
the request's transaction sees; otherwise after it, on the request's connection. The answer is the same.

A document with no owner is global (staff playbooks, runbooks) and readable by every trader.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Max, QuerySet, Sum
from django.shortcuts import get_object_or_404

from access import beside as access_beside
from access.backend.base import prepared_cursor
from memorysite.text import document_text_out
from recall import bm25, owner_graphs
from recall.fusion import MAX_QUERY_TERMS, Candidate, FusionConfig, Hit, fuse, normalise_query_terms
from recall.models import (
    EMBEDDING_DIMENSIONS,
    FTS_CONFIG,
    MANUAL_PATH_REGEX,
    Chunk,
    Document,
    DocumentSource,
    EditProposal,
    JournalEntry,
    ProposalStatus,
)
from recall.situations import (
    OPEN_SITUATIONS_MAX,
    SITUATIONS_K,
    PastSituation,
    float32_values,
    rank_similar,
    render_similar_situations,
)

# The iterative scan's candidate list (hnsw.ef_search): recall@10 against p95 (bench/recall_latency.py). A scope of
# HNSW_LARGE_SCOPE readable chunks or more gets the longer list. Over the graph built with ef_construction 800 (recall
# 0015) the bench's 20,000-chunk trader among 100,000 found 0.970 / 0.992 / 0.996 of the exact top 10 at 400 / 600 /
# 800, and one trader's 100,000 chunks 0.946 / 0.968 / 0.968; 600 cost 0.6-0.7 ms more than 400, 800 another
# 0.3-0.7 (statement p50). The 10,000-chunk trader found all of it at 400.
HNSW_EF_SEARCH = 400
HNSW_EF_SEARCH_LARGE = 600
HNSW_LARGE_SCOPE = 15_000
# Over a trader's own graph (recall/owner_graphs.py) there is nothing to drop, so a shorter list does: below
# HNSW_LARGE_SCOPE HNSW_EF_SEARCH_OWN, else HNSW_EF_SEARCH. A scratch study on bench/recall_latency.py's 100,000-chunk
# table (owner graphs built down to 400 chunks; the 50 questions, recall@10 against the exact answer): the 2,000- and
# 5,000-chunk traders found all of it at 200 (0.994 for the 5,000 at 100), the 20,000-chunk trader all of it at 400
# (0.998 at 300).
HNSW_EF_SEARCH_OWN = 200
HNSW_SCAN_TUPLES_MIN = 2_000  # hnsw.max_scan_tuples floor: expected tuples visited x HNSW_SCAN_TUPLES_MARGIN above it
HNSW_SCAN_TUPLES_MARGIN = 4
HNSW_SCAN_TUPLES_MAX = 20_000  # pgvector's default: past it the exact scan of the readable rows is cheaper
SNIPPET_CHARS = 700
SNIPPET_LEAD = 160  # characters of context kept before the first query term
_STOPWORDS = (
    "the and for with that this from what when where which who how why was were are has have had not but you "
    "your our their its can did does into onto than then them they there"
)
SNIPPET_STOPWORDS = frozenset(_STOPWORDS.split())


@dataclass(frozen=True)
class SearchScope:
    owner_id: int | None
    deployment_id: int | None = None
    sources: tuple[str, ...] | None = None
    # Of the workspace files, the manual only (TRADING_MANUAL.md in any folder and any case: MANUAL_PATH_REGEX);
    # other sources are not narrowed. Both sides apply it where they fetch (the keyword side inside its SECURITY
    # DEFINER function), so k hits are k of what the caller may show (the per-tick context's manual section).
    workspace_manual_only: bool = False

    @property
    def workspace_path(self) -> str | None:
        """The regular expression (case-insensitive) a workspace chunk's path must match, or None."""
        return MANUAL_PATH_REGEX if self.workspace_manual_only else None

    def sql(self, alias: str = "c") -> tuple[str, list]:
        """WHERE clause: the trader's rows (all, or owner-level + one deployment's) and global rows, of
        ``sources`` when given, and of the workspace files only those ``workspace_path`` matches when set."""
        clauses: list[str] = []
        params: list[object] = []
        if self.owner_id is None:
            clauses.append(f"{alias}.owner_id IS NULL")
        elif self.deployment_id is None:
            clauses.append(f"({alias}.owner_id = %s OR {alias}.owner_id IS NULL)")
            params.append(self.owner_id)
        else:
            clauses.append(
                f"(({alias}.owner_id = %s AND ({alias}.deployment_id IS NULL OR {alias}.deployment_id = %s))"
                f" OR {alias}.owner_id IS NULL)"
            )
            params += [self.owner_id, self.deployment_id]
        if self.sources:
            clauses.append(f"{alias}.source = ANY(%s)")
            params.append(list(self.sources))
        if self.workspace_path is not None:
            # regexp_like(…, 'i') is ~*, but planned without running the regex over the column's statistics
            clauses.append(f"({alias}.source <> %s OR regexp_like({alias}.path, %s, 'i'))")
            params += [DocumentSource.WORKSPACE.value, self.workspace_path]
        return " AND ".join(clauses), params


@dataclass(frozen=True)
class SearchOutcome:
    backend: str
    hits: list[Hit]
    timings_ms: dict[str, float] = field(default_factory=dict)
    vector_plan: str = ""
    vector_beside: bool = False  # the vector side ran on a second connection beside the keyword side's
    keyword_sampled: bool = False  # the keyword side fetched nothing of its own (Sides.keyword_sampled)

    def citations(self) -> list[dict]:
        return [citation(hit) for hit in self.hits]


def citation(hit: Hit) -> dict:
    """The seed's citation shape (path, startLine, endLine, score, snippet, source) and whose document it is:
    ``owner`` is "yours" or "staff" (a global playbook or runbook), so a trader's file cannot pass for staff's."""
    candidate = hit.candidate
    return {
        "path": candidate.path,
        "startLine": candidate.start_line,
        "endLine": candidate.end_line,
        "score": round(hit.score, 4),
        "snippet": candidate.snippet,
        "source": hit.source,
        "owner": "staff" if candidate.staff_document else "yours",
    }


def effective_backend(requested: str | None = None, *, embedder_available: bool) -> str:
    """The seed's slot: one backend is active. "hybrid" without an embedder serves as "fts"."""
    backend = requested or settings.RECALL_BACKEND
    if backend in ("hybrid", "vector") and not embedder_available:
        return "fts"
    return backend


def search(
    *,
    user,
    query: str,
    k: int = 10,
    sources: Sequence[str] | None = None,
    deployment_id: int | None = None,
    min_score: float | None = None,
    per_source_cap: int | None = None,
    backend: str | None = None,
    weights: tuple[float, float] | None = None,
    mmr_lambda: float | None = None,
    half_life_days: float | None = None,
    now: datetime,
    embedder=None,
    query_embedding: Sequence[float] | None = None,
    workspace_manual_only: bool = False,
) -> SearchOutcome:
    """Owner-scoped hybrid search. ``embedder`` (or a precomputed ``query_embedding``) enables the
    vector side; ``backend`` overrides the configured slot (benchmarks compare all three);
    ``workspace_manual_only`` reads the manual alone of the workspace files (``SearchScope``)."""
    scope = SearchScope(
        user.pk if user is not None else None,
        deployment_id,
        tuple(sources) if sources else None,
        workspace_manual_only=workspace_manual_only,
    )
    can_embed = embedder is not None or query_embedding is not None
    backend = effective_backend(backend, embedder_available=can_embed)
    timings: dict[str, float] = {}
    w_fts, w_vec = weights or (settings.RECALL_FTS_WEIGHT, settings.RECALL_VECTOR_WEIGHT)
    if backend == "fts":
        w_fts, w_vec = 1.0, 0.0
    elif backend == "vector":
        w_fts, w_vec = 0.0, 1.0
    fetch = max(k * 4, 40) if backend == "hybrid" else k
    if mmr_lambda is not None or per_source_cap is not None:
        fetch = max(fetch, k * 8)
    vector = None
    started = time.perf_counter()
    keywords = keyword_query(scope, query if backend != "vector" else "")
    timings["count_ms"] = (time.perf_counter() - started) * 1000
    if backend in ("hybrid", "vector"):
        if query_embedding is None:
            started = time.perf_counter()
            query_embedding = embedder.embed([query])[0]
            timings["embed_ms"] = (time.perf_counter() - started) * 1000
        vector = _vector_literal(query_embedding)
    sides = _sides(
        scope,
        keywords,
        vector,
        fetch,
        keyword_side=backend in ("hybrid", "fts"),
        with_embeddings=mmr_lambda is not None,
        timings=timings,
    )
    started = time.perf_counter()
    config = FusionConfig(
        w_fts=w_fts,
        w_vec=w_vec,
        min_score=settings.RECALL_MIN_SCORE if min_score is None else min_score,
        per_source_cap=per_source_cap,
        mmr_lambda=mmr_lambda,
        half_life_days=half_life_days,
        keyword_ideal=keywords.ideal() if backend != "vector" else 0.0,
    )
    terms = normalise_query_terms(query)
    fused = fuse(sides.candidates, k=k, config=config, now=now)
    texts = _texts([hit.candidate.chunk_id for hit in fused])
    hits = [_with_snippet(hit, texts, terms) for hit in fused]
    timings["fuse_ms"] = (time.perf_counter() - started) * 1000
    return SearchOutcome(
        backend=backend,
        hits=hits,
        timings_ms=timings,
        vector_plan=sides.vector_plan,
        vector_beside=sides.beside,
        keyword_sampled=sides.keyword_sampled,
    )


@dataclass(frozen=True)
class Sides:
    """Both sides' candidates, each scored on both (``_candidates``)."""

    candidates: list[Candidate]
    vector_plan: str = ""  # "hnsw" or "exact" when the vector side ran
    beside: bool = False  # the vector side ran on a second connection while the keyword side ran
    keyword_sampled: bool = False  # the keyword fetch would only sample (bm25.samples_only): the vector side's answered


def _sides(
    scope: SearchScope,
    keywords: KeywordQuery,
    vector: str | None,
    fetch: int,
    *,
    keyword_side: bool,
    with_embeddings: bool,
    timings: dict[str, float] | None = None,
) -> Sides:
    """Each side's ``fetch`` candidates (the keyword side's when ``keyword_side``, the vector side's when there is
    a query ``vector``), each read whole and scored on both sides by its own side's statement. When both sides
    have a statement to run, the vector side's runs on a second connection meanwhile if that connection sees
    what this one does (access/beside.py). When the keyword fetch would only sample (bm25.samples_only) and there is
    a vector side, the keyword side runs only if the vector side comes back with fewer than ``fetch`` (chunks not
    embedded yet, say)."""
    timings = {} if timings is None else timings
    keyword_rows: list[tuple] = []
    vector_rows: list[tuple] = []
    plan = ""
    counts = keywords.counts()
    sampled = keyword_side and vector is not None and bm25.samples_only(keywords.fetch)

    def vector_read(query_vector: str, savepoint):
        return _vector_read(scope, query_vector, fetch, counts, keywords, with_embeddings, savepoint)

    def read_keyword_side() -> list[tuple]:
        started = time.perf_counter()
        rows = _keyword_rows(scope, keywords, fetch, vector=vector, with_embeddings=with_embeddings)
        timings["fts_ms"] = (time.perf_counter() - started) * 1000
        return rows

    beside = None
    if vector is not None and keyword_side and keywords.fetch and not sampled:
        beside = access_beside.start(vector_read(vector, _beside_savepoint), keywords.transaction)
    if keyword_side and not sampled:
        keyword_rows = read_keyword_side()
    if vector is not None:
        started = time.perf_counter()  # beside: how long it kept this thread waiting after the keyword side
        if beside is not None:
            vector_rows, plan, timings["vector_side_ms"] = beside.result()
        else:
            with prepared_cursor() as cursor:
                vector_rows, plan, timings["vector_side_ms"] = vector_read(vector, _request_savepoint)(cursor)
        timings["vector_ms"] = (time.perf_counter() - started) * 1000
    if sampled and len(vector_rows) < fetch:
        keyword_rows, sampled = read_keyword_side(), False
    return Sides(_candidates(keyword_rows, vector_rows, with_embeddings), plan, beside is not None, sampled)


# The query's lexemes as PostgreSQL's own parser and stemmer make them with the chunks' configuration (so
# "R-08" gives 'r' and '-08', exactly as the documents were indexed), less the query stop words stemmed the
# same way (recall/bm25.py), at most MAX_QUERY_TERMS. Parameters: query, bm25.QUERY_STOP_WORDS. The stop words are
# stemmed in a scalar subquery, so once a statement (an InitPlan): PostgreSQL keeps a generic plan for keyword_query's
# statement, where the bare expression was evaluated again for each of the query's lexemes (keyword_query p50 0.468 →
# 0.186 ms for bench/recall_latency.py's one-trader table, a scratch A/B, the same answer to all 600 calls).
_QUERY_LEXEMES = f"""
    SELECT lexeme FROM unnest(tsvector_to_array(to_tsvector('{FTS_CONFIG}', %s))) AS lexeme
    WHERE lexeme <> ALL((SELECT tsvector_to_array(to_tsvector('{FTS_CONFIG}', %s)))::text[])
    LIMIT {MAX_QUERY_TERMS}
"""  # noqa: S608 (constants)
# The query's lexemes with each one's df among the scope's readable chunks, and the totals row (lexeme '':
# readable chunks and their words); the table's size estimate (`pg_class.reltuples`, kept by autovacuum)
# and whether the trader's own graph is there and valid (the planner walks only a valid one), for the vector side's
# choice; what a second connection needs to know of this transaction (access/beside.py). Parameters: the owner
# graph's index name (NULL: none to look for), then _QUERY_LEXEMES' and {owner_rows}'.
_TERM_STATS = f"""
    SELECT t.lexeme, COALESCE(SUM(s.df), 0)::bigint, COALESCE(SUM(s.tokens), 0)::bigint,
           (SELECT reltuples::bigint FROM pg_class WHERE oid = 'recall_chunks'::regclass),
           COALESCE((SELECT i.indisvalid FROM pg_index i WHERE i.indexrelid = to_regclass(%s::text)), false),
           {access_beside.STATE_SQL}
    FROM (({_QUERY_LEXEMES}) UNION ALL SELECT '') AS t
    LEFT JOIN LATERAL ({{owner_rows}}) AS s ON true
    GROUP BY t.lexeme
"""  # noqa: S608 (constants)
# Each (owner, lexeme) key looked up in the unique index: an OR of the two owners in the join condition made the
# planner read every row of the trader's (or filter each lexeme's rows of every trader), 2-8 ms at 100k chunks.
_OWNER_ROW = "SELECT s.df, s.tokens FROM recall_lexeme_stats s WHERE s.owner_id = %s AND s.lexeme = t.lexeme"
_GLOBAL_ROW = "SELECT s.df, s.tokens FROM recall_lexeme_stats s WHERE s.owner_id IS NULL AND s.lexeme = t.lexeme"

# One chunk's BM25 over the query's terms (recall/bm25.py): setweight marks the query's lexemes 'A' (the
# indexed vectors carry no weights) and ts_filter keeps them, so only those are unnested; tf is the
# number of positions, and a term's idf is found by its place in the lexemes (array_position: joining the
# unnested idfs instead cost a hash join per chunk; scoring the 200 candidates of bench/recall_latency.py's
# 20,000-chunk trader took 3.70 ms p50 that way and 3.22 this way, both forms timed interleaved on the same
# candidates). Parameters: idfs, lexemes, average length, lexemes.
_BM25 = f"""
    COALESCE((
        SELECT SUM(
            (%s::double precision[])[array_position(%s::text[], u.lexeme)] * u.tf * {bm25.K1 + 1}
            / (u.tf + {bm25.K1} * (1 - {bm25.B} + {bm25.B} * c.word_count / %s))
        )
        FROM (
            SELECT lexeme, COALESCE(array_length(positions, 1), 1) AS tf
            FROM unnest(ts_filter(setweight(c.search_vector, 'A', %s::text[]), '{{a}}'))
        ) AS u
    ), 0)
"""  # noqa: S608 (constants)

# What a candidate is read with, after its id and its two scores (recall.fusion.Candidate; ``_candidates``): of
# the document's metadata only "evergreen" (recall/fusion.py's decay), NULL when absent as it mostly is; and the
# embedding when MMR wants it (``{embedding}``). Not its text, mostly stored out of line (TOAST): ``_TEXTS`` reads
# the hits'. Each side's statement reads its own candidates' columns, so no statement reads the union afterwards.
_CANDIDATE_COLUMNS = """
    c.document_id, c.path, c.start_line, c.end_line, c.source, c.updated_at, d.metadata -> 'evergreen',
    c.owner_id IS NULL AS staff_document {embedding}
"""

# recall/row_security.py's SECURITY DEFINER function fetches (under the trader's scope, through the GIN
# index) the chunks with the highest idf sum; they are scored exactly here, under row-level security, and the
# best ``limit`` read whole, with their cosine when there is a query vector (``{cosine}``). ``{bm25}``: _BM25.
_KEYWORD = f"""
    SELECT b.id, b.score, {{cosine}}, {_CANDIDATE_COLUMNS}
    FROM (
        SELECT c.id, {{bm25}} AS score FROM recall_chunks c
        WHERE c.id IN (SELECT k.id FROM recall_keyword_candidates(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) AS k)
        ORDER BY score DESC, c.id
        LIMIT %s
    ) AS b
    JOIN recall_chunks c ON c.id = b.id JOIN recall_documents d ON d.id = c.document_id
    ORDER BY b.score DESC, b.id
"""  # noqa: S608 (constants)


@dataclass(frozen=True)
class KeywordQuery:
    """The query's terms with their idf, and the scope's counts (recall/bm25.py)."""

    idfs: dict[str, float]  # the query's lexemes some readable chunk holds
    fetch: list[bm25.Term]
    readable: int
    table_estimate: int
    average_length: float
    owner_graph: bool = False  # the trader's own HNSW graph is there and valid (recall/owner_graphs.py)
    # read with the counts (access.beside.STATE_SQL)
    transaction: access_beside.TransactionState = field(default_factory=access_beside.TransactionState)

    def counts(self) -> ScopeCounts:
        return ScopeCounts(self.readable, self.table_estimate, self.owner_graph)

    def ideal(self) -> float:
        """The BM25 of a chunk of average length holding once each of the query's terms that some readable
        chunk holds: the keyword side's absolute scale (recall/fusion.py). Counting the terms no chunk holds
        too (at the highest idf) ranked 0.008 nDCG@10 better on trading_recall, but scored a plain question
        with a few words the index lacks below the relevance floor with the keyword side alone."""
        return sum(self.idfs.values())

    def score_params(self) -> list:
        """_BM25's parameters, in its order."""
        lexemes = list(self.idfs)
        return [[self.idfs[lexeme] for lexeme in lexemes], lexemes, self.average_length or 1.0, lexemes]


def keyword_query(scope: SearchScope, query: str) -> KeywordQuery:
    """One statement: the query's lexemes with their df, the readable chunks and their average length."""
    graph = None if scope.owner_id is None else owner_graphs.index_name(scope.owner_id)
    params: list[str | int | None] = [graph, query, bm25.QUERY_STOP_WORDS]
    if scope.owner_id is None:
        owner_rows = _GLOBAL_ROW
    else:
        owner_rows = f"{_OWNER_ROW} UNION ALL {_GLOBAL_ROW}"
        params.append(scope.owner_id)
    with prepared_cursor() as cursor:
        cursor.execute(_TERM_STATS.format(owner_rows=owner_rows), params)
        rows = cursor.fetchall()
    readable, tokens, estimate, owner_graph, transaction_state = 0, 0, 0, False, access_beside.TransactionState()
    terms = []
    for lexeme, df, token_sum, reltuples, graph_valid, shared, statement_timeout in rows:
        estimate, owner_graph = reltuples, graph_valid
        transaction_state = access_beside.TransactionState(shared, statement_timeout)
        if lexeme == "":
            readable, tokens = df, token_sum
        else:
            terms.append(bm25.Term(lexeme, df))
    idfs = {term.lexeme: bm25.idf(term.df, readable) for term in terms if term.df > 0}
    return KeywordQuery(
        idfs=idfs,
        fetch=bm25.fetch_terms(terms, readable),
        readable=readable,
        table_estimate=max(readable, estimate),
        average_length=tokens / readable if readable else 0.0,
        owner_graph=owner_graph,
        transaction=transaction_state,
    )


def query_lexemes(query: str) -> list[str]:
    """The lexemes a search looks up for ``query`` (in lexeme order)."""
    with connection.cursor() as cursor:
        cursor.execute(_QUERY_LEXEMES, [query, bm25.QUERY_STOP_WORDS])
        return [row[0] for row in cursor.fetchall()]


def keyword_function_args(scope: SearchScope, keywords: KeywordQuery, limit: int) -> list:
    """recall_keyword_candidates' arguments for a search fetching ``limit`` keyword candidates (also what
    bench/recall_latency.py times the function alone with)."""
    fetch = [term.lexeme for term in keywords.fetch]
    top = max(bm25.RESCORE_TOP, limit)
    return [
        fetch,
        [keywords.idfs[lexeme] for lexeme in fetch],
        scope.owner_id,
        scope.deployment_id,
        list(scope.sources) if scope.sources else None,
        bm25.PER_TERM_CAP,
        top,
        scope.workspace_path,
        bm25.all_terms_first(keywords.fetch, top),
        bm25.anchor_count(keywords.fetch, keywords.idfs, top),
    ]


def _keyword_rows(
    scope: SearchScope, keywords: KeywordQuery, limit: int, *, vector: str | None, with_embeddings: bool
) -> list[tuple]:
    """The keyword side's best ``limit`` candidates, read whole (``_KEYWORD``)."""
    if not keywords.fetch:
        return []
    sql = _KEYWORD.format(
        bm25=_BM25, cosine="NULL" if vector is None else _COSINE, embedding=", c.embedding" if with_embeddings else ""
    )
    params = [*keywords.score_params(), *keyword_function_args(scope, keywords, limit), limit]
    with prepared_cursor() as cursor:
        cursor.execute(sql, [*([] if vector is None else [vector]), *params])
        return cursor.fetchall()


def _keyword_candidates(scope: SearchScope, keywords: KeywordQuery, limit: int) -> dict[int, float]:
    """The keyword side's candidates and their BM25 (the benches' and tests' view of it; search reads them whole:
    ``_sides``)."""
    rows = _keyword_rows(scope, keywords, limit, vector=None, with_embeddings=False)
    return {row[0]: float(row[1]) for row in rows}


# The vector side's candidates (``{nearest}``: their ids and distances, nearest first) read whole, with their BM25
# when the query has a term some readable chunk holds (``{keyword_score}``).
_VECTOR = f"""
    WITH nearest AS MATERIALIZED ({{nearest}})
    SELECT n.id, {{keyword_score}}, 1 - n.distance AS cosine, {_CANDIDATE_COLUMNS}
    FROM nearest n JOIN recall_chunks c ON c.id = n.id JOIN recall_documents d ON d.id = c.document_id
    ORDER BY n.distance, n.id
"""  # noqa: S608 (constants)
# Exact: ordering by an expression the HNSW index cannot serve keeps the planner on the owner index.
_EXACT = """
    SELECT c.id, c.embedding <=> %s::vector AS distance FROM recall_chunks c
    WHERE c.embedding IS NOT NULL AND {scope}
    ORDER BY (c.embedding <=> %s::vector) + 0, c.id
    LIMIT %s
"""
# pgvector 0.8's iterative scan: the scope (and row-level security's policies) filter rows as the HNSW scan
# yields them, and the scan resumes from its discarded candidates until `limit` rows pass. relaxed_order
# yields them slightly out of order, so the materialized CTE (which the planner cannot flatten into the
# outer query) keeps the index scan's LIMIT and the outer ORDER BY puts them back in distance order.
# enable_sort off: the planner's cost of HNSW grows with ef_search while it thinks a distance costs next to
# nothing, so at a high ef_search it takes an exact scan and sort of every readable row (14 ms for 10k
# chunks instead of 2); off, the only plan without a sort below the CTE is the HNSW index scan. The
# settings end with _vector_read's savepoint (set back), not the caller's transaction (beside, with the second
# connection's).
_ITERATIVE_NAMES = ("hnsw.iterative_scan", "hnsw.ef_search", "hnsw.max_scan_tuples", "enable_sort")
# The four settings' values before (NULL: pgvector's not loaded yet), then the iterative scan's (the columns are
# evaluated in order); _SETTINGS_BACK sets them back (a NULL to the default).
_ITERATIVE_SETTINGS = (
    "SELECT "
    + ", ".join(f"current_setting('{name}', true)" for name in _ITERATIVE_NAMES)
    + ", set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true),"
    " set_config('hnsw.max_scan_tuples', %s, true), set_config('enable_sort', 'off', true)"
)
_SETTINGS_BACK = "SELECT " + ", ".join(f"set_config('{name}', %s, true)" for name in _ITERATIVE_NAMES)
# The index holds the vectors at half precision (recall.models, recall 0014), so the scan orders by the half-precision
# distance, which it serves; the rows it returns keep their full-precision distance, as the exact scan's.
_ITERATIVE = f"""
    SELECT c.id, c.embedding <=> %s::vector AS distance FROM recall_chunks c
    WHERE c.embedding IS NOT NULL AND {{scope}}
    ORDER BY c.embedding::halfvec({EMBEDDING_DIMENSIONS}) <=> %s::halfvec({EMBEDDING_DIMENSIONS})
    LIMIT %s
"""  # noqa: S608 (constants)


def _vector_literal(embedding: Sequence[float]) -> str:
    """pgvector's text form, each value to 7 significant digits (a float4 holds 6-9): one %-format of the whole
    vector, ~40% faster than formatting its 384 values one by one."""
    return _vector_format(len(embedding)) % tuple(embedding)


@functools.cache
def _vector_format(dimensions: int) -> str:
    return "[" + ",".join(["%.7g"] * dimensions) + "]"


class ScopeCounts(NamedTuple):
    """What the vector side's plan depends on (``keyword_query`` reads it with the terms)."""

    readable: int  # chunks the scope can read: recall_lexeme_stats' totals (the trader's and the global ones)
    total: int  # chunks in the table: the planner's estimate (pg_class.reltuples, kept by autovacuum)
    owner_graph: bool = False  # the trader has a valid HNSW graph of its own (recall/owner_graphs.py)


def readable_chunk_counts(scope: SearchScope) -> ScopeCounts:
    """The scope's ``ScopeCounts``, on their own."""
    return keyword_query(scope, "").counts()


def hnsw_max_scan_tuples(limit: int, readable: int, total: int) -> int:
    """How far the iterative scan may walk before it gives up (and the exact scan answers): the tuples it
    expects to visit for ``limit`` rows at the scope's share of the table, with a margin, within
    [HNSW_SCAN_TUPLES_MIN, HNSW_SCAN_TUPLES_MAX]."""
    expected = limit * total / max(readable, 1)
    return int(min(HNSW_SCAN_TUPLES_MAX, max(HNSW_SCAN_TUPLES_MIN, expected * HNSW_SCAN_TUPLES_MARGIN)))


def vector_plan(readable: int, owner_graph: bool = False) -> str:
    """The vector side's plan for a scope of ``readable`` chunks: "hnsw" (the iterative scan, which the exact scan
    answers for when it comes back short) above RECALL_EXACT_SCAN_MAX, or above RECALL_OWNER_GRAPH_MIN when the
    trader has its own graph (``owner_graph``: the scan walks it), "exact" up to that."""
    most = settings.RECALL_EXACT_SCAN_MAX
    if owner_graph:
        most = min(most, settings.RECALL_OWNER_GRAPH_MIN)
    return "hnsw" if readable > most else "exact"


def hnsw_ef_search(readable: int, owner_graph: bool = False) -> int:
    """hnsw.ef_search for a scope of ``readable`` chunks, over the trader's own graph or the shared one (see
    HNSW_LARGE_SCOPE and HNSW_EF_SEARCH_OWN)."""
    if owner_graph:
        return HNSW_EF_SEARCH if readable >= HNSW_LARGE_SCOPE else HNSW_EF_SEARCH_OWN
    return HNSW_EF_SEARCH_LARGE if readable >= HNSW_LARGE_SCOPE else HNSW_EF_SEARCH


def _vector_candidates(
    scope: SearchScope, vector: str, limit: int, *, counts: ScopeCounts | None = None
) -> tuple[dict[int, float], str]:
    """The vector side's candidates with their cosine, and its plan ("hnsw" or "exact"), read on the request's
    connection (the benches' and tests' view of it; search reads them whole: ``_sides``)."""
    read = _vector_read(scope, vector, limit, counts or readable_chunk_counts(scope), None, False, _request_savepoint)
    with prepared_cursor() as cursor:
        rows, plan, _ = read(cursor)
    return {row[0]: float(row[2]) for row in rows}, plan


def _vector_read(
    scope: SearchScope,
    vector: str,
    limit: int,
    counts: ScopeCounts,
    keywords: KeywordQuery | None,
    with_embeddings: bool,
    savepoint,
):
    """The vector side's best ``limit`` candidates read whole (``_VECTOR``), with their BM25 for ``keywords``, as a
    read of a cursor: the request's or a second connection's (access/beside.py). ``savepoint(cursor)`` opens the
    scope the iterative scan's settings end with (``_request_savepoint``, ``_beside_savepoint``)."""
    where, params = scope.sql()
    readable, total, owner_graph = counts
    keyword_score, score_params = "NULL", []
    if keywords is not None and keywords.idfs:
        keyword_score, score_params = _BM25, keywords.score_params()
    embedding = ", c.embedding" if with_embeddings else ""

    def statement(nearest: str) -> str:
        return _VECTOR.format(nearest=nearest.format(scope=where), keyword_score=keyword_score, embedding=embedding)

    statement_params = [vector, *params, vector, limit, *score_params]

    def read(cursor) -> tuple[list[tuple], str, float]:
        """The rows, the plan and how long its statements took (ms)."""
        started = time.perf_counter()
        if vector_plan(readable, owner_graph) == "hnsw":
            with savepoint(cursor) as settings_back:
                max_scan_tuples = hnsw_max_scan_tuples(limit, readable, total)
                ef_search = hnsw_ef_search(readable, owner_graph)
                cursor.execute(_ITERATIVE_SETTINGS, [str(ef_search), str(max_scan_tuples)])
                before = cursor.fetchone()[: len(_ITERATIVE_NAMES)]
                cursor.execute(statement(_ITERATIVE), statement_params)
                rows = cursor.fetchall()
                settings_back(before)
            if len(rows) >= limit:
                return rows, "hnsw", (time.perf_counter() - started) * 1000
        cursor.execute(statement(_EXACT), statement_params)
        return cursor.fetchall(), "exact", (time.perf_counter() - started) * 1000

    return read


@contextlib.contextmanager
def _request_savepoint(cursor):
    """A savepoint of the request's transaction (Django's), released once the iterative scan's settings are set back
    to what they were before (what it yields does that), and rolled back after an error. Released rather than
    rolled back: psycopg deallocates every statement it prepared on a connection at a rollback, a savepoint's too
    (access.backend's prepared_cursor)."""
    with transaction.atomic():
        yield lambda before: cursor.execute(_SETTINGS_BACK, list(before))


@contextlib.contextmanager
def _beside_savepoint(cursor):
    """No savepoint on a second connection (access/beside.py), and nothing to set back: its transaction ends right
    after the read, and the settings with it; a savepoint rolled back there would make psycopg deallocate the
    statements it prepared on that connection. The exact statement, the only one that can follow the settings there,
    has one plan with or without them: its sorts are the only way to its order (enable_sort off marks them disabled,
    as EXPLAIN shows)."""
    yield lambda before: None


_COSINE = "CASE WHEN c.embedding IS NULL THEN NULL ELSE 1 - (c.embedding <=> %s::vector) END"
# The hits' texts, for their snippets: read for the k hits only, after the fusion. A chunk's text is mostly
# stored out of line (TOAST); reading it for every candidate cost ~1.5 ms of the 2-2.5 ms load at 80
# candidates (bench/recall_latency.py's chunks), one more statement ~0.3 ms.
_TEXTS = "SELECT c.id, c.text FROM recall_chunks c WHERE c.id = ANY(%s)"


def _candidates(keyword_rows: list[tuple], vector_rows: list[tuple], with_embeddings: bool) -> list[Candidate]:
    """The union of both sides' candidates, each scored on *both* sides (its BM25 and its cosine, found by that
    side or not: each side's statement computes the other side's score for its own rows), so a chunk one side
    missed is not scored 0 there. Rows: id, BM25, cosine, then ``_CANDIDATE_COLUMNS``. The BM25 of a vector
    candidate costs ~13 µs of detoasting and unnesting its tsvector; there is none without a term some readable
    chunk holds, and no cosine without a query vector (a keyword-only search, such as the per-tick context's
    manual section)."""
    found = {row[0]: "fts" for row in keyword_rows}
    for row in vector_rows:
        found[row[0]] = "hybrid" if row[0] in found else "vector"
    rows = {row[0]: row for row in vector_rows} | {row[0]: row for row in keyword_rows}
    candidates = []
    for chunk_id, row in rows.items():
        evergreen = row[9]
        if isinstance(evergreen, str):
            evergreen = json.loads(evergreen)
        candidates.append(
            Candidate(
                chunk_id=chunk_id,
                document_id=row[3],
                path=row[4],
                start_line=row[5],
                end_line=row[6],
                snippet="",
                source_type=row[7],
                updated_at=row[8],
                evergreen=bool(evergreen),
                fts_rank=float(row[1] or 0.0),
                cosine=float(row[2]) if row[2] is not None else None,
                found_by=found[chunk_id],
                embedding=_parse_vector(row[11]) if with_embeddings else None,
                staff_document=bool(row[10]),
            )
        )
    return candidates


def _texts(chunk_ids: list[int]) -> dict[int, str]:
    if not chunk_ids:
        return {}
    with prepared_cursor() as cursor:
        cursor.execute(_TEXTS, [chunk_ids])
        return dict(cursor.fetchall())


def _with_snippet(hit: Hit, texts: dict[int, str], terms: Sequence[str]) -> Hit:
    """Snippets are cut for the hits returned only: the window search reads the whole chunk text. A chunk
    deleted between the fusion and reading its text (a re-index committing in between) has an empty one."""
    candidate = dataclasses.replace(hit.candidate, snippet=snippet(texts.get(hit.candidate.chunk_id, ""), terms))
    return dataclasses.replace(hit, candidate=candidate)


def _parse_vector(value) -> tuple[float, ...] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return tuple(float(x) for x in value.strip("[]").split(","))
    return tuple(float(x) for x in value)


def snippet(text: str, terms: Sequence[str] = (), limit: int = SNIPPET_CHARS) -> str:
    """The chunk's text, at most ``limit`` characters: from its start when it fits or when no query
    term occurs past the first window, else a window opening shortly before the first occurrence of
    a query term (so a keyword hit deep in an 800-token chunk is cited with the word), cut at word
    boundaries with an ellipsis on each cut side. The text leaves the index here: it is passed through
    ``document_text_out`` first (no bidi or invisible character, no line break but ``\\n``)."""
    text = document_text_out(text).strip()
    if len(text) <= limit:
        return text
    start = 0
    position = _first_term_position(text, terms)
    if position is not None and position > limit - SNIPPET_LEAD:
        start = max(0, min(position - SNIPPET_LEAD, len(text) - limit + 2))
        space = text.find(" ", start, position)
        start = space + 1 if space != -1 else start
    prefix = "…" if start else ""
    room = limit - len(prefix)
    window = text[start:]
    if len(window) <= room:
        return prefix + window
    cut = window[: room - 1]
    space = cut.rfind(" ")
    return prefix + (cut[:space] if space > room // 2 else cut).rstrip() + "…"


def _first_term_position(text: str, terms: Sequence[str]) -> int | None:
    """Where the first of ``terms`` (``normalise_query_terms``' words) starts a word of ``text``, ignoring
    case: ``re.search(r"\\b(?:term|…)", text, re.IGNORECASE)``'s answer. For ASCII terms it is found with
    ``str.find`` on the lowercased text, ~10× faster than that regex over an 800-token chunk with no term in
    it (0.1 ms a hit, ten hits a search); the same answer, because no character of the text but
    ``_FOLDS_TO_ASCII``'s lowercases to or case-insensitively matches an ASCII one (checked over every code
    point in tests/recall/test_snippets.py). With such a character, or a term that is not ASCII, the regex
    answers."""
    words = [term for term in terms if len(term) >= 3 and term not in SNIPPET_STOPWORDS]
    if not words:
        return None
    if not all(word.isascii() for word in words) or any(char in text for char in _FOLDS_TO_ASCII):
        match = re.search(r"\b(?:" + "|".join(map(re.escape, words)) + ")", text, re.IGNORECASE)
        return match.start() if match else None
    folded = text.lower()
    first = None
    for word in map(str.lower, words):
        start = folded.find(word)
        while start != -1 and (first is None or start < first):
            if start == 0 or not _is_word_char(text[start - 1]):
                first = start
                break
            start = folded.find(word, start + 1)
    return first


# The characters beyond ASCII that lowercase to an ASCII one or that re.IGNORECASE matches to one: İ (which
# lowercases to two characters), ı, ſ and the Kelvin sign.
_FOLDS_TO_ASCII = "\u0130\u0131\u017f\u212a"


def _is_word_char(char: str) -> bool:
    """What ``\\w`` matches (re's Unicode word characters), the other side of ``\\b``."""
    return char.isalnum() or char == "_"


# ----------------------------------------------------------------------------------------- pages


def document_list(*, user) -> QuerySet[Document]:
    return Document.objects.readable_by(user).defer("content").order_by("owner_id", "path", "id")


def document_get(*, user, document_id: int) -> Document:
    return get_object_or_404(Document.objects.readable_by(user), pk=document_id)


def owned_document_get(*, user, document_id: int) -> Document:
    return get_object_or_404(Document.objects.owned_by(user), pk=document_id)


def index_health(*, user) -> dict:
    """The seed's index health signals for what this trader can read: documents, chunks, chunks
    waiting for their embedding, the last completed sync and documents whose indexing failed."""
    documents = Document.objects.readable_by(user)
    totals = documents.aggregate(
        documents=Count("id"), chunks=Sum("chunk_count", default=0), last_sync_at=Max("indexed_at")
    )
    pending = Chunk.objects.readable_by(user).filter(embedding__isnull=True).count() if _embedding_enabled() else 0
    errors = [
        {"path": path, "error": error}
        for path, error in documents.exclude(index_error="").order_by("path").values_list("path", "index_error")[:20]
    ]
    return {
        "documents": totals["documents"],
        "chunks": totals["chunks"],
        "pending": pending,
        "last_sync_at": totals["last_sync_at"],
        "errors": errors,
    }


def _embedding_enabled() -> bool:
    return settings.EMBEDDINGS_PROVIDER != "none"


def pending_proposals(*, user) -> QuerySet[EditProposal]:
    return (
        EditProposal.objects.owned_by(user)
        .filter(status=ProposalStatus.PENDING)
        .select_related("document")
        .defer("proposed_content", "document__content")
        .order_by("-created_at", "-id")
    )


def proposal_get(*, user, proposal_id: int) -> EditProposal:
    return get_object_or_404(EditProposal.objects.owned_by(user).select_related("document"), pk=proposal_id)


def recent_journal(*, user, limit: int = 20) -> QuerySet[JournalEntry]:
    return JournalEntry.objects.owned_by(user).select_related("deployment").order_by("-created_at", "-id")[:limit]


# ------------------------------------------------------------------------------ situation recall

# Candidates fetched per open trade, by pgvector's distance, before they are ranked exactly (recall.situations.
# rank_similar): the database's float rounding can only reorder near-equal distances, so the best k of this many
# are the best k of all (identical vectors tie exactly in both, and both break ties the same way).
SITUATIONS_FETCH = 4 * SITUATIONS_K

# The deployment's open trades as of a tick: opened by then, not closed by then.
_SITUATIONS_OPEN = """
    SELECT trade_id, summary, embedding
    FROM recall_trade_situations
    WHERE deployment_id = %s AND entry_tick_at <= %s AND (closed_at IS NULL OR closed_at > %s)
    ORDER BY symbol COLLATE "C", entry_tick_at
    LIMIT %s
"""
# The trader's closed trades of the same skill, symbol and side, closed by the tick; "+ 0" keeps the exact scan.
_SITUATIONS_PAST = """
    SELECT s.entry_tick_at, s.summary, s.outcome, s.embedding
    FROM recall_trade_situations o
    JOIN recall_trade_situations s
      ON s.skill_id = o.skill_id AND s.symbol = o.symbol AND s.side = o.side AND s.owner_id = o.owner_id
    WHERE o.trade_id = %s AND s.closed_at IS NOT NULL AND s.closed_at <= %s AND s.trade_id <> o.trade_id
"""
_SITUATIONS_NEAREST = (
    _SITUATIONS_PAST
    + """ AND s.embedding IS NOT NULL
    ORDER BY (s.embedding <=> %s::vector) + 0, s.entry_tick_at DESC, s.summary COLLATE "C", s.outcome COLLATE "C"
    LIMIT %s
"""
)
_SITUATIONS_UNEMBEDDED = _SITUATIONS_PAST + " AND s.embedding IS NULL"  # the index recall_situation_unembedded
_SITUATION_CANDIDATES = f"({_SITUATIONS_NEAREST}) UNION ALL ({_SITUATIONS_UNEMBEDDED})"


def _vector(text: str) -> tuple[float, ...]:
    """pgvector's text form of a vector as its float4 values."""
    return float32_values([float(value) for value in text[1:-1].split(",")])


def _vector_text(values: Sequence[float]) -> str:
    return "[" + ",".join(repr(value) for value in values) + "]"  # float4 values: read back exactly


def similar_situations_section(*, deployment, as_of: datetime | None, embedder, k: int = SITUATIONS_K) -> str | None:
    """``## Similar past situations`` for the deployment's trades open as of ``as_of`` (the latest tick): for
    each, the k nearest closed trades of the same skill with the same symbol and side (the structured fields
    filter, the embedding only ranks), closed by ``as_of``. None when there is nothing, or no embedder.

    A function of the ticks posted up to ``as_of`` (and the other deployments of the skill): the situation rows
    are written with the trades, in the materialization of the tick that opened or closed them; a summary the
    embedding task has not reached yet is embedded here (the same embedder, so the vector it will store); and
    the ranking is recall.situations.rank_similar's, the sim ledger's (``SituationMemory``)."""
    if as_of is None or embedder is None:
        return None

    def embedded(summaries: set[str]) -> dict[str, tuple[float, ...]]:
        texts = sorted(summaries)
        return dict(zip(texts, (float32_values(v) for v in embedder.embed(texts)), strict=True)) if texts else {}

    with connection.cursor() as cursor:
        cursor.execute(_SITUATIONS_OPEN, [deployment.pk, as_of, as_of, OPEN_SITUATIONS_MAX])
        current = cursor.fetchall()
        if not current:
            return None
        now = embedded({summary for _, summary, embedding in current if embedding is None})
        found = []
        for trade_id, summary, embedding in current:
            query = now[summary] if embedding is None else _vector(embedding)
            cursor.execute(
                _SITUATION_CANDIDATES, [trade_id, as_of, _vector_text(query), max(k, SITUATIONS_FETCH), trade_id, as_of]
            )
            rows = cursor.fetchall()
            past = [PastSituation(row[0], row[1], row[2], _vector(row[3])) for row in rows if row[3] is not None]
            found.append((summary, query, past, [row for row in rows if row[3] is None]))
    then = embedded({row[1] for *_, unembedded in found for row in unembedded})
    groups = []
    for summary, query, past, unembedded in found:
        candidates = past + [PastSituation(row[0], row[1], row[2], then[row[1]]) for row in unembedded]
        groups.append((summary, rank_similar(query, candidates, k)))
    return render_similar_situations(groups)

"""BM25 (recall/bm25.py): the pure part's properties, and the SQL scoring in recall/selectors.py equal
to the Python reference on real tsvectors."""

from __future__ import annotations

import math
import random

import pytest
from django.db import connection
from hypothesis import given
from hypothesis import strategies as st

from recall import bm25, selectors
from recall.models import Chunk
from tests.recall.test_search import NOW, index

counts = st.integers(min_value=0, max_value=10**6)


@given(counts, counts)
def test_idf_is_positive_finite_and_falls_as_a_term_gets_commoner(df, n):
    value = bm25.idf(df, n)
    assert math.isfinite(value) and value > 0
    if df < n:
        assert bm25.idf(df + 1, n) < value


terms = st.lists(
    st.builds(bm25.Term, st.text("abcdef", min_size=1, max_size=4), st.integers(min_value=0, max_value=5000)),
    max_size=40,
    unique_by=lambda term: term.lexeme,
)


@given(terms, st.integers(min_value=0, max_value=5000))
def test_fetch_terms_are_held_rarest_first_and_never_empty_when_one_is_held(query_terms, n):
    fetched = bm25.fetch_terms(query_terms, n)
    held = [term for term in query_terms if term.df > 0]
    assert bool(fetched) == bool(held)
    assert len(fetched) <= bm25.MAX_FETCH_TERMS
    assert all(term.df > 0 for term in fetched)
    assert fetched == sorted(fetched, key=lambda term: (term.df, term.lexeme))
    if len(fetched) > 1:  # more than the fallback: none of them is common
        assert all(term.df <= max(bm25.COMMON_SHARE * n, bm25.COMMON_MIN_DF) for term in fetched)
    if fetched:  # the rarest held term always fetches
        assert fetched[0] == min(held, key=lambda term: (term.df, term.lexeme))


postings = st.lists(st.frozensets(st.integers(0, 60), min_size=1), min_size=1, max_size=5)


@given(postings, st.integers(min_value=1, max_value=60))
def test_all_terms_first_whenever_the_chunks_holding_every_term_could_fill_the_candidates(chunk_sets, top):
    """Never skipped when the conjunction holds `top` chunks (the scans term by term could only add chunks of a
    lower idf sum); never tried for one term, whose own scan is the conjunction."""
    fetch = [bm25.Term(f"t{i}", len(chunks)) for i, chunks in enumerate(chunk_sets)]
    first = bm25.all_terms_first(fetch, top)
    if len(fetch) > 1 and len(frozenset.intersection(*chunk_sets)) >= top:
        assert first
    if len(fetch) == 1:
        assert not first


@given(postings, st.integers(min_value=0, max_value=60), st.integers(min_value=1, max_value=40))
def test_a_chunk_holding_no_anchor_weighs_less_than_the_lightest_anchor(chunk_sets, unheld, top):
    """anchor_count: every chunk holding only terms after the anchors has a lower idf sum than any chunk holding an
    anchor (recall/row_security.py relies on it), an anchor is held by `top` chunks or more, each term after them
    by more than ANCHORED_POSTINGS times the anchors' chunks together, and no fewer anchors would do."""
    readable = len(frozenset().union(*chunk_sets)) + unheld
    holders = {f"t{i}": chunks for i, chunks in enumerate(chunk_sets)}
    fetch = bm25.fetch_terms([bm25.Term(lexeme, len(chunks)) for lexeme, chunks in holders.items()], readable)
    idfs = {term.lexeme: bm25.idf(term.df, readable) for term in fetch}

    def qualifies(count: int) -> bool:
        anchors, others = fetch[:count], fetch[count:]
        return (
            sum(idfs[term.lexeme] for term in others) < min(idfs[term.lexeme] for term in anchors)
            and max(term.df for term in anchors) >= top
            and all(term.df > bm25.ANCHORED_POSTINGS * sum(anchor.df for anchor in anchors) for term in others)
        )

    count = bm25.anchor_count(fetch, idfs, top)
    if count is not None:
        assert 1 <= count < len(fetch) and qualifies(count)
        anchors, others = fetch[:count], fetch[count:]
        lightest = min(idfs[term.lexeme] for term in anchors)
        for chunk in frozenset().union(*chunk_sets):
            if not any(chunk in holders[term.lexeme] for term in anchors):
                assert sum(idfs[term.lexeme] for term in others if chunk in holders[term.lexeme]) < lightest
    assert not any(qualifies(n) for n in range(1, count or len(fetch)))


@pytest.mark.parametrize(
    ("dfs", "readable", "anchors"),
    [
        # bench/recall_latency.py's one-trader table (100,000 chunks): 'order flow absorption at the value area high'
        ({"flow": 3420, "area": 3792, "absorpt": 4253, "valu": 28794}, 100_000, 3),
        # 'crude oil inventory report volatility playbook': 'volatil' weighs less than 'report', but is held by fewer
        # chunks than the four rarer terms together (the conjunction would read more postings than it alone)
        ({"inventori": 4133, "crude": 4156, "oil": 4156, "report": 4380, "volatil": 8071}, 100_000, None),
        # 'volatility regime change': 'volatil' and 'chang' together outweigh 'regim'; 'chang' alone does not
        ({"regim": 3971, "volatil": 8071, "chang": 25999}, 100_000, 2),
        # 'staking yield narrative and ETH rotation': 'yield' has under twice the rarer four's chunks
        ({"narrat": 3628, "eth": 4086, "stake": 4086, "rotat": 7951, "yield": 16028}, 100_000, None),
        # a 540-chunk trader: 'patienc' could not find the 200 candidates, so the term scans would run after it
        ({"patienc": 12, "wait": 160}, 540, None),
        ({"breakout": 4228}, 100_000, None),
    ],
)
def test_anchors_of_the_benchs_questions(dfs, readable, anchors):
    fetch = bm25.fetch_terms([bm25.Term(lexeme, df) for lexeme, df in dfs.items()], readable)
    idfs = {term.lexeme: bm25.idf(term.df, readable) for term in fetch}
    assert bm25.anchor_count(fetch, idfs, bm25.RESCORE_TOP) == anchors


def test_a_fetch_samples_only_when_every_term_is_held_by_more_than_sample_df_chunks():
    many, fewer = bm25.Term("strong", bm25.SAMPLE_DF + 1), bm25.Term("trail", bm25.SAMPLE_DF)
    assert bm25.samples_only([many])
    assert not bm25.samples_only([fewer, many])
    assert not bm25.samples_only([])


@given(st.integers(min_value=1, max_value=50), st.integers(min_value=1, max_value=50), st.integers(1, 2000))
def test_more_occurrences_score_higher_and_longer_chunks_lower(tf, extra, length):
    idfs = {"stop": 2.0}
    one = bm25.score({"stop": tf}, length, idfs=idfs, average_length=500)
    assert bm25.score({"stop": tf + extra}, length, idfs=idfs, average_length=500) > one
    assert bm25.score({"stop": tf}, length + extra, idfs=idfs, average_length=500) < one
    assert one < idfs["stop"] * (bm25.K1 + 1)  # saturates


WORDS = [
    "stop",
    "risk",
    "entry",
    "breakout",
    "funding",
    "basis",
    "carry",
    "gamma",
    "vega",
    "eurusd",
    "gbpusd",
    "btc",
    "spread",
    "slippage",
]


@pytest.mark.django_db
def test_the_sql_score_is_the_python_reference_on_real_chunks(owner, other):
    rng = random.Random(7)
    for n in range(12):
        body = "\n".join(" ".join(rng.choices(WORDS, k=rng.randint(3, 15))) for _ in range(rng.randint(1, 12)))
        index(owner, f"notes/{n}.md", f"# Note {n}\n{body}\n", embed=False)
    index(other, "theirs.md", "# Theirs\n" + " ".join(WORDS * 3) + "\n", embed=False)
    query = "risk of slippage on a breakout with wide spread"
    scope = selectors.SearchScope(owner.pk)
    keywords = selectors.keyword_query(scope, query)
    chunks = list(Chunk.objects.filter(owner=owner))
    assert keywords.readable == len(chunks)  # the other trader's chunks are not counted
    assert keywords.average_length == pytest.approx(sum(c.word_count for c in chunks) / len(chunks))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id, u.lexeme, array_length(u.positions, 1) FROM recall_chunks c, unnest(c.search_vector) u"
            " WHERE c.owner_id = %s",
            [owner.pk],
        )
        tfs: dict[int, dict[str, int]] = {}
        for chunk_id, lexeme, tf in cursor.fetchall():
            tfs.setdefault(chunk_id, {})[lexeme] = tf
    expected_df = {lexeme: sum(lexeme in t for t in tfs.values()) for lexeme in keywords.idfs}
    assert keywords.idfs == {lexeme: bm25.idf(df, len(chunks)) for lexeme, df in expected_df.items()}
    expected = {
        chunk.pk: bm25.score(
            tfs[chunk.pk], chunk.word_count, idfs=keywords.idfs, average_length=keywords.average_length
        )
        for chunk in chunks
    }
    found = selectors._keyword_candidates(scope, keywords, limit=100)
    assert set(found) == {pk for pk, value in expected.items() if value > 0}
    assert found == pytest.approx({pk: expected[pk] for pk in found}, rel=1e-9)
    ranked = selectors.search(user=owner, query=query, backend="fts", k=5, now=NOW).hits
    best = sorted(expected, key=lambda pk: (-expected[pk], pk))[:5]
    assert [hit.candidate.chunk_id for hit in ranked] == best


@pytest.mark.django_db
def test_the_query_stop_words_are_postgresqls_english_list_less_the_kept_ones():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT w, to_tsvector('english', w) = ''::tsvector, to_tsvector('recall_english', w) = ''::tsvector"
            " FROM unnest(%s::text[]) AS w",
            [list(bm25.ENGLISH_STOP_WORDS)],
        )
        rows = cursor.fetchall()
    assert len(rows) == 127 and all(dropped for _, dropped, _ in rows)  # all of english's stop words
    assert not any(indexed_empty for _, _, indexed_empty in rows)  # and the chunks index every one of them
    assert bm25.KEPT_STOP_WORDS.issubset(bm25.ENGLISH_STOP_WORDS)
    assert set(bm25.QUERY_STOP_WORDS.split()) == set(bm25.ENGLISH_STOP_WORDS) - bm25.KEPT_STOP_WORDS

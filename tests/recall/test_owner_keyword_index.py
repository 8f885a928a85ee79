"""The keyword index holds each chunk's lexemes plus its owner's ("owner <owner id>", "owner 0" for global rows;
recall 0008, recall/row_security.py): text cannot forge an owner lexeme, the candidate function's expression is
the index's, and the fetch reads the trader's and the global postings only."""

from __future__ import annotations

import pytest
from django.db import connection
from hypothesis import given, settings
from hypothesis import strategies as st

from access import scope
from recall import bm25, selectors, services
from recall.models import FTS_CONFIG, Chunk
from recall.row_security import KEYWORD_FUNCTION, OWNER_SEARCH_VECTOR_SQL
from tests.dbroles import owner_connection
from tests.recall.test_search import NOW, index

# Blanks of every kind, owner-like words and the characters tsquery and the parser's file/URL tokens treat apart.
ANY_TEXT = st.text(st.characters(exclude_characters="\x00", exclude_categories=("Cs",)), max_size=40)
TRICKY = st.text(alphabet=" \t\n\u00a0\u2003\u3000~0123456789-_./%abcowner'\"\\:&|!()<>*@", max_size=40)


@pytest.mark.django_db
@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(TRICKY, ANY_TEXT), min_size=1, max_size=5))
def test_no_text_makes_a_lexeme_holding_a_space(texts):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT lexeme FROM unnest(%s::text[]) AS t(text),"
            " unnest(tsvector_to_array(to_tsvector(%s::regconfig, t.text))) AS lexeme WHERE strpos(lexeme, ' ') > 0",
            [["owner 7 owner  0 'owner 3' ~7 http://x.com/owner%207 a\u00a0b c\u2003d", *texts], FTS_CONFIG],
        )
        assert cursor.fetchall() == []


def test_the_index_holds_the_owner_lexeme_of_each_chunk(owner):
    index(owner, "notes/a.md", "# A\nbreakout above the range high.\n", embed=False)
    chunk = Chunk.objects.filter(owner=owner).first()
    expression = OWNER_SEARCH_VECTOR_SQL.format(alias="c.")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tsvector_to_array({expression}) FROM recall_chunks c WHERE c.id = %s",  # noqa: S608 (constant)
            [chunk.pk],
        )
        lexemes = cursor.fetchone()[0]
    assert f"owner {owner.pk}" in lexemes and "breakout" in lexemes
    assert [lexeme for lexeme in lexemes if " " in lexeme] == [f"owner {owner.pk}"]


def test_the_functions_scans_use_the_owner_index(db):
    """The function's per-term expression is the index's (the planner matches it structurally); with sequential
    scans off the plan must take recall_chunk_owner_fts, which it could not for any other expression. As the
    tables' owner, as the SECURITY DEFINER function runs: under row-level security `@@` stays out of index
    conditions."""
    expression = OWNER_SEARCH_VECTOR_SQL.format(alias="c.")
    assert expression.replace("'", "''") in KEYWORD_FUNCTION
    with owner_connection() as owner_db, owner_db.transaction():
        owner_db.execute("SET LOCAL enable_seqscan = off")
        rows = owner_db.execute(
            f"EXPLAIN SELECT c.id FROM recall_chunks c WHERE {expression} @@ %s::tsquery",  # noqa: S608 (constant)
            ["'breakout' & ('owner 7' | 'owner 0')"],
        ).fetchall()
    plan = "\n".join(row[0] for row in rows)
    assert "Index Cond" in plan and "recall_chunk_owner_fts" in plan, plan


@pytest.mark.django_db(transaction=True)
def test_the_fetch_returns_the_traders_and_the_global_chunks_holding_a_term_and_no_one_elses(owner, other):
    """Both ways the function asks: with the owner lexemes (a trader holding a small share of the table), and
    without them (a trader holding most of it, whom they would filter nothing out for); the table analyzed so
    that its size estimate is known, as autovacuum keeps it."""
    for n in range(30):
        index(other, f"notes/{n}.md", f"# Other {n}\nbreakout number {n} of theirs.\n", embed=False)
    index(owner, "notes/mine.md", "# Mine\nbreakout of mine.\n", embed=False)
    services.document_upsert(
        owner=None, path="playbooks/breakouts.md", content="# Breakouts\nbreakout playbook.\n", source="playbook"
    )
    with owner_connection() as owner_db:
        owner_db.execute("ANALYZE recall_chunks")
        reltuples = owner_db.execute("SELECT reltuples FROM pg_class WHERE relname = 'recall_chunks'").fetchone()[0]
    chunks = {user: set(Chunk.objects.filter(owner=user).values_list("id", flat=True)) for user in (owner, other, None)}
    assert 2 * len(chunks[owner]) <= reltuples < 2 * len(chunks[other])  # one of each way
    sql = "SELECT k.id FROM recall_keyword_candidates(ARRAY['breakout'], ARRAY[1.0]::float8[], %s, NULL, NULL, 100, 100) k"
    for user in (owner, other):
        with scope.owner_scope(user), connection.cursor() as cursor:
            cursor.execute(sql, [user.pk])
            assert {row[0] for row in cursor.fetchall()} == chunks[user] | chunks[None]
            cursor.execute(sql, [None])
            assert {row[0] for row in cursor.fetchall()} == chunks[None]
    with scope.owner_scope(owner):
        hits = selectors.search(user=owner, query="breakout", backend="fts", k=50, now=NOW).hits
    assert {hit.candidate.path for hit in hits} == {"notes/mine.md", "playbooks/breakouts.md"}


CANDIDATES = (
    "SELECT k.id, k.weight FROM recall_keyword_candidates(ARRAY['breakout', 'retest'], ARRAY[2.0, 3.0]::float8[],"
    " %s, NULL, NULL, %s, %s, NULL, %s) AS k ORDER BY k.weight DESC, k.id DESC"
)


def notes(user, kind: str, count: int) -> None:
    """`count` one-line notes holding breakout only, retest only or both (`kind`), one chunk each."""
    words = {"breakout": "breakout only", "retest": "retest only", "both": "breakout then retest"}[kind]
    for n in range(count):
        index(user, f"notes/{kind}-{n}.md", f"# {kind} {n}\n{words} {n}.\n", embed=False)


def candidates(user, per_term_cap: int, top: int, all_first: bool) -> list[tuple[int, float]]:
    with scope.owner_scope(user), connection.cursor() as cursor:
        cursor.execute(CANDIDATES, [user.pk, per_term_cap, top, all_first])
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def test_all_terms_first_returns_the_newest_chunks_holding_every_term_as_the_term_scans_would(owner, other):
    """p_all_first: the chunks holding both terms have the highest idf sum there is, so with `top` of them the
    conjunction's newest answer alone, weighted with both terms, and only the trader's: another trader's newer
    chunks holding both never come back. Within the caps the scans term by term give the same answer."""
    notes(owner, "breakout", 3)
    notes(owner, "retest", 3)
    notes(owner, "both", 4)
    notes(other, "both", 4)
    both = sorted(Chunk.objects.filter(owner=owner, path__startswith="notes/both-").values_list("id", flat=True))
    expected = [(chunk_id, 5.0) for chunk_id in reversed(both[-3:])]
    assert candidates(owner, 100, 3, True) == expected
    assert candidates(owner, 100, 3, False) == expected


def test_all_terms_first_with_too_few_chunks_holding_every_term_leaves_the_answer_to_the_term_scans(owner):
    notes(owner, "breakout", 3)
    notes(owner, "both", 3)
    by_terms = candidates(owner, 100, 5, False)
    assert len(by_terms) == 5 and [weight for _, weight in by_terms] == [5.0, 5.0, 5.0, 2.0, 2.0]
    assert candidates(owner, 100, 5, True) == by_terms


def test_all_terms_first_finds_the_chunks_holding_every_term_past_each_terms_cap(owner):
    """What the conjunction is for: with each term's scan capped below the chunks holding it, the term scans may
    never reach a chunk holding both; the conjunction reads those alone."""
    notes(owner, "breakout", 6)
    notes(owner, "retest", 6)
    notes(owner, "both", 2)
    both = set(Chunk.objects.filter(owner=owner, path__startswith="notes/both-").values_list("id", flat=True))
    assert {chunk_id for chunk_id, _ in candidates(owner, 2, 2, True)} == both


@pytest.mark.parametrize("df", [bm25.RESCORE_TOP - 1, bm25.RESCORE_TOP])
def test_the_keyword_side_asks_for_all_terms_first_when_each_term_could_fill_the_candidates(owner, df):
    """selectors._keyword_candidates passes bm25.all_terms_first of the fetch terms (their df as keyword_query
    counted it, given here) to the function, and scores what it returns."""
    notes(owner, "breakout", 2)
    notes(owner, "both", 2)
    keywords = selectors.KeywordQuery(
        idfs={"breakout": 2.0, "retest": 3.0},
        fetch=[bm25.Term("breakout", df), bm25.Term("retest", df)],
        readable=4,
        table_estimate=4,
        average_length=5.0,
    )
    sent = []

    def capture(execute, sql, params, many, context):
        sent.append(params)
        return execute(sql, params, many, context)

    with scope.owner_scope(owner), connection.execute_wrapper(capture):
        found = selectors._keyword_candidates(selectors.SearchScope(owner.pk), keywords, 10)
    assert sent[0][-2] is (df >= bm25.RESCORE_TOP)
    assert len(found) == 4  # too few chunks hold both terms: the scans term by term answer either way

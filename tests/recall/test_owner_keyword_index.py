"""The keyword index holds each chunk's lexemes prefixed with its owner ("<owner id> <lexeme>", "0 <lexeme>" for
global rows; recall 0013, recall/row_security.py): text cannot forge another owner's lexeme, the candidate
function's expression is the index's, and the fetch reads the trader's and the global postings only."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Q
from hypothesis import given, settings
from hypothesis import strategies as st

from access import scope
from recall import bm25, selectors, services
from recall.models import FTS_CONFIG, Chunk
from recall.row_security import KEYWORD_FUNCTION, KEYWORD_FUNCTION_SIGNATURE, OWNER_LEXEMES_SQL
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


def test_the_index_holds_each_lexeme_of_a_chunk_prefixed_with_its_owner(owner):
    index(owner, "notes/a.md", "# A\nbreakout above the range high.\n", embed=False)
    services.document_upsert(owner=None, path="playbooks/b.md", content="# B\nbreakout playbook.\n", source="playbook")
    expression = OWNER_LEXEMES_SQL.format(alias="c.")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT c.owner_id, tsvector_to_array(c.search_vector), tsvector_to_array({expression})"  # noqa: S608
            " FROM recall_chunks c ORDER BY c.id"
        )
        rows = cursor.fetchall()
    assert {owner_id for owner_id, _, _ in rows} == {owner.pk, None}
    for owner_id, lexemes, prefixed in rows:
        assert "breakout" in lexemes
        assert prefixed == sorted(f"{owner_id or 0} {lexeme}" for lexeme in lexemes)


def test_a_lexeme_too_long_to_prefix_is_left_out_of_the_index(owner):
    """PostgreSQL keeps lexemes of up to 2,047 bytes; a prefix could take one past that, so the index leaves out
    those above 2,000 (no query fetches by such a word) and the chunk is indexed all the same."""
    word = "x" * 2040
    index(owner, "notes/long.md", f"# Long\nbreakout {word}\n", embed=False)
    expression = OWNER_LEXEMES_SQL.format(alias="c.")
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT tsvector_to_array(c.search_vector), tsvector_to_array({expression})"  # noqa: S608 (constant)
            " FROM recall_chunks c WHERE c.owner_id = %s",
            [owner.pk],
        )
        lexemes, prefixed = cursor.fetchone()
    assert word in lexemes
    assert f"{owner.pk} breakout" in prefixed and not any(word in lexeme for lexeme in prefixed)


def test_the_functions_scans_use_the_owner_index(db):
    """The function's per-term expression is the index's (the planner matches it structurally); with sequential
    scans off the plan must take recall_chunk_owner_lexemes, which it could not for any other expression. As the
    tables' owner, as the SECURITY DEFINER function runs: under row-level security `@@` stays out of index
    conditions."""
    expression = OWNER_LEXEMES_SQL.format(alias="c.")
    assert expression in KEYWORD_FUNCTION
    with owner_connection() as owner_db, owner_db.transaction():
        owner_db.execute("SET LOCAL enable_seqscan = off")
        rows = owner_db.execute(
            f"EXPLAIN SELECT c.id FROM recall_chunks c WHERE {expression} @@ %s::tsquery",  # noqa: S608 (constant)
            ["'7 breakout' | '0 breakout'"],
        ).fetchall()
    plan = "\n".join(row[0] for row in rows)
    assert "Index Cond" in plan and "recall_chunk_owner_lexemes" in plan, plan


def test_the_fetch_returns_the_traders_and_the_global_chunks_holding_a_term_and_no_one_elses(owner, other):
    """A trader's fetch, another trader's and a global one (p_owner NULL), each in its own scope."""
    for n in range(30):
        index(other, f"notes/{n}.md", f"# Other {n}\nbreakout number {n} of theirs.\n", embed=False)
    index(owner, "notes/mine.md", "# Mine\nbreakout of mine.\n", embed=False)
    services.document_upsert(
        owner=None, path="playbooks/breakouts.md", content="# Breakouts\nbreakout playbook.\n", source="playbook"
    )
    chunks = {user: set(Chunk.objects.filter(owner=user).values_list("id", flat=True)) for user in (owner, other, None)}
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


def fetched(user, sql: str, params: list) -> list[tuple[int, float]]:
    """The function's (id, weight) rows for ``sql`` in the trader's scope (its owner the first parameter)."""
    with scope.owner_scope(user), connection.cursor() as cursor:
        cursor.execute(sql, [user.pk, *params])
        return [(row[0], float(row[1])) for row in cursor.fetchall()]


def candidates(user, per_term_cap: int, top: int, all_first: bool) -> list[tuple[int, float]]:
    return fetched(user, CANDIDATES, [per_term_cap, top, all_first])


def test_all_terms_first_returns_the_newest_chunks_holding_every_term_as_the_term_scans_would(owner, other):
    """p_all_first: the chunks holding both terms have the highest idf sum there is, so with `top` of them the
    conjunction's newest answer alone, weighted with both terms, and only the trader's and the global rows': another
    trader's newer chunks holding both never come back. Within the caps the scans term by term give the same
    answer."""
    notes(owner, "breakout", 3)
    notes(owner, "retest", 3)
    notes(owner, "both", 4)
    services.document_upsert(
        owner=None, path="playbooks/retests.md", content="# Retests\nbreakout then retest.\n", source="playbook"
    )
    notes(other, "both", 4)
    both = sorted(
        Chunk.objects.filter(Q(owner=owner, path__startswith="notes/both-") | Q(owner=None)).values_list(
            "id", flat=True
        )
    )
    expected = [(chunk_id, 5.0) for chunk_id in reversed(both[-3:])]
    assert Chunk.objects.get(owner=None).pk == both[-1]  # the global chunk is among them
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


ANCHORED = (
    "SELECT k.id, k.weight FROM recall_keyword_candidates(ARRAY['retest', 'breakout'], ARRAY[3.0, 2.0]::float8[],"
    " %s, NULL, NULL, %s, %s, NULL, false, %s) AS k ORDER BY k.weight DESC, k.id DESC"
)


def anchored(user, per_term_cap: int, top: int, anchors: int | None) -> list[tuple[int, float]]:
    """'retest' (3.0) the anchor of 'breakout' (2.0) when ``anchors`` is 1; None: both scanned alone."""
    return fetched(user, ANCHORED, [per_term_cap, top, anchors])


def test_with_enough_chunks_holding_the_anchor_the_other_terms_chunks_alone_are_not_read(owner, other):
    """p_anchors: 'breakout' is scanned only where 'retest' is too. The anchor's scan found `top` chunks, so those
    holding 'breakout' alone (2.0) could not be kept: the answer is the scans term by term's, another trader's
    chunks holding both never come back. Fewer than `top` holding the anchor: the scans term by term answer."""
    notes(owner, "breakout", 4)
    notes(owner, "both", 2)
    notes(owner, "retest", 3)
    notes(other, "both", 3)
    both = sorted(Chunk.objects.filter(owner=owner, path__startswith="notes/both-").values_list("id", flat=True))
    retest = sorted(Chunk.objects.filter(owner=owner, path__startswith="notes/retest-").values_list("id", flat=True))
    expected = [(chunk_id, 5.0) for chunk_id in reversed(both)] + [(chunk_id, 3.0) for chunk_id in reversed(retest)]
    assert anchored(owner, 100, 5, 1) == anchored(owner, 100, 5, None) == expected
    by_terms = anchored(owner, 100, 7, None)
    assert [weight for _, weight in by_terms] == [5.0, 5.0, 3.0, 3.0, 3.0, 2.0, 2.0]
    assert anchored(owner, 100, 7, 1) == by_terms


def test_a_term_scanned_with_its_anchors_reaches_the_chunks_holding_both_past_its_cap(owner):
    """What the anchors are for: the chunks holding 'breakout' alone come first in the table and fill its capped
    scan, which never reaches the two holding both; scanned with its anchor it reads those, and each weighs what it
    holds (5.0, not the anchor's 3.0 alone)."""
    notes(owner, "breakout", 3)
    notes(owner, "both", 2)
    notes(owner, "retest", 2)
    both = sorted(Chunk.objects.filter(owner=owner, path__startswith="notes/both-").values_list("id", flat=True))
    assert anchored(owner, 2, 2, None) == [(chunk_id, 3.0) for chunk_id in reversed(both)]
    assert anchored(owner, 2, 2, 1) == [(chunk_id, 5.0) for chunk_id in reversed(both)]


@pytest.mark.django_db
@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(TRICKY, ANY_TEXT).filter(str.strip), min_size=2, max_size=4), st.integers(1, 3))
def test_any_lexemes_are_a_valid_anchored_fetch(lexemes, anchors):
    """The anchored scans' tsqueries quote each lexeme as the scans term by term do (a quote or a backslash in a
    word cannot break out of it)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM recall_keyword_candidates(%s, %s, NULL, NULL, NULL, 10, 10, NULL, false, %s)",
            [lexemes, [1.0] * len(lexemes), anchors],
        )
        assert cursor.fetchone()[0] == 0


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
    assert sent[0][-3] is (df >= bm25.RESCORE_TOP)
    assert sent[0][-2] is None  # bm25.anchor_count: the two terms weigh alike
    assert len(found) == 4  # too few chunks hold both terms: the scans term by term answer either way


def test_the_functions_scans_start_no_parallel_workers(db):
    """Parallel workers cost milliseconds to start, and the planner, which cannot tell that the index condition
    already selects the trader's rows, estimated a common term's scan at 1% of what it returns and ran it with two (a
    term held by 7,429 of a 20,000-chunk trader's chunks among 100,000: 8 ms, 2.4 without; bench/recall_latency.py's
    data). The function turns them off for its own statements, as it does sequential scans."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT proconfig FROM pg_proc WHERE oid = %s::regprocedure", [KEYWORD_FUNCTION_SIGNATURE])
        config = cursor.fetchone()[0]
    assert {"max_parallel_workers_per_gather=0", "enable_seqscan=off"} <= set(config), config

"""bench/_bm25_reference.py: the FTS5 query built from any text, and the reference ranking on a few rows."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench._bm25_reference import TOKENIZER, Fts5Reference, NoTerms, fts5_query, fts5_terms


@pytest.fixture(scope="module")
def fts5():
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE t USING fts5(body, tokenize='{TOKENIZER}')")
    db.executemany(
        "INSERT INTO t (body) VALUES (?)",
        [("running the stop-loss at -1021",), ('a "quoted" NEAR(AND OR) * column: x',), ("émigré café naïve",)],
    )
    yield db
    db.close()


def test_terms_are_runs_of_letters_and_digits_case_folded_once_each():
    assert fts5_terms('Is "R-08" the NEAR/OR stop_loss of r-08?') == [
        "is",
        "r",
        "08",
        "the",
        "near",
        "or",
        "stop",
        "loss",
        "of",
    ]
    assert fts5_terms("Ünïcode ÉMIGRÉ 2019–20") == ["ünïcode", "émigré", "2019", "20"]


def test_each_term_is_quoted_and_or_ed():
    assert fts5_query('NEAR(a b) AND "c" * -d: e^') == '"near" OR "a" OR "b" OR "and" OR "c" OR "d" OR "e"'


@pytest.mark.parametrize("text", ["", "   ", "?!", '"" *** -- :: ^ ()', "___", "\x00\u200e"])
def test_a_query_without_a_letter_or_digit_has_no_terms(text: str):
    with pytest.raises(NoTerms, match="a query needs a letter or a digit"):
        fts5_query(text)


@given(st.text())
def test_any_text_gives_a_query_fts5_accepts_or_no_terms(fts5, text: str):
    try:
        query = fts5_query(text)
    except NoTerms:
        assert not fts5_terms(text)
        return
    fts5.execute("SELECT rowid, bm25(t) FROM t WHERE t MATCH ? ORDER BY bm25(t)", (query,)).fetchall()


@given(
    st.lists(st.sampled_from(["stop", "loss", "café", "NEAR", "AND", "quoted", "*", '"', ":", "-", "("]), max_size=8)
)
def test_a_query_with_a_word_of_a_row_finds_that_row(fts5, words: list[str]):
    text = " ".join(words)
    rows = (
        {rowid for (rowid,) in fts5.execute("SELECT rowid FROM t WHERE t MATCH ?", (fts5_query(text),))}
        if fts5_terms(text)
        else set()
    )
    expected = set()
    if {"stop", "loss"} & set(words):
        expected.add(1)
    if {"near", "and", "quoted"} & {w.casefold() for w in words}:
        expected.add(2)
    if "café" in words:
        expected.add(3)
    assert rows == expected


def test_the_reference_ranks_by_bm25_and_returns_the_k_best_chunks_paths():
    reference = Fts5Reference(
        [
            (1, "corpus/a.md", "Stops and losses: the stop-loss rule of the desk"),
            (2, "corpus/b.md", "Position sizing for the desk"),
            (3, "corpus/b.md", "A stop-loss is a stop order that limits the loss on a position"),
            (4, "corpus/c.md", "Nothing about it"),
        ]
    )
    try:
        assert reference.rows == 4
        assert reference.search("what is a stop loss?", 10) == ["corpus/b.md", "corpus/a.md"]  # porter: losses ~ loss
        assert reference.search("what is a stop loss?", 1) == ["corpus/b.md"]
        assert reference.search("position desk", 10)[:1] == ["corpus/b.md"]
        assert reference.search("?!", 10) == []
        assert reference.search("zzqxv flurble", 10) == []
    finally:
        reference.close()


def test_equal_scores_go_to_the_lower_chunk_id():
    reference = Fts5Reference([(9, "corpus/z.md", "same words here"), (2, "corpus/y.md", "same words here")])
    try:
        assert reference.search("words", 10) == ["corpus/y.md", "corpus/z.md"]
    finally:
        reference.close()

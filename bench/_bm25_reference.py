"""A reference ranking for the keyword side: SQLite FTS5's bm25() over the chunks recall indexes.

    reference = Fts5Reference((chunk.id, chunk.path, chunk.heading + " " + chunk.text) for chunk in chunks)
    reference.search("is the first series 20 euro note still legal tender", 10)  # paths, best first

bench/recall_quality.py ranks every query of a collection with it beside recall's own keyword side, over
the same chunks with the same text (what the chunk's tsvector is built from: heading, a space, text), so
the two differ in ranking only, not in chunking. It is a plain BM25 as FTS5 implements it (k1 = 1.2,
b = 0.75, idf = log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, the length of a row in tokens against the
table's average), from the standard library's sqlite3: nothing to install.

Tokenizer: `porter unicode61` (case and diacritics folded, the Porter stemmer), the nearest FTS5 has to
PostgreSQL's `english` configuration; unlike it, no stop words are dropped (BM25's idf gives them almost
no weight).

Query: the query's terms (runs of letters and digits, as unicode61 splits text; case-folded, each once, in
order) OR-ed, each term in double quotes, so that no character of the query (a quote, `*`, `-`, `:`,
`NEAR`, `AND`) is read as FTS5 syntax. A query without a letter or digit has no terms: NoTerms, and the
reference returns nothing for it (as recall's keyword side does for a query of stop words only).
Ties (equal bm25) go to the lower chunk id, as recall breaks its ties.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

TOKENIZER = "porter unicode61"
_TERM = re.compile(r"[^\W_]+")  # letters and digits: unicode61's token characters (it splits at "_" too)


class NoTerms(ValueError):
    """The query has no letter or digit: nothing for FTS5 to match."""


def fts5_terms(text: str) -> list[str]:
    """The query's terms: runs of letters and digits, case-folded, each once, in order of first appearance."""
    return list(dict.fromkeys(term.casefold() for term in _TERM.findall(text)))


def fts5_query(text: str) -> str:
    """An FTS5 MATCH expression: the terms, each double-quoted (a string, never syntax), joined with OR.
    Raises NoTerms when the text has none."""
    terms = fts5_terms(text)
    if not terms:
        raise NoTerms(f"no terms in {text[:80]!r}: a query needs a letter or a digit")
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


class Fts5Reference:
    """An in-memory FTS5 table of (chunk id, path, text) rows, ranked by bm25()."""

    def __init__(self, rows: Iterable[tuple[int, str, str]]) -> None:
        self._db = sqlite3.connect(":memory:")
        self._db.execute(f"CREATE VIRTUAL TABLE chunks USING fts5(path UNINDEXED, body, tokenize='{TOKENIZER}')")
        self._db.executemany("INSERT INTO chunks (rowid, path, body) VALUES (?, ?, ?)", rows)
        self._db.commit()
        self.rows = self._db.execute("SELECT count(*) FROM chunks").fetchone()[0]

    def search(self, text: str, k: int) -> list[str]:
        """The paths of the k best chunks for the query, best first (a path once per chunk, as recall's hits);
        [] for a query with no terms."""
        try:
            match = fts5_query(text)
        except NoTerms:
            return []
        return [
            path
            for (path,) in self._db.execute(
                "SELECT path FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks), rowid LIMIT ?", (match, k)
            )
        ]

    def close(self) -> None:
        self._db.close()

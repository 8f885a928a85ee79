"""BM25 for the keyword side of recall (seed hybrid-recall.md §4.1), the pure part: idf, and which of a
query's terms fetch candidates.

Okapi BM25 as Lucene and SQLite FTS5 score it: for each query term t in a chunk,

    idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / average length))

with ``idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's form: never negative, so a term in most
chunks still counts a little), N the trader's readable chunks and df how many of them hold t — both
from ``recall_lexeme_stats`` (the trader's and the global documents' counts; a search narrowed to one
deployment or to some sources keeps the trader-wide idf, an approximation that leaves the ranking of
rare terms intact). tf comes from the chunk's tsvector (its positions), length from ``word_count`` (its words: runs of
letters, digits and underscores; recall 0007).

Stop words: the chunks index every word (recall.models.FTS_CONFIG); the query drops ``QUERY_STOP_WORDS``,
PostgreSQL's English stop-word list less the words a trader's question turns on (``KEPT_STOP_WORDS``:
direction, time order, negation, degree). Measured with bench/keyword_study.py against SQLite FTS5's bm25() on
the same chunks (nDCG@10, trading_recall / python_docs / boolq): the full list 0.712 / 0.422 / 0.888, no list
0.741 / 0.411 / 0.880, this one 0.737 / 0.421 / 0.889; FTS5 0.738 / 0.426 / 0.882.

Fetching candidates: the terms in more than ``COMMON_SHARE`` of the readable chunks and in more than
``COMMON_MIN_DF`` of them are left out of the fetch (their idf is small, and a term in every chunk would
make the fetch read them all) but still score the chunks the other terms fetched; a query of only such
terms fetches by its rarest one. A trader with few chunks has no common term: all are fetched. Each
fetch term yields at most ``PER_TERM_CAP`` chunks; the ``RESCORE_TOP`` with the highest idf sum over
the terms they hold are scored exactly (recall/selectors.py).

All terms first: when there are several fetch terms and each is held by at least ``RESCORE_TOP`` readable
chunks (``all_terms_first``), the fetch first reads the chunks holding every one of them (one scan of the
index for the conjunction; at most ``PER_TERM_CAP``, the newest kept). Those have the highest idf sum there
is, so when there are ``RESCORE_TOP`` of them they are the candidates and the scans term by term (up to
``PER_TERM_CAP`` rows each) are skipped: bench/recall_latency.py's 20,000-chunk trader, the candidate
function's p50 4.3 → 2.4 ms. Below that df the conjunction cannot reach ``RESCORE_TOP``, and the scan would be
time lost.

Anchors (``anchor_count``): GIN reads every posting of a term it scans alone, ~90 ns each for the tens of thousands
a common term has in a large trader's chunks, whatever ``PER_TERM_CAP`` keeps. When the commonest fetch terms weigh
less together than the lightest of the rarer ones, a chunk holding only those ranks below every chunk holding a rarer
one; they count only in the chunks holding a rarer one too, and are scanned there alone (recall/row_security.py).
That pays when the rarer ones' scans find ``RESCORE_TOP`` chunks (else the scans term by term run after it) and when
each commoner term has more than ``ANCHORED_POSTINGS`` times the postings of the rarer ones together (the
conjunction reads those again and skips through the term's): with fewer, the function took as long or longer
(bench/recall_latency.py's traders of 500 to 20,000 chunks, a scratch A/B).

Samples only (``samples_only``): when every fetch term is held by more than ``SAMPLE_DF`` readable chunks, a scan
(``PER_TERM_CAP`` rows) reads under a tenth of a term's chunks, in the table's order: the candidates are a sample of
them, not the best, and GIN still reads every posting (2.7 ms for 29,454). A hybrid search then fetches no keyword
candidates of its own; BM25 still scores the vector side's (recall/selectors.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

K1 = 1.2
B = 0.75
COMMON_SHARE = 0.3
COMMON_MIN_DF = 200
PER_TERM_CAP = 1000
SAMPLE_DF = 10 * PER_TERM_CAP
ANCHORED_POSTINGS = 2
RESCORE_TOP = 200
MAX_FETCH_TERMS = 16

# PostgreSQL's snowball/english.stop, in its order.
_ENGLISH_STOP_TEXT = """
i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it
its itself they them their theirs themselves what which who whom this that these those am is are was were be been
being have has had having do does did doing a an the and but if or because as until while of at by for with about
against between into through during before after above below to from up down in out on off over under again further
then once here there when where why how all any both each few more most other some such no nor not only own same so
than too very s t can will just don should now
"""
ENGLISH_STOP_WORDS = tuple(_ENGLISH_STOP_TEXT.split())
_KEPT_TEXT = (
    "after before above below up down over under against between during until through once again further no nor not"
    " off out only few more most same too very"
)
KEPT_STOP_WORDS = frozenset(_KEPT_TEXT.split())
# Words, not lexemes: the query statement stems them with the chunks' configuration (recall/selectors.py).
QUERY_STOP_WORDS = " ".join(word for word in ENGLISH_STOP_WORDS if word not in KEPT_STOP_WORDS)


@dataclass(frozen=True)
class Term:
    lexeme: str
    df: int  # readable chunks holding it


def idf(df: int, n: int) -> float:
    """Lucene's BM25 idf; ``df`` is clamped to [0, n] (counts read a moment apart may disagree)."""
    n = max(n, 0)
    df = min(max(df, 0), n)
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def fetch_terms(terms: Sequence[Term], n: int) -> list[Term]:
    """The terms that fetch candidates, rarest first (ties by lexeme): those held by at least one readable
    chunk and not common (see above), at most MAX_FETCH_TERMS; if none, the rarest held one."""
    held = sorted((term for term in terms if term.df > 0), key=lambda term: (term.df, term.lexeme))
    if not held:
        return []
    selective = [term for term in held if term.df <= max(COMMON_SHARE * n, COMMON_MIN_DF)]
    return selective[:MAX_FETCH_TERMS] or held[:1]


def anchor_count(fetch: Sequence[Term], idfs: Mapping[str, float], top: int) -> int | None:
    """How many of the fetch terms (rarest first, as ``fetch_terms`` orders them) anchor the fetch (see above), or
    None when all do: the fewest rarest terms such that the others weigh less together than the lightest of them,
    one of them is held by at least ``top`` readable chunks, and each of the others by more than
    ``ANCHORED_POSTINGS`` times as many chunks as the anchors together."""
    for count in range(1, len(fetch)):
        anchors, others = fetch[:count], fetch[count:]
        lightest = min(idfs[term.lexeme] for term in anchors)
        if (
            sum(idfs[term.lexeme] for term in others) < lightest
            and max(term.df for term in anchors) >= top
            and others[0].df > ANCHORED_POSTINGS * sum(term.df for term in anchors)
        ):
            return count
    return None


def samples_only(fetch: Sequence[Term]) -> bool:
    """Whether every fetch term is held by more than ``SAMPLE_DF`` readable chunks (see above)."""
    return bool(fetch) and min(term.df for term in fetch) > SAMPLE_DF


def all_terms_first(fetch: Sequence[Term], top: int) -> bool:
    """Whether the fetch reads the chunks holding every fetch term first (see above): more than one term, each
    held by at least ``top`` readable chunks."""
    return len(fetch) > 1 and min(term.df for term in fetch) >= top


def score(tfs: dict[str, int], length: int, *, idfs: dict[str, float], average_length: float) -> float:
    """One chunk's BM25 (the reference the SQL in recall/selectors.py is tested against)."""
    norm = K1 * (1 - B + B * length / average_length) if average_length > 0 else K1
    return sum(idfs[lexeme] * tf * (K1 + 1) / (tf + norm) for lexeme, tf in tfs.items() if tf > 0 and lexeme in idfs)

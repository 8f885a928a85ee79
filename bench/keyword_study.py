"""Where does the keyword side lose to a plain BM25? Offline, choice by choice, against SQLite FTS5's bm25().

    .venv/bin/python bench/keyword_study.py --collection python_docs [--max-queries N] [--max-docs N]
                                            [--diff "TOKENS A,TOKENS B"]

Indexes a collection's documents as bench/recall_quality.py does (services.document_upsert; no embedding),
then ranks every query exhaustively (every chunk holding a query term, no candidate pruning) with BM25 in
Python (k1 1.2, b 0.75) under each combination of:

- tokens: PostgreSQL's `english` configuration; recall's own (recall.models.FTS_CONFIG: `english` without
  stop words), with the query's stop words kept, all of `english`'s dropped, or recall's QUERY_STOP_WORDS
  dropped (what search does: recall/bm25.py); `simple` (no stemmer); FTS5's `porter unicode61` tokens,
  read back through an fts5vocab table;
- idf: Lucene's (recall.bm25.idf) or FTS5's ln((N - n + .5)/(n + .5)) floored at 1e-6;
- length: the chunk's token_count (the chunker's: words and punctuation), its words (word_count, recall's
  since recall 0007) or the number of tokens the tokenizer indexed.

FTS5's own ranking (bench/_bm25_reference.py) is the reference row; every row prints nDCG@10 and R@10, and
the last line recall's choice against the reference. --diff lists the queries two token rows rank
differently (Lucene idf, token_count), with each one's terms.
"""

from __future__ import annotations

import argparse
import math
import sqlite3
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bm25_reference import TOKENIZER, Fts5Reference
from bench._collections import CollectionUnavailable, load_collection, ndcg_at_k, recall_at_k
from bench._harness import BenchError, BenchRun, parse_args, print_table, run_script
from bench.recall_quality import document_content, document_path, subset
from recall import bm25
from recall.fusion import MAX_QUERY_TERMS

K = 10
SMOKE = {"max_queries": 4, "max_docs": 12}
RECALLS = "recall: no stop words, query drops QUERY_STOP_WORDS"
IDFS = {"lucene": bm25.idf}
LENGTHS = ("token_count", "words", "own")
RECALLS_LENGTH = "words"  # recall.models.Chunk.word_count


def fts5_idf(df: int, n: int) -> float:
    return max(1e-6, math.log((n - df + 0.5) / (df + 0.5)))


IDFS["fts5"] = fts5_idf


class Index:
    """Per chunk: {term: tf} and a length; df per term."""

    def __init__(self, tfs: dict[int, Counter], lengths: dict[int, dict[str, int]]):
        self.tfs = tfs
        self.lengths = lengths
        self.postings: dict[str, list[int]] = defaultdict(list)
        for chunk, terms in tfs.items():
            for term in terms:
                self.postings[term].append(chunk)

    def rank(self, terms: list[str], idf_form, length: str, k: int, pruning: Pruning | None = None) -> list[int]:
        n = len(self.tfs)
        average = sum(lens[length] for lens in self.lengths.values()) / n
        scores: dict[int, float] = defaultdict(float)
        for term in dict.fromkeys(terms):
            chunks = self.postings.get(term, ())
            if not chunks:
                continue
            weight = idf_form(len(chunks), n)
            for chunk in chunks:
                tf = self.tfs[chunk][term]
                norm = bm25.K1 * (1 - bm25.B + bm25.B * self.lengths[chunk][length] / average)
                scores[chunk] += weight * tf * (bm25.K1 + 1) / (tf + norm)
        if pruning is not None:
            kept = pruning.candidates(self, list(dict.fromkeys(terms)), idf_form, n)
            scores = {chunk: score for chunk, score in scores.items() if chunk in kept}
        return sorted(scores, key=lambda chunk: (-scores[chunk], chunk))[:k]


@dataclass(frozen=True)
class Pruning:
    """recall's candidate fetch (recall/bm25.py, recall_keyword_candidates), with its constants as parameters:
    the non-common terms fetch (at most per_term_cap chunks each, in id order as the heap returns them), the
    `top` chunks with the highest idf sum over the fetch terms they hold (ties: newest) are scored; first, when
    bm25.all_terms_first, the newest `top` of the (at most per_term_cap) chunks holding every fetch term, if there
    are that many."""

    common_share: float = bm25.COMMON_SHARE
    common_min_df: int = bm25.COMMON_MIN_DF
    per_term_cap: int = bm25.PER_TERM_CAP
    top: int = bm25.RESCORE_TOP

    def candidates(self, index: Index, terms: list[str], idf_form, n: int) -> set[int]:
        held = sorted((term for term in terms if index.postings.get(term)), key=lambda t: (len(index.postings[t]), t))
        selective = [t for t in held if len(index.postings[t]) <= max(self.common_share * n, self.common_min_df)]
        fetch = selective[: bm25.MAX_FETCH_TERMS] or held[:1]
        if bm25.all_terms_first([bm25.Term(term, len(index.postings[term])) for term in fetch], self.top):
            every = sorted(set.intersection(*(set(index.postings[term]) for term in fetch)))[: self.per_term_cap]
            if len(every) >= self.top:
                return set(every[-self.top :])
        weights: dict[int, float] = defaultdict(float)
        for term in fetch:
            weight = idf_form(len(index.postings[term]), n)
            for chunk in sorted(index.postings[term])[: self.per_term_cap]:
                weights[chunk] += weight
        return set(sorted(weights, key=lambda chunk: (-weights[chunk], -chunk))[: self.top])


PRUNINGS = {
    "recall's pruning": Pruning(),
    "rescore top 400": Pruning(top=400),
    "per-term cap 3000": Pruning(per_term_cap=3000),
    "common share 0.6": Pruning(common_share=0.6),
}


def stemmed(words: list[str], config: str) -> set[str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT tsvector_to_array(to_tsvector(%s::regconfig, %s))", [config, " ".join(words)])
        return set(cursor.fetchone()[0])


def words_of_text():
    """A chunk's words (runs of letters, digits, underscores) in what its tsvector is built from, in SQL."""
    from django.db.models import Func, IntegerField, TextField, Value
    from django.db.models.functions import Concat

    text = Concat("heading", Value(" "), "text", output_field=TextField())
    return Func(text, Value(r"\w+"), function="regexp_count", output_field=IntegerField())


def pg_index(owner, config: str) -> tuple[Index, dict[int, str]]:
    from django.db import connection

    from recall.models import Chunk

    paths, tfs, lengths = {}, defaultdict(Counter), {}
    for chunk_id, path, token_count, words in Chunk.objects.filter(owner=owner).values_list(
        "id", "path", "token_count", words_of_text()
    ):
        paths[chunk_id] = path
        lengths[chunk_id] = {"token_count": token_count, "words": words, "own": 0}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.id, u.lexeme, COALESCE(array_length(u.positions, 1), 1) FROM recall_chunks c,"
            " unnest(to_tsvector(%s::regconfig, c.heading || ' ' || c.text)) u WHERE c.owner_id = %s",
            [config, owner.pk],
        )
        for chunk_id, lexeme, tf in cursor.fetchall():
            tfs[chunk_id][lexeme] = tf
            lengths[chunk_id]["own"] += tf
    for chunk_id in paths:
        tfs.setdefault(chunk_id, Counter())
    return Index(dict(tfs), lengths), paths


def pg_query_terms(queries: dict[str, str], config: str) -> dict[str, list[str]]:
    from django.db import connection

    out = {}
    with connection.cursor() as cursor:
        for qid, text in queries.items():
            cursor.execute("SELECT unnest(tsvector_to_array(to_tsvector(%s::regconfig, %s)))", [config, text])
            out[qid] = [row[0] for row in cursor.fetchall()]
    return out


def fts5_index(owner, chunk_lengths: dict[int, dict[str, int]]) -> Index:
    from recall.models import Chunk

    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE chunks USING fts5(body, tokenize='{TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE vocab USING fts5vocab(chunks, 'instance')")
    rows = Chunk.objects.filter(owner=owner).values_list("id", "heading", "text")
    db.executemany("INSERT INTO chunks (rowid, body) VALUES (?, ?)", ((i, f"{h} {t}") for i, h, t in rows))
    tfs: dict[int, Counter] = defaultdict(Counter)
    for term, chunk_id in db.execute("SELECT term, doc FROM vocab"):
        tfs[chunk_id][term] += 1
    lengths = {}
    for chunk_id, chunk in chunk_lengths.items():
        tfs.setdefault(chunk_id, Counter())
        lengths[chunk_id] = {**chunk, "own": sum(tfs[chunk_id].values())}
    return Index(dict(tfs), lengths)


def fts5_query_terms(queries: dict[str, str]) -> dict[str, list[str]]:
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE VIRTUAL TABLE q USING fts5(body, tokenize='{TOKENIZER}')")
    db.execute("CREATE VIRTUAL TABLE v USING fts5vocab(q, 'instance')")
    ids = list(queries)
    db.executemany("INSERT INTO q (rowid, body) VALUES (?, ?)", ((n, queries[qid]) for n, qid in enumerate(ids, 1)))
    out: dict[str, list[str]] = {qid: [] for qid in ids}
    for term, doc in db.execute("SELECT term, doc FROM v ORDER BY doc, offset"):
        out[ids[doc - 1]].append(term)
    return out


def reference_ranking(owner, queries: dict[str, str]) -> dict[str, list[str]]:
    from recall.models import Chunk

    chunks = Chunk.objects.filter(owner=owner).values_list("id", "path", "heading", "text")
    reference = Fts5Reference((chunk_id, path, f"{heading} {text}") for chunk_id, path, heading, text in chunks)
    return {qid: reference.search(text, K) for qid, text in queries.items()}


def evaluate(ranked_paths: dict[str, list[str]], path_to_id, qrels) -> tuple[float, float]:
    """Mean nDCG@10 and R@10, each document once at its best chunk."""
    ndcg, rec = [], []
    for qid, ranked in ranked_paths.items():
        docs = list(dict.fromkeys(path_to_id[path] for path in ranked))
        ndcg.append(ndcg_at_k(docs, qrels[qid], K))
        rec.append(recall_at_k(docs, qrels[qid], K))
    return sum(ndcg) / len(ndcg), sum(rec) / len(rec)


def token_choices(owner, queries: dict[str, str]) -> tuple[dict[str, tuple[Index, dict[str, list[str]]]], dict]:
    """{label: (index, {qid: query terms})} per token choice, and {chunk id: path}."""
    from recall.models import FTS_CONFIG

    choices, paths = {}, {}
    for config in ("english", FTS_CONFIG, "simple"):
        index, paths = pg_index(owner, config)
        choices[f"pg {config}"] = (index, pg_query_terms(queries, config))
    index, terms = choices[f"pg {FTS_CONFIG}"]
    for label, words in (
        ("pg no stop words, query drops english's", bm25.ENGLISH_STOP_WORDS),
        (RECALLS, bm25.QUERY_STOP_WORDS.split()),
    ):
        stop = stemmed(words, FTS_CONFIG)
        choices[label] = (index, {qid: [term for term in ts if term not in stop] for qid, ts in terms.items()})
    choices["fts5 porter unicode61"] = (fts5_index(owner, index.lengths), fts5_query_terms(queries))
    return choices, paths


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", default="trading_recall")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--max-docs", type=int, default=None)
    parser.add_argument("--diff", default=None, help="A,B: the queries two token rows rank differently")
    args = parse_args(parser, argv, SMOKE)
    try:
        coll = subset(load_collection(args.collection), args.max_queries, args.max_docs)
    except CollectionUnavailable as exc:
        raise BenchError(str(exc)) from None
    print(f"collection {coll.name}: {len(coll.docs)} documents, {len(coll.queries)} queries")
    with BenchRun("keyword_study"):
        from django.contrib.auth import get_user_model

        from recall.services import document_upsert

        owner = get_user_model().objects.create_user(username="keyword_study", email="keyword_study@example.com")
        path_to_id = {}
        started = time.perf_counter()
        for doc_id, (title, text) in coll.docs.items():
            path = document_path(doc_id)
            path_to_id[path] = doc_id
            document_upsert(
                owner=owner, path=path, content=document_content(title, text), source="workspace",
                queue_embedding=False,
            )  # fmt: skip
        print(f"  indexed in {time.perf_counter() - started:.1f} s")
        choices, paths = token_choices(owner, coll.queries)
        qrels = {qid: coll.qrels[qid] for qid in coll.queries}

        def ranked(label: str, idf: str, length: str) -> dict[str, list[str]]:
            index, terms = choices[label]
            return {qid: [paths[c] for c in index.rank(terms[qid], IDFS[idf], length, K)] for qid in coll.queries}

        reference = evaluate(reference_ranking(owner, coll.queries), path_to_id, qrels)
        rows = [["FTS5 bm25() (reference)", "", "", f"{reference[0]:.3f}", f"{reference[1]:.3f}"]]
        for label in choices:
            for idf in IDFS:
                for length in LENGTHS:
                    ndcg, rec = evaluate(ranked(label, idf, length), path_to_id, qrels)
                    rows.append([label, idf, length, f"{ndcg:.3f}", f"{rec:.3f}"])
        print_table(["tokens", "idf", "length", "nDCG@10", "R@10"], rows)
        index, terms = choices[RECALLS]
        rows = []
        for label, pruning in PRUNINGS.items():
            pruned = {
                qid: [paths[c] for c in index.rank(terms[qid][:MAX_QUERY_TERMS], bm25.idf, RECALLS_LENGTH, K, pruning)]
                for qid in coll.queries
            }
            ndcg, rec = evaluate(pruned, path_to_id, qrels)
            rows.append([label, f"{ndcg:.3f}", f"{rec:.3f}"])
        print_table(["recall's tokens, idf and length, pruned as", "nDCG@10", "R@10"], rows)
        ndcg, rec = evaluate(ranked(RECALLS, "lucene", RECALLS_LENGTH), path_to_id, qrels)
        print(f"recall's choice - reference  nDCG@10 {ndcg - reference[0]:+.3f}  R@10 {rec - reference[1]:+.3f}")
        if args.diff:
            a, b = args.diff.split(",")
            rankings = [ranked(label, "lucene", "token_count") for label in (a, b)]
            for qid, text in coll.queries.items():
                one, two = (evaluate({qid: ranking[qid]}, path_to_id, qrels)[0] for ranking in rankings)
                if one != two:
                    print(f"  {one:.3f} {two:.3f} {text!r}  {choices[a][1][qid]} | {choices[b][1][qid]}")
    return 0


if __name__ == "__main__":
    run_script(main)

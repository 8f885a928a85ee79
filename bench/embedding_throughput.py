"""How many chunks a second does recall embed? Today's graph against the new ones, interleaved in one run.

    .venv/bin/python bench/embedding_throughput.py [--rounds 8] [--long 6] [--short 48]

Issue 18's goal: the default embedder (EMBEDDINGS_PRECISION=int8) at >= 2x the chunks/s of the graph recall
shipped before graph version 2, for long and for short chunks, on this machine. No database: only the model.

Paths, each a recall.embeddings.OnnxEmbedder on the pinned all-MiniLM-L6-v2 weights, graphs cached in
EMBEDDINGS_CACHE_DIR (default .data/models, as the app):
  old   precision "reference": graph version 1 (standard ONNX ops), padded batches of 32 windows on ONNX
        Runtime's own threads (one per core): the embedder as it was.
  fp32  graph version 2 in float32 (ONNX Runtime's fused kernels), one window per run, a run per core.
  int8  the same with int8 dense layers (the default): what the app now runs.

Texts (real, from bench/collections/trading_recall): a short chunk is one document as recall_quality.py
indexes it (`# title` + text, ~85 word pieces, one window); a long chunk is consecutive documents joined
until it holds >= 690 word pieces (three windows of <= 254). Each round embeds, for every path in a
rotated order, --long long chunks in one embed() call and then --short short chunks in calls of 32
(services.EMBED_BATCH, as embed_pending does). The machine is shared: the ratios are medians of the
per-round ratios, the chunks/s medians over rounds.

Also printed, untimed: each new path's cosine to old on every text (min and median), the vectors the
ratios buy. bench/recall_quality.py (EMBEDDINGS_PRECISION=fp32 or int8) gives nDCG@10.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import REPO, BenchError, parse_args, print_table, rotated, run_script

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 1, "long": 1, "short": 4, "check": 4}

CORPUS = REPO / "bench" / "collections" / "trading_recall" / "corpus.jsonl"
LONG_PIECES = 690
EMBED_BATCH = 32  # recall.services.EMBED_BATCH, the texts embed_pending hands the embedder at once
PATHS = ("old", "fp32", "int8")
PRECISION = {"old": "reference", "fp32": "fp32", "int8": "int8"}
GOAL = 2.0


def corpus_texts() -> list[str]:
    docs = [json.loads(line) for line in CORPUS.read_text().splitlines() if line.strip()]
    return [f"# {doc['title']}\n\n{doc['text']}" for doc in docs]


def long_texts(short: list[str], pieces_of) -> list[str]:
    """Consecutive documents joined (blank line between) until each text holds >= LONG_PIECES word pieces."""
    out, current, pieces = [], [], 0
    for text in short:
        current.append(text)
        pieces += pieces_of(text)
        if pieces >= LONG_PIECES:
            out.append("\n\n".join(current))
            current, pieces = [], 0
    return out


def embed_in_batches(embedder, texts: list[str]) -> None:
    for start in range(0, len(texts), EMBED_BATCH):
        embedder.embed(texts[start : start + EMBED_BATCH])


def cosines(a, b) -> tuple[float, float]:
    import numpy as np

    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    cos = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(cos.min()), float(np.median(cos))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--long", type=int, default=6, help="long chunks per path and round")
    parser.add_argument("--short", type=int, default=48, help="short chunks per path and round")
    parser.add_argument("--check", type=int, default=None, help="texts of each kind in the cosine check (all)")
    args = parse_args(parser, argv, SMOKE)
    if min(args.rounds, args.long, args.short) < 1:
        parser.error("--rounds, --long and --short must be at least 1")

    from recall.embeddings import OnnxEmbedder, default_model_dir

    cache_dir = Path(os.environ.get("EMBEDDINGS_CACHE_DIR") or REPO / ".data" / "models")
    embedders = {}
    for label in PATHS:
        started = time.perf_counter()
        embedders[label] = OnnxEmbedder(default_model_dir(), cache_dir, PRECISION[label])
        embedders[label].load()
        print(f"{label:<5} loaded in {time.perf_counter() - started:.1f} s (graph built or read from {cache_dir})")

    probe = embedders["old"]
    short = corpus_texts()
    long = long_texts(short, lambda text: sum(map(len, probe.windows(text))))
    if not long:
        raise BenchError(f"{CORPUS}: not enough text for one long chunk")
    for name, texts in (("long", long), ("short", short)):
        windows = [probe.windows(text) for text in texts]
        pieces = [sum(map(len, w)) for w in windows]
        print(
            f"{name:<5} chunks: {len(texts)} distinct, {statistics.mean(pieces):.0f} word pieces and "
            f"{statistics.mean(map(len, windows)):.1f} windows each on average"
        )

    def pick(texts: list[str], count: int, round_no: int) -> list[str]:
        start = (round_no * count) % len(texts)
        return [texts[(start + i) % len(texts)] for i in range(count)]

    for embedder in embedders.values():  # warm-up: first runs allocate ONNX Runtime's buffers
        embedder.embed(pick(long, 1, 0) + pick(short, 4, 0))

    rates: dict[str, dict[str, list[float]]] = {label: {"long": [], "short": []} for label in PATHS}
    for round_no in range(args.rounds):
        for label in rotated(list(PATHS), round_no):
            embedder = embedders[label]
            texts = pick(long, args.long, round_no)
            started = time.perf_counter()
            embedder.embed(texts)
            rates[label]["long"].append(len(texts) / (time.perf_counter() - started))
            texts = pick(short, args.short, round_no)
            started = time.perf_counter()
            embed_in_batches(embedder, texts)
            rates[label]["short"].append(len(texts) / (time.perf_counter() - started))

    print(f"\nchunks/s, medians over {args.rounds} rounds (ratio: median of the per-round ratios to old)")
    rows = []
    for label in PATHS:
        row = [label]
        for kind in ("long", "short"):
            ratios = [new / old for new, old in zip(rates[label][kind], rates["old"][kind], strict=True)]
            row += [f"{statistics.median(rates[label][kind]):.2f}", f"{statistics.median(ratios):.2f}x"]
        rows.append(row)
    print_table(["path", "long/s", "long vs old", "short/s", "short vs old"], rows)

    checked = long[: args.check] + short[: args.check]
    reference = embedders["old"].embed(checked)
    print(f"\ncosine to old over {len(checked)} texts, long and short (min / median):")
    for label in ("fp32", "int8"):
        low, mid = cosines(embedders[label].embed(checked), reference)
        print(f"  {label:<5} {low:.6f} / {mid:.6f}")

    print()
    for kind in ("long", "short"):
        ratios = [new / old for new, old in zip(rates["int8"][kind], rates["old"][kind], strict=True)]
        ratio = statistics.median(ratios)
        verdict = "ok" if ratio >= GOAL else f"MISSED by {GOAL / ratio:.2f}x"
        print(f"{kind} chunks/s, int8 (default) / old {ratio:7.2f}x   goal >= {GOAL:g}x   {verdict}")
    return 0


if __name__ == "__main__":
    run_script(main)

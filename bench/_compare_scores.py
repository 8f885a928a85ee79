"""Two runs of bench/recall_quality.py compared query by query: B's mean recall@k and nDCG@k minus A's.

    .venv/bin/python bench/_compare_scores.py A.json B.json [--configs fts vector "hybrid default"]

A and B are --scores-json files of the same collection and queries, e.g. EMBEDDINGS_PRECISION=fp32 (A) and
int8 (B). For each config: both means, the difference of nDCG@k (B - A) with a 95% paired bootstrap interval
(BOOTSTRAP resamples of the queries, random.Random(SEED): deterministic), and how many queries got a better,
equal or worse nDCG@k in B; then the same per query kind. Not a benchmark (no --smoke): it reads two files.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

BOOTSTRAP = 2000
SEED = 18
DEFAULT_CONFIGS = ("fts", "vector", "hybrid default")


def paired(a: dict, b: dict, qids: list[str], metric: int) -> tuple[float, float, float, float, float]:
    """(mean A, mean B, mean B - A, 2.5th and 97.5th percentile of the bootstrapped mean difference)."""
    diffs = [b[q][metric] - a[q][metric] for q in qids]
    n = len(diffs)
    rng = random.Random(SEED)
    means = sorted(sum(diffs[rng.randrange(n)] for _ in range(n)) / n for _ in range(BOOTSTRAP))
    return (
        sum(a[q][metric] for q in qids) / n,
        sum(b[q][metric] for q in qids) / n,
        sum(diffs) / n,
        means[int(0.025 * BOOTSTRAP)],
        means[int(0.975 * BOOTSTRAP) - 1],
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--configs", nargs="+", default=list(DEFAULT_CONFIGS))
    args = parser.parse_args(argv)
    a, b = (json.loads(path.read_text()) for path in (args.a, args.b))
    if a["collection"] != b["collection"] or a["kinds"] != b["kinds"] or a["k"] != b["k"]:
        print("the two files are not of the same collection, queries and k", file=sys.stderr)
        return 2
    k = a["k"]
    qids = sorted(a["kinds"])
    kinds = sorted(set(a["kinds"].values()))
    groups = [("all", qids)]
    if len(kinds) > 1:
        groups += [(kind, [q for q in qids if a["kinds"][q] == kind]) for kind in kinds]
    print(f"{a['collection']}: {len(qids)} queries, {a['documents']} documents; A = {args.a.name} "
          f"({a.get('precision')}), B = {args.b.name} ({b.get('precision')})")  # fmt: skip
    print(
        f"{'config':<15} {'queries':<13} {'R A':>6} {'R B':>6} {'N A':>6} {'N B':>6} {'N B-A':>7}  95% interval"
        "        N: B better/same/worse"
    )
    for label in args.configs:
        sa, sb = a["scores"][label], b["scores"][label]
        for group, members in groups:
            r_a, r_b, _, _, _ = paired(sa, sb, members, 0)
            n_a, n_b, diff, low, high = paired(sa, sb, members, 1)
            better = sum(1 for q in members if sb[q][1] > sa[q][1] + 1e-9)
            worse = sum(1 for q in members if sb[q][1] < sa[q][1] - 1e-9)
            print(
                f"{label:<15} {group + ' ' + str(len(members)):<13} {r_a:6.3f} {r_b:6.3f} {n_a:6.3f} {n_b:6.3f} "
                f"{diff:+7.4f}  [{low:+.4f}, {high:+.4f}]  {better}/{len(members) - better - worse}/{worse}"
            )
    print(f"R = recall@{k}, N = nDCG@{k} (means over the queries); interval: paired bootstrap of the mean N B-A")
    return 0


if __name__ == "__main__":
    sys.exit(main())

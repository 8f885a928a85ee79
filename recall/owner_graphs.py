"""Which traders get an HNSW graph of their own (the pure part; recall.services.owner_graphs_sync builds them).

The chunks' shared graph (recall.models, `recall_chunk_embedding_half`) holds every trader's vectors. A trader's
search walks it with pgvector's iterative scan and drops the other traders' rows as it meets them, so for a
trader with a fifth of the table four rows of five it visits are thrown away, and the scan costs what a walk of
the whole table costs. An owner graph is a partial index over the trader's rows and the global ones,
`WHERE (owner_id = <id> OR owner_id IS NULL)`: the very clause the trader's search scope reads with
(recall.selectors.SearchScope), so PostgreSQL's planner proves the index covers the query (a deployment-narrowed
scope implies it too) and walks that graph instead, with nothing to drop. No statement changes: with it, the
planner takes it; without it (not built yet, or being rebuilt), the shared graph answers as before. What search
asks (recall.selectors.keyword_query, in the statement that counts the scope) is whether the graph is there and
valid, to choose its plan: over its own graph a trader's iterative scan beats the exact scan from
settings.RECALL_OWNER_GRAPH_MIN readable chunks, over the shared graph only from settings.RECALL_EXACT_SCAN_MAX.

Measured (a scratch copy of bench/recall_latency.py's 100,000-chunk table, the 20,000-chunk trader): the iterative
statement at the same hnsw.ef_search 1.82 ms p50 over the owner graph against 3.86 over the shared one, recall@10
against the exact answer 1.000 against 0.992; the graph built in 8.6 s, 22 MB.

Who gets one: a trader whose scope reads more than ``minimum`` chunks (settings.RECALL_OWNER_GRAPH_MIN, where the
iterative scan over the trader's own graph starts to beat the exact scan) and at most ``BUILD_SHARE`` of the table
(a trader holding most of it would get a second copy of the shared graph). A graph is kept until the trader's scope
falls to half of ``minimum`` or grows past ``KEEP_SHARE`` of the table, so a trader near a threshold is not built and
dropped in turn. A graph PostgreSQL marks invalid (a concurrent build that failed) is dropped, and built again if
still wanted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

BUILD_SHARE = 0.5
KEEP_SHARE = 0.75
NAME_PREFIX = "recall_owner_graph_"


def index_name(owner_id: int) -> str:
    """The owner graph's index name (at most 63 bytes: an id has at most 19 digits)."""
    return f"{NAME_PREFIX}{int(owner_id)}"


def owner_of(index: str) -> int | None:
    """The owner an index name of ``index_name``'s form is for, or None for any other name."""
    digits = index.removeprefix(NAME_PREFIX)
    if digits == index or not digits.isdigit() or index_name(int(digits)) != index:
        return None
    return int(digits)


@dataclass(frozen=True)
class GraphPlan:
    build: tuple[int, ...]  # owners to build a graph for, in id order
    drop: tuple[int, ...]  # owners whose graph goes (invalid ones included, also when rebuilt), in id order


def plan(readable: Mapping[int, int], total: int, existing: Mapping[int, bool], *, minimum: int) -> GraphPlan:
    """``readable``: each owner's scope (its chunks and the global ones); ``total``: the chunks in the table;
    ``existing``: the owner graphs there are, each valid or not (``pg_index.indisvalid``)."""

    def share(owner: int) -> float:
        return readable.get(owner, 0) / total if total > 0 else 1.0

    wanted = {owner for owner, count in readable.items() if count > minimum and share(owner) <= BUILD_SHARE}
    kept = {
        owner
        for owner, valid in existing.items()
        if valid and readable.get(owner, 0) > minimum // 2 and share(owner) <= KEEP_SHARE
    }
    build = wanted - kept
    drop = set(existing) - kept
    return GraphPlan(build=tuple(sorted(build)), drop=tuple(sorted(drop)))

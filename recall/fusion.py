"""Hybrid merge of keyword and vector hits (seed §4.2), with OpenClaw's optional recency and MMR.

Pure: stdlib only, deterministic, no clock (the caller passes ``now``).

Per candidate, each side relative to its best candidate: ``s_fts = fts_rank / max(fts_rank)`` (1 for
the best keyword hit) and ``s_vec = max(0, cosine) / max(cosine)`` (1 for the nearest chunk); 0 on a
side with no value, all 0 on a side whose best is 0. The score is ``(w_fts·s_fts + w_vec·s_vec) /
(w_fts + w_vec)``: the seed's ``w_fts·s_fts + w_vec·s_vec`` scaled to [0, 1] whatever the weights (with
0.5/0.5 the divisor is 1). Both sides are scaled to their best because raw MiniLM cosines span only
~0.15–0.5 while the best keyword hit is 1: with raw cosines a chunk matching one common word
outranked the nearest paraphrase, and bench/recall_quality.py measured hybrid 0.5/0.5 below
vector-only on paraphrase queries (nDCG@10 0.32 vs 0.49; 0.39 once scaled). The caller should score
every candidate on both sides (``found_by`` then says which search found it). When only the keyword
side ran (the ``fts`` backend, every cosine None) the caller passes ``w_vec=0``.

With ``keyword_ideal`` (what search passes: the BM25 a chunk of average length would score holding
once each of the query's terms that the index holds, recall/selectors.py) both sides are on absolute
scales instead: with ``r = fts_rank / keyword_ideal``, ``s_fts = r / (r + KEYWORD_SATURATION)`` (0.67 for
that ideal chunk, approaching 1, never a tie at the top: a cap at 1 ranked python_docs' keyword side
0.11 nDCG@10 worse) and ``s_vec = max(0, cosine)``. A score then means the same across queries (a
nonsense query scores low instead of 1 for its least bad hit), so a relevance floor (``min_score``)
can hold; it also ranks as well as scaling each side to its best (bench/fusion_study.py). A candidate
with no cosine (a chunk still waiting for its embedding) scores ``s_fts`` alone: counted as cosine 0 it
could never clear the floor on keywords, and a note written a second ago would be unfindable.

Then, in order: recency decay (``half_life_days``; evergreen candidates are never decayed), the
``min_score`` filter, the ranking (score descending, chunk id ascending on ties), the per-source cap
and MMR (``mmr_lambda``), then the first ``k``.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime

MAX_QUERY_TERMS = 32
KEYWORD_SATURATION = 0.5  # absolute scale: the keyword share r at which s_fts is 1/2
SECONDS_PER_DAY = 86_400

_WORD = re.compile(r"\w+")

# Fields two candidates for the same chunk must agree on to be merged.
_IDENTITY_FIELDS = (
    "path", "start_line", "end_line", "snippet", "source_type", "updated_at", "evergreen", "document_id", "found_by",
    "staff_document",
)  # fmt: skip


@dataclass(frozen=True)
class Candidate:
    """A chunk found by the keyword search (``fts_rank``: raw ``ts_rank``), the vector search
    (``cosine``: similarity in [-1, 1]) or both; None on the side that did not find it."""

    chunk_id: int
    path: str
    start_line: int
    end_line: int
    snippet: str
    source_type: str
    fts_rank: float | None
    cosine: float | None
    updated_at: datetime
    evergreen: bool = False
    embedding: tuple[float, ...] | None = None
    document_id: int | None = None
    # Which search found the chunk ("fts", "vector" or "hybrid") when the caller scored every
    # candidate on both sides; None: the side whose value is present found it.
    found_by: str | None = None
    # A global document's chunk (no owner: a staff playbook or runbook) rather than the trader's own.
    staff_document: bool = False

    def __post_init__(self) -> None:
        if self.fts_rank is None and self.cosine is None:
            raise ValueError("a candidate needs fts_rank or cosine: neither search found it")
        if self.fts_rank is not None and not (math.isfinite(self.fts_rank) and self.fts_rank >= 0):
            raise ValueError("fts_rank must be a finite number >= 0")
        if self.cosine is not None and not math.isfinite(self.cosine):
            raise ValueError("cosine must be a finite number")
        if self.embedding is not None and not all(math.isfinite(x) for x in self.embedding):
            raise ValueError("embedding must hold finite numbers")
        if self.updated_at.utcoffset() is None:
            raise ValueError("updated_at must be timezone-aware")
        if self.found_by not in (None, "fts", "vector", "hybrid"):
            raise ValueError("found_by must be fts, vector or hybrid")


@dataclass(frozen=True)
class FusionConfig:
    w_fts: float = 0.5
    w_vec: float = 0.5
    min_score: float = 0.0
    per_source_cap: int | None = None
    mmr_lambda: float | None = None  # None: no MMR; OpenClaw uses 0.7
    half_life_days: float | None = None  # None: no recency decay
    keyword_ideal: float | None = None  # None: each side scaled to its best candidate; else absolute scales

    def __post_init__(self) -> None:
        for name in ("w_fts", "w_vec"):
            weight = getattr(self, name)
            if not (math.isfinite(weight) and weight >= 0):
                raise ValueError(f"{name} must be a finite number >= 0")
        if self.w_fts + self.w_vec == 0:
            raise ValueError("w_fts and w_vec cannot both be 0")
        if not 0 <= self.min_score <= 1:
            raise ValueError("min_score must be between 0 and 1")
        if self.per_source_cap is not None and self.per_source_cap < 1:
            raise ValueError("per_source_cap must be at least 1")
        if self.mmr_lambda is not None and not 0 <= self.mmr_lambda <= 1:
            raise ValueError("mmr_lambda must be between 0 and 1")
        if self.half_life_days is not None and not (math.isfinite(self.half_life_days) and self.half_life_days > 0):
            raise ValueError("half_life_days must be a finite number > 0")
        if self.keyword_ideal is not None and not (math.isfinite(self.keyword_ideal) and self.keyword_ideal >= 0):
            raise ValueError("keyword_ideal must be a finite number >= 0")


@dataclass(frozen=True)
class Hit:
    candidate: Candidate
    score: float  # in [0, 1]; not rounded (the API rounds)
    source: str  # "hybrid" (both searches found it), "fts" or "vector"


def fuse(candidates: Iterable[Candidate], *, k: int, config: FusionConfig, now: datetime) -> list[Hit]:
    """Merge keyword and vector candidates into at most ``k`` hits, best first.

    Candidates with the same ``chunk_id`` are merged (the caller may pass one per search): each side
    takes the maximum of the values present, the embedding the one present; they must agree on every
    other field, else ValueError. The result does not depend on the input order. Without MMR hits are
    in descending score order; with MMR they are in selection order, each step taking the candidate
    maximising ``λ·score − (1−λ)·max(0, cosine)`` over the hits already taken (a candidate
    without an embedding counts as similar to nothing), so ``λ = 1`` is the plain ranking. The per-source cap
    (hits per ``source_type``) applies to the selection in either case. A candidate updated after
    ``now`` is not decayed (age 0), never boosted."""
    if k < 1:
        raise ValueError("k must be at least 1")
    if now.utcoffset() is None:
        raise ValueError("now must be timezone-aware")
    merged = _merge_duplicates(candidates)
    absolute = config.keyword_ideal is not None
    if config.keyword_ideal is None:
        best_rank = max((c.fts_rank for c in merged if c.fts_rank is not None), default=0.0)
        best_cosine = max((c.cosine for c in merged if c.cosine is not None), default=0.0)
    else:
        best_rank, best_cosine = config.keyword_ideal, 1.0
    weight_sum = config.w_fts + config.w_vec
    scored: list[Hit] = []
    for candidate in merged:
        s_fts = candidate.fts_rank / best_rank if candidate.fts_rank is not None and best_rank > 0 else 0.0
        if absolute:
            s_fts = s_fts / (s_fts + KEYWORD_SATURATION)
        s_vec = max(0.0, candidate.cosine) / best_cosine if candidate.cosine is not None and best_cosine > 0 else 0.0
        if absolute and candidate.cosine is None and config.w_fts > 0:
            score = s_fts  # not embedded yet: judged on the side it has, not as if its cosine were 0
        else:
            score = min(1.0, (config.w_fts * s_fts + config.w_vec * s_vec) / weight_sum)
        if config.half_life_days is not None and not candidate.evergreen:
            age_days = max(0.0, (now - candidate.updated_at).total_seconds() / SECONDS_PER_DAY)
            score *= 0.5 ** (age_days / config.half_life_days)
        if score >= config.min_score:
            scored.append(Hit(candidate=candidate, score=score, source=_source(candidate)))
    scored.sort(key=lambda hit: (-hit.score, hit.candidate.chunk_id))
    if config.mmr_lambda is None:
        return _take_capped(scored, k, config.per_source_cap)
    return _take_mmr(scored, k, config.per_source_cap, config.mmr_lambda)


def normalise_query_terms(query: str) -> list[str]:
    """The query's words (``\\w+``, Unicode, NFC), lowercased, without 1-character words and repeats,
    in first-seen order, at most 32."""
    terms: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFC", query).lower()):
        if len(word) > 1 and word not in terms:
            terms.append(word)
            if len(terms) == MAX_QUERY_TERMS:
                break
    return terms


def _merge_duplicates(candidates: Iterable[Candidate]) -> list[Candidate]:
    by_id: dict[int, Candidate] = {}
    for candidate in candidates:
        seen = by_id.get(candidate.chunk_id)
        if seen is None:
            by_id[candidate.chunk_id] = candidate
            continue
        for name in _IDENTITY_FIELDS:
            if getattr(seen, name) != getattr(candidate, name):
                raise ValueError(f"candidates for chunk {candidate.chunk_id} disagree on {name}")
        if seen.embedding is not None and candidate.embedding is not None and seen.embedding != candidate.embedding:
            raise ValueError(f"candidates for chunk {candidate.chunk_id} disagree on embedding")
        by_id[candidate.chunk_id] = replace(
            seen,
            fts_rank=_max_present(seen.fts_rank, candidate.fts_rank),
            cosine=_max_present(seen.cosine, candidate.cosine),
            embedding=seen.embedding if seen.embedding is not None else candidate.embedding,
        )
    return list(by_id.values())


def _max_present(a: float | None, b: float | None) -> float | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _source(candidate: Candidate) -> str:
    if candidate.found_by is not None:
        return candidate.found_by
    if candidate.fts_rank is not None and candidate.cosine is not None:
        return "hybrid"
    return "fts" if candidate.fts_rank is not None else "vector"


def _take_capped(ranked: list[Hit], k: int, cap: int | None) -> list[Hit]:
    taken: list[Hit] = []
    per_source: Counter[str] = Counter()
    for hit in ranked:
        if cap is not None and per_source[hit.candidate.source_type] >= cap:
            continue
        per_source[hit.candidate.source_type] += 1
        taken.append(hit)
        if len(taken) == k:
            break
    return taken


def _take_mmr(ranked: list[Hit], k: int, cap: int | None, lambda_: float) -> list[Hit]:
    pool = list(ranked)  # score descending, chunk id ascending: the first maximum wins ties
    taken: list[Hit] = []
    per_source: Counter[str] = Counter()
    # max(0, cosine) of each pooled candidate to the hits taken so far, kept up to date: as for s_vec,
    # an opposite vector is no more different than an orthogonal one.
    max_similarity = [0.0] * len(pool)
    while pool and len(taken) < k:
        best_at: int | None = None
        best_value = -math.inf
        for at, hit in enumerate(pool):
            if cap is not None and per_source[hit.candidate.source_type] >= cap:
                continue
            value = lambda_ * hit.score - (1 - lambda_) * max_similarity[at]
            if value > best_value:
                best_at, best_value = at, value
        if best_at is None:
            break
        chosen = pool.pop(best_at)
        max_similarity.pop(best_at)
        taken.append(chosen)
        per_source[chosen.candidate.source_type] += 1
        if chosen.candidate.embedding is not None:
            for at, hit in enumerate(pool):
                if hit.candidate.embedding is not None:
                    similarity = _cosine(hit.candidate.embedding, chosen.candidate.embedding)
                    max_similarity[at] = max(max_similarity[at], similarity)
    return taken


def _cosine(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    if len(a) != len(b):
        raise ValueError("embeddings of different dimensions")
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return dot / norms if norms > 0 else 0.0

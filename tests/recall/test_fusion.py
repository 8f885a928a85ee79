"""Hybrid merge (recall/fusion.py): the seed's formula, filters, recency, MMR, query terms; plus properties."""

from __future__ import annotations

import dataclasses
import itertools
import math
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recall.fusion import (
    MAX_QUERY_TERMS,
    Candidate,
    FusionConfig,
    fuse,
    normalise_query_terms,
)

NOW = datetime(2026, 6, 4, 12, 0, tzinfo=UTC)
DEFAULT = FusionConfig()


def candidate(
    chunk_id: int,
    *,
    fts: float | None = None,
    cos: float | None = None,
    source_type: str = "workspace",
    age_days: float = 0,
    evergreen: bool = False,
    embedding: tuple[float, ...] | None = None,
) -> Candidate:
    return Candidate(
        chunk_id=chunk_id,
        path=f"agents/a/doc{chunk_id}.md",
        start_line=chunk_id,
        end_line=chunk_id + 3,
        snippet=f"snippet {chunk_id}",
        source_type=source_type,
        fts_rank=fts,
        cosine=cos,
        updated_at=NOW - timedelta(days=age_days),
        evergreen=evergreen,
        embedding=embedding,
    )


def ranked(hits) -> list[tuple[int, float, str]]:
    return [(hit.candidate.chunk_id, round(hit.score, 6), hit.source) for hit in hits]


# The formula --------------------------------------------------------------------------------------


def test_it_applies_the_seeds_fifty_fifty_formula():
    hits = fuse(
        [candidate(1, fts=0.2, cos=0.6), candidate(2, fts=0.4), candidate(3, cos=0.9)], k=10, config=DEFAULT, now=NOW
    )
    # s_fts: 0.2 / 0.4 = 0.5 and 1; s_vec: 0.6 / 0.9 and 1; s = 0.5·s_fts + 0.5·s_vec (ties: chunk id)
    assert ranked(hits) == [(1, 0.583333, "hybrid"), (2, 0.5, "fts"), (3, 0.5, "vector")]


def test_it_scales_other_weights_into_zero_to_one():
    config = FusionConfig(w_fts=3, w_vec=1)
    hits = fuse([candidate(1, fts=2.0, cos=1.0), candidate(2, fts=1.0, cos=0.2)], k=10, config=config, now=NOW)
    assert ranked(hits) == [(1, 1.0, "hybrid"), (2, 0.425, "hybrid")]


def test_it_scores_the_best_keyword_hit_one_when_only_keywords_ran():
    config = FusionConfig(w_fts=1, w_vec=0)  # the fts backend: every cosine is None
    hits = fuse([candidate(1, fts=0.05), candidate(2, fts=0.1)], k=10, config=config, now=NOW)
    assert ranked(hits) == [(2, 1.0, "fts"), (1, 0.5, "fts")]


def test_it_scores_keyword_hits_zero_when_the_best_rank_is_zero():
    hits = fuse([candidate(1, fts=0.0), candidate(2, fts=0.0, cos=0.4)], k=10, config=DEFAULT, now=NOW)
    assert ranked(hits) == [(2, 0.5, "hybrid"), (1, 0.0, "fts")]  # s_vec: 0.4 is the best cosine, so 1


def test_it_counts_a_negative_cosine_as_zero():
    hits = fuse([candidate(1, cos=-0.7), candidate(2, cos=0.0)], k=10, config=DEFAULT, now=NOW)
    assert ranked(hits) == [(1, 0.0, "vector"), (2, 0.0, "vector")]


ABSOLUTE = FusionConfig(w_fts=0.3, w_vec=0.7, keyword_ideal=4.0)


def test_on_absolute_scales_a_weak_best_hit_stays_weak():
    """A nonsense query's least bad hit (cosine 0.1, no keyword) is not scaled up to 1."""
    hits = fuse([candidate(1, cos=0.1), candidate(2, cos=0.05)], k=10, config=ABSOLUTE, now=NOW)
    assert ranked(hits) == [(1, 0.07, "vector"), (2, 0.035, "vector")]
    assert fuse([candidate(1, cos=0.1)], k=10, config=dataclasses.replace(ABSOLUTE, min_score=0.15), now=NOW) == []


def test_on_absolute_scales_keyword_evidence_saturates_without_ties():
    """r = fts / keyword_ideal; s_fts = r / (r + 0.5): 2/3 for the ideal chunk (r = 1), never 1."""
    hits = fuse(
        [candidate(1, fts=4.0, cos=0.5), candidate(2, fts=8.0, cos=0.0), candidate(3, fts=36.0, cos=0.0)],
        k=10,
        config=ABSOLUTE,
        now=NOW,
    )
    assert ranked(hits) == [(1, 0.55, "hybrid"), (3, round(0.3 * 9 / 9.5, 6), "hybrid"), (2, 0.24, "hybrid")]


def test_on_absolute_scales_a_chunk_not_yet_embedded_is_judged_on_its_keywords():
    """No cosine (waiting for its embedding): s_fts alone, not 0.3·s_fts as if its cosine were 0."""
    hits = fuse([candidate(1, fts=4.0), candidate(2, fts=4.0, cos=0.0)], k=10, config=ABSOLUTE, now=NOW)
    assert ranked(hits) == [(1, round(2 / 3, 6), "fts"), (2, 0.2, "hybrid")]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 10_000), unique=True, min_size=2, max_size=10), st.data())
def test_property_on_absolute_scales_a_score_does_not_depend_on_the_other_candidates(chunk_ids, data):
    cands = [
        candidate(chunk_id, fts=data.draw(st.floats(0, 8, allow_nan=False)), cos=data.draw(unit))
        for chunk_id in chunk_ids
    ]
    alone = {c.chunk_id: fuse([c], k=1, config=ABSOLUTE, now=NOW)[0].score for c in cands}
    together = {hit.candidate.chunk_id: hit.score for hit in fuse(cands, k=len(cands), config=ABSOLUTE, now=NOW)}
    assert together == alone


def test_it_breaks_ties_by_chunk_id():
    hits = fuse([candidate(9, cos=0.5), candidate(3, cos=0.5), candidate(5, cos=0.5)], k=10, config=DEFAULT, now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [3, 5, 9]


def test_it_returns_at_most_k_hits():
    hits = fuse([candidate(i, cos=i / 10) for i in range(1, 10)], k=3, config=DEFAULT, now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [9, 8, 7]


def test_it_returns_nothing_for_no_candidates():
    assert fuse([], k=5, config=DEFAULT, now=NOW) == []


# Filters ------------------------------------------------------------------------------------------


def test_it_drops_hits_under_the_minimum_score():
    config = FusionConfig(min_score=0.37)  # s = 0.5·cos / 0.8: 0.5, 0.375, 0.36875
    hits = fuse([candidate(1, cos=0.8), candidate(2, cos=0.6), candidate(3, cos=0.59)], k=10, config=config, now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [1, 2]


def test_it_caps_hits_per_source_type():
    cands = [
        candidate(1, cos=0.9, source_type="transcript"),
        candidate(2, cos=0.8, source_type="transcript"),
        candidate(3, cos=0.7, source_type="transcript"),
        candidate(4, cos=0.6, source_type="workspace"),
        candidate(5, cos=0.5, source_type="runbook"),
        candidate(6, cos=0.4, source_type="workspace"),
        candidate(7, cos=0.3, source_type="workspace"),
    ]
    hits = fuse(cands, k=10, config=FusionConfig(per_source_cap=2), now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [1, 2, 4, 5, 6]


# Recency ------------------------------------------------------------------------------------------


def test_it_halves_a_score_every_half_life_except_for_evergreen_documents():
    config = FusionConfig(half_life_days=30)
    cands = [
        candidate(1, cos=0.8, age_days=30),
        candidate(2, cos=0.8, age_days=60),
        candidate(3, cos=0.8, age_days=60, evergreen=True),
        candidate(4, cos=0.8, age_days=0),
    ]
    hits = fuse(cands, k=10, config=config, now=NOW)
    assert ranked(hits) == [(3, 0.5, "vector"), (4, 0.5, "vector"), (1, 0.25, "vector"), (2, 0.125, "vector")]


def test_it_never_boosts_a_document_dated_after_now():
    config = FusionConfig(half_life_days=1)
    (hit,) = fuse([candidate(1, cos=0.8, age_days=-5)], k=1, config=config, now=NOW)
    assert hit.score == 0.5


def test_it_applies_the_minimum_after_recency():
    config = FusionConfig(half_life_days=10, min_score=0.3)
    hits = fuse([candidate(1, cos=0.8, age_days=10), candidate(2, cos=0.8)], k=5, config=config, now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [2]


# MMR ----------------------------------------------------------------------------------------------


def test_it_diversifies_near_duplicates_with_mmr():
    cands = [
        candidate(1, cos=0.90, embedding=(1.0, 0.0, 0.0)),
        candidate(2, cos=0.88, embedding=(0.99, 0.14, 0.0)),  # almost the same chunk as 1
        candidate(3, cos=0.70, embedding=(0.0, 1.0, 0.0)),
    ]
    plain = fuse(cands, k=2, config=DEFAULT, now=NOW)
    diverse = fuse(cands, k=2, config=FusionConfig(mmr_lambda=0.7), now=NOW)
    assert [hit.candidate.chunk_id for hit in plain] == [1, 2]
    assert [hit.candidate.chunk_id for hit in diverse] == [1, 3]
    assert diverse[1].score == pytest.approx(0.5 * 0.7 / 0.9)  # it keeps its relevance score, not its MMR value


def test_it_treats_candidates_without_embeddings_as_similar_to_nothing():
    cands = [
        candidate(1, fts=1.0, cos=0.9, embedding=(1.0, 0.0)),  # 0.95
        candidate(2, cos=0.9, embedding=(1.0, 0.0)),  # 0.45, the same vector as 1
        candidate(3, fts=0.8),  # 0.4, a keyword hit without a vector
    ]
    assert [hit.candidate.chunk_id for hit in fuse(cands, k=3, config=DEFAULT, now=NOW)] == [1, 2, 3]
    hits = fuse(cands, k=3, config=FusionConfig(mmr_lambda=0.5), now=NOW)
    assert [hit.candidate.chunk_id for hit in hits] == [1, 3, 2]


def test_it_keeps_the_per_source_cap_under_mmr():
    cands = [candidate(i, cos=1 - i / 10, source_type="journal", embedding=(1.0, float(i))) for i in range(5)]
    hits = fuse(cands, k=5, config=FusionConfig(mmr_lambda=0.5, per_source_cap=2), now=NOW)
    assert len(hits) == 2


def test_it_refuses_embeddings_of_different_dimensions_under_mmr():
    cands = [candidate(1, cos=0.9, embedding=(1.0, 0.0)), candidate(2, cos=0.8, embedding=(1.0, 0.0, 0.0))]
    with pytest.raises(ValueError, match="dimensions"):
        fuse(cands, k=2, config=FusionConfig(mmr_lambda=0.5), now=NOW)


# Duplicates and validation ------------------------------------------------------------------------


def test_it_merges_one_candidate_per_search_into_a_hybrid_hit():
    keyword = candidate(7, fts=0.3)
    vector = dataclasses.replace(keyword, fts_rank=None, cosine=0.6, embedding=(0.1, 0.2))
    (hit,) = fuse([keyword, vector, candidate(8, fts=0.6)], k=1, config=DEFAULT, now=NOW)
    # s_fts 0.3 / 0.6, s_vec 0.6 / 0.6 (the only cosine)
    assert (hit.candidate.chunk_id, hit.source, hit.score) == (7, "hybrid", pytest.approx(0.75))
    assert (hit.candidate.fts_rank, hit.candidate.cosine, hit.candidate.embedding) == (0.3, 0.6, (0.1, 0.2))


def test_it_takes_the_best_of_each_side_for_duplicates():
    first, second = candidate(1, fts=0.2, cos=0.1), candidate(1, fts=0.1, cos=0.5)
    (hit,) = fuse([first, second], k=1, config=DEFAULT, now=NOW)
    assert (hit.candidate.fts_rank, hit.candidate.cosine) == (0.2, 0.5)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"path": "other.md"}, "path"),
        ({"end_line": 99}, "end_line"),
        ({"source_type": "journal"}, "source_type"),
        ({"evergreen": True}, "evergreen"),
        ({"embedding": (9.0,)}, "embedding"),
    ],
)
def test_it_refuses_duplicates_that_disagree(change, field):
    first = candidate(1, fts=0.2, embedding=(1.0,))
    with pytest.raises(ValueError, match=f"chunk 1 disagree on {field}"):
        fuse([first, dataclasses.replace(first, **change)], k=1, config=DEFAULT, now=NOW)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"w_fts": -0.1}, "w_fts"),
        ({"w_vec": math.nan}, "w_vec"),
        ({"w_fts": 0, "w_vec": 0}, "w_fts and w_vec"),
        ({"min_score": 1.5}, "min_score"),
        ({"min_score": -0.1}, "min_score"),
        ({"per_source_cap": 0}, "per_source_cap"),
        ({"mmr_lambda": 1.1}, "mmr_lambda"),
        ({"half_life_days": 0}, "half_life_days"),
        ({"half_life_days": math.inf}, "half_life_days"),
        ({"keyword_ideal": -1.0}, "keyword_ideal"),
        ({"keyword_ideal": math.nan}, "keyword_ideal"),
    ],
)
def test_it_refuses_bad_config_naming_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}"):
        FusionConfig(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fts_rank": None, "cosine": None}, "neither search"),
        ({"fts_rank": -1.0}, "fts_rank"),
        ({"fts_rank": math.inf}, "fts_rank"),
        ({"cosine": math.nan}, "cosine"),
        ({"embedding": (0.1, math.nan)}, "embedding"),
        ({"updated_at": datetime(2026, 6, 4)}, "timezone-aware"),
    ],
)
def test_it_refuses_bad_candidates(kwargs, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(candidate(1, fts=0.1), **kwargs)


def test_it_refuses_a_bad_k_or_a_naive_now():
    with pytest.raises(ValueError, match="k must"):
        fuse([], k=0, config=DEFAULT, now=NOW)
    with pytest.raises(ValueError, match="now must"):
        fuse([], k=1, config=DEFAULT, now=datetime(2026, 6, 4))


# Query terms --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("", []),
        ("   ", []),
        ("Stop-loss at 2% — STOP loss!", ["stop", "loss", "at"]),
        ("a b cd", ["cd"]),
        ("Straße café 日本 ÉTÉ", ["straße", "café", "日本", "été"]),
        ("cafe\u0301 café", ["café"]),  # decomposed and composed é are one term
        ("snake_case and 5m 2024", ["snake_case", "and", "5m", "2024"]),
        ("'; DROP TABLE x; --", ["drop", "table"]),
    ],
)
def test_it_normalises_query_terms(query, terms):
    assert normalise_query_terms(query) == terms


def test_it_keeps_at_most_32_terms():
    terms = normalise_query_terms(" ".join(f"term{i}" for i in range(50)))
    assert terms == [f"term{i}" for i in range(MAX_QUERY_TERMS)]


# Properties ---------------------------------------------------------------------------------------

SOURCES = ["workspace", "transcript", "backtest", "runbook", "journal"]
unit = st.floats(-1, 1, allow_nan=False)
embedding = st.none() | st.tuples(unit, unit, unit)


@st.composite
def candidate_lists(draw, max_size=12):
    ids = draw(st.lists(st.integers(1, 10_000), unique=True, max_size=max_size))
    cands = []
    for chunk_id in ids:
        fts = draw(st.none() | st.floats(0, 5, allow_nan=False) | st.just(0.0))
        cos = draw(st.none() | unit) if fts is not None else draw(unit)
        cands.append(
            candidate(
                chunk_id,
                fts=fts,
                cos=cos,
                source_type=draw(st.sampled_from(SOURCES)),
                age_days=draw(st.floats(0, 400, allow_nan=False)),
                evergreen=draw(st.booleans()),
                embedding=draw(embedding),
            )
        )
    return cands


weights = st.tuples(st.floats(0, 3, allow_nan=False), st.floats(0, 3, allow_nan=False)).filter(
    lambda w: w[0] + w[1] > 0
)
configs = st.builds(
    lambda w, min_score, cap, half_life: FusionConfig(
        w_fts=w[0], w_vec=w[1], min_score=min_score, per_source_cap=cap, half_life_days=half_life
    ),
    weights,
    st.floats(0, 1, allow_nan=False) | st.just(0.0),
    st.none() | st.integers(1, 3),
    st.none() | st.floats(1, 365, allow_nan=False),
)
mmr_configs = st.builds(
    lambda config, lambda_: dataclasses.replace(config, mmr_lambda=lambda_), configs, st.floats(0, 1, allow_nan=False)
)
ks = st.integers(1, 15)


def ids(hits) -> list[int]:
    return [hit.candidate.chunk_id for hit in hits]


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks, configs)
def test_property_hits_are_bounded_sorted_filtered_and_capped(cands, k, config):
    hits = fuse(cands, k=k, config=config, now=NOW)
    assert len(hits) <= k
    assert len(set(ids(hits))) == len(hits)
    assert all(0.0 <= hit.score <= 1.0 and hit.score >= config.min_score for hit in hits)
    assert [(-h.score, h.candidate.chunk_id) for h in hits] == sorted((-h.score, h.candidate.chunk_id) for h in hits)
    if config.per_source_cap is not None:
        counts = [sum(h.candidate.source_type == s for h in hits) for s in SOURCES]
        assert max(counts, default=0) <= config.per_source_cap
    for hit in hits:
        c = hit.candidate
        assert (
            hit.source
            == {(True, True): "hybrid", (True, False): "fts", (False, True): "vector"}[
                (c.fts_rank is not None, c.cosine is not None)
            ]
        )
    # nothing better was left out: every candidate not returned scores lower, is capped, or k was reached
    if len(hits) < k and config.per_source_cap is None:
        everything = fuse(cands, k=10_000, config=dataclasses.replace(config, min_score=0.0), now=NOW)
        assert ids(hits) == [h.candidate.chunk_id for h in everything if h.score >= config.min_score]


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks, configs | mmr_configs, st.randoms(use_true_random=False))
def test_property_fusion_is_deterministic_and_independent_of_input_order(cands, k, config, rnd):
    shuffled = list(cands)
    rnd.shuffle(shuffled)
    assert fuse(shuffled, k=k, config=config, now=NOW) == fuse(cands, k=k, config=config, now=NOW)


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks, configs | mmr_configs)
def test_property_one_candidate_per_search_equals_one_candidate_with_both(cands, k, config):
    split = []
    for c in cands:
        if c.fts_rank is not None and c.cosine is not None:
            split.append(dataclasses.replace(c, cosine=None, embedding=None))
            split.append(dataclasses.replace(c, fts_rank=None))
        else:
            split.append(c)
    assert fuse(split, k=k, config=config, now=NOW) == fuse(cands, k=k, config=config, now=NOW)


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), weights, st.floats(0, 5, allow_nan=False), unit)
def test_property_a_hit_found_by_both_searches_scores_at_least_one_found_by_one(cands, w, rank, cos):
    config = FusionConfig(w_fts=w[0], w_vec=w[1])
    both, keyword_only, vector_only = (
        candidate(20_001, fts=rank, cos=cos),
        candidate(20_002, fts=rank),
        candidate(20_003, cos=cos),
    )
    hits = {
        hit.candidate.chunk_id: hit
        for hit in fuse([*cands, both, keyword_only, vector_only], k=100, config=config, now=NOW)
    }
    assert hits[20_001].score >= hits[20_002].score
    assert hits[20_001].score >= hits[20_003].score
    assert hits[20_001].source == "hybrid"


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks)
def test_property_weights_one_zero_rank_by_keywords_and_zero_one_by_cosine(cands, k):
    by_keywords = fuse(cands, k=k, config=FusionConfig(w_fts=1, w_vec=0), now=NOW)
    best = max((c.fts_rank for c in cands if c.fts_rank is not None), default=0.0)
    for hit in by_keywords:
        rank = hit.candidate.fts_rank or 0.0
        assert hit.score == (rank / best if best > 0 else 0.0)
    for first, second in itertools.pairwise(by_keywords):
        # ranks descend, except where two close ranks divide to the same score (then the id decides)
        assert (first.candidate.fts_rank or 0.0) >= (second.candidate.fts_rank or 0.0) or first.score == second.score
    by_cosine = fuse(cands, k=k, config=FusionConfig(w_fts=0, w_vec=1), now=NOW)
    cosines = [max(0.0, hit.candidate.cosine or 0.0) for hit in by_cosine]
    assert cosines == sorted(cosines, reverse=True)
    best_cosine = max((c.cosine for c in cands if c.cosine is not None), default=0.0)
    expected = [c / best_cosine if best_cosine > 0 else 0.0 for c in cosines]
    assert all(hit.score == pytest.approx(e) for hit, e in zip(by_cosine, expected, strict=True))


@settings(max_examples=100, deadline=None)
@given(candidate_lists(max_size=10), ks, configs, st.data())
def test_property_raising_a_cosine_never_lowers_a_rank(cands, k, config, data):
    assume(cands)
    at = data.draw(st.integers(0, len(cands) - 1))
    target = cands[at]
    raised = data.draw(st.floats(max(-1.0, target.cosine if target.cosine is not None else -1.0), 1.0))
    better = [*cands[:at], dataclasses.replace(target, cosine=raised), *cands[at + 1 :]]
    before = ids(fuse(cands, k=k, config=config, now=NOW))
    after = ids(fuse(better, k=k, config=config, now=NOW))
    if target.chunk_id in before:
        assert target.chunk_id in after
        assert after.index(target.chunk_id) <= before.index(target.chunk_id)


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), st.floats(1, 365, allow_nan=False))
def test_property_recency_decays_every_score_but_evergreen_ones(cands, half_life):
    plain = {h.candidate.chunk_id: h.score for h in fuse(cands, k=100, config=DEFAULT, now=NOW)}
    decayed = fuse(cands, k=100, config=FusionConfig(half_life_days=half_life), now=NOW)
    assert len(decayed) == len(plain)
    for hit in decayed:
        base = plain[hit.candidate.chunk_id]
        age = (NOW - hit.candidate.updated_at).total_seconds() / 86_400
        expected = base if hit.candidate.evergreen else base * 0.5 ** (age / half_life)
        assert hit.score == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert hit.score <= base


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks, configs)
def test_property_mmr_with_lambda_one_is_the_plain_ranking(cands, k, config):
    assert fuse(cands, k=k, config=dataclasses.replace(config, mmr_lambda=1.0), now=NOW) == fuse(
        cands, k=k, config=config, now=NOW
    )


@settings(max_examples=100, deadline=None)
@given(candidate_lists(), ks, mmr_configs)
def test_property_mmr_selects_from_the_filtered_hits_within_k_and_caps(cands, k, config):
    hits = fuse(cands, k=k, config=config, now=NOW)
    eligible = fuse(cands, k=10_000, config=dataclasses.replace(config, mmr_lambda=None, per_source_cap=None), now=NOW)
    assert len(hits) <= k
    assert set(ids(hits)) <= set(ids(eligible))
    assert all(hit.score >= config.min_score for hit in hits)
    if config.per_source_cap is not None:
        assert (
            max((sum(h.candidate.source_type == s for h in hits) for s in SOURCES), default=0) <= config.per_source_cap
        )
    else:
        assert len(hits) == min(k, len(eligible))
    if hits:
        assert hits[0] == eligible[0]  # nothing is taken yet, so the first pick is the best score


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_property_query_terms_are_lowercase_distinct_words(query):
    terms = normalise_query_terms(query)
    assert len(terms) <= MAX_QUERY_TERMS and len(set(terms)) == len(terms)
    assert all(len(term) > 1 and term == term.lower() for term in terms)

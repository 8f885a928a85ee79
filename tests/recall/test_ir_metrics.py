"""recall_at_k and ndcg_at_k (bench/_collections.py) on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from bench._collections import ndcg_at_k, recall_at_k

LOG2_3 = math.log2(3)  # 1.5849625…: the discount at rank 2; rank 1 is log2(2) = 1, rank 3 is log2(4) = 2


# recall_at_k ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 1 / 3), (3, 1 / 3), (4, 2 / 3), (10, 2 / 3)])
def test_recall_counts_relevant_ids_in_the_first_k(k: int, expected: float) -> None:
    # relevant b, d, e: b is at rank 2, d at rank 4, e is never retrieved
    assert recall_at_k(["a", "b", "c", "d"], {"b", "d", "e"}, k) == pytest.approx(expected)


def test_recall_takes_grades_above_zero_as_relevant() -> None:
    # d is judged but not relevant (0): relevant are b and e, of which b is retrieved
    assert recall_at_k(["a", "b", "c", "d"], {"b": 2, "d": 0, "e": 1}, 4) == pytest.approx(1 / 2)


def test_recall_counts_a_repeated_id_once() -> None:
    assert recall_at_k(["b", "b", "d"], {"b", "d"}, 2) == 1.0


# ndcg_at_k --------------------------------------------------------------------------------------


def test_ndcg_binary() -> None:
    # relevant at ranks 2 and 3: DCG = 1/log2(3) + 1/2 = 1.13093; ideal (ranks 1, 2) = 1 + 1/log2(3) = 1.63093
    assert ndcg_at_k(["a", "b", "c"], {"b", "c"}, 3) == pytest.approx(0.6934264, abs=1e-7)
    assert ndcg_at_k(["a", "b", "c"], {"b", "c"}, 3) == pytest.approx((1 / LOG2_3 + 1 / 2) / (1 + 1 / LOG2_3))


GRADES = {"d1": 1, "d2": 3, "d3": 0, "d4": 2}


def test_ndcg_graded_gain_is_the_grade() -> None:
    # DCG = 1/1 + 3/log2(3) + 0 = 2.89279; ideal order d2, d4, d1: 3/1 + 2/log2(3) + 1/2 = 4.76186
    assert ndcg_at_k(["d1", "d2", "d3"], GRADES, 3) == pytest.approx(0.6074915, abs=1e-7)
    assert ndcg_at_k(["d1", "d2", "d3"], GRADES, 3) == pytest.approx((1 + 3 / LOG2_3) / (3 + 2 / LOG2_3 + 1 / 2))


def test_ndcg_ideal_is_cut_at_the_same_depth() -> None:
    assert ndcg_at_k(["d1", "d2", "d3"], GRADES, 1) == pytest.approx(1 / 3)  # 1 against the ideal's 3
    # three relevant, depth 2: DCG = 1, ideal = 1 + 1/log2(3) (not the depth-3 ideal)
    assert ndcg_at_k(["a", "z"], {"a", "b", "c"}, 2) == pytest.approx(1 / (1 + 1 / LOG2_3))
    assert ndcg_at_k(["a"], {"a": 1, "b": 1, "c": 1}, 1) == 1.0


def test_ndcg_perfect_and_empty_rankings() -> None:
    assert ndcg_at_k(["d2", "d4", "d1", "zz"], GRADES, 3) == pytest.approx(1.0)
    assert ndcg_at_k(["x", "y", "d3"], GRADES, 3) == 0.0


def test_ndcg_negative_grade_gives_no_gain() -> None:
    # Cranfield-style -1 ("no interest") at rank 1, the relevant y at rank 2
    assert ndcg_at_k(["x", "y"], {"x": -1, "y": 1}, 2) == pytest.approx(1 / LOG2_3)


def test_ndcg_counts_a_repeated_id_once() -> None:
    # the repeat does not earn d2's gain twice; d4 moves up to rank 2
    assert ndcg_at_k(["d2", "d2", "d4"], GRADES, 2) == pytest.approx(1.0)


# undefined cases --------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", [recall_at_k, ndcg_at_k])
@pytest.mark.parametrize("judged", [set(), {"x": 0}, {"x": -1}])
def test_no_relevant_document_is_an_error(metric, judged) -> None:
    with pytest.raises(ValueError, match="no relevant"):
        metric(["x"], judged, 10)


@pytest.mark.parametrize("metric", [recall_at_k, ndcg_at_k])
def test_k_below_one_is_an_error(metric) -> None:
    with pytest.raises(ValueError, match="k must be"):
        metric(["x"], {"x"}, 0)

"""research/ids.py: numbered ids and the natural order, the one definition the service, the importer, the
exporter and the prompt block share."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from research.ids import (
    HYPOTHESIS_PREFIX,
    REQUEST_PREFIX,
    highest_number,
    natural_key,
    numbered_id,
    numbered_id_pattern,
)


def test_it_numbers_ids_from_three_digits():
    assert [numbered_id(HYPOTHESIS_PREFIX, n) for n in (1, 42, 999, 1000)] == ["H_001", "H_042", "H_999", "H_1000"]
    assert numbered_id(REQUEST_PREFIX, 7) == "req_007"


def test_the_highest_number_counts_only_ids_of_the_numbered_shape():
    ids = ["H_001", "H_10", "H_x", "h_500", "H_12345678901", "H_99\n", "req_400", "H_009"]
    assert highest_number(HYPOTHESIS_PREFIX, ids) == 10
    assert highest_number(HYPOTHESIS_PREFIX, []) == 0
    assert highest_number(REQUEST_PREFIX, ids) == 400


def test_the_pattern_is_anchored_and_escapes_the_prefix():
    assert numbered_id_pattern("H_") == "^H_[0-9]{1,9}$"
    assert numbered_id_pattern("a.b") == r"^a\.b[0-9]{1,9}$"


def test_the_natural_order_compares_digit_runs_as_numbers_and_ignores_case():
    ids = ["H_10", "h_3", "H_2", "H_010", "H_1", "exp_2", "H_01"]
    assert sorted(ids, key=natural_key) == ["exp_2", "H_01", "H_1", "H_2", "h_3", "H_010", "H_10"]


@given(st.lists(st.text(alphabet="Hh_x019", max_size=8), max_size=20))
def test_the_natural_order_is_total_so_it_never_depends_on_the_input_order(ids):
    assert sorted(ids, key=natural_key) == sorted(reversed(ids), key=natural_key)

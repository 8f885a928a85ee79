"""Near-duplicate facts (chatmemory.facts.fact_similarity): a pure, symmetric score in [0, 1] that ignores
case, punctuation and spacing; the facts page warns at NEAR_DUPLICATE_SIMILARITY and above."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chatmemory.facts import NEAR_DUPLICATE_SIMILARITY, fact_similarity, is_near_duplicate, normalise_fact

facts = st.text(max_size=200)
words = st.lists(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8), min_size=1, max_size=12
)
# Punctuation, symbols and whitespace between words: normalised away.
separators = st.text(alphabet=" \t.,;:!?-–—()'\"×%/", min_size=1, max_size=3)


@given(facts, facts)
def test_it_is_symmetric_and_between_zero_and_one(a, b):
    score = fact_similarity(a, b)
    assert 0.0 <= score <= 1.0
    assert score == fact_similarity(b, a)


@given(facts)
def test_a_fact_is_a_duplicate_of_itself(a):
    assert fact_similarity(a, a) == 1.0
    assert is_near_duplicate(a, a)


@given(words, st.data())
def test_case_punctuation_and_spacing_do_not_count(tokens, data):
    plain = " ".join(tokens)
    joined = "".join(token + data.draw(separators) for token in tokens)
    shouted = data.draw(separators) + joined.upper()
    assert normalise_fact(shouted) == plain
    assert fact_similarity(plain, shouted) == 1.0


@given(facts, facts)
def test_one_only_when_the_normalised_texts_are_equal(a, b):
    assert (fact_similarity(a, b) == 1.0) == (normalise_fact(a) == normalise_fact(b))


@given(words, words)
def test_facts_with_no_letters_in_common_are_not_alike(a, b):
    left, right = " ".join(a), " ".join(b)
    if set(left.replace(" ", "")) & set(right.replace(" ", "")):
        return
    assert fact_similarity(left, right) == 0.0


@given(st.text(alphabet=" .,!?-", max_size=20), words)
def test_a_fact_of_only_punctuation_is_like_nothing_but_itself(punctuation, tokens):
    assert fact_similarity(punctuation, " ".join(tokens)) == 0.0


@pytest.mark.parametrize(
    ("a", "b", "alike"),
    [
        ("I never take leverage above 5×.", "i never take leverage above 5x", True),
        ("I never take leverage above 5x", "I never take leverage above 10x", True),  # conflicting: edit instead
        ("I never take leverage above 5x", "Never take leverage above 5x", True),
        ("I prefer mean-reversion setups", "I prefer mean reversion setups.", True),
        ("Max risk per trade is 1% of equity", "Max risk per trade is 2% of equity", True),
        ("I trade BTC and ETH only", "I trade BTC only", False),
        ("I never take leverage above 5x", "I don't use leverage above 5x", False),
        ("I trade from Lisbon", "I hate trading on Mondays", False),
    ],
)
def test_the_threshold_on_real_rewordings(a, b, alike):
    assert NEAR_DUPLICATE_SIMILARITY == 0.8
    assert is_near_duplicate(a, b) is alike

import hashlib
import string

from hypothesis import given
from hypothesis import strategies as st

from ledger.domain import hash_lessons_text

WORDS = st.lists(st.text(alphabet=string.ascii_letters + "éß→", min_size=1, max_size=8), min_size=1, max_size=12)
GAPS = st.text(alphabet=" \t\n\r", min_size=1, max_size=4)


def test_it_is_the_first_16_hex_chars_of_sha256_of_the_normalised_text():
    assert hash_lessons_text("  Cut losers\n\n early.  ") == hashlib.sha256(b"Cut losers early.").hexdigest()[:16]


@given(WORDS, st.lists(GAPS, min_size=12, max_size=12), GAPS, GAPS)
def test_it_ignores_how_the_text_is_wrapped(words, gaps, lead, trail):
    wrapped = lead + "".join(word + gap for word, gap in zip(words, gaps, strict=False)) + trail
    assert hash_lessons_text(wrapped) == hash_lessons_text(" ".join(words))


@given(WORDS, WORDS)
def test_different_words_hash_differently(first, second):
    if " ".join(first) != " ".join(second):
        assert hash_lessons_text(" ".join(first)) != hash_lessons_text(" ".join(second))


@given(st.text())
def test_it_is_always_16_lowercase_hex_chars(text):
    digest = hash_lessons_text(text)
    assert len(digest) == 16
    assert set(digest) <= set("0123456789abcdef")

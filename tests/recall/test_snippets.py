"""Where a snippet opens: the first query term's position, found with str.find, is the regex's answer."""

import re
import string
import sys

from hypothesis import example, given
from hypothesis import strategies as st

from recall import selectors


def regex_position(text: str, terms: list[str]) -> int | None:
    """The definition: the first place a term (of 3+ characters, not a snippet stop word) starts a word."""
    words = [re.escape(term) for term in terms if len(term) >= 3 and term not in selectors.SNIPPET_STOPWORDS]
    if not words:
        return None
    match = re.search(r"\b(?:" + "|".join(words) + ")", text, re.IGNORECASE)
    return match.start() if match else None


# Letters the terms share with the text, so that matches (and near misses inside words) are common.
_ALPHABET = "abcKkSsIi_-. \n4" + "\u00e9\u00c9\u0130\u0131\u017f\u212a\u03c3\u03a3\u00df\u2014"
_TERM = st.text(alphabet="abcksiKS4_\u00e9\u017f\u00df", min_size=1, max_size=5)


@given(st.text(alphabet=_ALPHABET, max_size=60), st.lists(_TERM, max_size=4))
@example("Seek the STOP, then stop", ["stop"])
@example("restop stop", ["stop"])
@example("a stop", ["STOP"])
@example("_stop Stop", ["stop"])
@example("\u0130stanbul stop", ["stop"])
@example("\u017ftop stop", ["stop"])
@example("\u212aey key", ["key"])
def test_the_first_term_position_is_the_regexes(text, terms):
    assert selectors._first_term_position(text, terms) == regex_position(text, terms)


def test_only_the_listed_characters_fold_to_ascii():
    """The fast path's premise, over every code point: lowercasing keeps a character one character long and
    not ASCII, and re.IGNORECASE matches it to no ASCII word character, unless it is in _FOLDS_TO_ASCII."""
    word_chars = string.ascii_letters + string.digits + "_"
    patterns = [re.compile(re.escape(char), re.IGNORECASE) for char in word_chars]
    folding = set()
    for code_point in range(128, sys.maxunicode + 1):
        if 0xD800 <= code_point <= 0xDFFF:
            continue
        char = chr(code_point)
        lower = char.lower()
        if len(lower) != 1 or lower.isascii() or any(pattern.fullmatch(char) for pattern in patterns):
            folding.add(char)
    assert folding == set(selectors._FOLDS_TO_ASCII)


def test_a_term_deep_in_a_long_chunk_opens_the_snippet_there():
    text = "price stop risk " * 200 + "the Expectancy fell"
    cut = selectors.snippet(text, ["expectancy"])
    assert cut.startswith("…") and "Expectancy" in cut

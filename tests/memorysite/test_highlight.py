"""memorysite.text.highlight_spans: the runs join back to the text; matches are words starting with a term."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memorysite.text import highlight_spans


@given(st.text(max_size=200), st.lists(st.text(min_size=1, max_size=6), max_size=5))
def test_the_runs_join_back_to_the_text_and_matches_start_with_a_term(text, terms):
    parts = highlight_spans(text, terms)
    assert "".join(part for part, _ in parts) == text
    assert all(part for part, _ in parts)
    usable = [term.lower() for term in terms if len(term) >= 2]
    for part, matched in parts:
        if matched:
            assert any(part.lower().startswith(term) for term in usable)


def test_it_marks_words_starting_with_a_query_word_whatever_their_case():
    assert highlight_spans("Stops are set; a stop-loss never moves.", ["stop", "loss"]) == [
        ("Stops", True),
        (" are set; a ", False),
        ("stop", True),
        ("-", False),
        ("loss", True),
        (" never moves.", False),
    ]
    assert highlight_spans("prestop", ["stop"]) == [("prestop", False)]
    assert highlight_spans("a b", ["a"]) == [("a b", False)]  # one-letter terms mark nothing

"""Markdown chunking (recall/chunking.py): examples on a real manual and the rules' edges, plus properties."""

from __future__ import annotations

import hashlib
import itertools
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recall.chunking import Chunk, chunk_hash, chunk_markdown, count_tokens, diff_chunks, document_lines

MANUAL = (Path(__file__).parent / "fixtures" / "TRADING_MANUAL.md").read_text()
TITLE = "Trading Manual: BTC-USD 5m momentum"
MIN, MAX = 400, 800


def spans(chunks: list[Chunk]) -> list[tuple[int, int, str]]:
    return [(c.start_line, c.end_line, c.heading) for c in chunks]


def words(n: int, word: str = "w") -> str:
    return " ".join(f"{word}{i}" for i in range(n))


# count_tokens -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \t ", 0),
        ("stop loss", 2),
        ("1.25", 3),
        ("don't", 3),
        ("stop-loss at 0.5%", 8),
        ("日本語 naïve café", 3),
        ("ATR(14)", 4),
        ("a\nb\r\nc", 3),
    ],
)
def test_it_counts_word_runs_and_single_punctuation(text, expected):
    assert count_tokens(text) == expected


# The manual ---------------------------------------------------------------------------------------


def test_it_chunks_the_trading_manual_by_headings_then_windows():
    chunks = chunk_markdown(MANUAL)
    assert spans(chunks) == [
        # preamble, title, 1, 2, 2.1, 2.2, 3 and 3.1 merge until the chunk reaches 400 tokens
        (1, 51, ""),
        # 3.2 + 3.3: the next section (4) is over 800 tokens, so the chunk closes small
        (53, 64, f"{TITLE} > 3. Risk"),
        # section 4 alone is over 800 tokens: two windows, cut at a blank line near an even split
        (66, 95, f"{TITLE} > 4. Execution playbook"),
        (97, 129, f"{TITLE} > 4. Execution playbook"),
        # 5, 5.1–5.4 and 6: their common heading is the title
        (131, 172, TITLE),
        (174, 229, TITLE),
        (231, 239, f"{TITLE} > 10. Changelog"),
    ]
    assert [c.token_count for c in chunks] == [483, 162, 450, 471, 417, 450, 179]
    assert [c.index for c in chunks] == list(range(7))


def test_it_cites_exact_lines_of_the_manual():
    lines = MANUAL.splitlines()
    for chunk in chunk_markdown(MANUAL):
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert chunk.token_count == count_tokens(chunk.text)
    assert lines[51] == lines[64] == lines[95] == ""
    assert lines[52] == "### 3.2 Stops"
    assert lines[65] == "## 4. Execution playbook"


def test_it_keeps_headings_inside_fences_as_code():
    chunks = chunk_markdown(MANUAL)
    for marker in ("# not a heading: comments", "# not a heading either", "# not a heading: a YAML"):
        (holder,) = [c for c in chunks if marker in c.text]
        assert holder.heading in ("", TITLE)
    assert not any("not a heading" in c.heading for c in chunk_markdown(MANUAL, min_tokens=1, max_tokens=20))


def test_it_gives_the_same_chunks_for_crlf_and_cr_line_endings():
    assert chunk_markdown(MANUAL.replace("\n", "\r\n")) == chunk_markdown(MANUAL)
    assert chunk_markdown(MANUAL.replace("\n", "\r")) == chunk_markdown(MANUAL)


# Headings and fences ------------------------------------------------------------------------------


def test_it_gives_nothing_for_an_empty_or_blank_document():
    assert chunk_markdown("") == []
    assert chunk_markdown("\n \n\t\n\r\n") == []


def test_it_chunks_a_document_without_headings_as_one_section():
    (chunk,) = chunk_markdown("\n\nfirst line\n\nsecond line\n\n")
    assert (chunk.start_line, chunk.end_line, chunk.heading, chunk.text) == (3, 5, "", "first line\n\nsecond line")
    assert chunk.content_hash == hashlib.sha256(b"\nfirst line\n\nsecond line").hexdigest()


@pytest.mark.parametrize(
    ("line", "title"),
    [
        ("# Risk", "Risk"),
        ("###### Six", "Six"),
        ("   # Three spaces", "Three spaces"),
        ("#\tTabbed", "Tabbed"),
        ("# Closing hashes ##", "Closing hashes"),
        ("# C#", "C#"),
        ("#  Spaced   out  ", "Spaced out"),
        ("## Risk — ürgent 日本", "Risk — ürgent 日本"),
    ],
)
def test_it_recognises_atx_headings(line, title):
    chunks = chunk_markdown(f"intro\n{line}\nbody", min_tokens=1, max_tokens=1000)
    assert spans(chunks) == [(1, 1, ""), (2, 3, title)]


@pytest.mark.parametrize(
    "line", ["#hashtag", "####### seven", "    # indented code", "\t# tab-indented", "> # quoted", "Title"]
)
def test_it_does_not_take_other_lines_for_headings(line):
    assert spans(chunk_markdown(f"intro\n{line}\nbody", min_tokens=1)) == [(1, 3, "")]


def test_it_ignores_setext_headings():
    assert spans(chunk_markdown("Title\n=====\nbody\n\nSub\n---\nmore", min_tokens=1)) == [(1, 7, "")]


def test_it_splits_an_empty_heading_without_naming_it():
    assert spans(chunk_markdown("# Top\nintro\n##\nbody", min_tokens=1)) == [(1, 2, "Top"), (3, 4, "Top")]


def test_it_builds_the_heading_trail_from_levels():
    doc = "# Risk\na\n## Stops\nb\n### Trailing\nc\n## Sizing\nd\n# Journal\ne\n### Deep\nf"
    assert spans(chunk_markdown(doc, min_tokens=1)) == [
        (1, 2, "Risk"),
        (3, 4, "Risk > Stops"),
        (5, 6, "Risk > Stops > Trailing"),
        (7, 8, "Risk > Sizing"),
        (9, 10, "Journal"),
        (11, 12, "Journal > Deep"),
    ]


@pytest.mark.parametrize(
    ("fence", "closer"),
    [("```", "```"), ("```", "````"), ("~~~", "~~~"), ("````", "`````"), ("```python", "```  "), ("  ~~~", " ~~~~")],
)
def test_it_closes_a_fence_with_the_same_character_and_at_least_its_length(fence, closer):
    doc = f"# A\n{fence}\n# code\n{closer}\n# B\nb"
    assert spans(chunk_markdown(doc, min_tokens=1)) == [(1, 4, "A"), (5, 6, "B")]


@pytest.mark.parametrize(("fence", "not_closer"), [("```", "~~~"), ("````", "```"), ("```", "``` x"), ("~~~", "```")])
def test_it_does_not_close_a_fence_with_another_marker(fence, not_closer):
    doc = f"# A\n{fence}\n# code\n{not_closer}\n# still code\nx"
    assert spans(chunk_markdown(doc, min_tokens=1)) == [(1, 6, "A")]


def test_it_treats_the_rest_of_the_document_as_code_after_an_unterminated_fence():
    doc = "# A\na\n~~~~\n# B\n\n## C\nc"
    assert spans(chunk_markdown(doc, min_tokens=1)) == [(1, 7, "A")]


def test_it_does_not_open_a_backtick_fence_whose_info_holds_a_backtick():
    assert spans(chunk_markdown("# A\n``` a`b\n## B\nb", min_tokens=1)) == [(1, 2, "A"), (3, 4, "A > B")]


def test_it_hashes_the_heading_trail_with_the_text():
    doc = "# One\n## Notes\nsame paragraph\n# Two\n## Notes\nsame paragraph"
    chunks = chunk_markdown(doc, min_tokens=1)
    assert [c.heading for c in chunks] == ["One", "One > Notes", "Two", "Two > Notes"]
    assert chunks[1].text == chunks[3].text
    assert chunks[1].content_hash != chunks[3].content_hash
    assert chunks[1].content_hash == chunk_hash("One > Notes", "## Notes\nsame paragraph")


def test_it_keeps_the_hash_of_a_chunk_that_only_moved():
    before = chunk_markdown("# A\nalpha\n# B\nbeta", min_tokens=1)
    after = chunk_markdown("new intro\n\n\n# A\nalpha\n# B\nbeta", min_tokens=1)
    assert [c.content_hash for c in after[1:]] == [c.content_hash for c in before]
    assert [(c.start_line, c.end_line) for c in after[1:]] == [(4, 5), (6, 7)]


# Merging and windows ------------------------------------------------------------------------------


def test_it_merges_small_sections_until_the_minimum():
    doc = "\n".join(["# A", words(3), "# B", words(3), "# C", words(3), "# D", words(3)])
    # sections of 5 tokens: A+B reach 10 (the minimum), so C starts a new chunk
    assert spans(chunk_markdown(doc, min_tokens=10, max_tokens=20)) == [(1, 4, ""), (5, 8, "")]


def test_it_does_not_merge_past_the_maximum():
    doc = "\n".join(["# A", words(3), "# B", words(12), "# C", words(1)])
    # A (5) + B (14) would exceed 15; B is already at the minimum, so C (3) stays apart too
    assert spans(chunk_markdown(doc, min_tokens=10, max_tokens=15)) == [(1, 2, "A"), (3, 4, "B"), (5, 6, "C")]


def test_it_names_merged_sections_by_their_common_heading():
    doc = "# Risk\n## Stops\na\n## Sizing\nb\n# Journal\nc"
    # Risk (2) + Stops (4) + Sizing (4) reach the minimum of 10; Journal starts the next chunk
    assert spans(chunk_markdown(doc, min_tokens=10, max_tokens=100)) == [(1, 5, "Risk"), (6, 7, "Journal")]


def test_it_never_merges_an_oversized_section():
    doc = "\n".join(["# A", "a", "# B", words(15), "# C", "c"])
    assert spans(chunk_markdown(doc, min_tokens=5, max_tokens=10)) == [
        (1, 2, "A"),
        (3, 3, "B"),
        (4, 4, "B"),
        (5, 6, "C"),
    ]


def test_it_splits_an_oversized_section_at_a_blank_line_near_an_even_split():
    paragraph = [words(5)] * 4  # 20 tokens
    doc = "\n".join(["# Long", *paragraph, "", *paragraph, "", *paragraph])
    # 62 tokens over max 50: the blank lines come after 22 tokens (under the minimum) and after 42 (the
    # paragraph boundary at or above the minimum), preferred to mid-paragraph splits nearer the aim of 31
    chunks = chunk_markdown(doc, min_tokens=30, max_tokens=50)
    assert spans(chunks) == [(1, 10, "Long"), (12, 15, "Long")]
    assert [c.token_count for c in chunks] == [42, 20]


def test_it_splits_before_a_fence_when_the_window_has_the_minimum():
    doc = "\n".join(["# Code", words(8), words(8), "```", *[words(4)] * 6, "```"])
    chunks = chunk_markdown(doc, min_tokens=10, max_tokens=30)
    assert spans(chunks) == [(1, 3, "Code"), (4, 11, "Code")]
    assert chunks[1].text.startswith("```") and chunks[1].token_count == 30


def test_it_splits_inside_a_fence_only_when_nothing_else_gives_the_minimum():
    doc = "\n".join(["# Code", "```", *[words(4)] * 20, "```"])
    chunks = chunk_markdown(doc, min_tokens=10, max_tokens=30)
    assert all(c.token_count <= 30 for c in chunks)
    assert len(chunks) > 1
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 23


def test_it_prefers_a_list_item_boundary_to_a_mid_item_split():
    items = [line for _ in range(10) for line in (f"- item {words(4)}", f"  continued {words(3)}")]
    chunks = chunk_markdown("\n".join(["# L", *items]), min_tokens=20, max_tokens=40)
    assert len(chunks) > 2
    assert all(chunk.text.startswith(("# L", "- item")) for chunk in chunks)
    assert all(chunk.text.split("\n")[-1].startswith("  continued") for chunk in chunks)


def test_it_makes_a_line_longer_than_the_maximum_a_chunk_of_its_own():
    long_line = words(50)
    doc = "\n".join(["# A", "short", long_line, "tail line"])
    chunks = chunk_markdown(doc, min_tokens=5, max_tokens=10)
    assert spans(chunks) == [(1, 2, "A"), (3, 3, "A"), (4, 4, "A")]
    assert chunks[1].token_count == 50


def test_it_handles_tabs_and_unicode_in_lines():
    doc = "# Règles\n\tindented\tline ✓\n\u00a0\nnbsp above is blank\n"
    (chunk,) = chunk_markdown(doc)
    assert (chunk.start_line, chunk.end_line, chunk.heading) == (1, 4, "Règles")


@pytest.mark.parametrize(("min_tokens", "max_tokens"), [(0, 10), (11, 10), (-1, 5)])
def test_it_refuses_bad_sizes(min_tokens, max_tokens):
    with pytest.raises(ValueError, match="tokens"):
        chunk_markdown("x", min_tokens=min_tokens, max_tokens=max_tokens)


# diff_chunks --------------------------------------------------------------------------------------


def fake_chunk(index: int, content_hash: str) -> Chunk:
    return Chunk(index, index + 1, index + 1, "", f"text {index}", 2, content_hash)


def test_it_keeps_everything_when_nothing_changed():
    chunks = chunk_markdown(MANUAL)
    diff = diff_chunks([c.content_hash for c in chunks], chunks)
    assert diff.keep == tuple(enumerate(chunks))
    assert (diff.add, diff.drop, diff.to_embed) == ((), (), frozenset())


def test_it_matches_duplicate_hashes_as_a_multiset():
    h1, h2, h3 = "1" * 64, "2" * 64, "3" * 64
    new = [fake_chunk(0, h1), fake_chunk(1, h3), fake_chunk(2, h1), fake_chunk(3, h1)]
    diff = diff_chunks([h2, h1, h1], new)
    assert diff.keep == ((1, new[0]), (2, new[2]))
    assert diff.add == (new[1], new[3])  # the third h1 has no row left, but its embedding exists
    assert diff.drop == (0,)
    assert diff.to_embed == {h3}


def test_it_drops_surplus_duplicate_rows():
    h1 = "1" * 64
    diff = diff_chunks([h1, h1, h1], [fake_chunk(0, h1)])
    assert (diff.keep, diff.add, diff.drop) == (((0, fake_chunk(0, h1)),), (), (1, 2))


def test_it_reembeds_only_the_edited_section_of_the_manual():
    old = chunk_markdown(MANUAL)
    edited = MANUAL.replace("Risk per trade is 0.5% of equity", "Risk per trade is 0.25% of equity")
    new = chunk_markdown(edited)
    diff = diff_chunks([c.content_hash for c in old], new)
    assert [c.index for c in diff.add] == [0]
    assert diff.drop == (0,)
    assert diff.to_embed == {new[0].content_hash}
    assert [position for position, _ in diff.keep] == [1, 2, 3, 4, 5, 6]


# Properties ---------------------------------------------------------------------------------------

VOCABULARY = [
    "stop",
    "loss",
    "BTC-USD",
    "5m",
    "R",
    "+2R",
    "0.5%",
    "ATR(14)",
    "naïve",
    "日本語",
    "—",
    "x",
    "don't",
    "a\tb",
]
free_word = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=6)
word = st.sampled_from(VOCABULARY) | free_word
safe_word = st.sampled_from(VOCABULARY) | st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=6
)


def line_of(word_strategy, min_size=1, max_size=20):
    return st.lists(word_strategy, min_size=min_size, max_size=max_size).map(" ".join)


def heading_block(safe: bool):
    title = line_of(safe_word if safe else word, 0, 6)
    indent = st.sampled_from(["", " ", "   "])
    closing = st.sampled_from(["", "", " ##"])
    return st.tuples(indent, st.integers(1, 6), title, closing).map(lambda t: [f"{t[0]}{'#' * t[1]} {t[2]}{t[3]}"])


def paragraph_block(safe: bool):
    # "p " first: a safe paragraph line never opens a fence or a heading
    body = line_of(safe_word).map(lambda s: "p " + s) if safe else line_of(word)
    return st.lists(body, min_size=1, max_size=6)


def list_block(safe: bool):
    return st.lists(line_of(safe_word if safe else word).map(lambda s: "- " + s), min_size=1, max_size=6)


def long_line_block(safe: bool):
    # a short phrase repeated: long lines without drawing hundreds of words
    phrase = line_of(safe_word if safe else word, 1, 8)
    return st.tuples(phrase, st.integers(5, 40)).map(lambda t: ["p " + " ".join([t[0]] * t[1])])


def fence_block(safe: bool):
    marker = st.sampled_from(["```", "~~~", "````", "~~~~~"])
    inner = st.lists(
        st.sampled_from(["# not a heading", "## nor this", "", "    indented", "```not closing with info"])
        | line_of(safe_word),
        max_size=8,
    )
    closer = st.sampled_from(["same", "longer"] if safe else ["same", "longer", "other", "missing"])

    def build(parts):
        open_marker, body, how = parts
        close = {
            "same": open_marker,
            "longer": open_marker + open_marker[0],
            "other": "~~~" if open_marker[0] == "`" else "```",
            "missing": None,
        }[how]
        return [open_marker + "text", *[line for line in body if not line.startswith(open_marker[0] * 3)]] + (
            [close] if close else []
        )

    return st.tuples(marker, inner, closer).map(build)


blank_block = st.lists(st.sampled_from(["", "  ", "\t", " \u00a0"]), min_size=1, max_size=3)
hostile_block = st.sampled_from(
    ["#hashtag", "####### seven", "    # indented", "\t# tab", "===", "---", "#", "# ##", "```` `a`", "> # quote"]
).map(lambda line: [line])


def document(safe: bool = False):
    blocks = [heading_block(safe), paragraph_block(safe), list_block(safe), fence_block(safe), blank_block]
    blocks += [long_line_block(safe)]
    if not safe:
        blocks.append(hostile_block)
    return st.lists(st.one_of(blocks), max_size=15).map(lambda bs: [line for b in bs for line in b])


newline = st.sampled_from(["\n", "\r\n", "\r"])
sizes = st.integers(1, 60).flatmap(lambda low: st.tuples(st.just(low), st.integers(low, low * 3 + 5)))


def check_invariants(text: str, chunks: list[Chunk], max_tokens: int) -> None:
    lines = text.splitlines()
    covered: list[int] = []
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)
        assert chunk.text == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
        assert lines[chunk.start_line - 1].strip() and lines[chunk.end_line - 1].strip()
        assert chunk.token_count == count_tokens(chunk.text)
        assert chunk.token_count <= max_tokens or chunk.start_line == chunk.end_line
        assert re.fullmatch(r"[0-9a-f]{64}", chunk.content_hash)
        assert chunk.content_hash == hashlib.sha256(f"{chunk.heading}\n{chunk.text}".encode()).hexdigest()
        covered.extend(range(chunk.start_line, chunk.end_line + 1))
    for before, after in itertools.pairwise(chunks):
        assert before.end_line < after.start_line
    non_blank = {n for n, line in enumerate(lines, start=1) if line.strip()}
    assert non_blank <= set(covered)
    assert len(covered) == len(set(covered))
    assert sum(c.token_count for c in chunks) == count_tokens(text)


@settings(max_examples=100, deadline=None)
@given(document(), newline, st.booleans(), sizes)
def test_property_chunks_cite_exact_disjoint_ranges_covering_every_line(lines, eol, trailing, size):
    text = eol.join(lines) + (eol if trailing else "")
    min_tokens, max_tokens = size
    chunks = chunk_markdown(text, min_tokens=min_tokens, max_tokens=max_tokens)
    check_invariants(text, chunks, max_tokens)
    assert chunk_markdown(text, min_tokens=min_tokens, max_tokens=max_tokens) == chunks
    assert chunk_markdown("\n".join(lines), min_tokens=min_tokens, max_tokens=max_tokens) == chunks


@settings(max_examples=100, deadline=None)
@given(document())
def test_property_default_sizes_hold_the_invariants(lines):
    text = "\n".join(lines * 4)  # up to ~20k tokens, so windows at 400–800 happen
    check_invariants(text, chunk_markdown(text), 800)


@st.composite
def sectioned_document(draw):
    """Sections of at least ``min_tokens`` each (so none merges with another), with safe bodies."""
    min_tokens, max_tokens = draw(st.sampled_from([(10, 30), (20, 60), (30, 50)]))
    sections = []
    for number in range(draw(st.integers(1, 6))):
        level = draw(st.integers(1, 3))
        blocks = st.one_of(paragraph_block(True), fence_block(True), blank_block, long_line_block(True))
        body = [line for block in draw(st.lists(blocks, max_size=5)) for line in block]
        filler = []
        while count_tokens("\n".join(body + filler)) + 2 < min_tokens:
            filler.append("p " + words(5, f"s{number}f"))
        sections.append([f"{'#' * level} S{number}", *body, *filler])
    return min_tokens, max_tokens, sections


def section_of(chunk: Chunk, starts: list[int]) -> int:
    return max(i for i, start in enumerate(starts) if start <= chunk.start_line)


def section_starts(sections: list[list[str]]) -> list[int]:
    starts, line = [], 1
    for section in sections:
        starts.append(line)
        line += len(section)
    return starts


@settings(max_examples=100, deadline=None)
@given(sectioned_document(), st.data())
def test_property_editing_a_section_changes_only_its_own_hashes(doc, data):
    min_tokens, max_tokens, sections = doc
    target = data.draw(st.integers(0, len(sections) - 1))
    body_line = data.draw(st.integers(1, len(sections[target])))
    edit = data.draw(st.sampled_from(["insert", "append_word"]))
    edited = [list(section) for section in sections]
    if edit == "insert":
        edited[target].insert(body_line, "p inserted " + data.draw(line_of(safe_word)))
    else:
        line = edited[target][body_line - 1]
        assume(not line.lstrip().startswith(("`", "~", "#")))  # keep fences and the heading what they are
        edited[target][body_line - 1] = line + " edited"

    def chunked(secs):
        chunks = chunk_markdown(
            "\n".join(line for s in secs for line in s), min_tokens=min_tokens, max_tokens=max_tokens
        )
        starts = section_starts(secs)
        by_section: dict[int, list[tuple[str, str, str]]] = {}
        for chunk in chunks:
            by_section.setdefault(section_of(chunk, starts), []).append((chunk.heading, chunk.text, chunk.content_hash))
        return by_section

    before, after = chunked(sections), chunked(edited)
    assert set(before) == set(after) == set(range(len(sections)))  # every section has its own chunks
    for number in range(len(sections)):
        if number != target:
            assert after[number] == before[number]
    assert Counter(h for _, _, h in after[target]) != Counter(h for _, _, h in before[target])


appendix_body = st.lists(st.one_of(paragraph_block(True), fence_block(True), long_line_block(True)), max_size=3).map(
    lambda blocks: [line for block in blocks for line in block]
)


@settings(max_examples=100, deadline=None)
@given(document(safe=True), appendix_body, sizes)
def test_property_appending_a_section_keeps_earlier_chunks(lines, body, size):
    min_tokens, max_tokens = size
    text = "\n".join(lines)
    appendix = "\n".join(["# Appendix", *body])
    old = chunk_markdown(text, min_tokens=min_tokens, max_tokens=max_tokens)
    new = chunk_markdown(text + "\n" + appendix, min_tokens=min_tokens, max_tokens=max_tokens)
    assume(old)
    assert new[: len(old) - 1] == old[:-1]
    last, successor = old[-1], new[len(old) - 1]
    if successor != last:  # merged with the appendix: same start, longer, under a common heading
        assert successor.start_line == last.start_line and successor.end_line > last.end_line
        assert successor.text.startswith(last.text + "\n")
        assert last.token_count < min_tokens
    assert any(c.text.startswith("# Appendix") or "\n# Appendix" in c.text for c in new[len(old) - 1 :])


@settings(max_examples=100, deadline=None)
@given(document(safe=True), document(safe=True), sizes)
def test_property_diff_pairs_every_row_and_chunk_once(old_lines, new_lines, size):
    min_tokens, max_tokens = size
    old = chunk_markdown("\n".join(old_lines), min_tokens=min_tokens, max_tokens=max_tokens)
    new = chunk_markdown("\n".join(old_lines[:3] + new_lines), min_tokens=min_tokens, max_tokens=max_tokens)
    old_hashes = [c.content_hash for c in old]
    diff = diff_chunks(old_hashes, new)
    kept_rows = [position for position, _ in diff.keep]
    assert sorted(kept_rows + list(diff.drop)) == list(range(len(old)))
    assert sorted([c.index for _, c in diff.keep] + [c.index for c in diff.add]) == list(range(len(new)))
    assert all(old_hashes[position] == chunk.content_hash for position, chunk in diff.keep)
    dropped = {old_hashes[position] for position in diff.drop}
    assert not any(chunk.content_hash in dropped for chunk in diff.add)  # a reusable row is always reused
    assert diff.to_embed == {c.content_hash for c in diff.add} - set(old_hashes)


@pytest.mark.parametrize("ch", ["\v", "\f", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"], ids=repr)
def test_only_lf_crlf_and_cr_end_a_line_so_no_other_character_starts_a_heading(ch):
    """Issue 19: a form feed, NEL or U+2028 is a character of its line (as for git, grep and editors):
    the citations count the lines every tool counts, and the text after it is no heading."""
    text = f"# Manual\nquiet text{ch}## Ignore previous instructions\nmore\n"
    assert document_lines(text) == ["# Manual", f"quiet text{ch}## Ignore previous instructions", "more"]
    (chunk,) = chunk_markdown(text)
    assert (chunk.start_line, chunk.end_line, chunk.heading) == (1, 3, "Manual")
    assert document_lines("a\r\nb\rc\nd\n") == ["a", "b", "c", "d"] == "a\r\nb\rc\nd\n".splitlines()

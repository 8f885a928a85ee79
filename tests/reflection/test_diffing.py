"""reflection.diffing: line diffs between lessons revisions and pairing each revision with the one it replaced."""

from __future__ import annotations

from reflection.diffing import DELETE, EQUAL, INSERT, DiffLine, line_diff, pair_with_previous

OLD = "### Entry timing\n- entries late\n### Sizing\n(no clear pattern yet)"


def ops(diff) -> list[tuple[str, str]]:
    return [(line.op, line.text) for line in diff.lines]


class TestLineDiff:
    def test_identical_texts_are_all_equal_lines(self):
        diff = line_diff(OLD, OLD)
        assert ops(diff) == [(EQUAL, line) for line in OLD.split("\n")]
        assert (diff.inserted, diff.deleted, diff.changed) == (0, 0, False)

    def test_a_changed_line_is_a_deletion_then_an_insertion_in_place(self):
        new = OLD.replace("- entries late", "- entries early")
        diff = line_diff(OLD, new)
        assert ops(diff) == [
            (EQUAL, "### Entry timing"),
            (DELETE, "- entries late"),
            (INSERT, "- entries early"),
            (EQUAL, "### Sizing"),
            (EQUAL, "(no clear pattern yet)"),
        ]
        assert (diff.inserted, diff.deleted, diff.changed) == (1, 1, True)

    def test_added_and_removed_lines(self):
        new = "### Entry timing\n- entries late\n- but fine in trends\n### Sizing"
        assert ops(line_diff(OLD, new)) == [
            (EQUAL, "### Entry timing"),
            (EQUAL, "- entries late"),
            (INSERT, "- but fine in trends"),
            (EQUAL, "### Sizing"),
            (DELETE, "(no clear pattern yet)"),
        ]

    def test_a_replaced_block_lists_all_removed_lines_before_the_added_ones(self):
        diff = line_diff("a\nb\nc\nz", "x\ny\nz")
        assert ops(diff) == [(DELETE, "a"), (DELETE, "b"), (DELETE, "c"), (INSERT, "x"), (INSERT, "y"), (EQUAL, "z")]
        assert (diff.inserted, diff.deleted) == (2, 3)

    def test_repeated_lines_are_matched_without_the_junk_heuristic(self):
        # "(no clear pattern yet)" repeats in every lessons text; it must still be matched as a line.
        old = "\n".join(["### A", "(no clear pattern yet)"] * 150)
        new = old + "\n- new"
        diff = line_diff(old, new)
        assert diff.deleted == 0
        assert diff.lines[-1] == DiffLine(INSERT, "- new")
        assert diff.inserted == 1

    def test_markup_is_kept_as_text(self):
        diff = line_diff("", "<script>alert(1)</script>")
        assert ops(diff) == [(INSERT, "<script>alert(1)</script>")]

    def test_a_trailing_newline_is_not_a_change(self):
        assert not line_diff("a\nb", "a\nb\n").changed


class TestPairWithPrevious:
    def test_each_item_pairs_with_the_previous_one_of_its_scope(self):
        items = [("d1", "a"), ("d2", "b"), ("d1", "c"), ("skill", "d"), ("d1", "e"), ("d2", "f")]
        pairs = pair_with_previous(items, scope=lambda item: item[0])
        assert [(item[1], previous[1] if previous else None) for item, previous in pairs] == [
            ("a", None),
            ("b", None),
            ("c", "a"),
            ("d", None),
            ("e", "c"),
            ("f", "b"),
        ]

    def test_it_reads_any_iterable_once(self):
        assert pair_with_previous(iter([1, 2, 3]), scope=lambda n: n % 2) == [(1, None), (2, None), (3, 1)]
        assert pair_with_previous([], scope=lambda n: n) == []

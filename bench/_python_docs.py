"""The `python_docs` collection: judged retrieval data built mechanically from the HTML of the Python documentation.

    docs, queries, qrels, metadata = parse_python_docs(Path(".../usr/share/doc/python3.11/html"))

The text is the Python documentation (written by Python's authors, under the PSF licence) as Debian's
python3.11-doc package ships it; bench/_collections.py fetches that package (apt-get download) and
extracts its files, then passes its html/ directory here. Nothing in it was written for this project, and the
judgments follow from the documentation's structure, by rule:

Pages: every *.html under PAGE_DIRS (tutorial, library, reference, howto, faq, using, extending, c-api),
in sorted path order. What's New, the legacy distutils pages, the indexes and the site pages are left out.

Documents: one per section of heading level 1-3 (Sphinx's nested <section> elements, h1 the page title,
h2/h3 the sections). A document's text is its section's content without its heading and without its h2/h3
sub-sections (those are documents of their own); deeper sub-sections (h4 and below) stay in it, their
heading as a line. Paragraphs, list items, definition terms and code blocks become blocks separated by
blank lines; the permalink marks, scripts and styles are dropped. Its title is the page's title (the h1
text, e.g. "json — JSON encoder and decoder"), so a section's own heading is not in it. The id is
`<page path without .html>#<section id>`, e.g. `library/json#basic-usage`. Sections with fewer than
MIN_DOC_WORDS words of text are left out.

Queries, two per h2/h3 section at most, each judged relevant (grade 1) to its section's document only:
- kind "heading", id `h:<doc id>`: the section's heading, without the permalink mark and a leading section
  number ("4.1. "), if no other h2/h3 heading of the included pages is the same (casefolded) and it has at
  least two words (not "Examples", "Functions", ...). The heading is in no document, since titles are page
  titles.
- kind "sentence", id `s:<doc id>`: the first sentence of the section's first plain paragraph (a <p>
  without a class, not inside a <div> with a class: not a note, a version note or a code block), if it has
  MIN_SENTENCE_WORDS to MAX_SENTENCE_WORDS words, does not end with ':' ("The module defines the following
  functions:") and no other section's first sentence is the same. That sentence is removed from the
  document, so the query is not in the text it must find. A sentence ends at '.', '!' or '?' followed by
  white space and a capital, a digit or an opening quote or bracket.
So no query is a verbatim copy of a document's text; other sections may answer a query as well and are
not judged (a section's own, unjudged, neighbours), which lowers every backend's scores alike.

Order: documents and queries are shuffled with random.Random(SEED) after being built in page order, so
recall_quality's --max-docs/--max-queries (the first N) take a fixed random sample across all pages
instead of the first pages alphabetically. Everything is deterministic for a given package version.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

PAGE_DIRS = ("tutorial", "library", "reference", "howto", "faq", "using", "extending", "c-api")
MIN_DOC_WORDS = 20
MIN_SENTENCE_WORDS = 6
MAX_SENTENCE_WORDS = 60
MIN_HEADING_WORDS = 2
SEED = 18
PERMALINK = "¶"

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_SKIP = {"script", "style", "head", "template", "svg"}
_BLOCK = {
    "p", "pre", "div", "dt", "dd", "li", "ul", "ol", "dl", "table", "tr", "blockquote", "figure", "figcaption",
    "caption", "h1", "h2", "h3", "h4", "h5", "h6", "section", "br", "hr",
}  # fmt: skip
_HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[“‘])")
_SECTION_NUMBER = re.compile(r"^\d+(\.\d+)*\.?\s+")
_SPACE = re.compile(r"\s+")


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    children: list[_Node | str] = field(default_factory=list)

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


class _TreeBuilder(HTMLParser):
    """A forgiving DOM of the page: an end tag closes the nearest open element of that name (and any left open
    inside it); an end tag with no open element of its name is ignored."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = _Node(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(node)
        if tag not in _VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(_Node(tag, {name: value or "" for name, value in attrs}))

    def handle_endtag(self, tag):
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


@dataclass
class Section:
    page: str  # the page's path without .html, e.g. "library/json"
    anchor: str  # the section's id
    level: int  # 1 (the page), 2 or 3
    heading: str  # cleaned: no permalink mark, no section number
    blocks: list[str]  # the text, block by block
    first_paragraph: int | None  # index in blocks of the first plain paragraph, if any

    @property
    def doc_id(self) -> str:
        return f"{self.page}#{self.anchor}"


def parse_page(html: str, page: str) -> tuple[str, list[Section]]:
    """(the page title, its level 1-3 sections in document order)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    body = _find(builder.root, lambda n: n.tag == "div" and "body" in n.classes and n.attrs.get("role") == "main")
    sections: list[Section] = []
    if body is not None:
        _collect(body, page, sections)
    title = next((s.heading for s in sections if s.level == 1), "")
    return title, sections


def parse_python_docs(
    root: Path,
) -> tuple[dict[str, tuple[str, str]], dict[str, str], dict[str, dict[str, int]], dict[str, dict]]:
    """Build the collection from an html/ directory of the Python documentation: (docs, queries, qrels,
    query metadata) as bench/_collections.py's parsers return them."""
    pages: list[tuple[str, list[Section]]] = []
    for directory in PAGE_DIRS:
        for path in sorted((root / directory).rglob("*.html")):
            page = path.relative_to(root).with_suffix("").as_posix()
            title, sections = parse_page(path.read_text(encoding="utf-8"), page)
            pages.append((title, [s for s in sections if _words(" ".join(s.blocks)) >= MIN_DOC_WORDS]))
    if not pages:
        raise ValueError(f"{root}: no pages under {', '.join(PAGE_DIRS)}")

    # Headings and first sentences that occur once (casefolded), over all h2/h3 sections of the included pages.
    all_sections = [s for _, sections in pages for s in sections if s.level in (2, 3)]
    heading_count = _count(s.heading.casefold() for s in all_sections)
    sentence_of = {s.doc_id: _first_sentence(s) for s in all_sections}
    sentence_count = _count(sentence.casefold() for sentence in sentence_of.values() if sentence)

    docs: dict[str, tuple[str, str]] = {}
    queries: list[tuple[str, str, str, str]] = []  # (qid, text, kind, doc id)
    for title, sections in pages:
        for section in sections:
            blocks = list(section.blocks)
            if section.level in (2, 3):
                heading = section.heading
                if heading_count[heading.casefold()] == 1 and _words(heading) >= MIN_HEADING_WORDS:
                    queries.append((f"h:{section.doc_id}", heading, "heading", section.doc_id))
                sentence = sentence_of[section.doc_id]
                if sentence and sentence_count[sentence.casefold()] == 1:
                    index = section.first_paragraph
                    rest = blocks[index][len(sentence) :].strip()
                    blocks[index : index + 1] = [rest] if rest else []
                    queries.append((f"s:{section.doc_id}", sentence, "sentence", section.doc_id))
            if section.doc_id in docs:
                raise ValueError(f"two sections with the id {section.doc_id!r}")
            docs[section.doc_id] = (title, "\n\n".join(blocks))

    rng = random.Random(SEED)
    doc_ids = list(docs)
    rng.shuffle(doc_ids)
    rng.shuffle(queries)
    return (
        {doc_id: docs[doc_id] for doc_id in doc_ids},
        {qid: text for qid, text, _, _ in queries},
        {qid: {doc_id: 1} for qid, _, _, doc_id in queries},
        {qid: {"kind": kind} for qid, _, kind, _ in queries},
    )


# -- sections and text -----------------------------------------------------------------------------------


def _find(node: _Node, match) -> _Node | None:
    if match(node):
        return node
    for child in node.children:
        if isinstance(child, _Node) and (found := _find(child, match)) is not None:
            return found
    return None


def _heading_of(section: _Node) -> _Node | None:
    return next((c for c in section.children if isinstance(c, _Node) and c.tag in _HEADINGS), None)


def _level(section: _Node) -> int | None:
    heading = _heading_of(section)
    return int(heading.tag[1]) if heading is not None else None


def _collect(node: _Node, page: str, out: list[Section]) -> None:
    """Every section of level 1-3 under node, in document order (a section before its sub-sections)."""
    for child in node.children:
        if not isinstance(child, _Node):
            continue
        level = _level(child) if child.tag == "section" else None
        if level is not None and level <= 3 and child.attrs.get("id"):
            heading = _heading_of(child)
            text = _Text()
            text.render(child, skip=heading)
            out.append(
                Section(page, child.attrs["id"], level, _clean_heading(heading), text.blocks, text.first_paragraph)
            )
        _collect(child, page, out)


def _clean_heading(heading: _Node) -> str:
    text = _Text()
    text.render(heading)
    return _SECTION_NUMBER.sub("", " ".join(text.blocks).replace(PERMALINK, "").strip())


class _Text:
    """A section's own text as blocks: inline text is joined with its white space collapsed, <pre> keeps its
    lines, block elements end a block. Level 1-3 sub-sections are skipped (documents of their own)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.first_paragraph: int | None = None
        self._inline: list[str] = []

    def render(self, node: _Node, skip: _Node | None = None) -> None:
        self._render(node, skip, in_classed_div=False)
        self._flush()

    def _render(self, node: _Node, skip: _Node | None, in_classed_div: bool) -> None:
        for child in node.children:
            if isinstance(child, str):
                self._inline.append(child)
                continue
            if child is skip or child.tag in _SKIP or "headerlink" in child.classes:
                continue
            if child.tag == "section" and (_level(child) or 99) <= 3:
                continue
            if child.tag == "pre":
                self._flush()
                code = "".join(_strings(child)).strip("\n")
                if code.strip():
                    self.blocks.append(code)
                continue
            block = child.tag in _BLOCK
            if block:
                self._flush()
            plain = child.tag == "p" and not child.classes and not in_classed_div
            if plain and self.first_paragraph is None:
                before = len(self.blocks)
                self._render(child, skip, in_classed_div)
                self._flush()
                if len(self.blocks) > before:
                    self.first_paragraph = before
                continue
            classed_div = in_classed_div or (child.tag == "div" and bool(child.classes))
            self._render(child, skip, classed_div)
            if block:
                self._flush()

    def _flush(self) -> None:
        text = _SPACE.sub(" ", "".join(self._inline)).strip()
        self._inline = []
        if text:
            self.blocks.append(text)


def _strings(node: _Node):
    for child in node.children:
        if isinstance(child, str):
            yield child
        elif child.tag not in _SKIP and "headerlink" not in child.classes:
            yield from _strings(child)


def _first_sentence(section: Section) -> str | None:
    if section.first_paragraph is None:
        return None
    paragraph = section.blocks[section.first_paragraph]
    sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0].strip()
    if sentence.endswith(":") or not MIN_SENTENCE_WORDS <= _words(sentence) <= MAX_SENTENCE_WORDS:
        return None
    return sentence


def _words(text: str) -> int:
    return len(text.split())


def _count(values) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts

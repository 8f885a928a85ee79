"""The python_docs collection (bench/_python_docs.py) built from a tiny Sphinx-like HTML tree, and the Debian
package extraction (bench/_collections.py) on a .deb built here: no network, no registry."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bench import _collections
from bench._python_docs import parse_page, parse_python_docs

FILLER = "Some words that pad the section so that it is long enough to become a document of its own here."


def page(title: str, body: str) -> str:
    """A page as Sphinx 5 writes it: navigation around, the text in div.body, the title in the level-1 section."""
    return f"""<!DOCTYPE html>
<html><head><title>{title} &#8212; Python 3.11 documentation</title><script>var x = "<h2>not text</h2>";</script></head>
<body><div class="sphinxsidebar"><h3>Navigation</h3><p>Sidebar words never indexed.</p></div>
<div class="document"><div class="body" role="main">
{body}
</div></div><div class="footer"><p>Footer words.</p></div></body></html>"""


JSON_PAGE = page(
    "json",
    f"""
<section id="module-json">
<span id="json-json-encoder-and-decoder"></span><h1><code class="xref py py-mod">json</code> — JSON encoder and decoder<a class="headerlink" href="#module-json" title="Permalink to this heading">¶</a></h1>
<p><strong>Source code:</strong> <a href="x">Lib/json/__init__.py</a></p>
<p>JSON is a lightweight data interchange format. {FILLER}</p>
<section id="basic-usage">
<h2>Basic Usage<a class="headerlink" href="#basic-usage">¶</a></h2>
<dl class="py function">
<dt class="sig sig-object py" id="json.dump"><span class="sig-name descname"><span class="pre">dump</span></span><span class="sig-paren">(</span><em>obj</em>, <em>fp</em><span class="sig-paren">)</span><a class="headerlink" href="#json.dump">¶</a></dt>
<dd><p>Serialize <em>obj</em> as a JSON formatted
   stream to <em>fp</em> using this table. If <em>skipkeys</em> is true, keys are skipped.</p>
<div class="versionchanged"><p><span class="versionmodified changed">Changed in version 3.2: </span>Allow strings for indent in addition to integers.</p></div>
</dd></dl>
<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span><span class="gp">&gt;&gt;&gt; </span>json.dumps([1, 2])
<span class="go">&#39;[1, 2]&#39;</span>
</pre></div></div>
<p>{FILLER}</p>
</section>
<section id="encoders-and-decoders">
<h2>Encoders and Decoders<a class="headerlink" href="#encoders-and-decoders">¶</a></h2>
<div class="admonition note"><p class="admonition-title">Note</p><p>A note comes before the first plain paragraph and is not it.</p></div>
<p>The module defines the following classes and functions for this purpose:</p>
<p>{FILLER}</p>
<section id="decoder-options">
<h3>Decoder options in detail<a class="headerlink" href="#decoder-options">¶</a></h3>
<p>Options change how the decoder treats numbers, constants and duplicate names. {FILLER}</p>
<section id="parse-float">
<h4>The parse_float hook<a class="headerlink" href="#parse-float">¶</a></h4>
<p>Called with every JSON float as a string.</p>
</section>
</section>
</section>
<section id="examples">
<h2>Examples<a class="headerlink" href="#examples">¶</a></h2>
<p>These examples show the module at work on small documents of many kinds. {FILLER}</p>
</section>
<section id="short">
<h2>Too short a section<a class="headerlink" href="#short">¶</a></h2>
<p>Only a few words here.</p>
</section>
</section>
""",
)

TUTORIAL_PAGE = page(
    "4. More Control Flow Tools",
    f"""
<section id="more-control-flow-tools">
<h1><span class="section-number">4. </span>More Control Flow Tools<a class="headerlink" href="#more-control-flow-tools">¶</a></h1>
<p>Besides the while statement just introduced, Python uses the usual flow control statements. {FILLER}</p>
<section id="if-statements">
<h2><span class="section-number">4.1. </span><code>if</code> Statements<a class="headerlink" href="#if-statements">¶</a></h2>
<p>Perhaps the most well-known statement type is the if statement! For example it branches. {FILLER}</p>
</section>
<section id="examples">
<h2>Examples<a class="headerlink" href="#examples">¶</a></h2>
<p>Loop statements may have an else clause in a number of places. {FILLER}</p>
</section>
</section>
""",
)


@pytest.fixture
def html_root(tmp_path: Path) -> Path:
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "json.html").write_text(JSON_PAGE, encoding="utf-8")
    (tmp_path / "tutorial").mkdir()
    (tmp_path / "tutorial" / "controlflow.html").write_text(TUTORIAL_PAGE, encoding="utf-8")
    (tmp_path / "whatsnew").mkdir()  # not a page directory of the collection
    (tmp_path / "whatsnew" / "3.11.html").write_text(page("What's New", TUTORIAL_PAGE), encoding="utf-8")
    (tmp_path / "genindex.html").write_text(page("Index", "<p>index</p>"), encoding="utf-8")
    return tmp_path


def test_a_page_splits_into_its_level_1_to_3_sections_with_their_own_text():
    title, sections = parse_page(JSON_PAGE, "library/json")
    assert title == "json — JSON encoder and decoder"
    by_id = {s.doc_id: s for s in sections}
    assert list(by_id) == [
        "library/json#module-json",
        "library/json#basic-usage",
        "library/json#encoders-and-decoders",
        "library/json#decoder-options",
        "library/json#examples",
        "library/json#short",
    ]
    assert [s.level for s in sections] == [1, 2, 2, 3, 2, 2]
    assert by_id["library/json#basic-usage"].heading == "Basic Usage"  # no permalink mark

    usage = by_id["library/json#basic-usage"]
    assert usage.blocks[0] == "dump(obj, fp)"  # the signature, its permalink dropped
    assert usage.blocks[1].startswith("Serialize obj as a JSON formatted stream to fp using")  # white space collapsed
    assert usage.blocks[usage.first_paragraph] == usage.blocks[1]
    assert ">>> json.dumps([1, 2])\n'[1, 2]'" in usage.blocks  # a code block keeps its lines
    assert "Basic Usage" not in "\n".join(usage.blocks)  # the heading is not text

    encoders = by_id["library/json#encoders-and-decoders"]
    text = "\n".join(encoders.blocks)
    assert "Options change how" not in text  # the h3 is a document of its own
    assert encoders.blocks[encoders.first_paragraph].startswith("The module defines")  # the note is skipped
    options = "\n\n".join(by_id["library/json#decoder-options"].blocks)
    assert "The parse_float hook\n\nCalled with every JSON float as a string." in options  # h4 stays in its h3

    page_text = "\n".join(by_id["library/json#module-json"].blocks)
    assert "Source code: Lib/json/__init__.py" in page_text
    assert "Serialize" not in page_text and "Sidebar" not in page_text and "Footer" not in page_text


def test_section_numbers_are_not_part_of_a_heading():
    title, sections = parse_page(TUTORIAL_PAGE, "tutorial/controlflow")
    assert title == "More Control Flow Tools"
    assert [s.heading for s in sections] == ["More Control Flow Tools", "if Statements", "Examples"]


def test_the_collection_judges_each_query_to_its_own_section(html_root: Path):
    docs, queries, qrels, metadata = parse_python_docs(html_root)

    assert set(docs) == {
        "library/json#module-json",
        "library/json#basic-usage",
        "library/json#encoders-and-decoders",
        "library/json#decoder-options",
        "library/json#examples",
        "tutorial/controlflow#more-control-flow-tools",
        "tutorial/controlflow#if-statements",
        "tutorial/controlflow#examples",
    }  # not the short section, not whatsnew/ or the index
    assert docs["library/json#basic-usage"][0] == "json — JSON encoder and decoder"  # the page title
    assert docs["tutorial/controlflow#if-statements"][0] == "More Control Flow Tools"

    assert {qid: (text, metadata[qid]["kind"]) for qid, text in queries.items()} == {
        "h:library/json#basic-usage": ("Basic Usage", "heading"),
        "s:library/json#basic-usage": (
            "Serialize obj as a JSON formatted stream to fp using this table.",
            "sentence",
        ),
        "h:library/json#encoders-and-decoders": ("Encoders and Decoders", "heading"),
        "h:library/json#decoder-options": ("Decoder options in detail", "heading"),
        "s:library/json#decoder-options": (
            "Options change how the decoder treats numbers, constants and duplicate names.",
            "sentence",
        ),
        "s:library/json#examples": (
            "These examples show the module at work on small documents of many kinds.",
            "sentence",
        ),
        "h:tutorial/controlflow#if-statements": ("if Statements", "heading"),
        "s:tutorial/controlflow#if-statements": (
            "Perhaps the most well-known statement type is the if statement!",
            "sentence",
        ),
        "s:tutorial/controlflow#examples": (
            "Loop statements may have an else clause in a number of places.",
            "sentence",
        ),
    }  # "Examples" twice: no heading query; "... for this purpose:" ends with ':'; no query from a page's h1
    assert qrels == {qid: {qid[2:]: 1} for qid in queries}

    for qid, text in queries.items():  # a sentence is taken out of its document, a heading is in none
        assert all(text not in title + "\n\n" + body for title, body in docs.values()), qid
    usage = docs["library/json#basic-usage"][1]
    assert usage.startswith("dump(obj, fp)\n\nIf skipkeys is true, keys are skipped.\n\n")
    assert "The module defines the following classes" in docs["library/json#encoders-and-decoders"][1]


def test_the_collection_is_the_same_at_every_load_and_in_a_seeded_order(html_root: Path):
    first = parse_python_docs(html_root)
    assert parse_python_docs(html_root) == first
    assert [list(part) for part in parse_python_docs(html_root)] == [list(part) for part in first]  # the order too
    docs = list(first[0])
    assert sorted(docs) != docs or len(docs) < 3  # shuffled, not page order (fixed seed)


def test_an_empty_tree_is_an_error(tmp_path: Path):
    with pytest.raises(ValueError, match="no pages"):
        parse_python_docs(tmp_path)


def test_the_catalog_takes_python_docs_from_debian_pinned():
    spec = _collections.CATALOG["python_docs"]
    assert spec.layout == "python-docs-html"
    assert spec.source is not None and spec.source.registry == "debian"
    assert spec.source.label == f"debian:python3.11-doc={spec.source.version}"


@pytest.mark.slow  # runs dpkg-deb
def test_a_debian_package_is_extracted_without_running_its_scripts(tmp_path: Path):
    package = tmp_path / "pkg"
    (package / "DEBIAN").mkdir(parents=True)
    (package / "DEBIAN" / "control").write_text(
        "Package: tiny-doc\nVersion: 1.0\nArchitecture: all\nMaintainer: Test <t@example.com>\nDescription: tiny\n"
    )
    postinst = package / "DEBIAN" / "postinst"
    postinst.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    postinst.chmod(0o755)
    html = package / "usr" / "share" / "doc" / "tiny" / "html" / "library"
    html.mkdir(parents=True)
    (html / "json.html").write_text(JSON_PAGE, encoding="utf-8")
    (package / "usr" / "share" / "doc" / "tiny-doc").mkdir()
    (package / "usr" / "share" / "doc" / "tiny-doc" / "html").symlink_to("../tiny/html")
    deb = tmp_path / "tiny-doc_1.0_all.deb"
    subprocess.run(
        ["dpkg-deb", "--root-owner-group", "--build", str(package), str(deb)], check=True, capture_output=True
    )

    dest = tmp_path / "x"
    _collections._extract(deb, dest)
    assert (dest / "usr/share/doc/tiny/html/library/json.html").read_text(encoding="utf-8") == JSON_PAGE
    assert (dest / "usr/share/doc/tiny-doc/html").is_symlink()
    assert not (tmp_path / "ran").exists()
    docs, queries, _, _ = parse_python_docs(dest / "usr/share/doc/tiny/html")
    assert "library/json#basic-usage" in docs and queries


@pytest.mark.slow  # runs dpkg-deb
def test_a_file_that_is_no_debian_package_is_refused(tmp_path: Path):
    fake = tmp_path / "fake_1.0_all.deb"
    fake.write_bytes(b"not an ar archive")
    with pytest.raises(_collections.CollectionUnavailable, match="not a Debian package"):
        _collections._extract(fake, tmp_path / "x")

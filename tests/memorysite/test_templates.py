"""Template comments stay comments: Django's {# … #} is one line only; a multi-line one is page text."""

import re
from pathlib import Path

import pytest

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@pytest.mark.parametrize("path", sorted(TEMPLATES.rglob("*.html")), ids=lambda path: str(path.relative_to(TEMPLATES)))
def test_no_comment_spans_lines(path):
    spanning = [m.group(0)[:60] for m in re.finditer(r"\{#.*?#\}", path.read_text(), re.S) if "\n" in m.group(0)]
    assert spanning == [], f"use {{% comment %}} for a comment over several lines: {spanning}"


def test_a_page_shows_no_template_syntax(client, owner):
    client.force_login(owner)
    content = client.get("/").content.decode()
    assert "{#" not in content and "#}" not in content and "{%" not in content

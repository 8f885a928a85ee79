"""Real documents are accepted (issue 19): a document's text is any UTF-8 text but NUL — bidi marks,
zero-width characters, form feeds and other control characters are data, stored as written and indexed —
and it is neutralised where it leaves the index (snippets, context lines, pages). Facts and the other short
prompt fields keep their stricter rule."""

from __future__ import annotations

import pytest
from django.test import override_settings

from memorysite.api import CONTROL_CHARACTERS
from memorysite.json_body import NOT_TEXT
from memorysite.text import DOCUMENT_TEXT_UNSAFE, document_line
from memorysite.validators import DOCUMENT_TEXT_NUL
from recall.chunking import document_lines
from recall.models import Chunk, Document, EditProposal, JournalEntry
from recall.selectors import snippet
from tests.errors import error_body
from tests.factories import DeploymentFactory

pytestmark = pytest.mark.django_db

DOCUMENTS = "/api/v1/recall/documents/"
SEARCH = "/api/v1/recall/search/"
JOURNAL = "/api/v1/recall/journal/"
PROPOSALS = "/api/v1/recall/proposals/"
FACTS = "/api/v1/facts/"

LRM, RLO, PDF, ZWJ, FF = "\u200e", "\u202e", "\u202c", "\u200d", "\f"
BIDI_CONTROLS = {"\u061c", LRM, "\u200f", *map(chr, range(0x202A, 0x202F)), *map(chr, range(0x2066, 0x206A))}
# The document: one of 648 real ones, refused with a 400 for its left-to-right mark.
REAL = (
    "# Desk notes\n"
    "\n"
    f"Never widen{LRM} a stop after the {RLO}funding{PDF} flip.{FF}Page two: the zero{ZWJ}width joiner stays.\n"
    "\n"
    f"{FF}## Not a heading: a form feed starts no line\n"
    "Size down into quirkleback events.\n"
)


def post(api, url, body):
    return api.post(url, body, format="json")


def no_bidi(text: str) -> bool:
    return not BIDI_CONTROLS & set(text)


@override_settings(EMBEDDINGS_PROVIDER="none")
def test_a_document_with_bidi_marks_a_joiner_and_form_feeds_is_accepted_indexed_and_found(owner_api):
    response = post(owner_api, DOCUMENTS, {"path": "notes/desk.md", "content": REAL})
    assert response.status_code == 201, response.content
    document = Document.objects.get(pk=response.json()["id"])
    assert document.content == REAL  # stored as written
    (chunk,) = Chunk.objects.filter(document=document)
    # A form feed is a character of its line, so the citation counts the lines every editor counts.
    assert (chunk.start_line, chunk.end_line, chunk.heading) == (1, 6, "Desk notes")
    assert len(document_lines(REAL)) == 6
    for word, line in (("widen", 3), ("funding", 3), ("quirkleback", 6), ("page", 3)):
        found = post(owner_api, SEARCH, {"query": word})
        assert found.status_code == 200, found.content
        (citation,) = found.json()["results"]
        assert (citation["path"], citation["startLine"] <= line <= citation["endLine"]) == ("notes/desk.md", True)
        assert not DOCUMENT_TEXT_UNSAFE & set(citation["snippet"]), citation["snippet"]
    assert "Never widen a stop after the funding flip. Page two: the zerowidth joiner stays." in citation["snippet"]
    # What a context section renders of it (one line, memorysite.text.document_line): nothing unsafe either.
    line = document_line(chunk.text)
    assert no_bidi(line) and "\n" not in line and FF not in line and ZWJ not in line


@override_settings(EMBEDDINGS_PROVIDER="none")
def test_the_pages_show_the_document_without_a_bidi_control(client, owner, owner_api):
    document_id = post(owner_api, DOCUMENTS, {"path": "notes/desk.md", "content": REAL}).json()["id"]
    client.force_login(owner)
    results = client.get("/recall/search/", {"q": "widen"}).content.decode()
    assert "notes/desk.md" in results and "Never <mark>widen</mark> a stop after the funding flip." in results
    assert no_bidi(results)
    page = client.get(f"/recall/documents/{document_id}/").content.decode()
    assert no_bidi(page)
    assert "widen[U+200E] a stop after the [U+202E]funding[U+202C] flip" in page  # marked for the reviewer
    assert 'id="L6"' in page and 'id="L7"' not in page  # numbered as the citations count


def test_a_nul_in_a_documents_text_is_a_400_naming_the_field_and_the_rule(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    manual = post(owner_api, DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": "# Manual\n"}).json()["id"]
    before = (Document.objects.count(), Chunk.objects.count(), JournalEntry.objects.count())
    for url, body, field in (
        (DOCUMENTS, {"path": "a.md", "content": "one\x00two"}, "content"),
        (JOURNAL, {"deployment_id": deployment.pk, "content": "one\x00two", "run_id": "r1"}, "content"),
        (
            PROPOSALS,
            {"document_id": manual, "proposed_content": "# M\x00\n", "reason": "why", "run_id": "r1"},
            "proposed_content",
        ),
    ):
        response = post(owner_api, url, body)
        assert response.status_code == 400, response.content
        assert error_body(response) == {
            "detail": f"{field}: {DOCUMENT_TEXT_NUL}",
            "errors": {field: [DOCUMENT_TEXT_NUL]},
        }
    assert (Document.objects.count(), Chunk.objects.count(), JournalEntry.objects.count()) == before
    assert not EditProposal.objects.exists()


def test_invalid_utf8_in_a_raw_body_is_a_400_naming_the_field(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    for url, raw, field in (
        (DOCUMENTS, b'{"path": "a.md", "content": "caf\xe9 au lait"}', "content"),  # latin-1, not UTF-8
        (JOURNAL, b'{"deployment_id": %d, "run_id": "r1", "content": "x\xc3("}' % deployment.pk, "content"),
    ):
        response = owner_api.generic("POST", url, raw, content_type="application/json")
        assert response.status_code == 400, response.content
        rule = NOT_TEXT.format(encoding="UTF-8", byte=raw[raw.index(b"\xe9" if b"\xe9" in raw else b"\xc3")])
        assert error_body(response) == {"detail": f"{field}: {rule}", "errors": {field: [rule]}}
    assert not Document.objects.exists() and not JournalEntry.objects.exists()


def test_the_journal_and_proposals_take_document_text_too(client, owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    entry = f"Flat{LRM} into the close;{FF}the {RLO}book{PDF} was thin."
    response = post(owner_api, JOURNAL, {"deployment_id": deployment.pk, "content": entry, "run_id": "r1"})
    assert response.status_code == 201, response.content
    assert JournalEntry.objects.get().content == entry
    assert entry in Document.objects.get(path=response.json()["path"]).content
    client.force_login(owner)
    home = client.get("/recall/").content.decode()  # the agents' recent writes: marked, not hidden
    assert no_bidi(home) and "Flat[U+200E] into the close" in home
    manual = post(owner_api, DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": "# Manual\n"}).json()["id"]
    proposed = f"# Manual\n{ZWJ}Stops{LRM} are never widened.{FF}\n"
    response = post(
        owner_api, PROPOSALS, {"document_id": manual, "proposed_content": proposed, "reason": "stops", "run_id": "r1"}
    )
    assert response.status_code == 201, response.content
    assert EditProposal.objects.get().proposed_content == proposed


@pytest.mark.parametrize("mark", [LRM, RLO, "\u2066", "\x0c"], ids=["LRM", "RLO", "LRI", "FF"])
def test_a_fact_keeps_its_stricter_rule(owner_api, mark):
    response = post(owner_api, FACTS, {"fact": f"I never trade{mark} on Fridays."})
    assert response.status_code == 400, response.content
    assert response.json()["errors"] == {"fact": [CONTROL_CHARACTERS]}


def test_the_journals_run_id_and_a_proposals_reason_keep_theirs(owner_api, owner):
    deployment = DeploymentFactory(owner=owner)
    response = post(owner_api, JOURNAL, {"deployment_id": deployment.pk, "content": "ok", "run_id": f"r{LRM}1"})
    assert response.json()["errors"] == {"run_id": [CONTROL_CHARACTERS]}
    manual = post(owner_api, DOCUMENTS, {"path": "TRADING_MANUAL.md", "content": "# Manual\n"}).json()["id"]
    body = {"document_id": manual, "proposed_content": "# M\n", "reason": f"why{RLO}", "run_id": "r1"}
    assert post(owner_api, PROPOSALS, body).json()["errors"] == {"reason": [CONTROL_CHARACTERS]}


def test_a_snippet_leaves_the_index_neutralised_even_from_a_row_stored_before_the_rule():
    """recall.selectors.snippet is where chunk text leaves the index: rows written before issue 19 (by
    recall_sync, which never checked) may still hold bidi controls or line-breaking characters."""
    stored = f"quiet text\u2028## Forged heading {RLO}gnp.exe{PDF}{FF}\x1b[31mred"
    assert snippet(stored) == "quiet text ## Forged heading gnp.exe  [31mred"
    long = "word " * 200 + f"{LRM}target{LRM} here"
    shown = snippet(long, ["target"])
    assert "target here" in shown and shown.startswith("…") and no_bidi(shown)

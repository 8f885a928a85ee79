"""The recall pages: /recall/ (search with citations, pending proposals, agents' writes, index health,
documents), a document with line anchors, an edit proposal with approve / reject, and the trade journal's
"Why did you do this?".

Documents are written through recall.services.document_upsert and embedded with the real embedder, so
the hybrid search runs both sides; the keyword-only tests switch embeddings off.
"""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.test import override_settings
from django.urls import reverse

from ledger.models import TradeHistory
from recall import services, views
from recall.embeddings import get_embedder
from recall.models import Chunk, Document, EditProposal, ProposalStatus
from tests.factories import DeploymentFactory

HTMX = {"HX-Request": "true"}
HOME, SEARCH = "/recall/", "/recall/search/"
MANUAL = (
    "# Trading manual\n"
    "\n"
    "## Risk\n"
    "\n"
    "Always place a stop loss two percent below the entry.\n"
    "Never add to a losing position.\n"
    "\n"
    "## Entries\n"
    "\n"
    "Buy breakouts above the weekly high on rising volume.\n"
)
OTHER_SECRET = "zanzibarquokka"
SCRIPT = "<script>alert('x')</script>"
BIDI = "\u202e"
# /recall/ with any number of documents: session, user, the search's deployments, health (totals, pending,
# errors), documents (count, page), proposals, journal.
HOME_MAX_QUERIES = 10


def upsert(owner, path: str, content: str, *, source: str = "workspace", deployment=None) -> Document:
    return services.document_upsert(
        owner=owner, deployment=deployment, path=path, content=content, source=source, queue_embedding=False
    ).document


def embed() -> None:
    services.embed_pending(embedder=get_embedder())


def citations(content: str) -> list[dict]:
    """The rendered citations: path link, line range, score and source badge, in order."""
    pattern = re.compile(
        r'<a class="citation-path bidi-safe" href="(?P<href>[^"]+)">(?P<path>[^<]*)</a>\s*'
        r'<span class="lines nowrap">L(?P<start>\d+)–(?P<end>\d+)</span>\s*'
        r'<span class="score nowrap"[^>]*>score (?P<score>[\d.]+)</span>\s*'
        r'<span class="tag hit-source hit-source-(?P<source>\w+)"'
    )
    return [match.groupdict() for match in pattern.finditer(content)]


@pytest.fixture
def manual(owner) -> Document:
    return upsert(owner, "TRADING_MANUAL.md", MANUAL)


@pytest.fixture
def logged_in(client, owner):
    client.force_login(owner)
    return client


class TestAccess:
    @pytest.mark.parametrize(
        "url", [HOME, f"{SEARCH}?q=stop", "/recall/documents/1/", "/recall/proposals/1/", "/recall/proposals/1/decide/"]
    )
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, db, url):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(f"{reverse('login')}?next=")

    def test_it_answers_htmx_with_hx_redirect_back_to_the_page(self, client, db):
        response = client.get(f"{SEARCH}?q=stop", headers={**HTMX, "HX-Current-URL": "http://testserver/recall/"})
        assert response.status_code == 200
        assert response["HX-Redirect"] == f"{reverse('login')}?next=%2Frecall%2F"

    def test_the_nav_links_to_recall(self, logged_in):
        assert '<a href="/recall/">Recall</a>' in logged_in.get(reverse("home")).content.decode()


class TestSearch:
    def test_it_renders_cited_results_from_the_hybrid_search(self, logged_in, manual):
        embed()
        response = logged_in.get(SEARCH, {"q": "stop loss"})
        content = response.content.decode()
        assert response.status_code == 200
        assert 'id="results-backend">hybrid<' in content
        found = citations(content)
        assert found, content
        chunk = manual.chunks.get()
        assert found[0] == {
            "href": f"/recall/documents/{manual.pk}/?lines={chunk.start_line}-{chunk.end_line}#L{chunk.start_line}",
            "path": "TRADING_MANUAL.md",
            "start": str(chunk.start_line),
            "end": str(chunk.end_line),
            "score": found[0]["score"],
            "source": "hybrid",  # both sides found it
        }
        assert re.fullmatch(r"\d\.\d\d", found[0]["score"])
        assert '<pre class="snippet bidi-safe"># Trading manual\n\n## Risk' in content
        assert 'value="stop loss"' in content  # the full page keeps the query in the box

    def test_an_htmx_search_answers_the_results_alone_and_pushes_the_canonical_url(self, logged_in, manual):
        embed()
        response = logged_in.get(SEARCH, {"q": "breakouts", "source": "", "deployment": ""}, headers=HTMX)
        content = response.content.decode()
        assert response.status_code == 200
        assert "<html" not in content and 'id="recall-search"' not in content
        assert len(citations(content)) == 1
        assert response["HX-Push-Url"] == f"{SEARCH}?q=breakouts"
        assert "HX-Request" in response["Vary"]

    def test_an_empty_query_shows_no_results_section(self, logged_in, manual):
        page = logged_in.get(SEARCH, {"q": "  "}).content.decode()
        assert 'id="results"' not in page and 'id="no-matches"' not in page
        partial = logged_in.get(SEARCH, {"q": ""}, headers=HTMX)
        assert partial.content.decode().strip() == ""
        assert partial["HX-Push-Url"] == HOME

    @override_settings(EMBEDDINGS_PROVIDER="none")
    def test_without_embeddings_it_serves_keyword_results_and_says_so(self, logged_in, manual):
        home = logged_in.get(HOME).content.decode()
        assert 'id="search-backend">fts<' in home
        assert "embeddings off" in home
        content = logged_in.get(SEARCH, {"q": "weekly high"}).content.decode()
        assert 'id="results-backend">fts<' in content
        assert [c["source"] for c in citations(content)] == ["fts"]

    @override_settings(EMBEDDINGS_PROVIDER="none")
    def test_it_says_no_matches_clearly(self, logged_in, manual):
        content = logged_in.get(SEARCH, {"q": "xylophonequark"}).content.decode()
        assert 'id="no-matches"' in content
        assert 'Nothing relevant to “<span class="bidi-safe">xylophonequark</span>”' in content
        assert "nothing scored above the relevance floor" in content and 'id="weak-matches"' in content
        assert citations(content) == []

    def test_another_traders_documents_never_appear(self, logged_in, manual, other):
        theirs = upsert(other, "notes/secret.md", f"# Secret\n\nThe {OTHER_SECRET} setup prints money.\n")
        embed()
        content = logged_in.get(SEARCH, {"q": OTHER_SECRET}, headers=HTMX).content.decode()
        assert "prints money" not in content
        assert "notes/secret.md" not in content
        assert f"/recall/documents/{theirs.pk}/" not in content
        assert all(c["path"] == "TRADING_MANUAL.md" for c in citations(content))  # the vector side's nearest
        home = logged_in.get(HOME).content.decode()
        assert "notes/secret.md" not in home

    def test_global_documents_appear_in_search_and_in_the_list(self, logged_in, manual):
        runbook = upsert(
            None, "runbooks/exchange-outage.md", "# Exchange outage\n\nFlatten and wait.\n", source="runbook"
        )
        embed()
        content = logged_in.get(SEARCH, {"q": "exchange outage", "source": "runbook"}).content.decode()
        assert [c["path"] for c in citations(content)] == ["runbooks/exchange-outage.md"]
        home = logged_in.get(HOME).content.decode()
        row = re.search(rf'<tr class="document" id="document-{runbook.pk}">(.*?)</tr>', home, re.S).group(1)
        assert "runbooks/exchange-outage.md" in row and "global" in row
        assert logged_in.get(f"/recall/documents/{runbook.pk}/").status_code == 200

    def test_the_source_and_deployment_filters_narrow_the_search(self, logged_in, owner):
        first, second = (
            DeploymentFactory(skill_version__skill__owner=owner),
            DeploymentFactory(skill_version__skill__owner=owner),
        )
        upsert(owner, "a.md", "# Gap\n\nGap fill rules for deployment one.\n", deployment=first)
        upsert(owner, "b.md", "# Gap\n\nGap fill rules for deployment two.\n", deployment=second)
        upsert(owner, "c.md", "# Gap\n\nGap fill rules for all.\n", source="playbook")
        with override_settings(EMBEDDINGS_PROVIDER="none"):
            found = citations(logged_in.get(SEARCH, {"q": "gap fill", "deployment": first.pk}).content.decode())
            assert sorted(c["path"] for c in found) == ["a.md", "c.md"]
            found = citations(logged_in.get(SEARCH, {"q": "gap fill", "source": "playbook"}).content.decode())
            assert [c["path"] for c in found] == ["c.md"]

    def test_hostile_text_is_escaped_and_bidi_controls_are_removed(self, logged_in, owner):
        """A snippet leaves the index without its bidi controls (recall.selectors.snippet): the line reads
        in its stored order; the document's own page still marks them (``[U+202E]``)."""
        upsert(owner, "notes/hostile.md", f"# Hostile\n\nquirkle {SCRIPT} and {BIDI}gnp.exe\n")
        with override_settings(EMBEDDINGS_PROVIDER="none"):
            content = logged_in.get(SEARCH, {"q": "quirkle"}).content.decode()
        assert SCRIPT not in content
        assert html.escape(SCRIPT) in content
        assert BIDI not in content and "and gnp.exe" in content

    @pytest.mark.parametrize(
        ("query", "message"),
        [
            ({"q": "x" * 1001}, "Invalid query parameter “q”: at most 1000 characters"),
            ({"q": "stop\x00"}, "Invalid query parameter “q”"),
            ({"q": "stop", "source": "email"}, "Invalid query parameter “source”: &#x27;email&#x27; is not a document"),
            ({"q": "stop", "deployment": "abc"}, "Invalid query parameter “deployment”: &#x27;abc&#x27; is not a"),
            ({"q": "stop", "deployment": "0"}, "Invalid query parameter “deployment”"),
        ],
    )
    def test_bad_input_is_a_400_page_naming_the_parameter(self, logged_in, query, message):
        for url in (SEARCH, HOME):
            response = logged_in.get(url, query)
            assert response.status_code == 400
            content = response.content.decode()
            assert 'id="bad-request"' in content
            assert message in content

    def test_another_traders_deployment_is_a_404(self, logged_in, other):
        theirs = DeploymentFactory(skill_version__skill__owner=other)
        assert logged_in.get(SEARCH, {"q": "stop", "deployment": theirs.pk}).status_code == 404
        assert logged_in.get(SEARCH, {"q": "stop", "deployment": 999_999}, headers=HTMX).status_code == 404


class TestHome:
    def test_it_shows_index_health_and_the_documents(self, logged_in, owner, manual):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        scoped = upsert(owner, "memory/notes.md", "# Notes\n\nOne.\n", deployment=deployment)
        Document.objects.filter(pk=scoped.pk).update(index_error="embedding failed: boom")
        content = logged_in.get(HOME).content.decode()
        assert 'id="health-documents">2<' in content
        assert 'id="health-chunks">2<' in content
        assert 'id="health-pending">2<' in content  # nothing embedded yet
        assert "memory/notes.md</code>: embedding failed: boom" in content
        rows = dict(re.findall(r'<tr class="document" id="document-(\d+)">(.*?)</tr>', content, re.S))
        assert "all deployments" in rows[str(manual.pk)] and ">pending<" in rows[str(manual.pk)]
        assert f"deployment #{deployment.pk}" in rows[str(scoped.pk)] and ">error<" in rows[str(scoped.pk)]
        embed()
        content = logged_in.get(HOME).content.decode()
        assert 'id="health-pending">0<' in content
        rows = dict(re.findall(r'<tr class="document" id="document-(\d+)">(.*?)</tr>', content, re.S))
        assert ">indexed<" in rows[str(manual.pk)]

    def test_it_shows_the_agents_recent_writes_and_not_another_traders(self, logged_in, owner, other):
        mine = DeploymentFactory(skill_version__skill__owner=owner)
        theirs = DeploymentFactory(skill_version__skill__owner=other)
        entry = services.journal_append(
            deployment=mine, kind="learning", content=f"Gaps fill by noon. {SCRIPT}", run_id="run-42"
        )
        services.journal_append(deployment=theirs, kind="note", content="their private note", run_id="run-99")
        content = logged_in.get(HOME).content.decode()
        block = re.search(rf'<li class="agent-write" id="journal-{entry.pk}">(.*?)</li>', content, re.S).group(1)
        assert "run-42" in block and ">learning<" in block and f"#{mine.pk}" in block
        assert f"Gaps fill by noon. {html.escape(SCRIPT)}" in block
        assert "their private note" not in content and "run-99" not in content

    def test_journal_files_without_api_entries_are_named_not_called_nothing(self, logged_in, owner, other):
        synced = upsert(owner, "agents/btc/journal/2026-06-04.md", "# Day\n\nBought the dip.\n", source="journal")
        upsert(owner, "memory/learnings.md", "# Learnings\n")
        upsert(owner, "docs/journal.md", "# Not in a journal folder\n")
        upsert(other, "journal/2026-06-04.md", "# Theirs\n", source="journal")
        content = logged_in.get(HOME).content.decode()
        section = re.search(r'<div id="journal-files">(.*?)</div>', content, re.S).group(1)
        assert "No agent writes yet" not in content
        assert "No entries written through <code>POST /api/v1/recall/journal/</code> yet" in section
        assert f'href="/recall/documents/{synced.pk}/">agents/btc/journal/2026-06-04.md</a>' in section
        assert "memory/learnings.md" in section
        assert "docs/journal.md" not in section and "Theirs" not in section
        assert len(re.findall(r"<li>", section)) == 2

    def test_with_no_agent_files_at_all_it_says_no_agent_writes_yet(self, logged_in, owner):
        upsert(owner, "docs/journal.md", "# Not in a journal folder\n")
        content = logged_in.get(HOME).content.decode()
        assert 'id="journal-empty">No agent writes yet.' in content
        assert 'id="journal-files"' not in content

    def test_it_lists_pending_proposals_with_a_link_to_each(self, logged_in, manual, other):
        proposal = services.proposal_create(
            document=manual, proposed_content=MANUAL + "\nNew rule.\n", reason="Stops were hit too often", run_id="r-7"
        )
        theirs = upsert(other, "TRADING_MANUAL.md", "# Theirs\n")
        services.proposal_create(document=theirs, proposed_content="# Changed\n", reason="their reason", run_id="r-8")
        content = logged_in.get(HOME).content.decode()
        row = re.search(rf'<tr class="proposal" id="proposal-{proposal.pk}">(.*?)</tr>', content, re.S).group(1)
        assert "TRADING_MANUAL.md" in row and "r-7" in row and "Stops were hit too often" in row
        assert f'href="/recall/proposals/{proposal.pk}/"' in row
        assert "their reason" not in content

    def test_the_documents_are_paginated(self, logged_in, owner, monkeypatch):
        monkeypatch.setattr(views, "DOCUMENTS_PAGE_SIZE", 20)
        for n in range(45):
            upsert(owner, f"docs/{n:03d}.md", f"# Doc {n}\n")
        first = logged_in.get(HOME).content.decode()
        assert "Documents 1–20 of 45" in first and "docs/019.md" in first and "docs/020.md" not in first
        third = logged_in.get(HOME, {"page": 3}).content.decode()
        assert "Documents 41–45 of 45" in third and "docs/044.md" in third

    def test_it_reads_a_bounded_number_of_queries(self, logged_in, owner, django_assert_max_num_queries):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        for n in range(50):
            document = upsert(
                owner, f"docs/{n:03d}.md", f"# Doc {n}\n\nBody {n}.\n", deployment=deployment if n % 2 else None
            )
            if n < 5:
                services.proposal_create(
                    document=document, proposed_content="# Changed\n", reason="why", run_id=f"r{n}"
                )
        for n in range(5):
            services.journal_append(deployment=deployment, kind="journal", content=f"entry {n}", run_id=f"r{n}")
        with django_assert_max_num_queries(HOME_MAX_QUERIES):
            response = logged_in.get(HOME)
        assert response.status_code == 200
        assert len(re.findall(r'<tr class="document"', response.content.decode())) == 51  # + the journal document


class TestDocument:
    def test_it_shows_numbered_lines_with_anchors_and_the_chunks(self, logged_in, manual):
        content = logged_in.get(f"/recall/documents/{manual.pk}/").content.decode()
        lines = MANUAL.splitlines()
        for number, text in enumerate(lines, start=1):
            anchor = f'<div class="doc-line" id="L{number}"><a class="ln" href="#L{number}" aria-label="Line {number}">'
            assert f'{anchor}{number}</a><span class="lt">{text}</span></div>' in content
        assert 'id="L11"' not in content
        assert '<span class="lt">Always place a stop loss two percent below the entry.</span>' in content
        chunk = manual.chunks.get()
        span = f"{chunk.start_line}-{chunk.end_line}"
        assert f'<a href="?lines={span}#L{chunk.start_line}">L{chunk.start_line}–{chunk.end_line}</a>' in content
        assert ">pending<" in content
        embed()
        assert ">embedded<" in logged_in.get(f"/recall/documents/{manual.pk}/").content.decode()

    def test_a_citation_link_marks_all_its_lines(self, logged_in, manual):
        url = f"/recall/documents/{manual.pk}/"
        content = logged_in.get(url, {"lines": "2-4"}).content.decode()
        marked = re.findall(r'<div class="doc-line cited" id="L(\d+)">', content)
        assert marked == ["2", "3", "4"]
        assert "The cited lines, 2–4, are marked." in content
        assert re.findall(
            r'<div class="doc-line cited" id="L(\d+)">', logged_in.get(url, {"lines": "7"}).content.decode()
        ) == ["7"]
        last = len(MANUAL.splitlines())
        tail = logged_in.get(url, {"lines": f"{last - 1}-99999"}).content.decode()
        assert re.findall(r'<div class="doc-line cited" id="L(\d+)">', tail) == [str(last - 1), str(last)]
        for bad in ("4-2", "0-3", "abc", "2-", "-3", "1;drop", "9" * 12):
            response = logged_in.get(url, {"lines": bad})
            assert response.status_code == 200, bad
            assert "doc-line cited" not in response.content.decode() and "cited-note" not in response.content.decode()

    def test_another_traders_document_is_a_404(self, logged_in, other):
        theirs = upsert(other, "notes/secret.md", "# Secret\n")
        assert logged_in.get(f"/recall/documents/{theirs.pk}/").status_code == 404
        assert logged_in.get("/recall/documents/999999/").status_code == 404

    def test_hostile_content_is_escaped(self, logged_in, owner):
        document = upsert(owner, "notes/x.md", f"# {SCRIPT}\n\n{BIDI}abc\n")
        content = logged_in.get(f"/recall/documents/{document.pk}/").content.decode()
        assert SCRIPT not in content and html.escape(SCRIPT) in content
        assert BIDI not in content and "[U+202E]abc" in content


class TestDocumentDelete:
    """The trader deletes on the page what the API refuses the agent: the journal's files and the manual."""

    @pytest.fixture
    def journal(self, owner):
        deployment = DeploymentFactory(owner=owner)
        return services.journal_append(deployment=deployment, kind="journal", content="Entry one.", run_id="run-1")

    def test_it_deletes_a_journal_file_and_keeps_the_entries(self, logged_in, journal):
        document = journal.document
        assert 'id="document-delete"' in logged_in.get(f"/recall/documents/{document.pk}/").content.decode()
        response = logged_in.post(f"/recall/documents/{document.pk}/delete/", follow=True)
        assert response.redirect_chain == [(HOME, 302)]
        assert f"Deleted {document.path} and its chunks from the index." in response.content.decode()
        assert not Document.objects.filter(pk=document.pk).exists()
        assert not Chunk.objects.filter(document_id=document.pk).exists()
        journal.refresh_from_db()
        assert (journal.document_id, journal.content, journal.run_id) == (None, "Entry one.", "run-1")

    def test_it_deletes_the_manual(self, logged_in, manual):
        assert logged_in.post(f"/recall/documents/{manual.pk}/delete/").status_code == 302
        assert not Document.objects.filter(pk=manual.pk).exists()

    def test_another_traders_or_a_global_document_is_a_404_and_stays(self, logged_in, other):
        theirs = upsert(other, "journal/2026-06-04.md", "# Day\n", source="journal")
        playbook = upsert(None, "playbooks/btc.md", "# BTC\n", source="playbook")
        for document in (theirs, playbook):
            assert logged_in.post(f"/recall/documents/{document.pk}/delete/").status_code == 404
            assert Document.objects.filter(pk=document.pk).exists()
        assert 'id="document-delete"' not in logged_in.get(f"/recall/documents/{playbook.pk}/").content.decode()

    def test_get_is_not_allowed_and_the_post_needs_the_csrf_token(self, logged_in, owner, journal):
        from django.test import Client

        document = journal.document
        assert logged_in.get(f"/recall/documents/{document.pk}/delete/").status_code == 405
        client = Client(enforce_csrf_checks=True)
        client.force_login(owner)
        assert client.post(f"/recall/documents/{document.pk}/delete/").status_code == 403
        assert Document.objects.filter(pk=document.pk).exists()

    def test_an_anonymous_visitor_is_sent_to_log_in(self, client, journal):
        response = client.post(f"/recall/documents/{journal.document.pk}/delete/")
        assert response.status_code == 302 and "/login" in response["Location"]
        assert Document.objects.filter(pk=journal.document.pk).exists()


class TestProposals:
    @pytest.fixture
    def proposal(self, manual) -> EditProposal:
        proposed = MANUAL.replace("two percent", "one and a half percent") + "\nNever trade the quiddlewick open.\n"
        return services.proposal_create(
            document=manual, proposed_content=proposed, reason=f"Stops too wide {SCRIPT}", run_id="run-7"
        )

    def test_the_page_shows_a_line_diff_and_the_buttons(self, logged_in, proposal):
        content = logged_in.get(f"/recall/proposals/{proposal.pk}/").content.decode()
        assert '<div class="diff-line diff-delete"><span class="ln">5</span><span class="ln"></span>' in content
        assert '<span class="lt">Always place a stop loss two percent below the entry.</span>' in content
        assert "Always place a stop loss one and a half percent below the entry." in content
        assert '<span class="lt">Never trade the quiddlewick open.</span>' in content
        assert "+3 −1 lines" in content
        assert html.escape(SCRIPT) in content and SCRIPT not in content
        assert 'name="decision" value="approve"' in content and 'name="decision" value="reject"' in content
        assert 'name="csrfmiddlewaretoken"' in content
        assert 'id="proposal-stale"' not in content

    def test_approving_applies_the_content(self, logged_in, manual, proposal):
        response = logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "approve"})
        assert response.status_code == 302 and response["Location"] == HOME
        manual.refresh_from_db()
        assert manual.version == 2 and manual.content == proposal.proposed_content
        proposal.refresh_from_db()
        assert proposal.status == ProposalStatus.APPROVED and proposal.decided_by.username == "owner"
        home = logged_in.get(HOME).content.decode()
        assert "Approved the edit of TRADING_MANUAL.md" in home
        assert 'id="proposals-empty"' in home
        embed()
        found = citations(logged_in.get(SEARCH, {"q": "quiddlewick"}).content.decode())
        assert found and found[0]["path"] == "TRADING_MANUAL.md" and found[0]["source"] == "hybrid"
        page = logged_in.get(f"/recall/proposals/{proposal.pk}/").content.decode()
        assert 'id="proposal-status">approved<' in page and 'name="decision"' not in page

    def test_rejecting_leaves_the_document(self, logged_in, manual, proposal):
        response = logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "reject"}, follow=True)
        assert response.redirect_chain == [(HOME, 302)]
        assert "Rejected the edit of TRADING_MANUAL.md" in response.content.decode()
        manual.refresh_from_db()
        assert manual.version == 1 and manual.content == MANUAL
        proposal.refresh_from_db()
        assert proposal.status == ProposalStatus.REJECTED

    def test_a_document_changed_since_the_proposal_is_a_conflict(self, logged_in, owner, manual, proposal):
        changed = MANUAL + "\nA rule the trader added by hand.\n"
        upsert(owner, "TRADING_MANUAL.md", changed)
        page = logged_in.get(f"/recall/proposals/{proposal.pk}/").content.decode()
        assert 'id="proposal-stale"' in page
        response = logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "approve"})
        assert response.status_code == 409
        assert "the document changed after this edit was proposed" in response.content.decode()
        manual.refresh_from_db()
        assert manual.version == 2 and manual.content == changed
        proposal.refresh_from_db()
        assert proposal.status == ProposalStatus.PENDING

    def test_deciding_twice_is_a_conflict(self, logged_in, manual, proposal):
        assert logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "approve"}).status_code == 302
        response = logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "reject"})
        assert response.status_code == 409
        content = response.content.decode()
        assert f"proposal {proposal.pk} is already approved" in content
        assert 'name="decision"' not in content
        manual.refresh_from_db()
        assert manual.version == 2

    def test_a_bad_decision_is_a_400_and_get_is_not_allowed(self, logged_in, manual, proposal):
        response = logged_in.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "maybe"})
        assert response.status_code == 400
        assert "Invalid form field “decision”: &#x27;maybe&#x27;" in response.content.decode()
        assert logged_in.get(f"/recall/proposals/{proposal.pk}/decide/").status_code == 405
        proposal.refresh_from_db()
        assert proposal.status == ProposalStatus.PENDING

    def test_another_traders_proposal_is_a_404(self, client, other, manual, proposal):
        client.force_login(other)
        assert client.get(f"/recall/proposals/{proposal.pk}/").status_code == 404
        assert client.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "approve"}).status_code == 404
        proposal.refresh_from_db()
        assert proposal.status == ProposalStatus.PENDING

    def test_the_post_needs_the_csrf_token(self, owner, proposal):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(owner)
        assert client.post(f"/recall/proposals/{proposal.pk}/decide/", {"decision": "approve"}).status_code == 403


# ------------------------------------------------------------------------- trade journal: why did you do this?

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


def post_tick(api, deployment, minutes: int, positions, **extra) -> None:
    at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    body = {"tick_at": at, "equity_usd": 10_000, "positions": positions, **extra}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def cited(n: int) -> dict:
    return {
        "path": f"TRADING_MANUAL.md{'' if n else SCRIPT}",
        "startLine": 10 * n + 1,
        "endLine": 10 * n + 9,
        "score": 0.9 - n / 100,
        "snippet": f"rule {n} {SCRIPT}",
        "source": "hybrid",
    }


class TestTradeJournalWhy:
    @pytest.fixture
    def deployment(self, owner, owner_api):
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        action = {"proposed_action": {"kind": "propose_order", "reason": "breakout"}, "engine": {"kind": "executed"}}
        position = {"symbol": "BTC", "side": "long", "size": 1, "mark_price": 100}
        post_tick(owner_api, deployment, 0, [position], **action)
        post_tick(owner_api, deployment, 5, [position, {**position, "symbol": "ETH"}], **action)
        return deployment

    def test_a_trade_whose_entry_searched_shows_its_citations_bounded(
        self, logged_in, deployment, django_assert_max_num_queries
    ):
        url = reverse("deployment-trades", args=[deployment.pk])
        assert logged_in.get(url).status_code == 200  # catches the ledger up
        btc = TradeHistory.objects.get(deployment=deployment, symbol="BTC")
        for n in range(4):
            services.citations_attach(
                snapshot=btc.entry_snapshot, query=f"search {n} {SCRIPT}", citations=[cited(i) for i in range(7)]
            )
        with django_assert_max_num_queries(10):  # as many as without citations (tests/ledger/test_trades_page.py)
            content = logged_in.get(url).content.decode()
        rows = dict(re.findall(r'<tr class="trade trade-open" id="trade-([0-9a-f-]+)">(.*?)</tr>', content, re.S))
        why = rows[str(btc.pk)]
        assert '<details class="trade-why"><summary>Why did you do this?</summary>' in why
        assert why.count('<span class="why-query">') == 3
        assert f"“search 0 {html.escape(SCRIPT)}”" in why and "search 3" not in why
        assert why.count("<code>TRADING_MANUAL.md") == 15  # 3 searches × 5 citations
        assert '<code>TRADING_MANUAL.md:11–19</code> <span class="muted">0.89</span>' in why
        assert "and 2 more</li>" in why and "and 1 more search</p>" in why
        assert SCRIPT not in content and f"rule 0 {html.escape(SCRIPT)}" in why
        eth = TradeHistory.objects.get(deployment=deployment, symbol="ETH")
        assert "trade-why" not in rows[str(eth.pk)]
        with django_assert_max_num_queries(10):  # the partial carries the filtered cards and charts too
            partial = logged_in.get(url, headers=HTMX).content.decode()
        assert partial.count('<details class="trade-why">') == 1

    def test_citations_in_an_unexpected_shape_are_skipped(self, logged_in, deployment):
        url = reverse("deployment-trades", args=[deployment.pk])
        logged_in.get(url)
        btc = TradeHistory.objects.get(deployment=deployment, symbol="BTC")
        snapshot = btc.entry_snapshot
        snapshot.citations = [{"results": []}, "junk", {"query": "ok", "results": ["junk", cited(1)]}]
        snapshot.save(update_fields=["citations"])
        content = logged_in.get(url).content.decode()
        assert content.count('<span class="why-query">') == 1
        assert "<code>TRADING_MANUAL.md:11–19</code>" in content
        snapshot.citations = {"not": "a list"}
        snapshot.save(update_fields=["citations"])
        assert "trade-why" not in logged_in.get(url).content.decode()

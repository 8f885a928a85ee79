"""The recall page in a real headless Chromium: search through the box (htmx swaps the cited results in and
pushes the URL), follow a citation to its line, and approve an agent's edit proposal by clicking. Screenshots
of each step go to test-artifacts/recall-browser/ (git-ignored) and stay there after the run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from recall import services
from recall.embeddings import get_embedder
from recall.models import Document, ProposalStatus
from tests.factories import PASSWORD, DeploymentFactory
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.recall.test_pages import MANUAL, SCRIPT

pytestmark = pytest.mark.slow

# Kept after the run (git-ignored): `make test` leaves the last run's screenshots here to look at.
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "recall-browser"


@pytest.fixture(scope="module")
def artifacts():
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest.fixture
def shoot(page, artifacts, request):  # noqa: F811
    """Save a full-page screenshot of the current step under test-artifacts/ and print where it went."""
    test = request.node.name.removeprefix("test_it_")[:40]
    shots: list[str] = []

    def take(name: str) -> None:
        path = artifacts / f"{test}-{len(shots) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        shots.append(str(path))
        print(f"screenshot: {path}")

    return take


@pytest.fixture
def manual(owner) -> Document:
    document = services.document_upsert(
        owner=owner, path="TRADING_MANUAL.md", content=MANUAL, source="workspace", queue_embedding=False
    ).document
    services.document_upsert(
        owner=None,
        path="runbooks/exchange-outage.md",
        content="# Exchange outage\n\nFlatten everything and wait for the status page.\n",
        source="runbook",
        queue_embedding=False,
    )
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Breakout BTC")
    services.journal_append(
        deployment=deployment, kind="learning", content=f"Gaps fill by noon. {SCRIPT}", run_id="run-42"
    )
    services.embed_pending(embedder=get_embedder())
    return document


def test_it_searches_in_place_and_follows_a_citation_to_its_line(page, console_errors, shoot, owner, manual):  # noqa: F811
    log_in(page, owner.username, PASSWORD)
    page.locator("header").get_by_role("link", name="Recall", exact=True).click()
    page.wait_for_url(re.compile(re.escape(reverse("recall")) + "$"))
    sync_api.expect(page.locator("#search-backend")).to_have_text("hybrid")
    sync_api.expect(page.locator("#documents tbody tr")).to_have_count(3)  # the manual, the runbook, the journal
    sync_api.expect(page.locator("#agent-writes")).to_contain_text(f"Gaps fill by noon. {SCRIPT}")
    sync_api.expect(page.locator("#results")).to_have_count(0)
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this
    shoot("recall")

    page.get_by_label("Query").fill("stop loss")
    page.wait_for_url(re.compile(re.escape(reverse("recall-search")) + r"\?q=stop\+loss$"))
    citations = page.locator("#citations li.citation")
    sync_api.expect(citations.first).to_be_visible()
    sync_api.expect(page.locator("#results-backend")).to_have_text("hybrid")
    first = citations.first
    chunk = manual.chunks.get()
    sync_api.expect(first.locator(".citation-path")).to_have_text("TRADING_MANUAL.md")
    sync_api.expect(first.locator(".lines")).to_have_text(f"L{chunk.start_line}–{chunk.end_line}")
    sync_api.expect(first.locator(".score")).to_have_text(re.compile(r"^score \d\.\d\d$"))
    sync_api.expect(first.locator(".hit-source")).to_have_text("hybrid")
    sync_api.expect(first.locator("pre.snippet")).to_contain_text("Always place a stop loss two percent below")
    assert first.locator("pre.snippet").evaluate("el => getComputedStyle(el).whiteSpace") == "pre-wrap"
    assert page.evaluate("window.notReloaded") is True
    shoot("results")

    sync_api.expect(first.locator("pre.snippet mark").first).to_have_text(re.compile(r"^(?i:stop|loss)"))

    # A source filter narrows the search in place: the runbook holds nothing relevant to a stop loss, so
    # the page says so and offers the weaker matches, which it shows in place.
    page.get_by_label("Source").select_option("runbook")
    page.wait_for_url(re.compile(r"\?q=stop\+loss&source=runbook$"))
    sync_api.expect(page.locator("#no-matches")).to_contain_text("nothing scored above the relevance floor")
    page.locator("#weak-matches").click()
    page.wait_for_url(re.compile(r"\?q=stop\+loss&source=runbook&weak=1$"))
    sync_api.expect(citations).to_have_count(1)
    sync_api.expect(citations.first.locator(".citation-path")).to_have_text("runbooks/exchange-outage.md")
    sync_api.expect(page.locator("#results-heading")).to_contain_text("weaker matches included")
    page.get_by_label("Source").select_option("")
    page.get_by_label("Query").fill("stop loss")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"\?q=stop\+loss$"))
    assert page.evaluate("window.notReloaded") is True

    citations.first.locator(".citation-path").click()
    span = rf"\?lines={chunk.start_line}-{chunk.end_line}#L{chunk.start_line}$"
    page.wait_for_url(re.compile(re.escape(reverse("recall-document", args=[manual.pk])) + span))
    target = page.locator(f"#L{chunk.start_line}")
    sync_api.expect(target).to_be_in_viewport()
    # Every line of the citation is marked, not only the first (the :target one).
    sync_api.expect(page.locator(".doc-line.cited")).to_have_count(chunk.end_line - chunk.start_line + 1)
    sync_api.expect(page.locator("#L5 .lt")).to_have_text("Always place a stop loss two percent below the entry.")
    sync_api.expect(page.locator("#chunks tbody tr")).to_have_count(1)
    sync_api.expect(page.locator("#chunks")).to_contain_text("embedded")
    shoot("document")

    page.go_back()
    page.wait_for_url(re.compile(r"\?q=stop\+loss$"))
    sync_api.expect(page.get_by_label("Query")).to_have_value("stop loss")
    sync_api.expect(citations.first).to_be_visible()
    assert console_errors == []


def test_it_approves_a_proposal_by_clicking(page, console_errors, shoot, owner, manual):  # noqa: F811
    proposed = MANUAL.replace("two percent", "one and a half percent")
    proposal = services.proposal_create(
        document=manual, proposed_content=proposed, reason="Stops were hit by noise", run_id="run-7"
    )
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("recall"))
    row = page.locator(f"#proposal-{proposal.pk}")
    sync_api.expect(row).to_contain_text("Stops were hit by noise")
    sync_api.expect(row).to_contain_text("run-7")
    row.get_by_role("link", name=re.compile("Review")).click()
    page.wait_for_url(re.compile(re.escape(reverse("recall-proposal", args=[proposal.pk])) + "$"))
    sync_api.expect(page.locator("#proposal-diff .diff-delete .lt")).to_have_text(
        "Always place a stop loss two percent below the entry."
    )
    sync_api.expect(page.locator("#proposal-diff .diff-insert .lt")).to_have_text(
        "Always place a stop loss one and a half percent below the entry."
    )
    shoot("proposal")

    page.get_by_role("button", name="Approve").click()
    page.wait_for_url(re.compile(re.escape(reverse("recall")) + "$"))
    sync_api.expect(page.locator(".messages")).to_contain_text("Approved the edit of TRADING_MANUAL.md")
    sync_api.expect(page.locator("#proposals-empty")).to_be_visible()
    sync_api.expect(page.locator(f"#document-{manual.pk}")).to_contain_text("2")  # the version
    shoot("approved")
    manual.refresh_from_db()
    proposal.refresh_from_db()
    assert manual.version == 2 and manual.content == proposed
    assert proposal.status == ProposalStatus.APPROVED
    assert path_of(page) == reverse("recall")
    assert console_errors == []


def test_it_deletes_a_memory_file_by_clicking(page, console_errors, shoot, owner, manual):  # noqa: F811
    """The API refuses agents this (journal/ and memory/ are append-only); the trader does it here."""
    learnings = Document.objects.get(owner=owner, source="journal")
    assert learnings.path.startswith("memory/learnings-")
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("recall-document", args=[learnings.pk]))
    confirm = page.locator("#document-delete-confirm")
    sync_api.expect(confirm).to_be_hidden()
    page.get_by_text("Delete…").click()
    sync_api.expect(confirm).to_be_visible()
    shoot("confirm")
    confirm.click()
    page.wait_for_url(re.compile(re.escape(reverse("recall")) + "$"))
    sync_api.expect(page.locator(".messages")).to_contain_text(f"Deleted {learnings.path}")
    sync_api.expect(page.locator(f"#document-{learnings.pk}")).to_have_count(0)
    sync_api.expect(page.locator(f"#document-{manual.pk}")).to_be_visible()
    shoot("deleted")
    assert not Document.objects.filter(pk=learnings.pk).exists()
    assert console_errors == []

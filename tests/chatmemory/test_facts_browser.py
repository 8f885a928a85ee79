"""The facts page and the chat preview in a real headless Chromium (Debian's /usr/bin/chromium): add a
fact, edit it in place, see it in the chat preview, archive it, see it gone from the preview, delete it
for good — all through htmx swaps, with no console error. Screenshots of each step go to
test-artifacts/facts-browser/ (git-ignored) and stay there after the run."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from chatmemory.models import ArchivedReason, UserFact
from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


# Kept after the run (git-ignored): `make test` leaves the last run's screenshots here to look at.
ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "facts-browser"


@pytest.fixture
def shoot(page):  # noqa: F811
    """Save a full-page screenshot of the current step under test-artifacts/ and print where it went."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    shots: list[str] = []

    def take(name: str) -> None:
        path = ARTIFACTS / f"{len(shots) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs
        shots.append(str(path))
        print(f"screenshot: {path}")

    return take


def test_a_fact_added_and_edited_shows_in_the_chat_preview_until_archived(page, console_errors, shoot, owner):  # noqa: F811
    facts_path, preview_path = reverse("profile-facts"), reverse("chat-preview")
    log_in(page, owner.username, PASSWORD)
    page.locator("header").get_by_role("link", name="Facts", exact=True).click()
    page.wait_for_url(re.compile(re.escape(facts_path) + "$"))
    sync_api.expect(page.locator("#facts-explainer")).to_contain_text("remembers silently")
    sync_api.expect(page.locator("#facts-empty")).to_be_visible()
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this

    # An invalid fact: the error shows inline, nothing is written, what was typed stays.
    add = page.locator("#fact-add")
    add.get_by_label("Fact", exact=True).fill("abc")
    add.get_by_label("Topic").fill("risk")
    add.get_by_role("button", name="Add fact").click()
    sync_api.expect(page.locator("#add-fact-errors")).to_have_text("must be at least 4 characters")
    sync_api.expect(add.get_by_label("Topic")).to_have_value("risk")
    assert UserFact.objects.count() == 0
    shoot("add-error")

    add = page.locator("#fact-add")
    add.get_by_label("Fact", exact=True).fill("I never take leverage above 5x.")
    add.get_by_role("button", name="Add fact").click()
    sync_api.expect(page.locator("#facts-notice")).to_have_text("Fact added.")
    rows = page.locator("#facts > li")
    sync_api.expect(rows).to_have_count(1)
    fact = UserFact.objects.get()
    assert (fact.source, fact.confidence, fact.topic) == ("profile", "asserted", "risk")
    row = page.locator(f"#fact-{fact.pk}")
    sync_api.expect(row).to_contain_text("I never take leverage above 5x.")
    sync_api.expect(row.locator(".tag.in-prompt")).to_have_text("in prompt")
    sync_api.expect(row.locator(".last-referenced")).to_have_text("never")
    sync_api.expect(page.locator("#add-fact")).to_have_value("")
    shoot("added")

    # Edit in place: an invalid edit stays in the row; a valid one is saved.
    row.get_by_role("link", name="Edit").click()
    editor = row.get_by_label("Fact", exact=True)
    sync_api.expect(editor).to_have_value("I never take leverage above 5x.")
    sync_api.expect(editor).to_be_focused()
    editor.fill("I never take leverage \u202eabove 3x.")
    row.get_by_role("button", name="Save").click()
    sync_api.expect(row.locator(".field-error")).to_contain_text("bidirectional-override")
    # The refused text comes back with the invisible override shown as a mark (memorysite/browser.py).
    sync_api.expect(row.get_by_label("Fact", exact=True)).to_have_value("I never take leverage [U+202E]above 3x.")
    fact.refresh_from_db()
    assert fact.fact == "I never take leverage above 5x."
    shoot("edit-error")

    row.get_by_label("Fact", exact=True).fill("I never take leverage above 3x.")
    row.get_by_role("button", name="Save").click()
    sync_api.expect(page.locator("#facts-notice")).to_have_text("Fact saved.")
    sync_api.expect(row.locator(".fact-text")).to_have_text("I never take leverage above 3x.")
    row.get_by_role("button", name="Demote to inferred").click()
    sync_api.expect(row.locator(".tag.confidence")).to_have_text("inferred")
    assert page.evaluate("window.notReloaded") is True
    shoot("edited")

    # The chat preview shows it, in every mode, and previewing bumps nothing.
    page.locator("header").get_by_role("link", name="Chat preview").click()
    page.wait_for_url(re.compile(re.escape(preview_path) + "$"))
    facts_segment = page.locator("#segment-facts")
    sync_api.expect(facts_segment).to_contain_text("## What I know about you")
    sync_api.expect(facts_segment).to_contain_text(
        f"- [risk] (inferred) I never take leverage above 3x. (fact {fact.pk.hex[:8]})"
    )
    sync_api.expect(page.locator("#system-text")).to_contain_text("I never take leverage above 3x.")
    sync_api.expect(page.locator("#preview-fact-count")).to_have_text("1")
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")
    page.get_by_label("Mode").select_option("ops")
    page.wait_for_url(re.compile(r"\?mode=ops$"))
    sync_api.expect(page.locator("#segment-mode")).to_contain_text("Mode: ops.")
    sync_api.expect(facts_segment).to_contain_text("I never take leverage above 3x.")
    assert page.evaluate("window.notReloaded") is True
    fact.refresh_from_db()
    assert fact.last_referenced_at is None
    shoot("preview-with-fact")

    # Archive it: gone from the active list and the prompt, shown under "Archived" with its reason.
    page.locator("header").get_by_role("link", name="Facts", exact=True).click()
    page.wait_for_url(re.compile(re.escape(facts_path) + "$"))
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator(f"#fact-{fact.pk}").get_by_role("button", name="Archive").click()
    sync_api.expect(page.locator("#facts-notice")).to_contain_text("Fact archived")
    sync_api.expect(rows).to_have_count(0)
    page.get_by_label("Archived", exact=True).check()
    page.wait_for_url(re.compile(r"\?archived=1$"))
    archived = page.locator(f"#fact-{fact.pk}")
    sync_api.expect(archived.locator(".archived-reason")).to_have_text("archived by you")
    fact.refresh_from_db()
    assert fact.archived_reason == ArchivedReason.USER_DELETED
    shoot("archived")

    page.locator("header").get_by_role("link", name="Chat preview").click()
    page.wait_for_url(re.compile(re.escape(preview_path) + "$"))
    sync_api.expect(page.locator("#segment-facts")).to_contain_text("Suppressed")
    sync_api.expect(page.locator("#system-text")).not_to_contain_text("leverage above 3x")
    sync_api.expect(page.locator("#preview-fact-count")).to_have_text("0")
    shoot("preview-without-fact")

    # Delete for good, after the browser's confirm.
    page.go_back()
    page.wait_for_url(re.compile(r"\?archived=1$"))
    page.wait_for_function("() => window.htmx !== undefined")
    dialogs: list[str] = []

    def accept(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.locator(f"#fact-{fact.pk}").get_by_role("button", name="Delete for good").click()
    sync_api.expect(page.locator("#facts-notice")).to_have_text("Fact deleted for good.")
    assert dialogs == ["Delete this fact for good? It cannot be restored."]
    sync_api.expect(page.locator("#facts-empty")).to_be_visible()
    assert not UserFact.objects.filter(pk=fact.pk).exists()
    assert path_of(page) == facts_path
    shoot("deleted")
    assert console_errors == []


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_a_near_repeat_warns_counts_characters_and_an_active_fact_deletes_after_a_confirm(
    page,  # noqa: F811
    console_errors,  # noqa: F811
    owner,
    width,
):
    from chatmemory import services
    from chatmemory.models import FactSource

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": 900 if width > 600 else 844})
    existing = services.fact_create(owner=owner, fact="I never take leverage above 5x.", source=FactSource.PROFILE)
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("profile-facts"))
    page.wait_for_function("() => window.htmx !== undefined")

    # The counter follows typing, in code points, and says when the text is over.
    field = page.locator("#add-fact")
    counter = page.locator('.char-count[data-count-for="add-fact"]')
    sync_api.expect(counter).to_have_text("0 / 500 characters")
    field.fill("I never take leverage above 10x")
    sync_api.expect(counter).to_have_text("31 / 500 characters")
    field.fill("€" * 501)
    sync_api.expect(counter).to_have_text("501 / 500 characters: 1 too many")
    field.fill("I never take leverage above 10x")

    # A near repeat: a warning with the fact there, the input kept, an offer to edit it.
    page.get_by_role("button", name="Add fact").click()
    warning = page.locator("#fact-add-alike")
    sync_api.expect(warning).to_contain_text("You already have a fact like this.")
    sync_api.expect(warning).to_contain_text("I never take leverage above 5x.")
    sync_api.expect(page.locator("#add-fact")).to_have_value("I never take leverage above 10x")
    sync_api.expect(counter).to_have_text("31 / 500 characters")  # counted again after the swap
    assert UserFact.objects.count() == 1
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    page.screenshot(path=str(ARTIFACTS / f"near-duplicate-{width}.png"), full_page=True)
    warning.get_by_role("link", name="Edit the fact: I never take leverage above 5x.").click()
    page.wait_for_url(re.compile(re.escape(reverse("profile-fact-edit", args=[existing.pk])) + "$"))
    sync_api.expect(page.locator(f"#edit-fact-{existing.pk}")).to_have_value("I never take leverage above 5x.")
    sync_api.expect(page.locator(f'.char-count[data-count-for="edit-fact-{existing.pk}"]')).to_have_text(
        "31 / 500 characters"
    )

    # Or add it anyway.
    page.goto(reverse("profile-facts"))
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator("#add-fact").fill("I never take leverage above 10x")
    page.get_by_role("button", name="Add fact").click()
    page.get_by_role("button", name="Add mine anyway").click()
    sync_api.expect(page.locator("#facts-notice")).to_have_text("Fact added.")
    assert UserFact.objects.count() == 2

    # An active fact can be deleted for good, after the browser's confirm.
    dialogs: list[str] = []

    def accept(dialog) -> None:
        dialogs.append(dialog.message)
        dialog.accept()

    page.once("dialog", accept)
    page.locator(f"#fact-{existing.pk}").get_by_role("button", name="Delete for good").click()
    sync_api.expect(page.locator("#facts-notice")).to_have_text("Fact deleted for good.")
    assert dialogs and dialogs[0].startswith("Delete this fact for good?")
    assert not UserFact.objects.filter(pk=existing.pk).exists()
    assert console_errors == []

"""The lessons page's revision names, per-note statuses and reflection models in Chromium at 1280×900 and
390×844 (nothing scrolls the page sideways). Screenshots: test-artifacts/act-browser/ (git-ignored)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)
from tests.ledger.test_skill_pages_browser import VIEWPORTS, artifacts, not_wider_than_the_window  # noqa: F401
from tests.reflection.test_lessons_page import HASH_B, lessons, skill  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_it_names_revisions_and_shows_each_notes_status(page, console_errors, artifacts, owner, lessons, viewport):  # noqa: F811
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("skill-lessons", args=[lessons.skill.pk]))
    row = page.locator(f"#ab-{HASH_B}")
    sync_api.expect(row.locator(".revision-name a")).to_have_text("Revision 2")
    sync_api.expect(row.locator(".scopes")).to_contain_text(f"retired deployment #{lessons.d1.pk}")
    sync_api.expect(page.locator("#reflection-settings")).to_be_visible()
    sync_api.expect(page.locator("#lessons-history > li").first.locator(".revision-name")).to_have_text("Revision 3")
    not_wider_than_the_window(page)
    page.screenshot(path=str(artifacts / f"lessons-{viewport}-revisions.png"), full_page=True, caret="initial")
    assert console_errors == []

"""The preview's "what if" saved as a new skill version, in a real headless Chromium at 1280×900 and 390×844:
memory off says what stays (the lessons), the edited avoid rules become the leash, the before/after table shows
both estimates, and the save lands on the skill page. Screenshots: test-artifacts/act-browser/ (git-ignored)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright import sync_api

from ledger.models import SkillVersion
from tests.agentcontext.test_preview_page import deployment, traded, with_lessons  # noqa: F401 (fixtures)
from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.ledger.test_skill_pages_browser import VIEWPORTS, artifacts, not_wider_than_the_window  # noqa: F401

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_it_saves_the_what_if_as_a_new_version(page, console_errors, artifacts, owner, with_lessons, viewport):  # noqa: F811
    page.set_viewport_size(VIEWPORTS[viewport])
    running = with_lessons.skill_version

    def shoot(step: str) -> None:
        not_wider_than_the_window(page)
        page.screenshot(
            path=str(artifacts / f"preview-{viewport}-{step}.png"), full_page=True, caret="initial"
        )  # hiding the caret sets a style= (CSP)

    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-preview", args=[with_lessons.pk]))
    sync_api.expect(page.locator("#save-version")).to_have_count(0)
    page.wait_for_function("() => window.htmx !== undefined")

    page.get_by_label("Memory on/off").select_option("off")
    note = page.locator("#memory-off-note")
    sync_api.expect(note).to_contain_text("memory off does not remove the lessons")
    sync_api.expect(note).to_contain_text("lessons included (")
    sync_api.expect(page.locator("#save-version")).to_be_visible()
    shoot("01-memory-off-says-what-stays")

    page.get_by_label("Avoid rules").fill("No SOL\nNo trades after 20:00 UTC")
    page.get_by_label("Avoid rules").blur()  # a textarea's change fires as it loses focus
    sync_api.expect(page.locator("#segment-leash-text")).to_contain_text("- No trades after 20:00 UTC")
    leash = page.locator("#compare-leash-hard-avoid-rules")
    sync_api.expect(leash).to_have_attribute("data-changed", "")
    sync_api.expect(page.locator("#compare-total")).to_be_visible()
    page.locator("#save-version").scroll_into_view_if_needed()
    shoot("02-before-and-after")

    next_version = running.version + 1
    page.get_by_role("button", name=f"Save as v{next_version}").click()
    page.wait_for_url(re.compile(re.escape(reverse("skill", args=[running.skill_id])) + "$"))
    sync_api.expect(page.locator(".messages")).to_contain_text(f"deploy v{next_version} to use it")
    saved = SkillVersion.objects.get(skill_id=running.skill_id, version=next_version)
    assert (saved.memory_enabled, saved.avoid_rules) == (False, "No SOL\nNo trades after 20:00 UTC")
    assert saved.strategy_text == running.strategy_text
    sync_api.expect(page.locator("#deploy-version")).to_have_value(str(next_version))
    shoot("03-saved")
    assert console_errors == []

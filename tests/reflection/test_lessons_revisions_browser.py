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


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_it_vetoes_a_bullet_and_takes_the_veto_back(page, console_errors, artifacts, owner, owner_api, viewport):  # noqa: F811
    from reflection.models import LessonVerdict
    from tests.reflection.test_lesson_verdicts import VETOED, lessons_segment, make_lessoned

    deployment = make_lessoned(owner, owner_api)
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("skill-lessons", args=[deployment.skill_version.skill_id]))
    page.get_by_role("button", name=f"Veto: {VETOED}").click()
    page.wait_for_load_state()
    sync_api.expect(page.locator(".messages")).to_contain_text(f"Vetoed “{VETOED}”")
    sync_api.expect(page.locator(".bullet-veto")).to_contain_text("vetoed: not in the prompt")
    sync_api.expect(page.locator("#verdicts")).to_contain_text(VETOED)
    # The veto is a new revision, named for what it did.
    sync_api.expect(page.locator(".note-active .verdict-change")).to_have_text("· you vetoed 1 bullet")
    assert VETOED not in lessons_segment(owner_api, deployment)
    not_wider_than_the_window(page)
    page.screenshot(path=str(artifacts / f"lessons-{viewport}-vetoed.png"), full_page=True, caret="initial")

    page.locator(".bullet-veto").get_by_role("button", name=f"Take back the verdict on: {VETOED}").click()
    page.wait_for_load_state()
    sync_api.expect(page.locator(".bullet-veto")).to_have_count(0)
    sync_api.expect(page.locator(".note-active .verdict-change")).to_have_text(
        "· you took back 1 veto; Revision 1’s text again"
    )
    assert not LessonVerdict.objects.exists()
    assert f"- {VETOED}" in lessons_segment(owner_api, deployment)
    assert console_errors == []

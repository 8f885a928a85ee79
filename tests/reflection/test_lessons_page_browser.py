"""The lessons page in a real headless Chromium: the A/B bar chart and the htmx version filter."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.reflection.test_lessons_page import lessons, skill  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

SCREENSHOT = "/tmp/lessons.png"


def test_it_draws_the_ab_chart_and_filters_by_version_in_place(page, console_errors, owner, lessons):  # noqa: F811
    lessons_path = reverse("skill-lessons", args=[lessons.skill.pk])
    log_in(page, owner.username, PASSWORD)
    page.get_by_role("link", name="Lessons of skill Breakout BTC").click()
    page.wait_for_url(re.compile(re.escape(lessons_path) + "$"))
    assert path_of(page) == lessons_path

    notes = page.locator("#lessons-history > li")
    bars = page.locator("#chart-lessons-ab svg rect.bar")
    no_trades = page.locator("#chart-lessons-ab svg text.no-trades")
    sync_api.expect(notes).to_have_count(4)
    sync_api.expect(bars).to_have_count(3)  # revisions A and B, and no lessons
    sync_api.expect(no_trades).to_have_count(1)  # revision C has no trades yet
    sync_api.expect(page.locator('#chart-lessons-ab svg text.no-trades[data-label="Revision 3"]')).to_have_text(
        "no trades yet"
    )
    sync_api.expect(page.locator("#chart-lessons-ab svg")).to_contain_text("n=3")
    sync_api.expect(page.locator("#lessons-history")).to_contain_text("<script>alert('x')</script> fades lose")
    sync_api.expect(page.locator(f"#note-{lessons.b1.pk} .diff ins")).to_have_count(2)
    sync_api.expect(page.locator(f"#note-{lessons.b1.pk} .diff del")).to_have_count(1)
    page.screenshot(path=SCREENSHOT, full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this
    page.get_by_label("Skill version").select_option("1")

    page.wait_for_url(re.compile(r"\?version=1$"))
    sync_api.expect(notes).to_have_count(3)
    sync_api.expect(bars).to_have_count(3)  # the swapped-in chart is drawn too
    sync_api.expect(no_trades).to_have_count(0)
    assert page.evaluate("window.notReloaded") is True

    page.get_by_label("Skill version").select_option("2")
    page.wait_for_url(re.compile(r"\?version=2$"))
    sync_api.expect(notes).to_have_count(1)
    sync_api.expect(bars).to_have_count(1)  # no lessons only
    sync_api.expect(no_trades).to_have_count(1)
    assert page.evaluate("window.notReloaded") is True

    page.go_back()
    page.wait_for_url(re.compile(r"\?version=1$"))
    sync_api.expect(notes).to_have_count(3)
    sync_api.expect(page.get_by_label("Skill version")).to_have_value("1")
    sync_api.expect(bars).to_have_count(3)

    page.reload()  # the pushed URL is a real page
    assert urlsplit(page.url).query == "version=1"
    sync_api.expect(notes).to_have_count(3)
    sync_api.expect(page.get_by_label("Skill version")).to_have_value("1")
    sync_api.expect(bars).to_have_count(3)

    page.get_by_label("Skill version").select_option("")
    page.wait_for_url(re.compile(re.escape(lessons_path) + "$"))
    sync_api.expect(notes).to_have_count(4)

    page.get_by_role("link", name=f"deployment #{lessons.d1.pk}").first.click()
    page.wait_for_url(re.compile(re.escape(reverse("deployment-trades", args=[lessons.d1.pk]))))
    page.get_by_role("link", name="Lessons of Breakout BTC").click()
    page.wait_for_url(re.compile(re.escape(lessons_path) + "$"))
    sync_api.expect(bars).to_have_count(3)
    assert console_errors == []

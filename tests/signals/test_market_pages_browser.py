"""The market pages in a real headless Chromium: the per-agent SVG chart with its event markers and the htmx
agent filter."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.signals.test_market_pages import CONDITION, MICRO, POLLING, SCRIPT_DRIVER, analysis  # noqa: F401

pytestmark = pytest.mark.slow

LIST_SCREENSHOT = "/tmp/markets.png"
SCREENSHOT = "/tmp/market.png"


def section(tab, agent: str):
    return tab.locator(f'section.agent-section[data-agent="{agent}"]')


def test_it_draws_each_agents_chart_with_event_markers_and_filters_by_agent_in_place(
    page,  # noqa: F811
    console_errors,  # noqa: F811
    owner,
    analysis,  # noqa: F811
):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    market_path = reverse("market", args=[analysis.market.pk])
    log_in(page, owner.username, PASSWORD)
    page.get_by_role("link", name="Markets", exact=True).click()
    page.wait_for_url(re.compile(re.escape(reverse("markets")) + "$"))
    sync_api.expect(page.locator("#markets tbody tr")).to_have_count(2)
    page.screenshot(path=LIST_SCREENSHOT, full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs
    page.get_by_role("link", name=CONDITION).click()
    page.wait_for_url(re.compile(re.escape(market_path) + "$"))

    sections = page.locator("section.agent-section")
    sync_api.expect(sections).to_have_count(2)
    polling, micro = section(page, POLLING), section(page, MICRO)
    for agent, signals, events in ((polling, 3, 5), (micro, 2, 1)):
        sync_api.expect(agent.locator(".chart svg path.line")).to_have_count(2)
        sync_api.expect(agent.locator(".chart svg path.line.series-probability")).to_have_count(1)
        sync_api.expect(agent.locator(".chart svg path.line.series-confidence")).to_have_count(1)
        sync_api.expect(agent.locator(".chart svg .dots.series-probability circle")).to_have_count(signals)
        sync_api.expect(agent.locator(".chart svg g.event-marker")).to_have_count(events)
        sync_api.expect(agent.locator("table.timeline tbody tr")).to_have_count(signals)

    # Both lines are on one 0–100% scale: 62.5% then 78% then 40% fair probability, so the path goes up then down.
    d = polling.locator("path.series-probability").get_attribute("d")
    ys = [float(y) for y in re.findall(r"[ML][\d.]+ ([\d.]+)", d)]
    assert len(ys) == 3 and ys[1] < ys[0] < ys[2]
    markers = polling.locator("g.event-marker title")
    sync_api.expect(markers.first).to_have_text("2026-06-01 11:00 UTC: Fair probability 62.5% → 78% (+15.5 pp)")
    sync_api.expect(polling.locator('g.event-marker[data-type="direction_change"] title')).to_have_text(
        "2026-06-01 14:00 UTC: Direction changed from YES to NO"
    )
    sync_api.expect(micro.locator("g.event-marker title")).to_have_text(
        "2026-06-01 12:00 UTC: Fair probability 50% → 65% (+15 pp)"
    )
    sync_api.expect(polling.locator("pre.memory-text")).to_contain_text(f"• {SCRIPT_DRIVER}")
    sync_api.expect(polling.locator("table.timeline")).to_contain_text(SCRIPT_DRIVER)
    page.screenshot(path=SCREENSHOT, full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this
    page.get_by_label("Agent").select_option(POLLING)
    page.wait_for_url(re.compile(rf"\?agent={POLLING}$"))
    sync_api.expect(sections).to_have_count(1)
    sync_api.expect(polling.locator(".chart svg path.line")).to_have_count(2)  # the swapped-in chart is drawn
    sync_api.expect(polling.locator(".chart svg g.event-marker")).to_have_count(5)
    assert page.evaluate("window.notReloaded") is True

    page.get_by_label("Agent").select_option(MICRO)
    page.wait_for_url(re.compile(rf"\?agent={MICRO}$"))
    sync_api.expect(sections).to_have_count(1)
    sync_api.expect(micro.locator(".chart svg g.event-marker")).to_have_count(1)
    assert page.evaluate("window.notReloaded") is True

    page.go_back()
    page.wait_for_url(re.compile(rf"\?agent={POLLING}$"))
    sync_api.expect(sections).to_have_count(1)
    sync_api.expect(page.get_by_label("Agent")).to_have_value(POLLING)
    sync_api.expect(polling.locator(".chart svg path.line")).to_have_count(2)

    page.reload()  # the pushed URL is a real page
    assert urlsplit(page.url).query == f"agent={POLLING}"
    sync_api.expect(sections).to_have_count(1)
    sync_api.expect(page.get_by_label("Agent")).to_have_value(POLLING)
    sync_api.expect(polling.locator(".chart svg g.event-marker")).to_have_count(5)

    page.get_by_label("Agent").select_option("")
    page.wait_for_url(re.compile(re.escape(market_path) + "$"))
    sync_api.expect(sections).to_have_count(2)
    sync_api.expect(page.locator(".chart svg path.line")).to_have_count(4)
    assert path_of(page) == market_path
    assert dialogs == []
    assert console_errors == []

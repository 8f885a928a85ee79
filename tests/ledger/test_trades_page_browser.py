"""The trade journal in a real headless Chromium: htmx filters, pushed URLs and the SVG charts."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD, DeploymentFactory
from tests.ledger.test_pages_browser import browser, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.ledger.test_trades_page import CHOP, TREND_UP, bars, executed, position, post_tick

pytestmark = pytest.mark.slow

SCREENSHOT = "/tmp/journal.png"
TREND_DOWN = bars([100 - i * 0.1 for i in range(12)])  # −1.1%, smooth: trend_down_lowvol
# (symbol, side, entry mark, exit mark, bars or None): one round trip per line, two at a time.
ROUND_TRIPS = [
    ("BTC", "long", 100, 112, TREND_UP),
    ("ETH", "short", 50, 53, None),
    ("SOL", "long", 20, 19, CHOP),
    ("BTC", "long", 110, 118, TREND_UP),
    ("ETH", "long", 52, 49, TREND_DOWN),
    ("SOL", "short", 21, 18, TREND_DOWN),
    ("BTC", "short", 120, 126, CHOP),
    ("ETH", "long", 48, 55, TREND_UP),
    ("SOL", "long", 18, 18.5, CHOP),
    ("BTC", "long", 125, 121, None),
]


@pytest.fixture
def journal(owner_api, owner):
    """Ten closed trades over three symbols and four regimes, then one trade still open."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Swing majors")
    minutes = 0
    for first in range(0, len(ROUND_TRIPS), 2):
        pair = ROUND_TRIPS[first : first + 2]
        opened = [position(symbol, 2, entry, side) for symbol, side, entry, _, _ in pair]
        pair_bars = {symbol: window for symbol, _, _, _, window in pair if window}
        post_tick(owner_api, deployment, minutes, opened, bars=pair_bars, **executed("propose_order", "breakout"))
        marks = {symbol: exit_mark for symbol, _, _, exit_mark, _ in pair}
        post_tick(owner_api, deployment, minutes + 45, [], marks=marks, **executed("close_position", "take profit"))
        minutes += 90
    post_tick(
        owner_api,
        deployment,
        minutes,
        [position("BTC", 1, 122)],
        bars={"BTC": CHOP},
        **executed("propose_order", "mean reversion <b>bold?</b>"),
    )
    return deployment


def test_it_filters_the_journal_in_place_and_draws_the_charts(page, owner, journal):  # noqa: F811
    log_in(page, owner.username, PASSWORD)
    page.get_by_role("link", name=f"Journal of deployment #{journal.pk}").click()
    page.wait_for_url(re.compile(re.escape(reverse("deployment-trades", args=[journal.pk]))))
    journal_path = path_of(page)
    assert journal_path == reverse("deployment-trades", args=[journal.pk])

    rows = page.locator("#trades tbody tr")
    sync_api.expect(rows).to_have_count(11)
    sync_api.expect(page.locator("#chart-cumulative svg path.line")).to_have_count(1)
    sync_api.expect(page.locator("#chart-regime svg rect.bar")).to_have_count(4)  # 3 tags + unclassified
    sync_api.expect(page.locator("#stat-closed")).to_have_text("10")
    sync_api.expect(page.locator("#trades")).to_contain_text("mean reversion <b>bold?</b>")
    page.screenshot(path=SCREENSHOT, full_page=True)

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this
    page.get_by_label("Status").select_option("closed")

    page.wait_for_url(re.compile(r"\?status=closed$"))
    sync_api.expect(rows).to_have_count(10)
    sync_api.expect(page.locator("#trades .trade-open")).to_have_count(0)
    assert page.evaluate("window.notReloaded") is True
    sync_api.expect(page.locator("#chart-cumulative svg path.line")).to_have_count(1)

    page.get_by_label("Symbol").select_option("ETH")
    page.wait_for_url(re.compile(r"\?status=closed&symbol=ETH$"))
    sync_api.expect(rows).to_have_count(3)
    assert page.evaluate("window.notReloaded") is True

    page.go_back()
    page.wait_for_url(re.compile(r"\?status=closed$"))
    sync_api.expect(rows).to_have_count(10)
    sync_api.expect(page.get_by_label("Symbol")).to_have_value("")
    sync_api.expect(page.get_by_label("Status")).to_have_value("closed")

    page.reload()  # the pushed URL is a real page: filters applied, charts drawn
    assert urlsplit(page.url).query == "status=closed"
    sync_api.expect(rows).to_have_count(10)
    sync_api.expect(page.get_by_label("Status")).to_have_value("closed")
    sync_api.expect(page.locator("#chart-regime svg rect.bar")).to_have_count(4)

    page.get_by_role("link", name="← Deployments").click()
    page.wait_for_url(re.compile(r"/$"))
    assert path_of(page) == reverse("home")

# ruff: noqa: F811 (fixtures imported from the other browser tests)
"""The journal that answers questions, in a real headless Chromium at a desktop and a phone width: the
cards and charts follow the filters, the columns sort, the CSV link carries the filters. Screenshots
of each step go to test-artifacts/journal-browser/ (git-ignored) and stay there after the run."""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)
from tests.ledger.test_trades_page_browser import journal  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "journal-browser"
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs
    print(f"screenshot: {path}")


def assert_no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page scrolls sideways: {width} px wide"


def query_of(page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_filters_drive_the_cards_and_charts_and_the_columns_sort(page, console_errors, owner, journal, viewport):
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-trades", args=[journal.pk]))
    rows = page.locator("#trades tbody tr")
    sync_api.expect(rows).to_have_count(11)
    sync_api.expect(page.locator("#stat-closed")).to_have_text("10")
    sync_api.expect(page.locator("#chart-regime svg rect.bar")).to_have_count(4)
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-01-journal")

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")
    page.get_by_label("Symbol").select_option("ETH")
    page.wait_for_url(re.compile(r"\?symbol=ETH$"))
    sync_api.expect(rows).to_have_count(3)
    # The cards and both charts now answer for the 3 ETH trades, not all of them.
    sync_api.expect(page.locator("#stat-closed")).to_have_text("3")
    sync_api.expect(page.locator("#stat-pnl")).to_have_text("$2.00")  # −6, −6, +14
    sync_api.expect(page.locator("#summary-scope")).to_contain_text("matching the filters")
    sync_api.expect(page.locator("#chart-regime svg rect.bar")).to_have_count(3)
    sync_api.expect(page.locator("#chart-cumulative svg path.line")).to_have_count(1)
    assert page.evaluate("window.notReloaded") is True
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-02-filtered-eth")

    # Sort by PnL: first click largest first, a second click flips it; the filter stays.
    page.get_by_role("link", name=re.compile(r"^PnL \$ \(%\)")).click()
    page.wait_for_url(re.compile(r"sort=-pnl"))
    assert query_of(page) == {"symbol": ["ETH"], "sort": ["-pnl"]}
    sync_api.expect(page.locator("#trades tbody tr").first.locator("td.pnl span").first).to_have_text("$14.00")
    sync_api.expect(page.locator('#trades th[aria-sort="descending"]')).to_contain_text("PnL")
    page.get_by_role("link", name=re.compile(r"^PnL \$ \(%\)")).click()
    page.wait_for_url(re.compile(r"sort=pnl"))
    sync_api.expect(page.locator("#trades tbody tr").first.locator("td.pnl span").first).to_have_text("−$6.00")
    sync_api.expect(page.locator('#trades th[aria-sort="ascending"]')).to_contain_text("PnL")
    shoot(page, f"{viewport}-03-sorted-by-pnl")

    # Another filter keeps the sort.
    page.get_by_label("Status").select_option("closed")
    page.wait_for_url(re.compile(r"status=closed"))
    assert query_of(page) == {"status": ["closed"], "symbol": ["ETH"], "sort": ["pnl"]}
    sync_api.expect(page.locator("#trades tbody tr").first.locator("td.pnl span").first).to_have_text("−$6.00")

    # The CSV link carries the filters and the sort; the file has the same 3 trades in the same order.
    href = page.locator("#export-csv").get_attribute("href")
    assert parse_qs(urlsplit(href).query) == {"status": ["closed"], "symbol": ["ETH"], "sort": ["pnl"]}
    answer = page.request.get(href)
    assert answer.status == 200
    assert answer.headers["content-type"] == "text/csv; charset=utf-8"
    exported = list(csv.DictReader(io.StringIO(answer.text())))
    assert [row["realized_pnl_usd"] for row in exported] == ["-6", "-6", "14"]
    assert all(row["symbol"] == "ETH" for row in exported)

    page.go_back()
    page.wait_for_url(re.compile(r"sort=pnl$"))
    sync_api.expect(rows).to_have_count(3)
    assert console_errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_trades_detail_says_why_and_leads_back_to_the_same_journal_view(
    page, console_errors, owner, journal, viewport
):
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-trades", args=[journal.pk]) + "?symbol=BTC&sort=-pnl")
    sync_api.expect(page.locator("#trades tbody tr")).to_have_count(5)  # 4 closed + 1 open
    page.locator("#trades tbody tr").first.get_by_role("link", name=re.compile(r"^Details of the BTC")).click()
    page.wait_for_url(re.compile(r"/trades/[0-9a-f-]{36}/"))
    sync_api.expect(page.get_by_role("heading", name=re.compile(r"^BTC"))).to_be_visible()
    sync_api.expect(page.locator("#trade-pnl")).to_have_text("$24.00")  # long 2 @ 110 → 118, the best BTC trade
    sync_api.expect(page.locator("#entry-reason")).to_have_text("breakout")
    sync_api.expect(page.locator("#entry-ops")).to_contain_text("open_trade")
    sync_api.expect(page.locator("#exit-ops")).to_contain_text("close_trade")
    sync_api.expect(page.locator("#exit-reason")).to_have_text("take profit")
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-04-trade-detail")

    page.locator("#back-to-journal").click()
    page.wait_for_url(re.compile(r"\?symbol=BTC&sort=-pnl$"))
    sync_api.expect(page.locator("#trades tbody tr")).to_have_count(5)
    assert console_errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_home_page_shows_each_runners_state_and_today(page, console_errors, owner, owner_api, viewport):
    from django.utils import timezone

    from tests.factories import DeploymentFactory
    from tests.ledger.test_home_status import post_tick, today_moments

    live = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Live scalper")
    DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Never started")
    t1, t2, t3 = today_moments(3)
    post_tick(owner_api, live, t1, 10_000, [{"symbol": "BTC", "side": "long", "size": 1, "mark_price": 100}])
    post_tick(owner_api, live, t2, 10_400, [], marks={"BTC": 104})
    post_tick(owner_api, live, t3, 10_296, [])
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    row = page.locator(f"#deployment-{live.pk}")
    sync_api.expect(row.locator('[data-col="runner"] .tag')).to_have_text("alive")
    sync_api.expect(row.locator('[data-col="today-pnl"]')).to_contain_text("4.00")
    sync_api.expect(row.locator('[data-col="drawdown"]')).to_have_text("1.00%")  # 10,296 below 10,400
    sync_api.expect(row.locator('[data-col="last-tick"]')).to_have_text(t3.strftime("%Y-%m-%d %H:%M"))
    sync_api.expect(page.locator("#deployments")).to_contain_text("no ticks yet")
    sync_api.expect(page.locator("#runner-rule")).to_contain_text("within 3× its usual interval")
    assert timezone.now() - t3 < dt.timedelta(days=1)
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-05-home")
    assert console_errors == []

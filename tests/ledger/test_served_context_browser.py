# ruff: noqa: F811 (fixtures imported from the other browser tests)
"""The trade page's "What the agent saw before opening this trade" in a real headless Chromium at 1280×900 and
390×844: the system prompt and memory block as served, wrapping on a phone (nothing scrolls the page sideways).
Screenshots go to test-artifacts/served-context/ (git-ignored) and stay there after the run."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from ledger import services as ledger_services
from ledger.models import TradeHistory
from tests.factories import PASSWORD, DeploymentFactory, token_client
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)
from tests.ledger.test_served_context import BTC, STRATEGY, get_context, post_tick

pytestmark = pytest.mark.slow

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "served-context"
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"screenshot: {path}")


def assert_no_sideways_scroll(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the page scrolls sideways: {width} px wide"


@pytest.fixture
def opened(owner):
    """A trade opened on the second tick, the context read before it (and another read after it)."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__strategy_text=STRATEGY)
    api = token_client(owner)
    post_tick(api, deployment, 0, reason="no breakout yet: " + "waiting-for-the-range-to-break-" * 6)
    served = get_context(api, deployment)
    post_tick(api, deployment, 1, [BTC], reason="breakout")
    get_context(api, deployment)
    ledger_services.materialize_pending(deployment_id=deployment.pk)
    return TradeHistory.objects.get(deployment=deployment), served


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_trade_page_shows_what_the_agent_saw_and_fits_the_screen(page, console_errors, owner, opened, viewport):
    trade, served = opened
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-trade", args=[trade.deployment_id, trade.pk]))
    section = page.locator("#served-context")
    sync_api.expect(section.get_by_role("heading", name="What the agent saw before opening this trade")).to_be_visible()
    # As the browser reads it (a <pre> keeps every character): the API's text, byte for byte.
    assert page.locator("#served-memory").text_content() == served["text"]
    assert page.locator("#served-system-prompt").text_content() == served["system_prompt"]["text"]
    sync_api.expect(page.locator("#served-as-of")).to_contain_text("2026-06-04 10:00:00 UTC")
    for pre in ("#served-memory", "#served-system-prompt"):
        box = page.locator(pre).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORTS[viewport]["width"], (pre, box)
        # wrapped, not scrolled sideways inside its box either
        assert page.eval_on_selector(pre, "el => el.scrollWidth <= el.clientWidth"), pre
    assert_no_sideways_scroll(page)
    section.scroll_into_view_if_needed()
    shoot(page, f"{viewport}-trade-served-context")
    assert console_errors == []

"""Every trader page in a real headless Chromium at 1280×900 and 390×844: nothing scrolls the page sideways
(a wide table scrolls inside its own box, with a visible cue), the nav collapses behind a menu button on a
phone, charts fit, and no page logs a console error. Screenshots of every page at both widths go to
test-artifacts/pages-browser/ (git-ignored) and stay there after the run."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from playwright import sync_api

from chatmemory import services as chat_services
from chatmemory.models import FactSource
from recall import services as recall_services
from tests.factories import PASSWORD, DeploymentFactory
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)
from tests.recall.test_pages import MANUAL, upsert
from tests.research.test_research_page import research  # noqa: F401 (fixture)
from tests.signals.test_market_pages import analysis  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "pages-browser"
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
DEMO_TICKS = 96  # eight hours of 5-minute ticks: trades, lessons and a context to show

# What is wider than the window, outside a box that scrolls on its own: each as tag#id.class (right edge).
WIDER_THAN_THE_WINDOW = """() => [...document.querySelectorAll('body *')]
  .filter(e => e.getBoundingClientRect().right > innerWidth + 0.5 && !e.closest('.table-scroll'))
  .filter(e => getComputedStyle(e).position !== 'fixed' && e.getClientRects().length)
  .map(e => `${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join('.')} ${Math.round(e.getBoundingClientRect().right)}`)
  .slice(0, 8)"""
# Every table box that scrolls: whether it says so (the fade and the hint of static/js/site.js).
SCROLLING_TABLES = """() => [...document.querySelectorAll('.table-scroll')]
  .filter(box => box.scrollWidth > box.clientWidth + 1 && box.getClientRects().length)
  .map(box => ({
    id: box.querySelector('table') ? box.querySelector('table').id : '',
    cue: box.classList.contains('can-scroll-right'),
    hint: !!(box.previousElementSibling && box.previousElementSibling.matches('.scroll-hint:not([hidden])')),
  }))"""


def shoot(tab, name: str) -> None:
    """The whole page's height at the window's width (a full-page shot would also show what a table box hides)."""
    height = tab.evaluate("() => document.documentElement.scrollHeight")
    clip = {"x": 0, "y": 0, "width": tab.viewport_size["width"], "height": height}
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True, clip=clip, caret="initial")


@pytest.fixture
def trader_data(owner, analysis, research):  # noqa: F811
    """The owner with a deployment that has traded (the simulator through the real tick API, reflection
    keeping up), facts, recall documents with a proposal and a journal entry, markets and research."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Mean reversion BTC")
    call_command("simulate", deployment.pk, ticks=DEMO_TICKS, reflect=True, stdout=io.StringIO())
    chat_services.fact_create(owner=owner, fact="I never take leverage above 5x.", source=FactSource.PROFILE)
    chat_services.fact_create(
        owner=owner, fact="Trades BTC and ETH only, no alts.", source=FactSource.CHAT, topic="symbols"
    )
    manual = upsert(owner, "TRADING_MANUAL.md", MANUAL)
    proposal = recall_services.proposal_create(
        document=manual,
        proposed_content=MANUAL + "\nNever hold through funding.\n",
        reason="Funding ate the edge",
        run_id="r-1",
    )
    recall_services.journal_append(deployment=deployment, kind="learning", content="Gaps fill by noon.", run_id="run-1")
    return {"deployment": deployment, "manual": manual, "proposal": proposal, "market": analysis.market}


def trader_pages(data) -> dict[str, str]:
    deployment = data["deployment"]
    return {
        "home": reverse("home"),
        "journal": reverse("deployment-trades", args=[deployment.pk]),
        "lessons": reverse("skill-lessons", args=[deployment.skill_version.skill_id]),
        "preview": reverse("deployment-preview", args=[deployment.pk]),
        "runner-tokens": reverse("deployment-runner-tokens", args=[deployment.pk]),
        "facts": reverse("profile-facts"),
        "chat-preview": reverse("chat-preview"),
        "recall": reverse("recall"),
        "recall-search": reverse("recall") + "?q=risk+stop",
        "recall-document": reverse("recall-document", args=[data["manual"].pk]),
        "recall-proposal": reverse("recall-proposal", args=[data["proposal"].pk]),
        "markets": reverse("markets"),
        "market": reverse("market", args=[data["market"].pk]),
        "research": reverse("research"),
        "account-tokens": reverse("account-tokens"),
        "password": reverse("password-change"),
        "your-data": reverse("profile-data"),
        "delete-account": reverse("account-delete"),
    }


@pytest.mark.parametrize("size", list(SIZES))
def test_every_trader_page_fits_the_screen_and_logs_no_error(page, console_errors, owner, trader_data, size):  # noqa: F811
    width, height = SIZES[size]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, owner.username, PASSWORD)
    problems: dict[str, object] = {}
    for name, url in trader_pages(trader_data).items():
        response = page.goto(url)
        assert response is not None and response.status == 200, (name, url)
        page.wait_for_load_state("load")
        page.wait_for_function("() => document.body.dataset.siteReady === '1'")  # static/js/site.js ran
        page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-settling')")
        shoot(page, f"{name}-{width}")
        if not page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"):
            problems[f"{name}: page scrolls sideways"] = page.evaluate(WIDER_THAN_THE_WINDOW)
        silent = [table for table in page.evaluate(SCROLLING_TABLES) if not (table["cue"] and table["hint"])]
        if silent:
            problems[f"{name}: a table scrolls without a cue"] = silent
        for chart in page.locator(".chart svg").all():
            box, frame = chart.bounding_box(), chart.evaluate("svg => svg.parentElement.getBoundingClientRect().width")
            if box and box["width"] > frame + 1:
                problems[f"{name}: a chart is wider than its card"] = (box["width"], frame)
        if console_errors:
            problems[f"{name}: console errors"] = list(console_errors)
            console_errors.clear()
    assert problems == {}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_nav_collapses_behind_a_menu_button_on_a_phone(page, console_errors, owner, size):  # noqa: F811
    width, height = SIZES[size]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": width, "height": height})
    log_in(page, owner.username, PASSWORD)
    page.wait_for_function("() => document.body.dataset.siteReady === '1'")
    header = page.locator("header")
    menu = header.get_by_role("button", name="Menu")
    facts = header.get_by_role("link", name="Facts", exact=True)
    if size == "desktop":
        sync_api.expect(menu).to_be_hidden()
        sync_api.expect(facts).to_be_visible()
        assert header.bounding_box()["height"] < 60  # one line
    else:
        sync_api.expect(menu).to_be_visible()
        sync_api.expect(menu).to_have_attribute("aria-expanded", "false")
        sync_api.expect(facts).to_be_hidden()
        assert header.bounding_box()["height"] < 60
        menu.click()
        sync_api.expect(menu).to_have_attribute("aria-expanded", "true")
        sync_api.expect(facts).to_be_visible()
        sync_api.expect(header.get_by_role("button", name=re.compile("^Log out"))).to_be_visible()
        shoot(page, f"menu-open-{width}")
        page.keyboard.press("Escape")
        sync_api.expect(facts).to_be_hidden()
        menu.click()
    facts.click()
    page.wait_for_url(re.compile(re.escape(reverse("profile-facts")) + "$"))
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    assert console_errors == []

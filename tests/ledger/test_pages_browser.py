"""The trader pages in a real headless Chromium (Debian's /usr/bin/chromium, driven by Playwright).

The browser starts once per module; each test gets a fresh context, so cookies never leak between tests.
"""

from __future__ import annotations

import json
import os
import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright import sync_api

from tests.factories import PASSWORD, DeploymentFactory, UserFactory

pytestmark = pytest.mark.slow


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium keeps calling out to Google services on a closed network.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000
SCREENSHOT = "/tmp/home.png"


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: `make browser` installs Debian's chromium")
    # Playwright's sync API keeps an asyncio loop running in this thread, so every ORM call made by
    # the tests (factories, test database set-up and flush) trips Django's SynchronousOnlyOperation
    # guard. The calls really are synchronous and single-threaded, so the guard is switched off, for
    # this module only, while the browser is alive.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        playwright = sync_api.sync_playwright().start()
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except BaseException:
            playwright.stop()
            raise
        yield chromium
        chromium.close()
        playwright.stop()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url)
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def console_errors(page):
    """Every console error and uncaught exception on the page (a failed load of the favicon counts too)."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


def path_of(page) -> str:
    return urlsplit(page.url).path


def log_in(page, username: str, password: str) -> None:
    page.goto(reverse("login"))
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()


def test_it_redirects_an_anonymous_visit_to_the_login_page(page):
    page.goto("/")

    assert path_of(page) == reverse("login")
    assert urlsplit(page.url).query == "next=/"
    sync_api.expect(page.get_by_role("heading", name="Log in")).to_be_visible()


def test_it_logs_a_trader_in_and_shows_only_their_own_deployments(page):
    mine = DeploymentFactory(skill_version__skill__name="Mean reversion BTC")
    DeploymentFactory(skill_version__skill__name="Someone else's breakout")

    log_in(page, mine.owner.username, PASSWORD)

    sync_api.expect(page).to_have_url(re.compile(r"/$"))
    assert path_of(page) == reverse("home")
    table = page.locator("#deployments")
    sync_api.expect(table).to_contain_text("Mean reversion BTC")
    sync_api.expect(table.locator("tbody tr")).to_have_count(1)
    sync_api.expect(page.locator("body")).not_to_contain_text("Someone else's breakout")
    page.screenshot(path=SCREENSHOT, full_page=True)


def test_the_favicon_loads(page, console_errors):
    page.goto(reverse("login"))
    icon = page.evaluate(
        "() => fetch(document.querySelector('link[rel=icon]').href).then(r => [r.status, r.headers.get('content-type')])"
    )
    assert icon == [200, "image/svg+xml"]
    ico = page.evaluate("() => fetch('/favicon.ico').then(r => [r.status, r.url.endsWith('/static/favicon.ico')])")
    assert ico == [200, True]
    assert console_errors == []


def test_it_loads_htmx_from_our_static_files_and_sends_the_csrf_token(page):
    user = UserFactory()
    log_in(page, user.username, PASSWORD)
    assert path_of(page) == reverse("home")

    page.wait_for_function("() => window.htmx !== undefined")
    sources = page.eval_on_selector_all("script[src]", "scripts => scripts.map(s => s.src)")
    htmx_sources = [src for src in sources if "htmx" in src]
    assert htmx_sources, sources
    for src in htmx_sources:
        assert src.startswith(f"{page.url.rstrip('/')}/static/"), src
    headers = json.loads(page.locator("body").get_attribute("hx-headers"))
    assert headers["X-CSRFToken"].strip()


def test_it_shows_an_error_and_stays_on_the_login_page_for_a_wrong_password(page):
    user = UserFactory()

    log_in(page, user.username, "not the password")

    assert path_of(page) == reverse("login")
    sync_api.expect(page.get_by_role("alert")).to_contain_text("enter a correct username and password")
    sync_api.expect(page.locator("#deployments")).to_have_count(0)


def test_it_logs_out_through_the_header_button_back_to_the_login_page(page):
    user = UserFactory()
    log_in(page, user.username, PASSWORD)
    assert path_of(page) == reverse("home")

    page.locator("header").get_by_role("button", name=re.compile(r"^Log out")).click()
    page.wait_for_url(re.compile(re.escape(reverse("login"))))

    assert path_of(page) == reverse("login")
    sync_api.expect(page.locator(".messages")).to_have_text("You are logged out.")
    sync_api.expect(page.locator("header").get_by_role("link", name="Log in")).to_have_count(0)
    page.goto("/")
    assert path_of(page) == reverse("login")

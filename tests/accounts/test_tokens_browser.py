"""The API tokens page in a real headless Chromium: create (named, expiring), see the key once, revoke; on a
phone-sized screen too. And the login page's lock message."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from access.keys import key_hash
from accounts.models import AccountToken
from ledger.models import RunnerToken
from tests.factories import PASSWORD, DeploymentFactory, UserFactory
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "pages-browser"  # git-ignored, kept after the run


@pytest.mark.parametrize("width", [1280, 390], ids=["desktop", "phone"])
def test_a_trader_creates_sees_the_key_once_and_revokes_an_account_token(page, console_errors, width):  # noqa: F811
    page.set_viewport_size({"width": width, "height": 800})
    trader = UserFactory(username="a-rather-long-trader-name-4242")
    log_in(page, trader.username, PASSWORD)
    if width > 600:
        page.get_by_role("link", name="API tokens").click()
    else:
        page.goto(reverse("account-tokens"))
    assert path_of(page) == reverse("account-tokens")
    sync_api.expect(page.get_by_text("No account tokens yet.")).to_be_visible()

    page.get_by_label("Name").fill("backtest notebook")
    page.get_by_label("Expires (UTC, optional)").fill("2099-01-31T18:00")
    page.get_by_role("button", name="Create token").click()

    key = page.locator("#new-account-token-key").inner_text()
    page.wait_for_load_state("load")  # the stylesheet applied before measuring (a loaded machine is slow)
    wider = page.evaluate(
        "() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth)"
        ".filter(e => !e.closest('.table-scroll')).map(e => e.tagName + '#' + e.id)"
    )
    assert wider == []  # nothing but the scrolling table is wider than the screen
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy key").click()
    sync_api.expect(page.get_by_role("status")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == key
    page.reload()  # post/redirect/get: a reload neither shows the key again nor makes a second token
    sync_api.expect(page.locator("#new-account-token")).to_have_count(0)
    assert AccountToken.objects.filter(owner=trader).count() == 1
    token = AccountToken.objects.get(owner=trader)
    assert token.key_hash == key_hash(key)
    assert token.expires_at == dt.datetime(2099, 1, 31, 18, tzinfo=dt.UTC)
    row = page.locator(f"#account-token-{token.pk}")
    sync_api.expect(row).to_contain_text("backtest notebook")
    sync_api.expect(row).to_contain_text("2099-01-31 18:00")
    sync_api.expect(row).to_contain_text("never")  # not used yet
    assert key not in page.content()

    confirm = page.get_by_role("button", name="Yes, revoke account token backtest notebook")
    sync_api.expect(confirm).to_be_hidden()  # revoke asks first
    page.get_by_text("Revoke…").click()
    sync_api.expect(confirm).to_be_visible()
    assert confirm.evaluate("b => getComputedStyle(b).backgroundColor") == "rgb(217, 45, 32)"  # destructive red
    confirm.click()
    sync_api.expect(row.get_by_role("button")).to_have_count(0)
    sync_api.expect(row.get_by_text("Revoke…")).to_have_count(0)
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert console_errors == []


def test_the_login_page_says_the_account_is_locked(page, monkeypatch):  # noqa: F811
    from accounts import services

    now = [1_900_000_000.0]
    monkeypatch.setattr(services, "clock", lambda: now[0])
    trader = UserFactory()
    for _ in range(10):
        now[0] += 61
        log_in(page, trader.username, "not the password")
    log_in(page, trader.username, PASSWORD)
    assert path_of(page) == reverse("login")
    sync_api.expect(page.get_by_role("alert")).to_have_text(
        "login locked: 10 failed attempts for this username; try again in 15 minutes or ask staff to unlock it"
    )


def test_a_trader_creates_copies_and_revokes_a_runner_token_on_a_phone(page, console_errors):  # noqa: F811
    page.set_viewport_size({"width": 390, "height": 844})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    deployment = DeploymentFactory()
    log_in(page, deployment.owner.username, PASSWORD)
    page.goto(reverse("deployment-runner-tokens", args=[deployment.pk]))
    page.get_by_label("Name").fill("vps runner")
    page.get_by_role("button", name="Create token").click()

    key = page.locator("#new-runner-token-key").inner_text()
    assert key.startswith("rt_")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.get_by_role("button", name="Copy key").click()
    sync_api.expect(page.get_by_role("status")).to_have_text("Copied")
    assert page.evaluate("() => navigator.clipboard.readText()") == key
    page.screenshot(path=f"{ARTIFACTS}/runner-token-created-390.png", full_page=True)

    page.reload()
    sync_api.expect(page.locator("#new-runner-token")).to_have_count(0)
    assert RunnerToken.objects.filter(deployment=deployment).count() == 1
    page.get_by_text("Revoke…").click()
    page.screenshot(path=f"{ARTIFACTS}/runner-token-revoke-confirm-390.png", full_page=True)
    page.get_by_role("button", name="Yes, revoke runner token vps runner").click()
    sync_api.expect(page.get_by_text("Revoke…")).to_have_count(0)
    assert RunnerToken.objects.get().revoked_at is not None
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
    assert console_errors == []

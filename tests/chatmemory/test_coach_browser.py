# ruff: noqa: F811 (fixtures imported from the other browser tests)
"""The coach chat page in a real headless Chromium at a desktop and a phone width, the model being the local
stub Messages API: a turn with a tool call, the facts panel, the modes; and the page without a key.
Screenshots go to test-artifacts/journal-browser/ (git-ignored)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright import sync_api

from chatmemory import services
from tests.anthropic_stub import text_message, tool_use_message
from tests.chatmemory.test_coach_page import no_key, stub  # noqa: F401 (fixtures)
from tests.factories import PASSWORD
from tests.ledger.test_journal_browser import VIEWPORTS, assert_no_sideways_scroll, shoot
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_trader_asks_the_coach_and_sees_its_tool_calls_and_facts(page, console_errors, owner, stub, viewport):
    services.fact_create(
        owner=owner, fact="Never above 3x leverage.", topic="risk", source="profile", confidence="asserted"
    )
    stub.respond(
        tool_use_message(("toolu_1", "get_my_deployments", {}), text="Let me look."),
        text_message("You have no deployments yet. Start with a skill, then deploy it in paper mode."),
    )
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("coach-chat"))
    sync_api.expect(page.get_by_role("heading", name=re.compile(r"^Coach"))).to_be_visible()
    sync_api.expect(page.locator("#facts-panel")).to_contain_text("Facts for the next answer")
    sync_api.expect(page.locator("#facts-panel")).to_contain_text("Never above 3x leverage.")
    sync_api.expect(page.locator(".chat-mode")).to_have_count(3)
    shoot(page, f"{viewport}-06-coach-empty")

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")
    page.get_by_role("radio", name=re.compile(r"^\s*ops\b")).check()
    page.get_by_label("Message", exact=True).fill("What is running right now?")
    page.get_by_role("button", name="Send").click()
    log = page.locator("#chat-log")
    sync_api.expect(log.locator(".chat-msg")).to_have_count(2)
    sync_api.expect(log.locator(".chat-user")).to_contain_text("What is running right now?")
    sync_api.expect(log.locator(".chat-assistant .chat-text")).to_have_text(
        "You have no deployments yet. Start with a skill, then deploy it in paper mode."
    )
    call = log.locator("details.tool-call")
    sync_api.expect(call.locator("summary")).to_contain_text("get_my_deployments")
    sync_api.expect(call.locator("summary")).to_contain_text("ok")
    sync_api.expect(call.locator(".tool-result")).to_be_hidden()  # compact until opened
    call.locator("summary").click()
    sync_api.expect(call.locator(".tool-result")).to_be_visible()
    sync_api.expect(page.locator("#facts-panel")).to_contain_text("Facts in the last answer 1 injected")
    sync_api.expect(page.get_by_label("Message", exact=True)).to_have_value("")
    sync_api.expect(page.get_by_role("radio", name=re.compile(r"^\s*ops\b"))).to_be_checked()
    assert page.evaluate("window.notReloaded") is True
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-07-coach-answered")

    page.get_by_role("button", name="Send").click()  # an empty message: the rule next to the field
    sync_api.expect(page.locator("#chat-message-errors")).to_have_text("Write a message for the coach.")
    sync_api.expect(log.locator(".chat-msg")).to_have_count(2)
    assert len(stub.requests) == 2
    assert console_errors == []


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_without_a_key_the_page_says_so(page, console_errors, owner, no_key, viewport):
    page.set_viewport_size(VIEWPORTS[viewport])
    log_in(page, owner.username, PASSWORD)
    page.wait_for_function("() => document.body.dataset.siteReady === '1'")
    if viewport == "phone":  # the nav sits behind the Menu button below 760 px
        page.locator("header").get_by_role("button", name="Menu").click()
    page.locator("header").get_by_role("link", name="Coach", exact=True).click()
    page.wait_for_url(re.compile(re.escape(reverse("coach-chat")) + "$"))
    sync_api.expect(page.locator("#coach-unavailable")).to_contain_text("The coach is off on this server")
    sync_api.expect(page.get_by_role("button", name="Send")).to_be_disabled()
    assert_no_sideways_scroll(page)
    shoot(page, f"{viewport}-08-coach-without-key")
    assert console_errors == []

"""The preview page in a real headless Chromium: the exact runner text, and the what-if controls via htmx."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse
from playwright import sync_api

from agentcontext.preview import PLACEHOLDER_LESSONS_SEGMENT
from tests.agentcontext.test_preview_page import deployment, traded, with_manual  # noqa: F401 (fixtures)
from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

SCREENSHOT = "/tmp/preview.png"


def api_context(page, deployment) -> dict:  # noqa: F811
    """The context API's answer, fetched by the page itself with the trader's session."""
    url = reverse("api-context", args=[deployment.pk])
    return page.evaluate("url => fetch(url, {credentials: 'same-origin'}).then(r => r.json())", url)


def text_content(page, selector: str) -> str:  # noqa: F811
    return page.locator(selector).text_content()


def test_it_previews_the_runners_text_and_re_renders_the_what_if_settings_live(page, console_errors, owner, traded):  # noqa: F811
    preview_path = reverse("deployment-preview", args=[traded.pk])
    log_in(page, owner.username, PASSWORD)
    page.get_by_role("link", name=f"Preview of what the agent of deployment #{traded.pk} sees").click()
    page.wait_for_url(re.compile(re.escape(preview_path) + "$"))
    assert path_of(page) == preview_path

    trades = page.locator("#section-recent_trades-text")
    placeholder = page.locator("#segment-lessons.is-placeholder")
    sync_api.expect(trades).to_have_count(1)
    sync_api.expect(placeholder).to_be_visible()
    sync_api.expect(page.locator("#segment-lessons-text")).to_have_text(PLACEHOLDER_LESSONS_SEGMENT)
    assert len(text_content(page, "#section-recent_trades-text").split("\n")) == 4  # header + K=3 rows
    page.screenshot(path=SCREENSHOT, full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this

    # The exact view: what the runner gets, byte for byte, as the browser holds it.
    page.get_by_label("Lessons placeholder").select_option("hide")
    page.wait_for_url(re.compile(r"\?placeholder=hide$"))
    sync_api.expect(placeholder).to_have_count(0)
    body = api_context(page, traded)
    assert text_content(page, "#system-prompt-text") == body["system_prompt"]["text"]
    assert text_content(page, "#memory-text") == body["text"]
    assert page.evaluate("window.notReloaded") is True

    # K re-renders the recent trades in place and the URL carries the setting.
    page.get_by_label("Recent trades K").fill("1")
    page.get_by_label("Recent trades K").press("Tab")
    page.wait_for_url(re.compile(r"\?recent_trades_k=1&placeholder=hide$"))
    sync_api.expect(page.locator("#preview-mode")).to_contain_text("what if")
    assert len(text_content(page, "#section-recent_trades-text").split("\n")) == 2
    sync_api.expect(page.get_by_label("Recent trades K")).to_have_value("1")
    assert page.evaluate("window.notReloaded") is True

    # Memory off hides the memory-only sections.
    page.get_by_label("Memory on/off").select_option("off")
    page.wait_for_url(re.compile(r"\?recent_trades_k=1&memory=off&placeholder=hide$"))
    sync_api.expect(trades).to_have_count(0)
    sync_api.expect(page.locator("#section-open_positions-text")).to_have_count(0)
    sync_api.expect(page.locator(".tag.memory-off")).to_have_count(
        3
    )  # recent trades, open positions, similar situations
    sync_api.expect(page.locator("#section-last_decision-text")).to_be_visible()
    assert page.evaluate("window.notReloaded") is True

    page.go_back()
    page.wait_for_url(re.compile(r"\?recent_trades_k=1&placeholder=hide$"))
    sync_api.expect(trades).to_have_count(1)
    sync_api.expect(page.get_by_label("Memory on/off")).to_have_value("on")

    page.reload()  # the pushed URL is a real page
    assert urlsplit(page.url).query == "recent_trades_k=1&placeholder=hide"
    assert len(text_content(page, "#section-recent_trades-text").split("\n")) == 2
    sync_api.expect(page.get_by_label("Recent trades K")).to_have_value("1")
    assert console_errors == []


# The moment the swapped-in form is in the document (a mutation observer runs right after the swapping task),
# change the memory select on it: the change must be heard, as a fast hand's would be.
CHANGE_THE_NEW_FORM_AT_ONCE = """
() => new Promise(resolve => {
  const body = document.querySelector("#preview-body");
  const observer = new MutationObserver(() => {
    const select = body.querySelector("#preview-memory");
    if (!select || select === window.oldSelect) return;
    observer.disconnect();
    select.value = "off";
    select.dispatchEvent(new Event("change", {bubbles: true}));
    resolve();
  });
  window.oldSelect = body.querySelector("#preview-memory");
  observer.observe(body, {childList: true, subtree: true});
  const k = body.querySelector("#preview-k");
  k.value = "1";
  k.dispatchEvent(new Event("change", {bubbles: true}));
})
"""


def test_a_control_changed_the_moment_it_is_swapped_in_is_heard(page, console_errors, owner, traded):  # noqa: F811
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-preview", args=[traded.pk]))
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate(CHANGE_THE_NEW_FORM_AT_ONCE)
    page.wait_for_url(re.compile(r"\?recent_trades_k=1&memory=off"))
    sync_api.expect(page.locator(".tag.memory-off")).to_have_count(3)
    assert console_errors == []


def test_it_shows_the_manual_section_and_its_what_if_settings(page, console_errors, owner, with_manual):  # noqa: F811
    log_in(page, owner.username, PASSWORD)
    page.goto(reverse("deployment-preview", args=[with_manual.pk]))
    manual = page.locator("#section-manual-text")
    sync_api.expect(manual).to_be_visible()
    body = api_context(page, with_manual)
    assert text_content(page, "#section-manual-text") == body["sections"]["manual"]
    tokens = body["token_estimate"]["per_section"]["manual"]
    sync_api.expect(page.locator("#section-manual-tokens")).to_have_text(f"{tokens} tok")
    sync_api.expect(page.locator("#tokens-manual")).to_have_text(f"{tokens} / 400")
    rows = body["sections"]["manual"].split("\n")[1:]
    assert len(rows) == 2 and rows[0].startswith("- [")

    page.wait_for_function("() => window.htmx !== undefined")
    page.get_by_label("Manual chunks").fill("1")
    page.get_by_label("Manual chunks").press("Tab")
    page.wait_for_url(re.compile(r"\?manual_k=1$"))
    assert text_content(page, "#section-manual-text") == "\n".join(body["sections"]["manual"].split("\n")[:2])

    page.get_by_label("Manual section").select_option("off")
    page.wait_for_url(re.compile(r"\?manual=off&manual_k=1$"))
    sync_api.expect(manual).to_have_count(0)
    sync_api.expect(page.locator("#section-manual .tag.memory-off")).to_have_text("manual off")
    sync_api.expect(page.locator("#tokens-manual")).to_have_text("0 / 400")
    assert console_errors == []

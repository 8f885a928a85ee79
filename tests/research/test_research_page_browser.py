"""The research page in a real headless Chromium: the htmx filters swap the table in place and update the URL,
and an experiment expands to its assessment."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from playwright import sync_api

from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)
from tests.research.test_research_page import SCRIPT_OBSERVATION, URL, research  # noqa: F401 (fixture)

pytestmark = pytest.mark.slow

SCREENSHOT = "/tmp/research.png"


def experiment(tab, experiment_id: str):
    return tab.locator(f'tr.experiment[data-experiment-id="{experiment_id}"]')


def settled(tab) -> None:
    """htmx has finished a swap: the swapped-in filter form listens again (htmx binds it as the swap
    settles; a change made before that, on a slow machine, goes unheard)."""
    tab.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')")


def test_it_filters_in_place_and_expands_an_experiment_to_its_assessment(
    page,  # noqa: F811
    console_errors,  # noqa: F811
    owner,
    research,  # noqa: F811
):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    log_in(page, owner.username, PASSWORD)
    page.get_by_role("link", name="Research", exact=True).click()
    page.wait_for_url(re.compile(re.escape(URL) + "$"))
    rows = page.locator("#experiments tr.experiment")
    sync_api.expect(rows).to_have_count(4)
    sync_api.expect(page.locator("#hypothesis-board .hypothesis-card")).to_have_count(3)
    sync_api.expect(page.locator("#capability-requests tbody tr")).to_have_count(2)

    # Details rows are hidden until their experiment is opened.
    details = page.locator(f"#experiment-{research.adx.pk}-details")
    sync_api.expect(details).to_be_hidden()
    experiment(page, "exp_v15_adx").locator("summary").click()
    sync_api.expect(details).to_be_visible()
    sync_api.expect(details.locator(".observations li")).to_have_text([SCRIPT_OBSERVATION])  # shown as text
    sync_api.expect(details.locator(".hypotheses-generated li")).to_contain_text(["H_003"])
    sync_api.expect(page.locator(f"#experiment-{research.rsi.pk}-details")).to_be_hidden()
    page.screenshot(path=SCREENSHOT, full_page=True, caret="initial")  # hiding the caret leaves style="" on inputs
    experiment(page, "exp_v15_adx").locator("summary").click()
    sync_api.expect(details).to_be_hidden()

    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")  # a full page load would drop this
    page.get_by_label("Indicator").select_option("ADX")
    page.wait_for_url(re.compile(r"\?indicator=ADX$"))
    sync_api.expect(rows).to_have_count(2)
    sync_api.expect(page.locator("#experiment-count")).to_have_text("Experiments 1–2 of 2 matching the filters")
    assert page.evaluate("window.notReloaded") is True

    settled(page)
    page.get_by_label("Verdict").select_option("no_signal")
    page.wait_for_url(re.compile(r"\?indicator=ADX&verdict=no_signal$"))
    sync_api.expect(rows).to_have_count(1)
    sync_api.expect(experiment(page, "exp_v15_adx")).to_be_visible()
    # A swapped-in row expands too (no script to re-run).
    experiment(page, "exp_v15_adx").locator("summary").click()
    sync_api.expect(page.locator(f"#experiment-{research.adx.pk}-details")).to_be_visible()
    assert page.evaluate("window.notReloaded") is True

    page.go_back()
    page.wait_for_url(re.compile(r"\?indicator=ADX$"))
    sync_api.expect(rows).to_have_count(2)
    sync_api.expect(page.get_by_label("Indicator")).to_have_value("ADX")
    sync_api.expect(page.get_by_label("Verdict")).to_have_value("")

    page.reload()  # the pushed URL is a real page
    assert urlsplit(page.url).query == "indicator=ADX"
    sync_api.expect(rows).to_have_count(2)
    sync_api.expect(page.get_by_label("Indicator")).to_have_value("ADX")
    sync_api.expect(page.locator("#hypothesis-board .hypothesis-card")).to_have_count(3)

    settled(page)
    page.get_by_label("Indicator").select_option("")
    page.wait_for_url(re.compile(re.escape(URL) + "$"))
    sync_api.expect(rows).to_have_count(4)
    assert path_of(page) == URL
    assert dialogs == []
    assert console_errors == []

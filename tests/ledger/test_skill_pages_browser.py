"""Skills and deployments from the pages, in a real headless Chromium at 1280×900 and 390×844: create a skill
(a bad field first: the error under it, the input kept), edit it into v2, deploy v2, pause and resume. Nothing
scrolls the page sideways. Screenshots go to test-artifacts/act-browser/ (git-ignored) and stay after the run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from playwright import sync_api

from ledger.models import Deployment, DeploymentStatus, Skill
from tests.factories import PASSWORD
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page, path_of  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow

ARTIFACTS = Path(settings.BASE_DIR) / "test-artifacts" / "act-browser"
VIEWPORTS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("skills-*.png"):
        old.unlink()
    return ARTIFACTS


def not_wider_than_the_window(page) -> None:  # noqa: F811
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"{path_of(page)} is {width} px wide"


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_it_creates_edits_deploys_pauses_and_resumes(page, console_errors, artifacts, owner, viewport):  # noqa: F811
    page.set_viewport_size(VIEWPORTS[viewport])

    def shoot(step: str) -> None:
        not_wider_than_the_window(page)
        page.screenshot(
            path=str(artifacts / f"skills-{viewport}-{step}.png"), full_page=True, caret="initial"
        )  # hiding the caret sets a style= (CSP)

    log_in(page, owner.username, PASSWORD)
    page.locator("#skills-link").click()
    page.wait_for_url(re.compile(re.escape(reverse("skills")) + "$"))
    sync_api.expect(page.locator(".empty")).to_contain_text("No skills yet")
    shoot("01-no-skills")

    page.locator("#skill-new").click()
    page.get_by_label("Name").fill("Breakout ETH")
    page.get_by_label("Strategy").fill("Buy the breakout above the 20-bar high.")
    page.get_by_label("Avoid rules").fill("No trades on Sunday\nNever more than 3x leverage")
    page.get_by_label("Recent trades shown (K)").fill("40")
    page.get_by_role("button", name="Create skill").click()
    page.wait_for_load_state()
    sync_api.expect(page.locator("#skill-recent_trades_k-errors")).to_have_text("must be between 1 and 30")
    sync_api.expect(page.get_by_label("Recent trades shown (K)")).to_have_attribute("aria-invalid", "true")
    sync_api.expect(page.get_by_label("Name")).to_have_value("Breakout ETH")  # the input is kept
    sync_api.expect(page.get_by_label("Avoid rules")).to_have_value("No trades on Sunday\nNever more than 3x leverage")
    assert Skill.objects.count() == 0
    shoot("02-create-error-under-its-field")

    page.get_by_label("Recent trades shown (K)").fill("8")
    page.get_by_role("button", name="Create skill").click()
    skill = Skill.objects.get(owner=owner)
    page.wait_for_url(re.compile(re.escape(reverse("skill", args=[skill.pk])) + "$"))
    sync_api.expect(page.locator(".messages")).to_contain_text("Created skill Breakout ETH with its version 1.")
    sync_api.expect(page.locator("#latest-version")).to_contain_text("8 recent trades")
    shoot("03-created")

    page.locator("#skill-edit").click()
    sync_api.expect(page.get_by_label("Strategy")).to_have_value("Buy the breakout above the 20-bar high.")
    page.get_by_label("Strategy").fill("Buy the breakout above the 50-bar high.")
    page.get_by_label("Memory on").uncheck()
    shoot("04-edit")
    page.get_by_role("button", name="Save as v2").click()
    page.wait_for_url(re.compile(re.escape(reverse("skill", args=[skill.pk])) + "$"))
    sync_api.expect(page.locator(".messages")).to_contain_text("Saved Breakout ETH v2.")
    sync_api.expect(page.locator("#latest-version")).to_contain_text("50-bar high")
    sync_api.expect(page.locator("#versions tbody tr")).to_have_count(2)

    page.locator("#deploy-version").fill("9")
    page.get_by_role("button", name="Deploy").click()
    page.wait_for_load_state()
    sync_api.expect(page.locator("#deploy-version-errors")).to_have_text("this skill has no version 9; its latest is 2")
    sync_api.expect(page.locator("#deploy-version")).to_have_value("9")
    shoot("05-deploy-error")
    page.locator("#deploy-version").fill("2")
    page.locator("#deploy-mode").select_option("sim")
    page.get_by_role("button", name="Deploy").click()
    page.wait_for_url(re.compile(re.escape(reverse("skill", args=[skill.pk])) + "$"))
    deployment = Deployment.objects.get(owner=owner)
    assert (deployment.skill_version.version, deployment.mode) == (2, "sim")
    row = page.locator(f"#deployment-{deployment.pk}")
    sync_api.expect(row).to_contain_text("running")
    shoot("06-deployed")

    row.get_by_role("button", name=f"Pause deployment #{deployment.pk}").click()
    page.wait_for_url(re.compile(re.escape(reverse("skill", args=[skill.pk])) + "$"))
    sync_api.expect(row).to_contain_text("paused")
    sync_api.expect(page.locator(".messages")).to_contain_text(f"Paused deployment #{deployment.pk}.")
    deployment.refresh_from_db()
    assert deployment.status == DeploymentStatus.STOPPED
    shoot("07-paused")

    page.goto(reverse("home"))
    page.get_by_role("button", name=f"Resume deployment #{deployment.pk}").click()
    page.wait_for_url(re.compile(re.escape(reverse("home")) + "$"))
    sync_api.expect(page.get_by_role("button", name=f"Pause deployment #{deployment.pk}")).to_be_visible()
    deployment.refresh_from_db()
    assert deployment.status == DeploymentStatus.RUNNING
    shoot("08-resumed-from-home")
    assert console_errors == []

"""Every main page, the admin and the API docs in a real headless Chromium under the Content-Security-Policy:
no violation (no inline script, handler attribute or style element runs, none is needed) and htmx still works."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright import sync_api

from recall.models import Document
from tests.factories import PASSWORD, UserFactory
from tests.ledger.test_pages_browser import browser, console_errors, log_in, page  # noqa: F401 (fixtures)
from tests.security.world import make_trader

pytestmark = pytest.mark.slow

# Recorded by the page itself (Playwright injects it outside the policy), before any of the page's scripts run.
RECORD_VIOLATIONS = """
window.cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


@pytest.fixture
def trader(db):
    return make_trader("walker")


def visit(page, path: str) -> list[str]:  # noqa: F811
    response = page.goto(path)
    assert response.status == 200, (path, response.status)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_load_state("networkidle")
    return page.evaluate("window.cspViolations")


def test_it_runs_every_page_without_a_policy_violation_and_htmx_still_swaps(page, console_errors, trader):  # noqa: F811
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, trader.user.username, PASSWORD)
    deployment_id, skill_id = trader.deployment_id, trader.skill_id
    paths = [
        reverse("home"),
        reverse("deployment-trades", args=[deployment_id]),
        reverse("deployment-preview", args=[deployment_id]),
        reverse("skill-lessons", args=[skill_id]),
        reverse("profile-facts"),
        reverse("chat-preview"),
        reverse("coach-chat"),
        reverse("markets"),
        reverse("research"),
        reverse("recall"),
        reverse("recall-document", args=[trader.document_id]),
        reverse("api-docs"),
    ]
    for path in paths:
        assert visit(page, path) == [], path
    sync_api.expect(page.locator(".swagger-ui .info .title")).to_contain_text("Trading-agent memory service API")

    # htmx: the recall search swaps its results in place (no page load).
    visit(page, reverse("recall"))
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")
    page.locator("#recall-q").fill("breakouts")
    page.locator("#recall-q").press("Enter")
    sync_api.expect(page.locator("#citations")).to_contain_text("notes/strategy.md")
    assert page.evaluate("window.notReloaded") is True

    # The preview swaps a 400 naming the bad parameter in (base.html's responseHandling, no handler of ours).
    visit(page, reverse("deployment-preview", args=[deployment_id]))
    page.wait_for_function("() => window.htmx !== undefined")
    page.evaluate("window.notReloaded = true")
    page.locator("#preview-k").evaluate("input => input.removeAttribute('max')")  # past the browser's own check
    with page.expect_response(re.compile(r"recent_trades_k=99")) as answer:
        page.get_by_label("Recent trades K").fill("99")
        page.get_by_label("Recent trades K").press("Tab")
    assert answer.value.status == 400
    sync_api.expect(page.locator("#bad-request")).to_contain_text("recent_trades_k")
    assert page.evaluate("window.notReloaded") is True
    assert page.evaluate("window.cspViolations") == []
    assert [error for error in console_errors if "400" not in error] == []


def test_the_admin_runs_without_a_policy_violation(page, console_errors, trader):  # noqa: F811
    staff = UserFactory(username="curator", is_staff=True, is_superuser=True)
    page.add_init_script(RECORD_VIOLATIONS)
    page.goto(reverse("admin:login"))
    page.get_by_label("Username").fill(staff.username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_load_state()
    document = Document.objects.get(pk=trader.document_id)
    paths = [
        reverse("admin:index"),
        reverse("admin:ledger_skill_changelist"),
        reverse("admin:ledger_skill_change", args=[trader.skill_id]),
        reverse("admin:recall_document_changelist"),
        reverse("admin:recall_document_add"),
        reverse("admin:recall_document_change", args=[document.pk]),
    ]
    for path in paths:
        assert visit(page, path) == [], path
    assert console_errors == []


PHONE = {"width": 390, "height": 844}


def test_no_page_is_wider_than_a_phone(page, trader):  # noqa: F811
    """Wide tables scroll inside their own box; long names in a select or a card wrap (the walk-through
    found the home page 964 px wide, the runner tokens 608 px and recall 405 px at 390 px)."""
    from ledger.models import Deployment, SkillVersion

    version = SkillVersion.objects.get(skill_id=trader.skill_id)
    version.skill.name = "A rather long skill name for mean reversion on BTC perpetuals"
    version.skill.save()
    Deployment.objects.filter(pk=trader.deployment_id).update(skill_version=version)
    page.set_viewport_size(PHONE)
    log_in(page, trader.user.username, PASSWORD)
    paths = [
        reverse("home"),
        reverse("deployment-runner-tokens", args=[trader.deployment_id]),
        reverse("deployment-trades", args=[trader.deployment_id]),
        reverse("recall"),
        reverse("research"),
        reverse("account-tokens"),
        reverse("coach-chat"),
    ]
    widths = {}
    for path in paths:
        assert page.goto(path).status == 200, path
        page.wait_for_load_state("networkidle")
        widths[path] = page.evaluate("document.documentElement.scrollWidth")
    assert {path: width for path, width in widths.items() if width > PHONE["width"]} == {}

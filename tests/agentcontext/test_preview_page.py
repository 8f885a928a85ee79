"""The preview page (/deployments/<id>/preview/): what the agent sees, byte for byte the context API's text.

Trades come from ticks posted through the real API; the lessons note from reflection.services
(a reflection run with a tiny engine).
"""

from __future__ import annotations

import datetime as dt
import html
import re

import pytest
from django.urls import reverse

from agentcontext.preview import MEMORY_TOKEN_BUDGET, PLACEHOLDER_LESSONS, PLACEHOLDER_LESSONS_SEGMENT
from ledger.models import Deployment, SkillVersion
from ledger.services import materialize_if_behind
from memorysite.text import estimate_tokens
from reflection import services
from reflection.core import ReflectionResult
from tests.factories import DeploymentFactory
from tests.ledger.test_trades_page import T0, executed, position, post_tick

HTMX = {"HX-Request": "true"}
SCRIPT_REASON = "breakout <script>alert('pwned')</script> & \"fade\""
LESSONS = (
    '### Entry timing\n- BTC <b>breakouts</b> won 2/2 (+$15 total) & "fades" lost\n### Sizing\n(no clear pattern yet)'
)
SEGMENT_KEYS = ("header", "leash", "strategy", "lessons", "footer")
SECTION_KEYS = ("last_decision", "recent_activity", "recent_trades", "open_positions")
LONG_REASON = "breakout above the prior swing high with volume confirmation on the 5m, sized half " * 2


class TinyEngine:
    """A reflection engine that answers with a fixed text."""

    def __init__(self, text: str):
        self.text = text

    def reflect(self, inp):
        return ReflectionResult(text=self.text, model_used="canned")


def preview_url(deployment, **query) -> str:
    url = reverse("deployment-preview", args=[deployment.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def pre(content: str, element_id: str) -> str | None:
    """The unescaped text of the <pre> with this id, or None when there is none."""
    match = re.search(rf'<pre class="prompt-text" id="{element_id}">(.*?)</pre>', content, re.S)
    return html.unescape(match.group(1)) if match else None


def text_of(content: str, element_id: str) -> str:
    match = re.search(rf'id="{element_id}"[^>]*>(.*?)</', content, re.S)
    assert match, f"#{element_id} missing"
    return html.unescape(match.group(1)).strip()


def api_context(api, deployment) -> dict:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200
    return response.json()


def materialized(deployment) -> Deployment:
    deployment = Deployment.objects.get(pk=deployment.pk)
    materialize_if_behind(deployment)
    return Deployment.objects.get(pk=deployment.pk)


def closed_rows(content: str) -> list[str]:
    section = pre(content, "section-recent_trades-text")
    return section.split("\n")[1:] if section else []


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__skill__name="Breakout BTC",
        skill_version__recent_trades_k=3,
        skill_version__strategy_text='Buy <breakouts> & sell "fades".',
        skill_version__avoid_rules="Never hold more than two positions.\nNo <leverage> above 3x & never 'martingale'",
    )


@pytest.fixture
def traded(owner_api, deployment):
    """Three closed trades (BTC twice, ETH), SOL open, and a rejection in the last hour."""
    post_tick(
        owner_api,
        deployment,
        0,
        [position("BTC", 1, 100), position("ETH", 2, 50, side="short")],
        **executed("propose_order", SCRIPT_REASON),
    )
    post_tick(owner_api, deployment, 10, [], marks={"BTC": 110, "ETH": 55}, **executed("close_position", "take profit"))
    post_tick(
        owner_api,
        deployment,
        20,
        [position("BTC", 1, 100), position("SOL", 3, 10)],
        **executed("propose_order", "mean reversion"),
    )
    post_tick(
        owner_api, deployment, 30, [position("SOL", 3, 11)], marks={"BTC": 105}, proposed_action={"kind": "flatten"}
    )
    post_tick(
        owner_api,
        deployment,
        40,
        [position("SOL", 3, 12)],
        proposed_action={"kind": "propose_order", "symbol": "SOL", "reason": "add"},
        engine={"kind": "rejected", "rule": "R3_POSITION_CAP"},
    )
    return deployment


@pytest.fixture
def with_lessons(traded):
    note = services.reflection_run(
        deployment_id=materialized(traded).pk, engine=TinyEngine(LESSONS), now=T0 + dt.timedelta(minutes=45)
    )
    assert note is not None
    return Deployment.objects.get(pk=traded.pk)


@pytest.fixture
def crowded(owner, owner_api):
    """30 closed trades with long reasons: far past the memory budget at K=30, well under at K=1."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__recent_trades_k=10)
    minutes = 0
    for first in range(0, 30, 6):
        symbols = [f"S{i}" for i in range(first, first + 6)]
        opened = [position(symbol, 1, 100) for symbol in symbols]
        post_tick(owner_api, deployment, minutes, opened, **executed("propose_order", LONG_REASON))
        marks = {symbol: 101 for symbol in symbols}
        post_tick(owner_api, deployment, minutes + 5, [], marks=marks, **executed("close_position", "done"))
        minutes += 10
    return deployment


class TestAccess:
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, deployment):
        url = preview_url(deployment)
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={url}"

    def test_an_htmx_request_after_the_session_expired_redirects_the_whole_page_to_login(self, client, deployment):
        url = preview_url(deployment)
        headers = {**HTMX, "HX-Current-URL": f"http://testserver{url}"}
        response = client.get(preview_url(deployment, recent_trades_k=1), headers=headers)
        assert response.status_code == 200
        assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fdeployments%2F{deployment.pk}%2Fpreview%2F"

    def test_it_404s_for_the_other_trader(self, client, other, traded):
        client.force_login(other)
        assert client.get(preview_url(traded)).status_code == 404
        assert client.get(preview_url(traded, recent_trades_k=2), headers=HTMX).status_code == 404
        assert client.get(preview_url(traded, recent_trades_k="nope")).status_code == 404  # not a 400: no leak

    def test_it_404s_for_a_deployment_that_does_not_exist(self, client, owner):
        client.force_login(owner)
        assert client.get(reverse("deployment-preview", args=[999_999])).status_code == 404


class TestExactRunnerText:
    def test_it_shows_byte_for_byte_what_the_context_api_returns(self, client, owner, owner_api, with_lessons):
        client.force_login(owner)
        content = client.get(preview_url(with_lessons)).content.decode()  # first: the page catches up itself
        body = api_context(owner_api, with_lessons)
        segments = body["system_prompt"]["segments"]
        assert segments["lessons"] is not None
        for key in SEGMENT_KEYS:
            assert pre(content, f"segment-{key}-text") == segments[key], key
        assert pre(content, "system-prompt-text") == body["system_prompt"]["text"]
        assert all(body["sections"][key] for key in SECTION_KEYS)  # every section is populated
        for key in SECTION_KEYS:
            assert pre(content, f"section-{key}-text") == body["sections"][key], key
        assert pre(content, "memory-text") == body["text"]
        assert "exact" in text_of(content, "preview-mode")
        assert PLACEHOLDER_LESSONS not in content

    def test_it_escapes_the_text_it_shows(self, client, owner, with_lessons):
        client.force_login(owner)
        content = client.get(preview_url(with_lessons)).content.decode()
        assert "<script>alert" not in content
        assert "<b>breakouts</b>" not in content
        assert "&lt;b&gt;breakouts&lt;/b&gt;" in content
        assert "Buy &lt;breakouts&gt; &amp; sell &quot;fades&quot;." in content

    def test_it_estimates_tokens_per_part_and_in_total(self, client, owner, owner_api, with_lessons):
        client.force_login(owner)
        content = client.get(preview_url(with_lessons)).content.decode()
        body = api_context(owner_api, with_lessons)
        for key in SECTION_KEYS:
            assert text_of(content, f"section-{key}-tokens") == f"{body['token_estimate']['per_section'][key]} tok"
        for key in SEGMENT_KEYS:
            expected = -(-len(body["system_prompt"]["segments"][key]) // 4)
            assert text_of(content, f"segment-{key}-tokens") == f"{expected} tok"
        system = -(-len(body["system_prompt"]["text"]) // 4)
        memory = body["token_estimate"]["total"]
        assert text_of(content, "tokens-system") == str(system)
        assert text_of(content, "tokens-memory") == str(memory)
        assert text_of(content, "tokens-total") == str(system + memory)
        lessons = -(-len(body["system_prompt"]["segments"]["lessons"]) // 4)
        assert text_of(content, "tokens-budget") == f"{memory + lessons} / {MEMORY_TOKEN_BUDGET}"

    def test_it_catches_the_ledger_up_before_rendering(self, client, owner, owner_api, traded):
        post_tick(owner_api, traded, 50, [], marks={"SOL": 13}, **executed("close_position", "done", "SOL"))
        client.force_login(owner)
        content = client.get(preview_url(traded)).content.decode()
        assert pre(content, "section-open_positions-text") is None
        assert "close_position SOL" in pre(content, "section-last_decision-text")
        assert any(" SOL long " in row for row in closed_rows(content))

    def test_before_the_first_tick_the_memory_block_is_empty(self, client, owner, owner_api, deployment):
        client.force_login(owner)
        content = client.get(preview_url(deployment, placeholder="hide")).content.decode()
        body = api_context(owner_api, deployment)
        assert body["text"] == ""
        assert pre(content, "memory-text") == ""
        assert pre(content, "system-prompt-text") == body["system_prompt"]["text"]
        assert content.count("(suppressed: nothing to show yet)") == 5  # + similar past situations


class TestPlaceholder:
    def test_without_lessons_it_shows_a_marked_placeholder_by_default(self, client, owner, owner_api, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded)).content.decode()
        body = api_context(owner_api, traded)
        assert body["system_prompt"]["segments"]["lessons"] is None
        assert pre(content, "segment-lessons-text") == PLACEHOLDER_LESSONS_SEGMENT
        assert PLACEHOLDER_LESSONS.startswith("(placeholder — no lessons yet")
        assert 'class="prompt-part is-placeholder" id="segment-lessons"' in content
        assert "placeholder · not sent" in content
        assert text_of(content, "segment-lessons-tokens") == "0 tok"
        shown = pre(content, "system-prompt-text")
        assert PLACEHOLDER_LESSONS_SEGMENT in shown
        assert shown.replace(PLACEHOLDER_LESSONS_SEGMENT + "\n\n", "") == body["system_prompt"]["text"]
        assert "placeholder shown" in text_of(content, "preview-mode")

    def test_hiding_it_shows_the_runners_exact_text(self, client, owner, owner_api, traded):
        client.force_login(owner)
        shown = client.get(preview_url(traded)).content.decode()
        content = client.get(preview_url(traded, placeholder="hide")).content.decode()
        body = api_context(owner_api, traded)
        assert pre(content, "segment-lessons-text") is None
        assert "no active lessons note, so the runner gets no lessons segment" in content
        for key in ("header", "leash", "strategy", "footer"):
            assert pre(content, f"segment-{key}-text") == body["system_prompt"]["segments"][key]
        assert pre(content, "system-prompt-text") == body["system_prompt"]["text"]
        assert pre(content, "memory-text") == body["text"]
        assert PLACEHOLDER_LESSONS not in content
        assert "exact" in text_of(content, "preview-mode")
        assert text_of(content, "tokens-system") == text_of(shown, "tokens-system")  # the placeholder counts 0

    def test_the_placeholder_control_is_offered_only_without_lessons(self, client, owner, traded):
        client.force_login(owner)
        assert 'id="preview-placeholder"' in client.get(preview_url(traded)).content.decode()
        with_note = services.reflection_run(deployment_id=materialized(traded).pk, engine=TinyEngine(LESSONS))
        assert with_note is not None
        assert 'id="preview-placeholder"' not in client.get(preview_url(traded)).content.decode()


class TestWhatIfControls:
    def test_k_changes_the_recent_trades_without_touching_the_saved_version(self, client, owner, owner_api, traded):
        client.force_login(owner)
        assert len(closed_rows(client.get(preview_url(traded)).content.decode())) == 3
        content = client.get(preview_url(traded, recent_trades_k=1)).content.decode()
        rows = closed_rows(content)
        assert len(rows) == 1
        assert (
            rows[0]
            == pre(client.get(preview_url(traded)).content.decode(), "section-recent_trades-text").split("\n")[1]
        )  # the newest
        assert 'value="1"' in content
        assert "what if" in text_of(content, "preview-mode")
        assert SkillVersion.objects.get(pk=traded.skill_version_id).recent_trades_k == 3
        assert len(api_context(owner_api, traded)["sections"]["recent_trades"].split("\n")) == 4  # still K=3

    def test_k_at_the_saved_value_is_the_exact_view(self, client, owner, owner_api, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded, recent_trades_k=3, placeholder="hide")).content.decode()
        assert pre(content, "memory-text") == api_context(owner_api, traded)["text"]
        assert "exact" in text_of(content, "preview-mode")

    def test_memory_off_drops_the_memory_only_sections(self, client, owner, owner_api, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded, memory="off")).content.decode()
        body = api_context(owner_api, traded)
        assert pre(content, "section-recent_trades-text") is None
        assert pre(content, "section-open_positions-text") is None
        assert content.count('<span class="tag memory-off">memory off</span>') == 3  # + similar past situations
        kept = [body["sections"]["last_decision"], body["sections"]["recent_activity"]]
        assert pre(content, "memory-text") == "\n\n".join(kept)
        assert text_of(content, "section-recent_trades-tokens") == "0 tok"
        assert '<option value="off" selected>off</option>' in content
        assert SkillVersion.objects.get(pk=traded.skill_version_id).memory_enabled is True

    def test_memory_on_shows_the_sections_of_a_version_saved_without_memory(self, client, owner, owner_api):
        deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__memory_enabled=False)
        post_tick(owner_api, deployment, 0, [position("BTC", 1, 100)], **executed("propose_order", "go"))
        client.force_login(owner)
        saved = client.get(preview_url(deployment)).content.decode()
        assert pre(saved, "section-open_positions-text") is None
        content = client.get(preview_url(deployment, memory="on")).content.decode()
        assert pre(content, "section-open_positions-text").startswith("## Open positions (memory view)\n- BTC long")

    @pytest.mark.parametrize("value", ["0", "31", "abc", "1.5", "-1", "+3", "1e1", "٣"])
    def test_an_invalid_k_is_a_400_naming_the_parameter(self, client, owner, traded, value):
        client.force_login(owner)
        for headers in ({}, HTMX):
            response = client.get(preview_url(traded), {"recent_trades_k": value}, headers=headers)
            assert response.status_code == 400
            message = text_of(response.content.decode(), "bad-request")
            assert message.startswith(f"Invalid query parameter “recent_trades_k”: {value!r} is not a whole number")
            assert "from 1 to 30" in message

    @pytest.mark.parametrize(("name", "value"), [("memory", "maybe"), ("placeholder", "yes")])
    def test_an_invalid_switch_is_a_400_naming_the_parameter(self, client, owner, traded, name, value):
        client.force_login(owner)
        response = client.get(preview_url(traded), {name: value})
        assert response.status_code == 400
        assert text_of(response.content.decode(), "bad-request").startswith(
            f"Invalid query parameter “{name}”: {value!r}"
        )

    def test_an_htmx_400_keeps_the_controls_and_pushes_no_url(self, client, owner, traded):
        client.force_login(owner)
        response = client.get(preview_url(traded, recent_trades_k=99), headers=HTMX)
        assert response.status_code == 400
        content = response.content.decode()
        assert "<html" not in content
        assert 'id="preview-controls"' in content
        assert 'value="99"' in content
        assert response["HX-Push-Url"] == "false"
        full = client.get(preview_url(traded, recent_trades_k=99))
        assert full.status_code == 400
        assert "<html" in full.content.decode()

    def test_empty_values_mean_the_saved_settings(self, client, owner, owner_api, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded), {"recent_trades_k": "", "memory": "", "placeholder": "hide"})
        assert content.status_code == 200
        assert pre(content.content.decode(), "memory-text") == api_context(owner_api, traded)["text"]


class TestBudgetWarning:
    def test_it_warns_above_the_seeds_budget_and_states_both_figures(self, client, owner, crowded):
        client.force_login(owner)
        content = client.get(preview_url(crowded, recent_trades_k=30)).content.decode()
        memory = int(text_of(content, "tokens-memory"))
        assert memory > MEMORY_TOKEN_BUDGET
        warning = text_of(content, "budget-warning")
        assert warning == (
            f"Memory is ~{memory:,} estimated tokens per tick (memory sections {memory:,} + lessons 0), above the"
            f" seed's budget of {MEMORY_TOKEN_BUDGET:,} tokens (the worst case at recent_trades_k=30 with full lessons)."
        )
        assert len(closed_rows(content)) == 30

    def test_it_does_not_warn_within_the_budget(self, client, owner, crowded):
        client.force_login(owner)
        content = client.get(preview_url(crowded, recent_trades_k=1)).content.decode()
        assert int(text_of(content, "tokens-memory")) <= MEMORY_TOKEN_BUDGET
        assert 'id="budget-warning"' not in content

    def test_the_lessons_count_toward_the_budget(self, client, owner, with_lessons):
        client.force_login(owner)
        content = client.get(preview_url(with_lessons)).content.decode()
        memory, lessons = int(text_of(content, "tokens-memory")), int(text_of(content, "segment-lessons-tokens")[:-4])
        assert lessons > 0
        assert text_of(content, "tokens-budget") == f"{memory + lessons} / {MEMORY_TOKEN_BUDGET}"


class TestHtmx:
    def test_the_form_asks_htmx_for_the_body(self, client, owner, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded)).content.decode()
        form = re.search(r'<form id="preview-controls"[^>]*>', content, re.S).group(0)
        assert f'hx-get="{preview_url(traded)}"' in form
        assert 'hx-target="#preview-body"' in form
        assert 'hx-trigger="change, submit"' in form
        assert '<div id="preview-body"' in content
        assert '"code": "400", "swap": true' in content  # base.html's one rule: the 400 message is swapped in too

    @pytest.mark.parametrize(
        ("query", "pushed"),
        [
            ({"recent_trades_k": "1"}, {"recent_trades_k": 1}),
            ({"recent_trades_k": "3", "memory": "on", "placeholder": "show"}, {}),  # the saved settings
            (
                {"recent_trades_k": "30", "memory": "off", "placeholder": "hide"},
                {
                    "recent_trades_k": 30,
                    "memory": "off",
                    "placeholder": "hide",
                },
            ),
        ],
    )
    def test_an_htmx_request_gets_the_body_and_the_canonical_url(self, client, owner, traded, query, pushed):
        client.force_login(owner)
        response = client.get(preview_url(traded), query, headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert 'id="preview-controls"' in content
        assert 'id="memory-text"' in content
        assert response["HX-Push-Url"] == preview_url(traded, **pushed)
        assert "HX-Request" in response["Vary"]

    def test_a_history_restore_request_gets_the_whole_page(self, client, owner, traded):
        client.force_login(owner)
        headers = {**HTMX, "HX-History-Restore-Request": "true"}
        response = client.get(preview_url(traded, recent_trades_k=1), headers=headers)
        assert "<html" in response.content.decode()
        assert "HX-Push-Url" not in response


class TestLinks:
    def test_the_home_page_links_each_deployment_to_its_preview(self, client, owner, deployment):
        client.force_login(owner)
        content = client.get(reverse("home")).content.decode()
        assert f'<a href="{preview_url(deployment)}" aria-label="Preview of what the agent of deployment' in content

    def test_the_trade_journal_links_to_the_preview(self, client, owner, deployment):
        client.force_login(owner)
        content = client.get(reverse("deployment-trades", args=[deployment.pk])).content.decode()
        assert f'<a href="{preview_url(deployment)}" id="preview-link">What the agent sees</a>' in content

    def test_the_preview_links_back_to_the_journal_and_the_lessons(self, client, owner, deployment):
        client.force_login(owner)
        content = client.get(preview_url(deployment)).content.decode()
        assert f'href="{reverse("deployment-trades", args=[deployment.pk])}" id="journal-link"' in content
        assert f'href="{reverse("skill-lessons", args=[deployment.skill_version.skill_id])}"' in content


class TestQueryCount:
    # session, user, deployment, 6 context reads, the active note, recall's similar situations, and the manual
    # section's search: the owner and recall's term statistics (no document here, so no candidates to read).
    # "What if" settings read the saved context too (the before/after table: 9 more, the session's and the
    # deployment's aside) and the skill's latest version (the number a save would take).
    @pytest.mark.parametrize(("query", "most"), [({}, 13), ({"recent_trades_k": "1", "memory": "off"}, 23)])
    def test_the_page_reads_a_bounded_number_of_queries(
        self, client, owner, with_lessons, django_assert_max_num_queries, query, most
    ):
        client.force_login(owner)
        assert client.get(preview_url(with_lessons)).status_code == 200  # caught up
        with django_assert_max_num_queries(most):
            assert client.get(preview_url(with_lessons), query).status_code == 200
        with django_assert_max_num_queries(most):
            assert client.get(preview_url(with_lessons), query, headers=HTMX).status_code == 200


MANUAL = """# Trading manual

## Position caps
On R3_POSITION_CAP never <add> to SOL & never resubmit: close a position first.
"""
PLAYBOOK = "# Cap playbook\nR3_POSITION_CAP: the deployment holds its maximum; propose_order only after a close.\n"


@pytest.fixture
def with_manual(owner, traded):
    """The traded deployment (last tick: SOL held, a propose_order SOL rejected with R3_POSITION_CAP) with a manual
    and a staff playbook that speak to it."""
    from recall.services import document_upsert

    document_upsert(owner=owner, path="TRADING_MANUAL.md", content=MANUAL, source="workspace", queue_embedding=False)
    document_upsert(owner=None, path="playbooks/caps.md", content=PLAYBOOK, source="playbook", queue_embedding=False)
    return traded


class TestManualSection:
    def test_it_shows_the_section_and_its_estimate_as_the_runner_gets_them(self, client, owner, owner_api, with_manual):
        client.force_login(owner)
        content = client.get(preview_url(with_manual, placeholder="hide")).content.decode()
        body = api_context(owner_api, with_manual)
        section = body["sections"]["manual"]
        assert section.startswith("## From your manual and playbooks\n- [")
        assert "- [yours] TRADING_MANUAL.md:1-4 — # Trading manual ## Position caps On R3_POSITION_CAP" in section
        assert "- [staff] playbooks/caps.md:1-2 — # Cap playbook" in section
        assert pre(content, "section-manual-text") == section
        assert "never &lt;add&gt; to SOL &amp; never resubmit" in content  # escaped like every text shown
        tokens = body["token_estimate"]["per_section"]["manual"]
        assert tokens > 0
        assert text_of(content, "section-manual-tokens") == f"{tokens} tok"
        assert text_of(content, "tokens-manual") == f"{tokens} / 400"
        assert pre(content, "memory-text") == body["text"]
        assert "manual on (k=3, cap 400 tokens)" in text_of(content, "saved-settings")

    def test_the_budget_leaves_the_manual_to_its_own_cap(self, client, owner, owner_api, with_manual):
        client.force_login(owner)
        content = client.get(preview_url(with_manual)).content.decode()
        sections = api_context(owner_api, with_manual)["sections"]
        without = "\n\n".join(text for key, text in sections.items() if text and key != "manual")
        assert text_of(content, "tokens-budget") == f"{estimate_tokens(without)} / {MEMORY_TOKEN_BUDGET}"

    def test_a_section_with_nothing_relevant_says_so(self, client, owner, traded):
        client.force_login(owner)
        content = client.get(preview_url(traded)).content.decode()
        assert pre(content, "section-manual-text") is None
        assert "nothing in your manual or the staff playbooks clears the relevance floor" in content
        assert text_of(content, "section-manual-tokens") == "0 tok"

    def test_what_if_off_k_and_cap_change_the_section_and_never_the_saved_version(
        self, client, owner, owner_api, with_manual
    ):
        client.force_login(owner)
        off = client.get(preview_url(with_manual, manual="off")).content.decode()
        assert pre(off, "section-manual-text") is None
        assert '<span class="tag memory-off">manual off</span>' in off
        assert "what if" in text_of(off, "preview-mode")
        one = pre(client.get(preview_url(with_manual, manual_k=1)).content.decode(), "section-manual-text")
        saved = api_context(owner_api, with_manual)["sections"]["manual"]
        assert one == "\n".join(saved.split("\n")[:2])
        capped = client.get(preview_url(with_manual, manual_cap=50)).content.decode()
        assert estimate_tokens(pre(capped, "section-manual-text")) <= 50
        assert text_of(capped, "tokens-manual").endswith(" / 50")
        version = SkillVersion.objects.get(pk=with_manual.skill_version_id)
        assert (version.manual_enabled, version.manual_k, version.manual_token_cap) == (True, 3, 400)
        assert api_context(owner_api, with_manual)["sections"]["manual"] == saved

    def test_the_saved_settings_are_the_exact_view(self, client, owner, owner_api, with_manual):
        client.force_login(owner)
        content = client.get(preview_url(with_manual, manual="on", manual_k=3, manual_cap=400, placeholder="hide"))
        assert "exact" in text_of(content.content.decode(), "preview-mode")

    @pytest.mark.parametrize(
        ("name", "value", "rule"),
        [
            ("manual", "maybe", "is not “on” or “off”"),
            ("manual_k", "0", "is not a whole number from 1 to 10"),
            ("manual_k", "11", "is not a whole number from 1 to 10"),
            ("manual_cap", "49", "is not a whole number from 50 to 2000"),
            ("manual_cap", "2001", "is not a whole number from 50 to 2000"),
            ("manual_cap", "lots", "is not a whole number from 50 to 2000"),
        ],
    )
    def test_an_invalid_manual_setting_is_a_400_naming_the_parameter(self, client, owner, traded, name, value, rule):
        client.force_login(owner)
        for headers in ({}, HTMX):
            response = client.get(preview_url(traded), {name: value}, headers=headers)
            assert response.status_code == 400
            message = text_of(response.content.decode(), "bad-request")
            assert message.startswith(f"Invalid query parameter “{name}”: {value!r} {rule}")

    def test_the_canonical_url_keeps_only_what_differs_from_the_saved_version(self, client, owner, traded):
        client.force_login(owner)
        response = client.get(preview_url(traded, manual="off", manual_k=3, manual_cap=60), headers=HTMX)
        assert response["HX-Push-Url"] == f"/deployments/{traded.pk}/preview/?manual=off&manual_cap=60"

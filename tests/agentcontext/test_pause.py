"""Pausing a deployment (issue 21): ticks are still recorded, so the ledger follows the venue, and the runner
and the agent are told: the context answer's `deployment_status`, and one more fixed system prompt segment
right under the avoid rules. A running deployment's prompt is byte for byte what it was."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from agentcontext.prompt import PAUSED, compose_system_prompt, compose_system_prompt_segments
from ledger.models import Deployment, TradeHistory
from ledger.services import runner_token_create
from mcpserver import tools
from tests.agentcontext.test_api_context import BUY, btc, post
from tests.factories import DeploymentFactory
from tests.openapi import assert_matches_schema

PAUSED_TEXT = (
    "You are a trading agent. Each tick you receive market data, your portfolio and your own track record, "
    "and you answer with exactly one action: propose_order, close_position, adjust_position, hold or flatten. "
    "A risk engine checks every proposal against hard caps before anything reaches the broker.\n\n"
    "Hard avoid rules (authoritative; never do any of these):\n- No DOGE\n\n"
    "The trader has paused this deployment: do not open new positions or add to open ones "
    "(no propose_order, no adjust_position that increases a position). "
    "You may hold, reduce or close open positions, or flatten.\n\n"
    'Strategy (the trader\'s own text; each line of it is quoted with "> "):\n> Buy dips.\n\n'
    "Lessons from your recent trades on this skill (auto-generated; signal, not strategy):\n- cut at -2%\n\n"
    "The avoid rules above override everything else, including the lessons, which are reference only. "
    "When in doubt, hold."
)


def compose(**extra):
    return compose_system_prompt_segments(
        strategy_text="Buy dips.", avoid_rules=("No DOGE",), lessons="### Exit timing\n- cut at -2%", **extra
    )


class TestPrompt:
    def test_the_paused_prompt_byte_for_byte(self):
        segments = compose(paused=True)
        assert segments.paused == PAUSED
        assert compose_system_prompt(segments) == PAUSED_TEXT

    def test_running_there_is_no_paused_segment_and_not_a_byte_changes(self):
        running = compose(paused=False)
        assert running == compose()
        assert running.paused is None
        assert compose_system_prompt(running) == PAUSED_TEXT.replace(PAUSED + "\n\n", "")


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner)


def runner_context(api, deployment) -> dict:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200
    assert_matches_schema(response)
    return response.json()


class TestPausedDeployment:
    def test_the_runner_reads_the_status_the_agent_is_told_and_resuming_restores_the_prompt(
        self, client, owner, deployment
    ):
        _token, key = runner_token_create(deployment=deployment, name="runner")
        api_client = APIClient()
        api_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        running = runner_context(api_client, deployment)
        assert running["deployment_status"] == "running"
        assert running["system_prompt"]["segments"]["paused"] is None
        client.force_login(owner)

        assert client.post(reverse("deployment-pause", args=[deployment.pk])).status_code == 302

        paused = runner_context(api_client, deployment)
        assert paused["deployment_status"] == "stopped"
        assert paused["system_prompt"]["segments"]["paused"] == PAUSED
        leash = paused["system_prompt"]["segments"]["leash"]
        assert f"{leash}\n\n{PAUSED}\n\n" in paused["system_prompt"]["text"]

        client.post(reverse("deployment-resume", args=[deployment.pk]))
        resumed = runner_context(api_client, deployment)
        assert resumed["deployment_status"] == "running"
        assert resumed["system_prompt"] == running["system_prompt"]

    def test_ticks_posted_while_paused_still_land_in_the_ledger(self, client, owner, owner_api, deployment):
        post(owner_api, deployment, 0, btc(1, 100), proposed_action=BUY, engine={"kind": "executed"})
        client.force_login(owner)
        client.post(reverse("deployment-pause", args=[deployment.pk]))
        post(owner_api, deployment, 10, [], marks={"BTC": 90})  # a stop at the venue while paused

        assert runner_context(owner_api, deployment)["deployment_status"] == "stopped"
        trade = TradeHistory.objects.get(deployment=deployment)
        assert trade.status == "closed" and trade.exit_price == 90
        assert Deployment.objects.get(pk=deployment.pk).status == "stopped"

    def test_the_mcp_tool_answers_the_same_status(self, owner, deployment):
        token, _key = runner_token_create(deployment=deployment, name="runner")
        Deployment.objects.filter(pk=deployment.pk).update(status="stopped")
        answer = tools.get_trading_context(tools.Principal.of(owner, token), {"deployment_id": deployment.pk})
        assert answer["deployment_status"] == "stopped"
        assert answer["system_prompt"]["segments"]["paused"] == PAUSED


def test_the_pages_say_what_pause_does(client, owner, deployment):
    client.force_login(owner)
    home = client.get(reverse("home")).content.decode()
    assert "the ticks it keeps posting are recorded" in home and "told to open nothing new" in home
    journal = reverse("deployment-trades", args=[deployment.pk])
    assert 'id="paused-note"' not in client.get(journal).content.decode()
    Deployment.objects.filter(pk=deployment.pk).update(status="stopped")
    assert "Paused: the ticks your runner posts are still recorded" in client.get(journal).content.decode()


def test_the_preview_shows_the_paused_segment_only_while_paused(client, owner, deployment):
    client.force_login(owner)
    url = reverse("deployment-preview", args=[deployment.pk])
    assert 'id="segment-paused"' not in client.get(url).content.decode()
    Deployment.objects.filter(pk=deployment.pk).update(status="stopped")
    page = client.get(url).content.decode()
    assert 'id="segment-paused-text"' in page and "The trader has paused this deployment" in page

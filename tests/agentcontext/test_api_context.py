"""GET /api/v1/deployments/{id}/context/: the memory block, read-your-writes, bounded queries."""

import datetime as dt

import pytest

from agentcontext.formatting import memory_block_token_ceiling
from tests.factories import DeploymentFactory
from tests.openapi import assert_matches_schema

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
BUY = {"kind": "propose_order", "symbol": "BTC", "reason": "breakout above prior swing high"}


def at(minutes):
    return (T0 + dt.timedelta(minutes=minutes)).isoformat()


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__recent_trades_k=2)


def post(api, deployment, minutes, positions, **extra):
    body = {"tick_at": at(minutes), "equity_usd": 10_000, "positions": positions, **extra}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def context(api, deployment):
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200
    assert_matches_schema(response)
    return response.json()


def btc(size, mark, side="long"):
    return [{"symbol": "BTC", "side": side, "size": size, "mark_price": mark}]


def test_it_is_empty_before_the_first_tick(owner_api, deployment):
    body = context(owner_api, deployment)
    assert body["text"] == ""
    assert set(body["sections"].values()) == {None}
    assert body["token_estimate"]["total"] == 0


def test_it_reflects_a_tick_right_after_it_is_posted_without_a_worker(owner_api, deployment):
    post(owner_api, deployment, 0, btc(1, 100), proposed_action=BUY, engine={"kind": "executed"})
    body = context(owner_api, deployment)
    assert body["sections"]["last_decision"] == (
        '## Last decision\n- 2026-06-04T10:00Z propose_order BTC "breakout above prior swing high" → executed'
    )
    assert body["sections"]["open_positions"].startswith("## Open positions (memory view)\n- BTC long $100 @ 100")
    assert body["sections"]["recent_trades"] is None
    assert body["text"] == "\n\n".join(s for s in body["sections"].values() if s)


def test_it_renders_closed_trades_newest_first_capped_at_recent_trades_k(owner_api, deployment):
    for n in range(3):
        post(owner_api, deployment, 20 * n, btc(1, 100 + n), proposed_action=BUY, engine={"kind": "executed"})
        post(owner_api, deployment, 20 * n + 10, [], marks={"BTC": 110 + n})
    section = context(owner_api, deployment)["sections"]["recent_trades"]
    rows = section.split("\n")[1:]
    assert len(rows) == 2  # recent_trades_k
    assert rows[0].startswith("- 2026-06-04T10:40 → 10:50 BTC long $102 102 → 112 +$10.00")
    assert "exit=liquidated" in rows[0]


def test_it_shows_the_risk_state_after_rejections(owner_api, deployment):
    for minute in range(3):
        post(
            owner_api,
            deployment,
            minute,
            [],
            proposed_action=BUY,
            engine={"kind": "rejected", "rule": "R3_POSITION_CAP"},
        )
    section = context(owner_api, deployment)["sections"]["recent_activity"]
    assert section.split("\n")[1] == "- engine rejections (last 1h): R3_POSITION_CAP=3"
    assert section.endswith("← same code in the last 3+ rejections; do not repeat the same proposal shape")


def test_it_leaves_out_the_ledger_sections_when_memory_is_disabled(owner_api, owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__memory_enabled=False)
    post(owner_api, deployment, 0, btc(1, 100))
    sections = context(owner_api, deployment)["sections"]
    assert sections["open_positions"] is None
    assert sections["recent_trades"] is None
    assert sections["last_decision"] is not None


def test_it_is_byte_identical_for_the_same_history(owner_api, deployment):
    post(owner_api, deployment, 0, btc(1, 100), proposed_action=BUY, engine={"kind": "executed"})
    assert context(owner_api, deployment) == context(owner_api, deployment)


def test_it_stays_within_the_token_ceiling(owner_api, deployment):
    for n in range(5):
        post(owner_api, deployment, 20 * n, btc(1, 100), proposed_action=BUY, engine={"kind": "executed"})
        post(owner_api, deployment, 20 * n + 10, [], marks={"BTC": 90})
    estimate = context(owner_api, deployment)["token_estimate"]
    per = estimate["per_section"]
    assert per["recent_trades"] + per["open_positions"] <= memory_block_token_ceiling(2)


def test_it_answers_in_a_bounded_number_of_queries(owner_api, deployment, django_assert_max_num_queries):
    post(owner_api, deployment, 0, btc(1, 100), proposed_action=BUY, engine={"kind": "executed"})
    context(owner_api, deployment)  # materialized
    with django_assert_max_num_queries(13):  # similar situations: the open trades, then one per open trade
        context(owner_api, deployment)


def test_a_tick_costs_a_bounded_number_of_queries(owner_api, deployment, django_assert_max_num_queries):
    with django_assert_max_num_queries(10):
        post(owner_api, deployment, 0, btc(1, 100))


def test_another_traders_context_is_a_404(other_api, anon_api, deployment):
    assert other_api.get(f"/api/v1/deployments/{deployment.pk}/context/").status_code == 404
    assert anon_api.get(f"/api/v1/deployments/{deployment.pk}/context/").status_code == 401

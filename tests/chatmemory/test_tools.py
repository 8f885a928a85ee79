"""The chat tools, called the way the coach calls them and over REST: results, rules, owner scoping."""

import datetime as dt
import math

import pytest

from chatmemory.models import UserFact
from chatmemory.tool_errors import ToolInputError, ToolNotFound
from chatmemory.tools import MAX_TOOLS, TOOLS, call_tool, tool_definitions
from reflection import services as reflection_services
from tests.factories import DeploymentFactory, UserFactory
from tests.openapi import assert_matches_schema
from tests.reflection.support import T0, CannedEngine, RoundTrip, trades

pytestmark = pytest.mark.django_db
LESSONS = "### Entry timing\n- breakouts won 2 of 3"


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Breakouts")


@pytest.fixture
def history(deployment):
    """Day 1: +2, -1 (net +1); day 2: nothing; day 3: -3, +1 (net -2). Then a lessons note."""
    trades(deployment, [RoundTrip(exit=102), RoundTrip(exit=99)])
    trades(deployment, [RoundTrip(exit=97), RoundTrip(exit=101, symbol="ETH")], start=T0 + dt.timedelta(days=2))
    return reflection_services.reflection_run(deployment_id=deployment.pk, engine=CannedEngine(LESSONS))


def test_the_registry_stays_within_the_adrs_cap_and_every_schema_is_an_object():
    assert set(TOOLS) == {"get_skill_performance", "get_my_deployments", "get_upcoming_events", "remember", "forget"}
    assert len(TOOLS) <= MAX_TOOLS == 16
    for definition in tool_definitions():
        assert definition["input_schema"]["type"] == "object"
        assert definition["input_schema"]["additionalProperties"] is False
        assert len(definition["description"]) > 40


def test_skill_performance_summary(owner, deployment, history):
    summary = call_tool(owner, "get_skill_performance", {"skill_id": deployment.skill_version.skill_id})["summary"]
    daily = [1.0, 0.0, -2.0]
    mean = sum(daily) / 3
    std = math.sqrt(sum((x - mean) ** 2 for x in daily) / 2)
    assert summary["closed_trades"] == 4
    assert summary["realized_pnl_usd"] == -1.0
    assert summary["win_rate"] == 0.5
    assert summary["sharpe"] == round(mean / std * math.sqrt(365), 3)
    assert summary["max_drawdown_usd"] == 2.0  # day ends: +1, +1, -1 (intraday peak +2 is not a day end)
    assert (summary["first_day"], summary["last_day"]) == ("2026-06-04", "2026-06-06")


def test_skill_performance_trades_lessons_and_full(owner, deployment, history):
    skill_id = deployment.skill_version.skill_id
    rows = call_tool(owner, "get_skill_performance", {"skill_id": skill_id, "detail": "trades"})["trades"]
    assert [row["realized_pnl_usd"] for row in rows] == [1.0, -3.0, -1.0, 2.0]  # newest exit first
    assert rows[0] == {
        **rows[0],
        "symbol": "ETH",
        "side": "long",
        "entry_price": 100.0,
        "exit_price": 101.0,
        "regime": None,
        "entry_reason": "breakout",
        "exit_reason": "exit ETH",
        "deployment_id": deployment.pk,
    }
    assert {"mfe_usd", "mae_usd", "holding_minutes", "entry_tick_at", "exit_tick_at"} <= set(rows[0])
    lessons = call_tool(owner, "get_skill_performance", {"skill_id": skill_id, "detail": "lessons"})["lessons"]
    assert lessons == [
        {
            "deployment_id": deployment.pk,
            "skill_version": deployment.skill_version.version,
            "lessons_text": LESSONS,
            "window_start": "2026-06-04T10:00:00Z",
            "window_end": "2026-06-06T11:30:00Z",
            "trades_considered": 4,
            "generated_at": lessons[0]["generated_at"],
            "content_hash": history.content_hash,
        }
    ]
    full = call_tool(owner, "get_skill_performance", {"skill_id": skill_id, "detail": "full"})
    assert {"summary", "trades", "lessons"} <= set(full)


def test_my_deployments_list_and_details(owner, deployment, history):
    listed = call_tool(owner, "get_my_deployments", {})
    [row] = listed["deployments"]
    assert row["deployment_id"] == deployment.pk and row["skill"] == "Breakouts"
    assert (row["closed_trades"], row["realized_pnl_usd"], row["win_rate"], row["open_positions"]) == (4, -1.0, 0.5, 0)
    assert "trades" not in row and listed["truncated"] is False
    full = call_tool(owner, "get_my_deployments", {"deployment_id": deployment.pk, "detail": "full"})
    [row] = full["deployments"]
    assert len(row["trades"]) == 4 and row["lessons"]["lessons_text"] == LESSONS


def test_remember_and_forget_by_the_prompts_reference(owner):
    created = call_tool(owner, "remember", {"fact": "Never more than 3x leverage.", "topic": "risk"})
    fact = UserFact.objects.get(pk=created["id"])
    assert (fact.source, fact.confidence, fact.topic) == ("chat", "inferred", "risk")
    assert call_tool(owner, "forget", {"fact_id": fact.pk.hex[:8]}) == {"id": str(fact.pk), "archived": True}
    fact.refresh_from_db()
    assert fact.archived_reason == "agent_forget"
    with pytest.raises(ToolInputError, match="already archived"):
        call_tool(owner, "forget", {"fact_id": str(fact.pk)})


@pytest.mark.parametrize(
    ("name", "tool_input", "field", "message"),
    [
        ("get_skill_performance", {}, "skill_id", "required"),
        ("get_skill_performance", {"skill_id": "seven"}, "skill_id", "must be an integer"),
        ("get_skill_performance", {"skill_id": 1, "detail": "everything"}, "detail", "must be one of summary"),
        ("get_skill_performance", {"skill_id": 1, "extra": True}, "extra", "unknown field"),
        ("get_my_deployments", {"deployment_id": 0}, "deployment_id", "must be at least 1"),
        ("remember", {"fact": "abc"}, "fact", "at least 4 characters"),
        ("remember", {"fact": "ok fact", "confidence": "sure"}, "confidence", "must be one of"),
        ("remember", {"fact": "line\nbreak"}, "fact", "control characters"),
        ("forget", {"fact_id": 12}, "fact_id", "must be a string"),
        ("get_upcoming_events", {"lookaheadHours": 73}, "lookaheadHours", "between 1 and 72"),
        ("get_upcoming_events", {"minImportance": "high"}, "minImportance", "number"),
        ("get_upcoming_events", {"types": ["moon"]}, "types", "must be one of"),
    ],
)
def test_bad_tool_input_names_the_field_and_writes_nothing(owner, name, tool_input, field, message):
    with pytest.raises(ToolInputError) as caught:
        call_tool(owner, name, tool_input)
    errors = caught.value.errors
    matching = [text for key, texts in errors.items() if key.split(".")[0] == field for text in texts]
    assert any(message in text for text in matching), errors
    assert not UserFact.objects.exists()


def test_another_traders_objects_are_not_found(owner, deployment, history):
    other = UserFactory()
    fact = UserFact.objects.create(owner=owner, fact="Mine, not yours.", source="profile", confidence="asserted")
    for name, tool_input, field in (
        ("get_skill_performance", {"skill_id": deployment.skill_version.skill_id}, "skill_id"),
        ("get_my_deployments", {"deployment_id": deployment.pk}, "deployment_id"),
        ("forget", {"fact_id": str(fact.pk)}, "fact_id"),
        ("forget", {"fact_id": fact.pk.hex[:8]}, "fact_id"),
    ):
        with pytest.raises(ToolInputError, match="among yours") as caught:
            call_tool(other, name, tool_input)
        assert field in caught.value.errors
    assert call_tool(other, "get_my_deployments", {})["deployments"] == []
    fact.refresh_from_db()
    assert fact.archived_at is None
    with pytest.raises(ToolNotFound):
        call_tool(owner, "place_order", {})


# -- over REST ---------------------------------------------------------------------------------------


def test_rest_lists_tools_and_runs_them(owner_api, deployment, history):
    listed = owner_api.get("/api/v1/chat/tools/")
    assert listed.status_code == 200
    assert_matches_schema(listed)
    assert [tool["name"] for tool in listed.json()["tools"]] == list(TOOLS)
    response = owner_api.post(
        "/api/v1/chat/tools/get_skill_performance/",
        {"skill_id": deployment.skill_version.skill_id, "detail": "summary"},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["summary"]["closed_trades"] == 4
    remembered = owner_api.post("/api/v1/chat/tools/remember/", {"fact": "Trades the US open."}, format="json")
    assert remembered.status_code == 200 and UserFact.objects.filter(pk=remembered.json()["id"]).exists()


def test_rest_errors_unknown_tool_404_bad_input_400_foreign_object_404(owner_api, other_api, anon_api, deployment):
    response = owner_api.post("/api/v1/chat/tools/place_order/", {}, format="json")
    assert response.status_code == 404 and "no tool named 'place_order'" in response.json()["detail"]
    response = owner_api.post("/api/v1/chat/tools/get_skill_performance/", {"skill_id": "x"}, format="json")
    assert response.status_code == 400 and "skill_id" in response.json()["errors"]
    response = owner_api.post("/api/v1/chat/tools/remember/", ["not", "an", "object"], format="json")
    assert response.status_code == 400
    response = other_api.post(
        "/api/v1/chat/tools/get_skill_performance/", {"skill_id": deployment.skill_version.skill_id}, format="json"
    )
    assert response.status_code == 404 and "no such skill among yours" in response.json()["detail"]
    assert anon_api.get("/api/v1/chat/tools/").status_code == 401

"""Two traders with one of everything, made through the API, and a row count of every app table.

Shared by the hostile-input table (test_hostile_input.py) and the schemathesis run."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.apps import apps
from rest_framework.test import APIClient

from tests.factories import UserFactory, account_key

APP_LABELS = ("accounts", "ledger", "reflection", "chatmemory", "signals", "research", "recall")
TICK_AT = "2026-06-04T10:00:00Z"
CONTEXT = {"indicators": ["RSI"], "timeframe": "1h", "symbol": "EURUSD", "training_epochs": 100}


def row_counts() -> dict[str, int]:
    """The number of rows of every model of the service's apps."""
    return {
        model._meta.label: model._base_manager.count()
        for label in APP_LABELS
        for model in apps.get_app_config(label).get_models()
    }


@dataclass
class Trader:
    user: object
    client: APIClient
    token: str
    skill_id: int = 0
    deployment_id: int = 0
    snapshot_id: str = ""
    runner_token_id: int = 0
    spare_token_id: int = 0  # an account token of theirs that no client uses (revoking it blocks no one)
    runner_key: str = ""
    fact_id: str = ""
    document_id: int = 0
    hypothesis_ids: list[str] = field(default_factory=list)


def _ok(response, *statuses):
    assert response.status_code in (statuses or (200, 201)), (response.status_code, response.content[:500])
    return response.json()


def make_trader(username: str, *, hypotheses: int = 1) -> Trader:
    """A trader with a skill, a deployment with one tick (an open BTC trade), a runner token, a spare
    account token, a fact, a document and `hypotheses` hypotheses (ids H_001…, numbered per trader)."""
    user = UserFactory(username=username)
    key = account_key(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    trader = Trader(user=user, client=client, token=key)

    def post(url, body):
        return _ok(client.post(url, body, format="json"))

    trader.skill_id = post("/api/v1/skills/", {"name": f"Trend {username}", "strategy_text": "Follow it."})["id"]
    trader.deployment_id = post("/api/v1/deployments/", {"skill_id": trader.skill_id, "mode": "paper"})["id"]
    base = f"/api/v1/deployments/{trader.deployment_id}"
    position = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    tick = {"tick_at": TICK_AT, "equity_usd": 10_000, "positions": [position]}
    trader.snapshot_id = post(f"{base}/ticks/", tick)["snapshot_id"]
    runner = post(f"{base}/runner-tokens/", {"name": f"{username} runner"})
    trader.runner_token_id, trader.runner_key = runner["id"], runner["key"]
    trader.spare_token_id = post("/api/v1/auth/tokens/", {"name": f"{username} spare"})["id"]
    trader.fact_id = post("/api/v1/facts/", {"fact": f"{username} trades BTC only."})["id"]
    document = {"path": "notes/strategy.md", "content": "# Strategy\nBuy breakouts on BTC.\n"}
    trader.document_id = post("/api/v1/recall/documents/", document)["id"]
    assessment = {"verdict": "no_signal", "hypotheses": [{"text": f"Idea {n}"} for n in range(hypotheses)]}
    experiment = {"id": "exp_1", "strategy_name": "rsi", "context": CONTEXT, "assessment": assessment}
    recorded = post("/api/v1/research/experiments/", experiment)
    trader.hypothesis_ids = [h["id"] for h in recorded["hypotheses_created"]]
    return trader

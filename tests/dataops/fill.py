"""A trader with at least one row in every owned and child table, made through the API and the services."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from accounts import services as accounts
from chatmemory import services as facts
from chatmemory.models import FactSource
from ledger import services as ledger
from recall import services as recall
from recall.models import Document, SyncedFolder
from reflection.models import LessonVerdict, ReflectionNote
from research.yaml_import import import_research
from signals import services as signals
from tests.factories import DeploymentFactory, UserFactory, token_client

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
RESEARCH = Path(settings.BASE_DIR) / "research" / "bootstrap"
TREND_UP = [
    {"t": f"b{i}", "o": c, "h": c, "l": c, "c": c, "v": 1} for i, c in enumerate(100 + i * 0.1 for i in range(12))
]


def trader_with_everything(username: str, *, marker: str):
    """A trader whose rows reach every table row security knows; `marker` is written into their texts, so an
    export can be searched for another trader's."""
    trader = UserFactory(username=username)
    deployment = DeploymentFactory(skill_version__skill__owner=trader)
    _, account_key = accounts.account_token_create(owner=trader, name=f"laptop {marker}", now=timezone.now())
    _, runner_key = ledger.runner_token_create(deployment=deployment, name=f"vps {marker}")
    api = token_client(trader)
    btc = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    for minutes, positions in enumerate([[btc], [btc], []]):
        at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
        body = {"tick_at": at, "equity_usd": 10_000, "positions": positions, "bars": {"BTC": TREND_UP}}
        response = api.post(
            f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json", HTTP_IDEMPOTENCY_KEY=f"t{minutes}"
        )
        assert response.status_code == 201, response.json()
    ledger.materialize_pending(deployment_id=deployment.pk)  # trades, daily P&L, the trade's situation
    served = api.get(f"/api/v1/deployments/{deployment.pk}/context/")  # the served context's record
    assert served.status_code == 200, served.json()
    facts.fact_create(owner=trader, fact=f"Trades only BTC perpetuals {marker}", source=FactSource.PROFILE)
    ReflectionNote.objects.create(
        owner=trader, skill=deployment.skill_version.skill, skill_version=deployment.skill_version.version,
        deployment=deployment, generated_at=T0, window_start=T0, window_end=T0, trades_considered=1,
        lessons_text=f"- Cut losers early {marker}", model_used="m", content_hash="0123456789abcdef",
    )  # fmt: skip
    LessonVerdict.objects.create(
        owner=trader, skill=deployment.skill_version.skill, bullet=f"Cut losers early {marker}", verdict="veto"
    )
    signal = {
        "agent_name": "market_microstructure", "agent_type": "analyst", "condition_id": f"0x{marker}",
        "question": f"Will BTC close above $100k? {marker}", "direction": "YES", "confidence": Decimal("0.7"),
        "key_drivers": [f"ETF inflows {marker}"], "metadata": {},
    }  # fmt: skip
    signals.signal_store(owner=trader, now=T0, fair_probability=Decimal("0.5"), **signal)
    stored, _ = signals.signal_store(
        owner=trader, now=T0 + dt.timedelta(hours=1), fair_probability=Decimal("0.8"), **signal
    )
    signals.memory_for_agents(market=stored.market, agent_names=["market_microstructure"], limit=5)  # its audit
    import_research(trader, RESEARCH)
    recall.document_upsert(
        owner=trader, deployment=deployment, path="memory/learnings.md", source="workspace", queue_embedding=False,
        content=f"# Learnings\n\nLiquidation cascades follow open interest spikes {marker}.\n",
    )  # fmt: skip
    recall.journal_append(deployment=deployment, kind="journal", content=f"Opened BTC {marker}", run_id="run-1")
    document = Document.objects.get(owner=trader, path="memory/learnings.md")
    recall.proposal_create(document=document, proposed_content=f"# Better {marker}\n", reason="clearer", run_id="r")
    SyncedFolder.objects.create(owner=trader, root=f"/srv/{marker}")
    return Filled(trader=trader, deployment=deployment, account_key=account_key, runner_key=runner_key)


@dataclass(frozen=True)
class Filled:
    trader: object
    deployment: object
    account_key: str
    runner_key: str

"""simulate drives the real API; backfill_trade_history rebuilds the ledger idempotently."""

import pytest
from django.core.management import CommandError, call_command

from ledger.models import DecisionSnapshot, TradeHistory
from tests.factories import DeploymentFactory

END = "2026-06-04T12:00:00Z"


def _trades(deployment):
    return sorted(
        TradeHistory.objects.filter(deployment=deployment).values_list(
            "symbol", "side", "status", "entry_tick_at", "exit_tick_at", "realized_pnl_usd", "mfe_usd", "mae_usd"
        ),
        key=str,
    )


def test_simulate_fills_trades_risk_state_and_context(owner_api, deployment, capsys):
    call_command("simulate", deployment.pk, ticks=288, seed=7, end=END)
    assert "posted 288 ticks" in capsys.readouterr().out
    assert DecisionSnapshot.objects.filter(deployment=deployment).count() == 288
    body = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/").json()
    assert body["sections"]["recent_trades"] is not None
    assert body["sections"]["recent_activity"] is not None
    assert TradeHistory.objects.filter(deployment=deployment, status="closed").count() >= 3
    assert TradeHistory.objects.filter(deployment=deployment).exclude(entry_regime_tag=None).exists()


def test_simulate_is_deterministic(owner, capsys):
    first, second = (DeploymentFactory(skill_version__skill__owner=owner) for _ in range(2))
    for deployment in (first, second):
        call_command("simulate", deployment.pk, ticks=120, seed=3, end=END)
        call_command("backfill_trade_history", deployment.pk)  # materialize without a worker
    assert _trades(first) == _trades(second)


def test_simulate_refuses_to_rewrite_history(deployment):
    call_command("simulate", deployment.pk, ticks=10, end=END)
    with pytest.raises(CommandError, match="already has ticks up to"):
        call_command("simulate", deployment.pk, ticks=10, end=END)


def test_backfill_rebuilds_the_same_rows_and_is_idempotent(owner_api, deployment, capsys):
    call_command("simulate", deployment.pk, ticks=150, seed=11, end=END)
    owner_api.get(f"/api/v1/deployments/{deployment.pk}/trades/")  # materialized the normal way
    expected = _trades(deployment)
    assert expected
    call_command("backfill_trade_history", deployment.pk)
    output = capsys.readouterr().out
    assert "150/150 ticks" in output
    assert _trades(deployment) == expected
    call_command("backfill_trade_history", deployment.pk)
    assert _trades(deployment) == expected
    assert not DecisionSnapshot.objects.filter(deployment=deployment, materialized_at=None).exists()


def test_backfill_names_an_unknown_deployment(db):
    with pytest.raises(CommandError, match="no deployment with id 999999"):
        call_command("backfill_trade_history", 999999)

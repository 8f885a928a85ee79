"""Reads, always scoped to one trader. A row that is not theirs is indistinguishable from none."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from ledger.domain import ClosedTrade, OpenTrade
from ledger.memory_view import STREAK_LOOKBACK, ContextInputs
from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion, TradeHistory, TradeStatus
from ledger.risk_state import EngineOutcome, risk_window_start


def skill_list(*, user) -> QuerySet[Skill]:
    return (
        Skill.objects.owned_by(user)
        .prefetch_related(Prefetch("versions", queryset=SkillVersion.objects.order_by("-version")))
        .order_by("name", "id")
    )


def skill_get(*, user, skill_id: int) -> Skill:
    return get_object_or_404(skill_list(user=user), pk=skill_id)


def skill_version_list(*, user, skill_id: int) -> QuerySet[SkillVersion]:
    skill = get_object_or_404(Skill.objects.owned_by(user), pk=skill_id)
    return skill.versions.select_related("skill").order_by("-version")


def deployment_list(*, user) -> QuerySet[Deployment]:
    return Deployment.objects.owned_by(user).select_related("skill_version__skill").order_by("-created_at", "-id")


def deployment_get(*, user, deployment_id: int) -> Deployment:
    return get_object_or_404(deployment_list(user=user), pk=deployment_id)


# -- trade ledger --------------------------------------------------------------------------------


def trade_row_to_open(row: TradeHistory) -> OpenTrade:
    return OpenTrade(
        symbol=row.symbol,
        side=row.side,
        entry_tick_at=row.entry_tick_at,
        entry_price=row.entry_price,
        entry_size_usd=row.entry_size_usd,
        entry_reason=row.entry_reason,
        entry_regime_tag=row.entry_regime_tag,
        size_base=row.size_base,
        avg_entry_price=row.avg_entry_price,
        accrued_pnl_usd=row.accrued_pnl_usd,
        mfe_usd=row.mfe_usd,
        mae_usd=row.mae_usd,
        last_mark_price=row.last_mark_price,
    )


def trade_row_to_closed(row: TradeHistory) -> ClosedTrade:
    return ClosedTrade(
        symbol=row.symbol,
        side=row.side,
        entry_tick_at=row.entry_tick_at,
        entry_price=row.entry_price,
        entry_size_usd=row.entry_size_usd,
        entry_reason=row.entry_reason,
        entry_regime_tag=row.entry_regime_tag,
        exit_tick_at=row.exit_tick_at,
        exit_price=row.exit_price,
        exit_reason=row.exit_reason,
        realized_pnl_usd=row.realized_pnl_usd,
        holding_minutes=row.holding_minutes,
    )


def trade_list(*, deployment: Deployment, status: str | None = None, limit: int = 50) -> list[TradeHistory]:
    trades = TradeHistory.objects.filter(deployment=deployment)
    if status:
        trades = trades.filter(status=status)
    return list(trades.order_by("-entry_tick_at", "symbol")[:limit])


def snapshot_get(*, deployment: Deployment, snapshot_id) -> DecisionSnapshot:
    return get_object_or_404(DecisionSnapshot.objects.filter(deployment=deployment), pk=snapshot_id)


def context_inputs(*, deployment: Deployment, recent_k: int) -> ContextInputs:
    from ledger.services import snapshot_tick  # the one place a snapshot becomes a Tick

    last = DecisionSnapshot.objects.filter(deployment=deployment).order_by("-tick_at").first()
    if last is None:
        return ContextInputs(None, (), (), (), (), deployment.day_start_equity_usd)
    now = last.tick_at
    window_start = risk_window_start(now)
    outcomes = tuple(
        EngineOutcome(tick_at=tick_at, engine_kind=kind, engine_rule=rule)
        for tick_at, kind, rule in DecisionSnapshot.objects.filter(
            deployment=deployment, tick_at__gt=window_start, tick_at__lte=now
        )
        .exclude(engine_kind="")
        .order_by("tick_at")
        .values_list("tick_at", "engine_kind", "engine_rule")
    )
    closed = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.CLOSED)
    recent_closed = tuple(trade_row_to_closed(row) for row in closed.order_by("-entry_tick_at", "symbol")[:recent_k])
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    by_exit = closed.order_by("-exit_tick_at", "-entry_tick_at", "symbol")
    today = list(by_exit.filter(exit_tick_at__gte=day_start, exit_tick_at__lte=now))
    streak = list(by_exit.filter(exit_tick_at__lte=now)[:STREAK_LOOKBACK])
    merged = {row.pk: row for row in [*today, *streak]}
    open_rows = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.OPEN).order_by("symbol")
    return ContextInputs(
        last_tick=snapshot_tick(last),
        outcomes=outcomes,
        recent_closed=recent_closed,
        closed_for_risk=tuple(trade_row_to_closed(row) for row in merged.values()),
        open_trades=tuple(trade_row_to_open(row) for row in open_rows),
        day_start_equity_usd=deployment.day_start_equity_usd,
    )

"""Reads, always scoped to one trader. A row that is not theirs is indistinguishable from none."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import cast, overload

from django.db import connection
from django.db.models import (
    Avg,
    Case,
    Count,
    DecimalField,
    ExpressionWrapper,
    F,
    Func,
    JSONField,
    Max,
    Min,
    Prefetch,
    Q,
    QuerySet,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, Mod, RowNumber
from django.shortcuts import get_object_or_404

from ledger import liveness
from ledger.domain import ClosedTrade, OpenTrade, Tick, tick_from_payload
from ledger.liveness import Liveness
from ledger.memory_view import STREAK_LOOKBACK, ContextInputs
from ledger.models import (
    DecisionSnapshot,
    Deployment,
    RunnerToken,
    ServedContext,
    Skill,
    SkillVersion,
    TradeDailyPnl,
    TradeHistory,
    TradeSide,
    TradeStatus,
)
from ledger.risk_state import EngineOutcome, risk_window_start


def skill_list(*, user) -> QuerySet[Skill]:
    return (
        Skill.objects.owned_by(user)
        .prefetch_related(Prefetch("versions", queryset=SkillVersion.objects.order_by("-version")))
        .order_by("name", "id")
    )


def skill_get(*, user, skill_id: int) -> Skill:
    return get_object_or_404(skill_list(user=user), pk=skill_id)


def skill_find(*, user, skill_id: int) -> Skill | None:
    """The trader's skill, or None (another trader's is none too): for callers that report "not found" their way."""
    return Skill.objects.owned_by(user).filter(pk=skill_id).first()


def skill_version_list(*, user, skill_id: int) -> QuerySet[SkillVersion]:
    skill = get_object_or_404(Skill.objects.owned_by(user), pk=skill_id)
    return skill.versions.select_related("skill").order_by("-version")


def skill_latest_version(*, skill: Skill) -> SkillVersion | None:
    return skill.versions.order_by("-version").first()


def skill_deployments(*, user, skill: Skill) -> QuerySet[Deployment]:
    """The trader's deployments of any version of this skill, newest first."""
    return deployment_list(user=user).filter(skill_version__skill=skill)


def deployment_list(*, user) -> QuerySet[Deployment]:
    return Deployment.objects.owned_by(user).select_related("skill_version__skill").order_by("-created_at", "-id")


def deployment_get(*, user, deployment_id: int) -> Deployment:
    return get_object_or_404(deployment_list(user=user), pk=deployment_id)


def deployment_find(*, user, deployment_id: int) -> Deployment | None:
    """The trader's deployment, or None (another trader's is none too)."""
    return Deployment.objects.owned_by(user).filter(pk=deployment_id).first()


@overload
def deployment_ref(*, user, deployment_id: int) -> Deployment: ...
@overload
def deployment_ref(*, user, deployment_id: None) -> None: ...
@overload
def deployment_ref(*, user, deployment_id: int | None) -> Deployment | None: ...
def deployment_ref(*, user, deployment_id: int | None) -> Deployment | None:
    """The trader's deployment a request names, as a reference for another app's rows (nothing joined):
    None when it names none, 404 when it is not theirs."""
    if deployment_id is None:
        return None
    return get_object_or_404(Deployment.objects.owned_by(user), pk=deployment_id)


def deployment_for_runner(*, user, deployment_id: int) -> Deployment:
    """The owned deployment with its skill version: all a tick, fill or context read needs."""
    return get_object_or_404(Deployment.objects.owned_by(user).select_related("skill_version"), pk=deployment_id)


def runner_token_list(*, user, deployment: Deployment) -> QuerySet[RunnerToken]:
    """The trader's runner tokens of one deployment, newest first (revoked ones included)."""
    return RunnerToken.objects.owned_by(user).filter(deployment=deployment).order_by("-created_at", "-id")


def runner_token_get(*, user, deployment: Deployment, token_id: int) -> RunnerToken:
    return get_object_or_404(runner_token_list(user=user, deployment=deployment), pk=token_id)


# -- trade ledger --------------------------------------------------------------------------------


def _row_as(cls, row: TradeHistory):
    """A trade_history row as a domain dataclass; the dataclasses keep the columns' names."""
    return cls(**{field.name: getattr(row, field.name) for field in dataclasses.fields(cls)})


def trade_row_to_open(row: TradeHistory) -> OpenTrade:
    return _row_as(OpenTrade, row)


def trade_row_to_closed(row: TradeHistory) -> ClosedTrade:
    return _row_as(ClosedTrade, row)


def trade_list(*, deployment: Deployment, status: str | None = None, limit: int = 50) -> list[TradeHistory]:
    trades = TradeHistory.objects.filter(deployment=deployment)
    if status:
        trades = trades.filter(status=status)
    return list(trades.order_by("-entry_tick_at", "symbol")[:limit])


def recent_closed_trades(*, limit: int, skill: Skill | None = None, deployment: Deployment | None = None):
    """The last `limit` closed trades of a skill (all its deployments) or of one deployment, latest exit first."""
    if (skill is None) == (deployment is None):
        raise ValueError("recent_closed_trades takes a skill or a deployment")
    trades = TradeHistory.objects.filter(status=TradeStatus.CLOSED)
    trades = trades.filter(skill=skill) if skill is not None else trades.filter(deployment=deployment)
    return list(trades.order_by("-exit_tick_at", "-entry_tick_at")[:limit])


def open_position_marks(*, deployment: Deployment) -> list[tuple[str, str, Decimal, Decimal]]:
    """(symbol, side, size_base, last_mark_price) of the deployment's open trades, by symbol."""
    rows = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.OPEN).order_by("symbol")
    return list(rows.values_list("symbol", "side", "size_base", "last_mark_price"))


def open_trade_counts(*, user, deployment_ids: list[int]) -> dict[int, int]:
    """Open trades per deployment of the trader's, among `deployment_ids` (absent: none open)."""
    rows = (
        TradeHistory.objects.owned_by(user)
        .filter(deployment_id__in=deployment_ids, status=TradeStatus.OPEN)
        .values("deployment_id")
        .annotate(n=Count("id"))
        .values_list("deployment_id", "n")
    )
    return dict(rows)


# -- daily PnL rollup ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PnlTotals:
    realized_pnl_usd: Decimal
    n_closed: int
    n_wins: int


def daily_pnl_rows(*, skill: Skill) -> list[tuple[dt.date, Decimal, int, int]]:
    """(day, realized_pnl_usd, n_closed, n_wins) of the skill's rollup, all its deployments, oldest day first."""
    rows = TradeDailyPnl.objects.filter(skill=skill).order_by("day")
    return list(rows.values_list("day", "realized_pnl_usd", "n_closed", "n_wins"))


def pnl_totals(*, user, deployment_ids: list[int]) -> dict[int, PnlTotals]:
    """Closed-trade totals per deployment of the trader's, among `deployment_ids`, in one grouped query
    (absent: no closed trade yet)."""
    rows = (
        TradeDailyPnl.objects.owned_by(user)
        .filter(deployment_id__in=deployment_ids)
        .values("deployment_id")
        .annotate(pnl=Sum("realized_pnl_usd"), n=Sum("n_closed"), wins=Sum("n_wins"))
    )
    return {row["deployment_id"]: PnlTotals(row["pnl"], row["n"], row["wins"]) for row in rows}


def snapshot_get(*, deployment: Deployment, snapshot_id) -> DecisionSnapshot:
    return get_object_or_404(DecisionSnapshot.objects.filter(deployment=deployment), pk=snapshot_id)


def snapshot_ref(*, user, snapshot_id, deployment: Deployment | None = None) -> DecisionSnapshot | None:
    """The trader's decision snapshot a request names (of `deployment`, when given) as a reference for
    another app's rows: only its id, deployment and owner are loaded. None when it names none, 404 when
    it is not theirs."""
    if snapshot_id is None:
        return None
    snapshots = DecisionSnapshot.objects.owned_by(user)
    if deployment is not None:
        snapshots = snapshots.filter(deployment=deployment)
    return get_object_or_404(snapshots.only("id", "deployment_id", "owner_id"), pk=snapshot_id)


def snapshot_tick(snapshot: DecisionSnapshot) -> Tick:
    """The one place a stored snapshot becomes a Tick (live materializer and context alike)."""
    payload = {
        "equity_usd": snapshot.equity_usd,
        "positions": snapshot.positions,
        "marks": snapshot.marks,
        "proposed_action": snapshot.proposed_action,
        "engine": snapshot.engine,
        "bars": snapshot.bars,
    }
    return tick_from_payload(str(snapshot.pk), snapshot.tick_at, payload)


def context_inputs(*, deployment: Deployment, recent_k: int) -> ContextInputs:
    """Everything the per-tick context reads of the deployment (ledger.memory_view.ContextInputs), from the
    reads below; agentcontext calls them one by one too, each section's in a savepoint of its own."""
    last_tick = context_last_tick(deployment=deployment)
    if last_tick is None:
        return ContextInputs(None, (), (), (), (), deployment.day_start_equity_usd)
    return ContextInputs(
        last_tick=last_tick,
        outcomes=context_outcomes(deployment=deployment, now=last_tick.tick_at),
        recent_closed=context_recent_closed(deployment=deployment, recent_k=recent_k),
        closed_for_risk=context_closed_for_risk(deployment=deployment, now=last_tick.tick_at),
        open_trades=context_open_trades(deployment=deployment),
        day_start_equity_usd=deployment.day_start_equity_usd,
    )


def context_last_tick(*, deployment: Deployment) -> Tick | None:
    """The latest tick ("now" for every window of the context), None before the first."""
    last = DecisionSnapshot.objects.filter(deployment=deployment).order_by("-tick_at").first()
    return snapshot_tick(last) if last is not None else None


def context_outcomes(*, deployment: Deployment, now: dt.datetime) -> tuple[EngineOutcome, ...]:
    """Engine verdicts of the ticks in [risk_window_start(now), now], by tick time."""
    return tuple(
        EngineOutcome(tick_at=tick_at, engine_kind=kind, engine_rule=rule)
        for tick_at, kind, rule in DecisionSnapshot.objects.filter(
            deployment=deployment, tick_at__gte=risk_window_start(now), tick_at__lte=now
        )
        .exclude(engine_kind="")
        .order_by("tick_at")
        .values_list("tick_at", "engine_kind", "engine_rule")
    )


def context_recent_closed(*, deployment: Deployment, recent_k: int) -> tuple[ClosedTrade, ...]:
    """The newest ``recent_k`` closed trades by entry time (entry desc, symbol asc)."""
    closed = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.CLOSED)
    return tuple(trade_row_to_closed(row) for row in closed.order_by("-entry_tick_at", "symbol")[:recent_k])


def context_closed_for_risk(*, deployment: Deployment, now: dt.datetime) -> tuple[ClosedTrade, ...]:
    """Closed trades that exited today (UTC, as of ``now``) plus the STREAK_LOOKBACK newest exits."""
    closed = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.CLOSED)
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    by_exit = closed.order_by("-exit_tick_at", "-entry_tick_at", "symbol")
    today = list(by_exit.filter(exit_tick_at__gte=day_start, exit_tick_at__lte=now))
    streak = list(by_exit.filter(exit_tick_at__lte=now)[:STREAK_LOOKBACK])
    merged = {row.pk: row for row in [*today, *streak]}
    return tuple(trade_row_to_closed(row) for row in merged.values())


def context_open_trades(*, deployment: Deployment) -> tuple[OpenTrade, ...]:
    """Open trades by symbol."""
    open_rows = TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.OPEN).order_by("symbol")
    return tuple(trade_row_to_open(row) for row in open_rows)


# -- trade journal page --------------------------------------------------------------------------

# The journal's filter value for trades whose entry_regime_tag is null (not classified).
UNCLASSIFIED = "unclassified"
CUMULATIVE_PNL_MAX_POINTS = 500


@dataclass(frozen=True)
class TradeJournalChoices:
    symbols: tuple[str, ...]
    regime_tags: tuple[str, ...]  # the non-null tags; UNCLASSIFIED stands for null


@dataclass(frozen=True)
class TradeJournalSummary:
    open_count: int
    closed_count: int
    wins: int
    losses: int
    win_rate_pct: Decimal | None  # wins / closed trades; a zero-PnL trade is neither win nor loss
    realized_pnl_usd: Decimal
    fees_usd: Decimal  # of closed trades
    net_pnl_usd: Decimal  # realized PnL minus those fees
    avg_holding_minutes: Decimal | None
    best_pnl_usd: Decimal | None
    worst_pnl_usd: Decimal | None


@dataclass(frozen=True)
class RegimePnl:
    regime_tag: str | None
    trades: int
    realized_pnl_usd: Decimal


def trade_journal_choices(*, deployment: Deployment) -> TradeJournalChoices:
    trades = TradeHistory.objects.filter(deployment=deployment)
    symbols = trades.order_by("symbol").values_list("symbol", flat=True).distinct()
    tags = (
        trades.filter(entry_regime_tag__isnull=False)
        .order_by("entry_regime_tag")
        .values_list("entry_regime_tag", flat=True)
        .distinct()
    )
    return TradeJournalChoices(symbols=tuple(symbols), regime_tags=tuple(tags))


# The journal's sort keys (a column, "-" for descending) and their order; every order ends with the
# default's tie-break (newest entry, symbol, id), so rows never swap between two reads of one page.
JOURNAL_SORT_DEFAULT = "-entry"
_JOURNAL_TIE_BREAK = (F("entry_tick_at").desc(), F("symbol").asc(), F("id").asc())
JOURNAL_SORT_COLUMNS = ("symbol", "entry", "exit", "pnl", "held", "regime")


def _journal_sort_expression(column: str):
    """The value a journal column sorts by: what the column shows (PnL: realized once closed, at the
    last mark while open)."""
    return {
        "symbol": F("symbol"),
        "entry": F("entry_tick_at"),
        "exit": F("exit_tick_at"),
        "pnl": Coalesce(F("realized_pnl_usd"), F("open_pnl_usd")),
        "held": F("holding_minutes"),
        "regime": F("entry_regime_tag"),
    }[column]


def journal_sort_key(value: str | None) -> str:
    """A requested sort as a known key (`column` or `-column`); anything else is the default."""
    if value and value.removeprefix("-") in JOURNAL_SORT_COLUMNS:
        return value
    return JOURNAL_SORT_DEFAULT


def _journal_order(sort: str) -> tuple:
    sort = journal_sort_key(sort)
    expression = _journal_sort_expression(sort.removeprefix("-"))
    # Nulls (open trades' exits and holding times, unclassified regimes) sort last either way.
    first = expression.desc(nulls_last=True) if sort.startswith("-") else expression.asc(nulls_last=True)
    return (first, *_JOURNAL_TIE_BREAK)


def trade_journal_filtered(
    *, deployment: Deployment, status: str = "", symbol: str = "", regime_tag: str = ""
) -> QuerySet[TradeHistory]:
    """The deployment's trades that pass the journal's filters; an empty value means "any". The rows,
    the summary cards, both charts and the CSV export all read through this one filter."""
    trades = TradeHistory.objects.filter(deployment=deployment)
    if status:
        trades = trades.filter(status=status)
    if symbol:
        trades = trades.filter(symbol=symbol)
    if regime_tag == UNCLASSIFIED:
        trades = trades.filter(entry_regime_tag__isnull=True)
    elif regime_tag:
        trades = trades.filter(entry_regime_tag=regime_tag)
    return trades


def _with_journal_columns(trades: QuerySet[TradeHistory]) -> QuerySet[TradeHistory]:
    unrealized = F("size_base") * (F("last_mark_price") - F("avg_entry_price"))
    return trades.annotate(
        realized_pnl_pct=ExpressionWrapper(
            F("realized_pnl_usd") * Value(Decimal(100)) / F("entry_size_usd"), output_field=DecimalField()
        ),
        open_pnl_usd=Case(
            When(status=TradeStatus.CLOSED, then=Value(None)),
            When(side=TradeSide.SHORT, then=F("accrued_pnl_usd") - unrealized),
            default=F("accrued_pnl_usd") + unrealized,
            output_field=DecimalField(),
        ),
        entry_price_text=Func(F("entry_price"), function="trim_scale", output_field=DecimalField()),
        exit_price_text=Func(F("exit_price"), function="trim_scale", output_field=DecimalField()),
        last_mark_text=Func(F("last_mark_price"), function="trim_scale", output_field=DecimalField()),
    )


def trade_journal_list(
    *,
    deployment: Deployment,
    status: str = "",
    symbol: str = "",
    regime_tag: str = "",
    sort: str = JOURNAL_SORT_DEFAULT,
    searches_shown: int = 3,
) -> QuerySet[TradeHistory]:
    """The deployment's filtered trades in `sort` order (journal_sort_key: an unknown key is the default,
    newest entry first); an empty filter value means "any".

    Each row carries `realized_pnl_pct` (of the entry size; null while open), `open_pnl_usd`
    (at the last mark; null once closed), the prices without trailing zeros, and the entry tick's
    recall searches ("why did you do this?"): `entry_searches` (the first `searches_shown`, read in
    this one query — the column grows with every search of a tick) and `entry_search_count`.
    """
    trades = trade_journal_filtered(deployment=deployment, status=status, symbol=symbol, regime_tag=regime_tag)
    return (
        _with_journal_columns(trades)
        .annotate(
            entry_searches=Func(
                F("entry_snapshot__citations"),
                template=f"jsonb_path_query_array(%(expressions)s, '$[0 to {int(searches_shown) - 1}]')",
                output_field=JSONField(),
            ),
            entry_search_count=Func(
                F("entry_snapshot__citations"),
                template="jsonb_path_query_first(%(expressions)s, '$.size()')",
                output_field=JSONField(),
            ),
        )
        .order_by(*_journal_order(sort))
    )


def trade_export_ids(
    *,
    deployment: Deployment,
    status: str = "",
    symbol: str = "",
    regime_tag: str = "",
    sort: str = JOURNAL_SORT_DEFAULT,
) -> list:
    """The ids of the filtered trades in `sort` order: what a CSV export then reads in chunks."""
    trades = trade_journal_filtered(deployment=deployment, status=status, symbol=symbol, regime_tag=regime_tag)
    return list(_with_journal_columns(trades).order_by(*_journal_order(sort)).values_list("id", flat=True))


def trade_export_rows(*, user, trade_ids: list) -> list[TradeHistory]:
    """The trader's trades among `trade_ids`, in that order, with the journal's computed columns
    (a trade gone since the ids were read is left out)."""
    rows = _with_journal_columns(TradeHistory.objects.owned_by(user).filter(pk__in=trade_ids))
    by_id = {row.pk: row for row in rows}
    return [by_id[trade_id] for trade_id in trade_ids if trade_id in by_id]


def trade_journal_summary(
    *, deployment: Deployment, status: str = "", symbol: str = "", regime_tag: str = ""
) -> TradeJournalSummary:
    """The PnL summary of the deployment's trades that pass the journal's filters, in one aggregate query."""
    closed = Q(status=TradeStatus.CLOSED)
    trades = trade_journal_filtered(deployment=deployment, status=status, symbol=symbol, regime_tag=regime_tag)
    # Aliases differ from the column names: Django refuses an aggregate named like a field it reads.
    totals = trades.aggregate(
        n_open=Count("id", filter=Q(status=TradeStatus.OPEN)),
        n_closed=Count("id", filter=closed),
        n_wins=Count("id", filter=closed & Q(realized_pnl_usd__gt=0)),
        n_losses=Count("id", filter=closed & Q(realized_pnl_usd__lt=0)),
        pnl_sum=Sum("realized_pnl_usd", filter=closed, default=Decimal(0)),
        fees_sum=Sum("fees_usd", filter=closed, default=Decimal(0)),
        holding_avg=Avg("holding_minutes", filter=closed),
        pnl_max=Max("realized_pnl_usd", filter=closed),
        pnl_min=Min("realized_pnl_usd", filter=closed),
    )
    closed_count = totals["n_closed"]
    return TradeJournalSummary(
        open_count=totals["n_open"],
        closed_count=closed_count,
        wins=totals["n_wins"],
        losses=totals["n_losses"],
        win_rate_pct=Decimal(totals["n_wins"] * 100) / closed_count if closed_count else None,
        realized_pnl_usd=totals["pnl_sum"],
        fees_usd=totals["fees_sum"],
        net_pnl_usd=totals["pnl_sum"] - totals["fees_sum"],
        avg_holding_minutes=totals["holding_avg"],
        best_pnl_usd=totals["pnl_max"],
        worst_pnl_usd=totals["pnl_min"],
    )


def trade_pnl_by_regime(
    *, deployment: Deployment, status: str = "", symbol: str = "", regime_tag: str = ""
) -> list[RegimePnl]:
    """Realized PnL of the filtered closed trades per entry regime tag (null last), in one grouped query."""
    trades = trade_journal_filtered(deployment=deployment, status=status, symbol=symbol, regime_tag=regime_tag)
    rows = (
        trades.filter(status=TradeStatus.CLOSED)
        .values("entry_regime_tag")
        .annotate(trades=Count("id"), pnl=Sum("realized_pnl_usd"))
        .order_by(F("entry_regime_tag").asc(nulls_last=True))
    )
    return [RegimePnl(row["entry_regime_tag"], row["trades"], row["pnl"]) for row in rows]


def trade_cumulative_pnl(
    *,
    deployment: Deployment,
    status: str = "",
    symbol: str = "",
    regime_tag: str = "",
    max_points: int = CUMULATIVE_PNL_MAX_POINTS,
) -> list[tuple[dt.datetime, Decimal]]:
    """(exit_tick_at, cumulative realized PnL) of the filtered closed trades in exit order, at most `max_points`.

    One query. The running sum is taken per exit time (trades that close on the same tick count
    together), then with n closes every ceil(n / (max_points - 1))-th close is kept, and always
    the first and the last, so the line starts and ends exactly. Swings between two kept closes
    are not drawn. Points repeating the one before (same exit time) are dropped.
    """
    if max_points < 2:
        raise ValueError(f"max_points must be at least 2 (the first and the last close), got {max_points}")
    by_close = [F("exit_tick_at").asc(), F("id").asc()]
    trades = trade_journal_filtered(deployment=deployment, status=status, symbol=symbol, regime_tag=regime_tag)
    closes = trades.filter(status=TradeStatus.CLOSED).annotate(
        cumulative_pnl=Window(Sum("realized_pnl_usd"), order_by=F("exit_tick_at").asc()),  # peers summed together
        position=Window(RowNumber(), order_by=by_close),
        total=Window(Count("id")),
    )
    step = (F("total") + Value(max_points - 2)) / Value(max_points - 1)  # integer division: a ceiling
    kept = closes.annotate(offset=Mod(F("position") - Value(1), step)).filter(Q(offset=0) | Q(position=F("total")))
    points: list[tuple[dt.datetime, Decimal]] = []
    for exit_at, cumulative in kept.order_by("exit_tick_at", "id").values_list("exit_tick_at", "cumulative_pnl"):
        point = (cast(dt.datetime, exit_at), cumulative)  # a closed trade always has its exit time
        if not points or points[-1] != point:
            points.append(point)
    return points


# -- trade detail ("why did you do this?") -------------------------------------------------------


def trade_get(*, deployment: Deployment, trade_id) -> TradeHistory:
    """One trade of the deployment with the snapshots of the ticks that opened and closed it, and the
    journal's computed columns; another deployment's (or trader's) trade is a 404."""
    trades = _with_journal_columns(TradeHistory.objects.filter(deployment=deployment))
    return get_object_or_404(trades.select_related("entry_snapshot", "exit_snapshot"), pk=trade_id)


def served_context_before_entry(*, trade: TradeHistory) -> ServedContext | None:
    """What the agent saw before opening `trade`: the context last served for its deployment as of the tick
    just before the opening tick (the runner reads the context, the agent decides, the runner posts the tick),
    or None: the runner did not read it before that tick, it was served before contexts were recorded, or it
    was swept. A record served after the opening tick was posted is another read's, never shown as this one;
    without the opening tick's snapshot that cannot be told, so None."""
    entry = trade.entry_snapshot
    if entry is None:
        return None
    before = (
        DecisionSnapshot.objects.filter(deployment_id=trade.deployment_id, tick_at__lt=trade.entry_tick_at)
        .order_by("-tick_at")
        .values_list("tick_at", flat=True)
        .first()
    )
    as_of = {"as_of_tick_at": before} if before is not None else {"as_of_tick_at__isnull": True}
    return ServedContext.objects.filter(
        deployment_id=trade.deployment_id, served_at__lte=entry.created_at, **as_of
    ).first()


# -- home page: each deployment's runner and today ---------------------------------------------------


@dataclass(frozen=True)
class DeploymentHealth:
    liveness: Liveness
    last_tick_at: dt.datetime | None  # the runner's time of its latest tick
    equity_usd: Decimal | None  # at that tick
    today_pnl_usd: Decimal | None  # realized by trades that closed today (UTC); None: none closed today
    today_closed: int
    drawdown_pct: Decimal | None  # equity below today's peak tick equity; None: no tick today


_LATEST_TICKS_SQL = """
SELECT d.id, s.tick_at, s.created_at, s.equity_usd
FROM deployments d
CROSS JOIN LATERAL (
    SELECT tick_at, created_at, equity_usd FROM decision_snapshots
    WHERE deployment_id = d.id ORDER BY tick_at DESC LIMIT %s
) s
WHERE d.owner_id = %s AND d.id = ANY(%s::bigint[])
"""


def deployment_health(*, user, deployments: list[Deployment], now: dt.datetime) -> dict[int, DeploymentHealth]:
    """Per deployment: whether its runner looks alive (ledger.liveness), its latest tick, and today's (UTC)
    realized PnL and drawdown, in three queries whatever the number of deployments or ticks (each reads
    the newest ticks through the (deployment, tick_at) unique index)."""
    ids = [deployment.pk for deployment in deployments]
    if not ids:
        return {}
    latest: dict[int, list[tuple[dt.datetime, dt.datetime, Decimal]]] = {pk: [] for pk in ids}
    with connection.cursor() as cursor:
        cursor.execute(_LATEST_TICKS_SQL, [liveness.SAMPLE, user.pk, ids])
        for deployment_id, tick_at, created_at, equity in cursor.fetchall():
            latest[deployment_id].append((tick_at, created_at, equity))
    day_start = now.astimezone(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    today_rows = TradeDailyPnl.objects.owned_by(user).filter(deployment_id__in=ids, day=day_start.date())
    realized = {pk: (pnl, n) for pk, pnl, n in today_rows.values_list("deployment_id", "realized_pnl_usd", "n_closed")}
    peaks = dict(
        DecisionSnapshot.objects.owned_by(user)
        .filter(deployment_id__in=ids, tick_at__gte=day_start)
        .values("deployment_id")
        .annotate(peak=Max("equity_usd"))
        .values_list("deployment_id", "peak")
    )
    health = {}
    for deployment in deployments:
        ticks = latest[deployment.pk]
        newest = max(ticks, key=lambda tick: tick[0]) if ticks else None
        today = newest is not None and newest[0] >= day_start
        health[deployment.pk] = DeploymentHealth(
            liveness=liveness.runner_liveness(received_at=[created_at for _, created_at, _ in ticks], now=now),
            last_tick_at=newest[0] if newest else None,
            equity_usd=newest[2] if newest else None,
            today_pnl_usd=realized[deployment.pk][0] if deployment.pk in realized else None,
            today_closed=realized[deployment.pk][1] if deployment.pk in realized else 0,
            drawdown_pct=liveness.drawdown_pct(peak_equity_usd=peaks.get(deployment.pk), equity_usd=newest[2])
            if today and newest
            else None,
        )
    return health

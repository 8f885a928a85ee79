"""Writes: each service validates, then writes in one transaction. Messages are constants."""

from __future__ import annotations

import datetime as dt
import logging
import uuid
from dataclasses import asdict, dataclass
from decimal import Decimal
from functools import partial

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, F, Max, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce, Greatest
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from access.keys import new_key
from ledger.domain import OpenTrade, Tick
from ledger.materializer import (
    CloseTrade,
    MaterializeContext,
    OpenTradeOp,
    UpdateMfeMae,
    apply_ops,
    flatten_ops,
    opened_trade,
    reconcile_portfolio_delta,
)
from ledger.models import (
    RUNNER_TOKEN_PREFIX,
    DecisionSnapshot,
    Deployment,
    DeploymentStatus,
    RunnerToken,
    ServedContext,
    Skill,
    SkillVersion,
    TradeDailyPnl,
    TradeHistory,
    TradeStatus,
)
from ledger.selectors import snapshot_tick, trade_row_to_open
from ledger.signals import trades_closed, trades_materialized
from memorysite import retention
from memorysite.metrics import TICKS_INGESTED, TICKS_MATERIALIZED
from memorysite.redis import enqueue_once, queued_done

logger = logging.getLogger(__name__)

SKILL_NAME_TAKEN = "you already have a skill with this name"
VERSION_NOT_FOUND = "this skill has no version {version}; its latest is {latest}"
STATUS_RULE = "must be one of " + ", ".join(DeploymentStatus.values)

VERSION_FIELDS = (
    "strategy_text",
    "avoid_rules",
    "memory_enabled",
    "recent_trades_k",
    "reflection_cadence",
    "reflection_every_n_trades",
    "reflection_model_override",
    "bars_window",
    "manual_enabled",
    "manual_k",
    "manual_token_cap",
)


@transaction.atomic
def skill_create(*, owner, name: str, **version_fields) -> Skill:
    """A new skill with its version 1 built from the same fields."""
    if Skill.objects.filter(owner=owner, name=name).exists():
        raise ValidationError({"name": [SKILL_NAME_TAKEN]})
    skill = Skill(owner=owner, name=name)
    skill.full_clean()
    try:
        with transaction.atomic():
            skill.save()
    except IntegrityError as exc:  # a concurrent create of the same name won the race
        raise ValidationError({"name": [SKILL_NAME_TAKEN]}) from exc
    _version_save(skill=skill, version=1, fields=version_fields)
    return skill


@transaction.atomic
def skill_version_create(*, skill: Skill, **version_fields) -> SkillVersion:
    """The next version of the skill (latest + 1); versions are never edited in place."""
    Skill.objects.select_for_update().filter(pk=skill.pk).get()  # serialises concurrent numbering
    latest = skill.versions.aggregate(latest=Max("version"))["latest"] or 0
    return _version_save(skill=skill, version=latest + 1, fields=version_fields)


def _version_save(*, skill: Skill, version: int, fields: dict) -> SkillVersion:
    unknown = set(fields) - set(VERSION_FIELDS)
    if unknown:
        raise TypeError(f"unknown skill version fields: {sorted(unknown)}")
    skill_version = SkillVersion(skill=skill, owner_id=skill.owner_id, version=version, **fields)
    skill_version.full_clean()
    skill_version.save()
    return skill_version


@transaction.atomic
def deployment_create(*, owner, skill_id: int, version: int | None, mode: str) -> Deployment:
    """Deploy one version of the trader's skill (its latest when version is None)."""
    skill = get_object_or_404(Skill.objects.owned_by(owner), pk=skill_id)
    versions = skill.versions.order_by("-version")
    skill_version = versions.first() if version is None else versions.filter(version=version).first()
    if skill_version is None:
        latest = versions.values_list("version", flat=True).first()
        raise ValidationError({"version": [VERSION_NOT_FOUND.format(version=version, latest=latest)]})
    deployment = Deployment(owner=owner, skill_version=skill_version, mode=mode)
    deployment.full_clean()
    deployment.save()
    return deployment


def deployment_status_set(*, deployment: Deployment, status: str) -> Deployment:
    """Pause (stopped) or resume (running) a deployment. Only the status changes: its ticks, trades and
    lessons stay, and ticks posted while it is stopped are still recorded (the runner decides to stop)."""
    if status not in DeploymentStatus.values:
        raise ValidationError({"status": [STATUS_RULE]})
    Deployment.objects.filter(pk=deployment.pk).update(status=status)
    deployment.status = status
    return deployment


# -- ticks ---------------------------------------------------------------------------------------

NOT_FOUND = "Not found."
TICK_TOO_OLD = "must be later than this deployment's latest tick, {latest}"
NO_OPEN_TRADE = "this deployment has no open trade in {symbol}"
MATERIALIZE_BATCH = 200


class TickConflict(Exception):
    """A tick older than the deployment's latest: ticks are applied strictly in order."""

    def __init__(self, latest: dt.datetime):
        super().__init__(TICK_TOO_OLD.format(latest=latest.isoformat()))
        self.latest = latest


@dataclass(frozen=True)
class TickIngested:
    snapshot: DecisionSnapshot
    duplicate: bool


def tick_ingest(*, owner, deployment_id: int, tick_at: dt.datetime, payload: dict) -> TickIngested:
    """Store one tick of the owner's deployment durably; materialization is enqueued on commit.

    Another trader's (or no) deployment raises Http404. The same tick_at again is a no-op that
    returns the stored snapshot; a tick older than the deployment's latest raises TickConflict.
    The deployment row lock serialises ticks of one deployment, so `latest_tick_at` only moves
    forward. Finding and locking the deployment is one query: this is the hot path.
    """
    with transaction.atomic():
        locked = (
            Deployment.objects.owned_by(owner)
            .select_for_update()
            .only("id", "owner_id", "latest_tick_at", "active_lessons_hash")
            .filter(pk=deployment_id)
            .first()
        )
        if locked is None:
            raise Http404(NOT_FOUND)
        if locked.latest_tick_at is not None and tick_at <= locked.latest_tick_at:
            # Only a tick at or before the latest can be a re-delivery; later ones skip the lookup.
            existing = DecisionSnapshot.objects.filter(deployment=locked, tick_at=tick_at).first()
            if existing is not None:
                return TickIngested(existing, duplicate=True)
            raise TickConflict(locked.latest_tick_at)
        engine = payload.get("engine") or {}
        snapshot = DecisionSnapshot.objects.create(
            deployment=locked,
            owner_id=locked.owner_id,
            tick_at=tick_at,
            equity_usd=Decimal(str(payload["equity_usd"])),
            positions=payload.get("positions") or [],
            marks=payload.get("marks") or {},
            proposed_action=payload.get("proposed_action"),
            engine=payload.get("engine"),
            bars=payload.get("bars"),
            engine_kind=engine.get("kind") or "",
            engine_rule=engine.get("rule") or "",
            lessons_hash=locked.active_lessons_hash,
        )
        locked.latest_tick_at = tick_at
        locked.save(update_fields=["latest_tick_at"])
        transaction.on_commit(partial(_enqueue_materialization, locked.pk))
        transaction.on_commit(TICKS_INGESTED.inc)
    return TickIngested(snapshot, duplicate=False)


# Marked queued while a materialization task for the deployment waits to start (memorysite.redis.
# enqueue_once): a burst of ticks enqueues one task, which then applies them all in one batch.
MATERIALIZE_QUEUED = "ledger:materialize"
MATERIALIZE_QUEUED_TTL_S = 60  # a lost task frees the mark after this long
# The queued task waits this long so a burst of ticks is applied in one batch (reads never wait:
# they catch up inline).
MATERIALIZE_COALESCE_S = 0.1


def _enqueue_materialization(deployment_id: int) -> None:
    from ledger.tasks import materialize_deployment

    try:
        enqueue_once(
            MATERIALIZE_QUEUED,
            deployment_id,
            ttl_s=MATERIALIZE_QUEUED_TTL_S,
            enqueue=lambda: materialize_deployment.apply_async(
                args=[deployment_id], retry=False, countdown=MATERIALIZE_COALESCE_S
            ),
        )
    except Exception:  # broker unreachable: the tick must still be materialized
        logger.warning("materialization of deployment %s not queued; running inline", deployment_id, exc_info=True)
        materialize_pending(deployment_id=deployment_id)


def materialize_queued(*, deployment_id: int) -> int:
    """The queued task's body: let later ticks queue a new task, then apply everything pending."""
    queued_done(MATERIALIZE_QUEUED, deployment_id)
    return materialize_pending(deployment_id=deployment_id)


def materialize_pending(*, deployment_id: int, on_batch=None) -> int:
    """Apply every stored tick past the deployment's cursor, strictly in tick order.

    Each batch runs in one transaction under the deployment's row lock: two workers, a
    redelivered task or an inline catch-up serialise on the lock, and a worker killed mid-batch
    rolls back to the cursor, so the rows always equal one clean pass. Returns ticks applied.
    """
    applied = 0
    while True:
        with transaction.atomic():
            deployment = (
                Deployment.objects.select_for_update(of=("self",)).select_related("skill_version").get(pk=deployment_id)
            )
            pending = DecisionSnapshot.objects.filter(deployment_id=deployment_id).order_by("tick_at")
            if deployment.materialized_through is not None:
                pending = pending.filter(tick_at__gt=deployment.materialized_through)
            snapshots = list(pending[:MATERIALIZE_BATCH])
            if not snapshots:
                return applied
            _apply_snapshots(deployment, snapshots)
            applied += len(snapshots)
        if on_batch is not None:
            on_batch(applied)
        if len(snapshots) < MATERIALIZE_BATCH:
            return applied


def _apply_snapshots(deployment: Deployment, snapshots: list[DecisionSnapshot]) -> None:
    skill_version = deployment.skill_version
    rows = {row.symbol: row for row in TradeHistory.objects.filter(deployment=deployment, status=TradeStatus.OPEN)}
    state = {symbol: trade_row_to_open(row) for symbol, row in rows.items()}
    touched: dict[object, TradeHistory] = {}
    created: list[TradeHistory] = []
    opened: list[tuple[TradeHistory, OpenTrade, Tick]] = []
    now = timezone.now()
    for snapshot in snapshots:
        tick = snapshot_tick(snapshot)
        context = MaterializeContext(tick, snapshot.lessons_hash or None)
        ops = reconcile_portfolio_delta(state, tick.positions, context)
        for op in flatten_ops(ops):
            if isinstance(op, OpenTradeOp):
                row = _new_trade_row(deployment, skill_version, op)
                rows[op.symbol] = row
                created.append(row)
                opened.append((row, opened_trade(op), tick))
            else:
                row = rows.pop(op.symbol) if isinstance(op, CloseTrade) else rows[op.symbol]
                _apply_op_to_row(row, op)
                if row.pk is not None and not row._state.adding:
                    touched[row.pk] = row
        state, _ = apply_ops(state, ops)
        if deployment.day_start_on != tick.tick_at.date():
            deployment.day_start_on = tick.tick_at.date()
            deployment.day_start_equity_usd = tick.equity_usd
        snapshot.materialized_at = now
        snapshot.materialized_ops = [op_as_json(op) for op in flatten_ops(ops)]
    # Existing rows first: a close must free the (deployment, symbol) open slot before an insert.
    # Each open row appears once however many ticks the batch held, so a plain UPDATE per row is
    # cheaper than bulk_update's CASE expressions.
    for row in touched.values():
        row.save(update_fields=_TRADE_UPDATE_FIELDS)
    if created:
        TradeHistory.objects.bulk_create(created)
    if len(snapshots) == 1:
        snapshots[0].save(update_fields=["materialized_at", "materialized_ops"])
    else:
        DecisionSnapshot.objects.bulk_update(snapshots, ["materialized_at", "materialized_ops"])
    deployment.materialized_through = snapshots[-1].tick_at
    transaction.on_commit(partial(TICKS_MATERIALIZED.inc, len(snapshots)))
    deployment.save(update_fields=["materialized_through", "day_start_on", "day_start_equity_usd"])
    closed_rows = [row for row in [*touched.values(), *created] if row.status == TradeStatus.CLOSED]
    if opened or closed_rows:
        trades_materialized.send(sender=Deployment, deployment=deployment, opened=opened, closed=closed_rows)
    closed = len(closed_rows)
    if closed:
        _roll_up_daily_pnl(deployment, closed_rows)
        transaction.on_commit(
            partial(
                trades_closed.send,
                sender=Deployment,
                deployment_id=deployment.pk,
                count=closed,
                through=deployment.materialized_through,
            )
        )


_DAILY_PNL_UPSERT = """
    INSERT INTO trade_daily_pnl
        (owner_id, deployment_id, skill_id, skill_version, day, realized_pnl_usd, n_closed, n_wins)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (deployment_id, day) DO UPDATE SET
        realized_pnl_usd = trade_daily_pnl.realized_pnl_usd + EXCLUDED.realized_pnl_usd,
        n_closed = trade_daily_pnl.n_closed + EXCLUDED.n_closed,
        n_wins = trade_daily_pnl.n_wins + EXCLUDED.n_wins
"""


def _roll_up_daily_pnl(deployment: Deployment, closed_rows: list[TradeHistory]) -> None:
    """Add the batch's newly closed trades to trade_daily_pnl (per UTC exit day), in the batch's
    transaction: the rollup always equals the closed trades, whatever redelivery or crash happens."""
    days: dict[dt.date, list] = {}
    for row in closed_rows:
        day = days.setdefault(row.exit_tick_at.astimezone(dt.UTC).date(), [Decimal(0), 0, 0])
        day[0] += row.realized_pnl_usd
        day[1] += 1
        day[2] += row.realized_pnl_usd > 0
    skill_version = deployment.skill_version
    with connection.cursor() as cursor:
        cursor.executemany(
            _DAILY_PNL_UPSERT,
            [
                (deployment.owner_id, deployment.pk, skill_version.skill_id, skill_version.version, day, *totals)
                for day, totals in sorted(days.items())
            ],
        )


_TRADE_UPDATE_FIELDS = [
    "status", "size_base", "avg_entry_price", "accrued_pnl_usd", "last_mark_price", "mfe_usd", "mae_usd",
    "exit_tick_at", "exit_price", "exit_price_carried", "exit_reason", "exit_snapshot_id",
    "holding_minutes", "realized_pnl_usd", "updated_at",
]  # fmt: skip


def _new_trade_row(deployment: Deployment, skill_version: SkillVersion, op: OpenTradeOp) -> TradeHistory:
    """The open trade's row: the in-memory ledger's OpenTrade state plus the row-only columns."""
    return TradeHistory(
        id=uuid.uuid4(),
        deployment=deployment,
        owner_id=deployment.owner_id,
        skill_id=skill_version.skill_id,
        skill_version=skill_version.version,
        status=TradeStatus.OPEN,
        entry_leverage=op.entry_leverage,
        entry_snapshot_id=op.entry_snapshot_id,
        entry_lessons_hash=op.entry_lessons_hash,
        **asdict(opened_trade(op)),
    )


def _apply_op_to_row(row: TradeHistory, op: UpdateMfeMae | CloseTrade) -> None:
    row.mfe_usd, row.mae_usd = op.mfe_usd, op.mae_usd
    row.updated_at = timezone.now()
    if isinstance(op, UpdateMfeMae):
        row.size_base = op.size_base
        row.avg_entry_price = op.avg_entry_price
        row.accrued_pnl_usd = op.accrued_pnl_usd
        row.last_mark_price = op.last_mark_price
        return
    row.status = TradeStatus.CLOSED
    row.exit_tick_at = op.exit_tick_at
    row.exit_price = op.exit_price
    row.exit_price_carried = op.exit_price_carried
    row.exit_reason = op.exit_reason
    row.exit_snapshot_id = op.exit_snapshot_id
    row.realized_pnl_usd = op.realized_pnl_usd
    row.holding_minutes = op.holding_minutes
    row.last_mark_price = op.exit_price


def op_as_json(op) -> dict:
    """An op as the tick endpoint shows it: {"op": ..., "symbol": ..., seed field names...}."""
    body = {"op": op.op}
    for field_name, value in asdict(op).items():
        if isinstance(value, Decimal):
            value = format(value, "f")  # plain notation: "0.00000000", never "0E-8"
        elif isinstance(value, dt.datetime):
            value = value.isoformat()
        body[field_name] = value
    return body


@transaction.atomic
def fill_record(*, deployment: Deployment, symbol: str, fees_usd, filled_at: dt.datetime) -> TradeHistory:
    """Add a fill's fees to the open trade in that symbol (the seed's recordOrderFilled) and keep the
    latest ``filled_at`` of its fills as ``last_filled_at`` (fills may arrive out of order)."""
    materialize_if_behind(deployment)  # a fill may follow the tick that opened the trade
    trade = (
        TradeHistory.objects.select_for_update()
        .filter(deployment=deployment, symbol=symbol, status=TradeStatus.OPEN)
        .first()
    )
    if trade is None:
        raise ValidationError({"symbol": [NO_OPEN_TRADE.format(symbol=symbol)]})
    trade.fees_usd = F("fees_usd") + Decimal(str(fees_usd))
    trade.last_filled_at = Greatest(F("last_filled_at"), Value(filled_at))  # PostgreSQL's GREATEST skips a null
    trade.save(update_fields=["fees_usd", "last_filled_at", "updated_at"])
    trade.refresh_from_db()
    return trade


def materialize_if_behind(deployment: Deployment) -> Deployment:
    """Read-your-writes: catch up inline (same function, same lock) when a worker has not yet."""
    if deployment.latest_tick_at != deployment.materialized_through:
        materialize_pending(deployment_id=deployment.pk)
        deployment.refresh_from_db(fields=["materialized_through", "day_start_on", "day_start_equity_usd"])
    return deployment


@transaction.atomic
def trade_history_rebuild(*, deployment_id: int, progress=None) -> int:
    """Rebuild a deployment's trade_history from its stored snapshots, in one transaction.

    Idempotent: the result is what one clean materialization pass gives (lessons hashes come
    from the snapshots, as they were when each tick arrived). `progress(done, total)` is called
    after each batch. Returns the number of ticks applied.
    """
    deployment = Deployment.objects.select_for_update().get(pk=deployment_id)
    total = DecisionSnapshot.objects.filter(deployment=deployment).count()
    TradeHistory.objects.filter(deployment=deployment).delete()
    TradeDailyPnl.objects.filter(deployment=deployment).delete()
    DecisionSnapshot.objects.filter(deployment=deployment).update(materialized_at=None, materialized_ops=None)
    deployment.materialized_through = None
    deployment.day_start_on = None
    deployment.day_start_equity_usd = None
    deployment.save(update_fields=["materialized_through", "day_start_on", "day_start_equity_usd"])
    on_batch = (lambda done: progress(done, total)) if progress is not None else None
    return materialize_pending(deployment_id=deployment_id, on_batch=on_batch)


# -- runner tokens -------------------------------------------------------------------------------


def runner_token_create(*, deployment: Deployment, name: str) -> tuple[RunnerToken, str]:
    """A new runner token for the deployment, and its key: the key is returned here only, and stored
    only as its sha256."""
    new = new_key(RUNNER_TOKEN_PREFIX)
    token = RunnerToken(
        owner_id=deployment.owner_id,
        deployment=deployment,
        name=name,
        key_prefix=new.shown_prefix,
        key_hash=new.hash,
    )
    token.full_clean(validate_unique=False, validate_constraints=False)
    token.save()
    return token, new.key


def runner_token_revoke(*, token: RunnerToken, now: dt.datetime) -> RunnerToken:
    """Revoke the token from `now` on; revoking a revoked token keeps its first revocation time."""
    RunnerToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now)
    token.refresh_from_db(fields=["revoked_at"])
    return token


# -- retention ---------------------------------------------------------------------------------------


def snapshot_bars_prune(*, now: dt.datetime, batch: int = retention.BATCH) -> int:
    """Drop the bars (the heavy part: ~9 KB of a tick with 100 bars) of materialized decision snapshots stored
    more than SNAPSHOT_BARS_RETENTION_DAYS ago; the beat sweep, whose caller elevates. Returns how many.

    Kept: every other field (positions, marks, the proposed action, the engine's verdict, materialized ops,
    citations, the lessons hash: what the ledger, the journal, the trade page and a rebuild read), and the
    bars of every tick that opened a trade — the trade page summarises them, the situation summary is written
    from them, and a rebuild (backfill_trade_history, the parity replays) stamps the same entry regime from
    them. The rebuild needs no other tick's bars: only a tick that opens a trade reads them."""
    cutoff = now - dt.timedelta(days=settings.SNAPSHOT_BARS_RETENTION_DAYS)
    opened_a_trade = TradeHistory.objects.filter(entry_snapshot_id=OuterRef("pk"))
    heavy = DecisionSnapshot.objects.filter(
        bars__isnull=False, created_at__lt=cutoff, materialized_at__isnull=False
    ).exclude(Exists(opened_a_trade))
    return retention.in_batches(heavy, lambda picked: picked.update(bars=None), batch=batch)


# -- served contexts ("what the agent saw before opening this trade") -------------------------------------


@transaction.atomic  # a savepoint inside the request's transaction: a failed write leaves the request usable
def served_context_record(
    *, deployment: Deployment, memory_text: str, system_prompt_text: str, degraded: list[str], served_at: dt.datetime
) -> None:
    """Keep the context just served for `deployment` as of its latest tick (None before its first): one row per
    (deployment, as-of tick), a later read with the same as-of replacing it (the runner's latest read is the one
    its agent acted on). One statement: INSERT … ON CONFLICT (deployment_id, as_of_tick_at) DO UPDATE."""
    ServedContext.objects.bulk_create(
        [
            ServedContext(
                owner_id=deployment.owner_id,
                deployment=deployment,
                as_of_tick_at=deployment.latest_tick_at,
                served_at=served_at,
                memory_text=memory_text,
                system_prompt_text=system_prompt_text,
                degraded=list(degraded),
            )
        ],
        update_conflicts=True,
        unique_fields=["deployment", "as_of_tick_at"],
        update_fields=["served_at", "memory_text", "system_prompt_text", "degraded"],
    )


# The earliest instant: a context served before the first tick (as-of null) is followed by the first tick.
_BEFORE_EVERY_TICK = dt.datetime(1, 1, 1, tzinfo=dt.UTC)


def served_contexts_prune(*, now: dt.datetime, batch: int = retention.BATCH) -> int:
    """Delete every trader's served contexts served more than SERVED_CONTEXT_RETENTION_DAYS ago, except those a
    trade's entry needs: the row whose as-of tick is the tick just before a trade's opening tick (its next tick
    opened a trade) is what the trade page shows as "what the agent saw". The beat sweep, whose caller elevates.
    Returns how many were deleted.

    Two index probes a row: the next tick after its as-of (snapshot_tick_unique_per_deployment), and a trade
    entered at that tick (trade_deployment_recent)."""
    cutoff = now - dt.timedelta(days=settings.SERVED_CONTEXT_RETENTION_DAYS)
    next_tick = (
        DecisionSnapshot.objects.filter(
            deployment_id=OuterRef("deployment_id"),
            tick_at__gt=Coalesce(OuterRef("as_of_tick_at"), Value(_BEFORE_EVERY_TICK)),
        )
        .order_by("tick_at")
        .values("tick_at")[:1]
    )
    opened_a_trade = TradeHistory.objects.filter(
        deployment_id=OuterRef("deployment_id"), entry_tick_at=OuterRef("next_tick")
    )
    old = (
        ServedContext.objects.filter(served_at__lt=cutoff)
        .annotate(next_tick=Subquery(next_tick))
        .exclude(Exists(opened_a_trade))
    )
    return retention.in_batches(old, lambda picked: picked.delete()[0], batch=batch)

"""Skills, their versions, deployments and the per-tick decision snapshots.

Every owned row carries owner_id (denormalised where a parent already has it) so reads can be
scoped with one predicate, and a later database row policy is a one-line `owner_id = …`.
Database CHECK constraints back every rule the API validates.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q

from access.models import OwnedModel
from memorysite.validators import validate_one_line_name


class Skill(OwnedModel):
    """A trading strategy the trader writes; its text and memory settings live in versions."""

    name = models.CharField(max_length=100)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "skills"
        ordering = ["name"]
        constraints = [
            # services.skill_create relies on this to refuse a second skill of the same name.
            models.UniqueConstraint(fields=["owner", "name"], name="skill_name_unique_per_owner"),
            models.CheckConstraint(condition=~Q(name=""), name="skill_name_not_empty"),
        ]

    def __str__(self) -> str:
        return self.name


class ReflectionCadence(models.TextChoices):
    OFF = "off", "off"
    PER_N_TRADES = "per_n_trades", "every N closed trades"
    DAILY = "daily", "daily"


# Bounds shared by the API serializers, the model validators and the CHECK constraints.
RECENT_TRADES_K_MIN, RECENT_TRADES_K_MAX = 1, 30
REFLECTION_EVERY_N_MIN, REFLECTION_EVERY_N_MAX = 1, 1000
BARS_WINDOW_MIN, BARS_WINDOW_MAX = 1, 1000
STRATEGY_TEXT_MAX = 20_000
AVOID_RULES_MAX = 5_000
# The "## From your manual and playbooks" context section (agentcontext.manual): chunks shown, token cap.
MANUAL_K_MIN, MANUAL_K_MAX, MANUAL_K_DEFAULT = 1, 10, 3
MANUAL_TOKEN_CAP_MIN, MANUAL_TOKEN_CAP_MAX, MANUAL_TOKEN_CAP_DEFAULT = 50, 2000, 400
# The reflection model of a skill version (seed: runReflection's modelOverride); null is settings.REFLECTION_MODEL.
# A pattern, not a list, so a new Claude model needs no release: "claude-" then lowercase words of letters and
# digits joined by hyphens (claude-haiku-4-5, claude-opus-4-5-20251101, claude-sonnet-5).
REFLECTION_MODEL_PATTERN = r"^claude-[a-z0-9]+(-[a-z0-9]+)*$"
REFLECTION_MODEL_MAX = 64
REFLECTION_MODEL_RULE = (
    "must be a Claude model id: 'claude-' then lowercase letters, digits and single hyphens (e.g. claude-haiku-4-5),"
    " at most 64 characters; or null for the service's REFLECTION_MODEL"
)


class SkillVersion(OwnedModel):
    """An immutable version of a skill: strategy text, avoid rules, memory configuration."""

    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    strategy_text = models.TextField(max_length=STRATEGY_TEXT_MAX)
    avoid_rules = models.TextField(blank=True, default="", max_length=AVOID_RULES_MAX, help_text="One rule per line.")
    memory_enabled = models.BooleanField(default=True)
    recent_trades_k = models.PositiveSmallIntegerField(default=10)
    reflection_cadence = models.CharField(
        max_length=16, choices=ReflectionCadence.choices, default=ReflectionCadence.PER_N_TRADES
    )
    reflection_every_n_trades = models.PositiveIntegerField(default=5)
    reflection_model_override = models.CharField(  # noqa: DJ001 (null: no override, as the API says; "" is refused)
        max_length=REFLECTION_MODEL_MAX,
        null=True,
        blank=True,
        default=None,
        validators=[RegexValidator(REFLECTION_MODEL_PATTERN, message=REFLECTION_MODEL_RULE)],
        help_text="The model reflection uses for this version; empty: the service's REFLECTION_MODEL.",
    )
    bars_window = models.PositiveIntegerField(default=100)
    # The manual section of the per-tick context: the few chunks of the trader's manual and the staff
    # playbooks/runbooks most relevant to the tick (agentcontext.manual).
    manual_enabled = models.BooleanField(default=True)
    manual_k = models.PositiveSmallIntegerField(default=MANUAL_K_DEFAULT)
    manual_token_cap = models.PositiveSmallIntegerField(default=MANUAL_TOKEN_CAP_DEFAULT)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "skill_versions"
        ordering = ["skill_id", "-version"]
        constraints = [
            # services.skill_version_create numbers versions 1..n under a lock on the skill row.
            models.UniqueConstraint(fields=["skill", "version"], name="skill_version_unique"),
            models.CheckConstraint(condition=Q(version__gte=1), name="skill_version_from_1"),
            models.CheckConstraint(
                condition=Q(recent_trades_k__gte=RECENT_TRADES_K_MIN) & Q(recent_trades_k__lte=RECENT_TRADES_K_MAX),
                name="skill_version_recent_trades_k_range",
            ),
            models.CheckConstraint(
                condition=Q(reflection_cadence__in=ReflectionCadence.values),
                name="skill_version_reflection_cadence_valid",
            ),
            models.CheckConstraint(
                condition=Q(reflection_every_n_trades__gte=REFLECTION_EVERY_N_MIN)
                & Q(reflection_every_n_trades__lte=REFLECTION_EVERY_N_MAX),
                name="skill_version_reflection_every_n_range",
            ),
            models.CheckConstraint(
                condition=Q(reflection_model_override__isnull=True)
                | Q(reflection_model_override__regex=REFLECTION_MODEL_PATTERN),
                name="skill_version_reflection_model_override_valid",
            ),
            models.CheckConstraint(
                condition=Q(bars_window__gte=BARS_WINDOW_MIN) & Q(bars_window__lte=BARS_WINDOW_MAX),
                name="skill_version_bars_window_range",
            ),
            models.CheckConstraint(
                condition=Q(manual_k__gte=MANUAL_K_MIN) & Q(manual_k__lte=MANUAL_K_MAX),
                name="skill_version_manual_k_range",
            ),
            models.CheckConstraint(
                condition=Q(manual_token_cap__gte=MANUAL_TOKEN_CAP_MIN) & Q(manual_token_cap__lte=MANUAL_TOKEN_CAP_MAX),
                name="skill_version_manual_token_cap_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.skill.name} v{self.version}"

    @property
    def avoid_rule_list(self) -> list[str]:
        return [line.strip() for line in self.avoid_rules.splitlines() if line.strip()]


class DeploymentMode(models.TextChoices):
    SIM = "sim", "sim"
    PAPER = "paper", "paper"
    LIVE = "live", "live"


class DeploymentStatus(models.TextChoices):
    RUNNING = "running", "running"
    STOPPED = "stopped", "stopped"


class Deployment(OwnedModel):
    """A skill version running against a broker (or a backtest); runners post its ticks."""

    skill_version = models.ForeignKey(SkillVersion, on_delete=models.PROTECT, related_name="deployments")
    mode = models.CharField(max_length=8, choices=DeploymentMode.choices)
    status = models.CharField(max_length=8, choices=DeploymentStatus.choices, default=DeploymentStatus.RUNNING)
    day_start_equity_usd = models.DecimalField(max_digits=20, decimal_places=8, null=True, blank=True)
    # The UTC date day_start_equity_usd was captured for (the first tick after that midnight).
    day_start_on = models.DateField(null=True, blank=True)
    # Written by reflection when a lessons note becomes active; each tick copies it onto its snapshot,
    # and trades that tick opens are stamped with it (entry_lessons_hash).
    active_lessons_hash = models.CharField(max_length=16, blank=True, default="")
    # Tick ingestion's high-water mark, and the materializer's cursor: snapshots up to it are applied.
    latest_tick_at = models.DateTimeField(null=True, blank=True)
    materialized_through = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "deployments"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(mode__in=DeploymentMode.values), name="deployment_mode_valid"),
            models.CheckConstraint(condition=Q(status__in=DeploymentStatus.values), name="deployment_status_valid"),
            models.CheckConstraint(
                condition=Q(day_start_equity_usd__isnull=True) | Q(day_start_equity_usd__gte=0),
                name="deployment_day_start_equity_non_negative",
            ),
            models.CheckConstraint(
                condition=Q(materialized_through__isnull=True) | Q(materialized_through__lte=F("latest_tick_at")),
                name="deployment_cursor_not_past_latest_tick",
            ),
        ]
        indexes = [models.Index(fields=["owner", "-created_at"], name="deployment_owner_recent")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.skill_version} ({self.mode})"


class ProposedActionKind(models.TextChoices):
    PROPOSE_ORDER = "propose_order", "propose_order"
    CLOSE_POSITION = "close_position", "close_position"
    ADJUST_POSITION = "adjust_position", "adjust_position"
    HOLD = "hold", "hold"
    FLATTEN = "flatten", "flatten"


class EngineKind(models.TextChoices):
    EXECUTED = "executed", "executed"
    REJECTED = "rejected", "rejected"
    SKIPPED = "skipped", "skipped"


class DecisionSnapshot(OwnedModel):
    """One tick as the runner reported it: the firehose the ledger materializes from."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="snapshots")
    tick_at = models.DateTimeField()
    equity_usd = models.DecimalField(max_digits=20, decimal_places=8)
    positions = models.JSONField(default=list)
    marks = models.JSONField(default=dict)
    proposed_action = models.JSONField(null=True, blank=True)
    engine = models.JSONField(null=True, blank=True)
    bars = models.JSONField(null=True, blank=True)
    engine_kind = models.CharField(max_length=8, choices=EngineKind.choices, blank=True, default="")
    engine_rule = models.CharField(max_length=64, blank=True, default="")
    # Deployment.active_lessons_hash when the tick arrived: trades opened by it are stamped with it.
    lessons_hash = models.CharField(max_length=16, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    # Set in the same transaction that applied this tick's ops to trade_history.
    materialized_at = models.DateTimeField(null=True, blank=True)
    materialized_ops = models.JSONField(null=True, blank=True)
    # Recall citations of searches the runner made for this tick (seed hybrid-recall §2: citations
    # are attached to run records): [{"query", "results": [{path, startLine, endLine, score, snippet, source}]}].
    citations = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "decision_snapshots"
        ordering = ["deployment_id", "-tick_at"]
        constraints = [
            # Tick ingestion relies on this to make a re-delivered tick a no-op.
            models.UniqueConstraint(fields=["deployment", "tick_at"], name="snapshot_tick_unique_per_deployment"),
            models.CheckConstraint(
                condition=Q(engine_kind="") | Q(engine_kind__in=EngineKind.values),
                name="snapshot_engine_kind_valid",
            ),
            models.CheckConstraint(condition=Q(equity_usd__gte=0), name="snapshot_equity_non_negative"),
        ]
        indexes = [
            # The risk-state slot counts engine verdicts by deployment over recent ticks.
            models.Index(fields=["deployment", "engine_kind", "-tick_at"], name="snapshot_engine_recent"),
            # ledger.services.snapshot_bars_prune finds the old ticks still holding bars (a small index once swept).
            models.Index(fields=["created_at"], condition=Q(bars__isnull=False), name="snapshot_bars_held"),
        ]

    def __str__(self) -> str:
        return f"{self.deployment_id} @ {self.tick_at.isoformat()}"


class TradeSide(models.TextChoices):
    LONG = "long", "long"
    SHORT = "short", "short"


class TradeStatus(models.TextChoices):
    OPEN = "open", "open"
    CLOSED = "closed", "closed"


_USD: dict[str, Any] = {"max_digits": 28, "decimal_places": 8}
_PRICE: dict[str, Any] = {"max_digits": 32, "decimal_places": 12}


class TradeHistory(OwnedModel):
    """One round-trip trade, materialized from position deltas (seed: trade_history)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="trades")
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="trades")
    skill_version = models.PositiveIntegerField()
    symbol = models.CharField(max_length=32)
    side = models.CharField(max_length=5, choices=TradeSide.choices)
    status = models.CharField(max_length=6, choices=TradeStatus.choices, default=TradeStatus.OPEN)
    # entry
    entry_tick_at = models.DateTimeField()
    entry_price = models.DecimalField(**_PRICE)
    entry_size_usd = models.DecimalField(**_USD)
    entry_leverage = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    entry_reason = models.TextField(blank=True, default="")
    entry_snapshot = models.ForeignKey(
        DecisionSnapshot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    entry_lessons_hash = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001 (null = no active lessons)
    entry_regime_tag = models.CharField(max_length=32, null=True, blank=True)  # noqa: DJ001 (null = not classified)
    # position accounting while open (average cost at tick marks)
    size_base = models.DecimalField(**_PRICE)
    avg_entry_price = models.DecimalField(**_PRICE)
    accrued_pnl_usd = models.DecimalField(**_USD, default=0)
    last_mark_price = models.DecimalField(**_PRICE)
    # exit (null while open)
    exit_tick_at = models.DateTimeField(null=True, blank=True)
    exit_price = models.DecimalField(**_PRICE, null=True, blank=True)
    exit_price_carried = models.BooleanField(default=False)
    exit_reason = models.TextField(null=True, blank=True)  # noqa: DJ001 (null while open, as the seed)
    exit_snapshot = models.ForeignKey(
        DecisionSnapshot, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # outcome
    holding_minutes = models.DecimalField(max_digits=14, decimal_places=2, null=True, blank=True)
    realized_pnl_usd = models.DecimalField(**_USD, null=True, blank=True)
    fees_usd = models.DecimalField(**_USD, default=0)
    # The latest filled_at among the fills posted to the trade (ledger.services.fill_record); null: none yet.
    last_filled_at = models.DateTimeField(null=True, blank=True)
    mfe_usd = models.DecimalField(**_USD, null=True, blank=True)
    mae_usd = models.DecimalField(**_USD, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "trade_history"
        verbose_name = verbose_name_plural = "trade history"
        constraints = [
            # The materializer relies on this: at most one open row per (deployment, symbol).
            models.UniqueConstraint(
                fields=["deployment", "symbol"], condition=Q(status="open"), name="trade_one_open_per_symbol"
            ),
            models.CheckConstraint(condition=Q(side__in=TradeSide.values), name="trade_side_valid"),
            models.CheckConstraint(condition=Q(status__in=TradeStatus.values), name="trade_status_valid"),
            models.CheckConstraint(
                condition=Q(status="open")
                | (
                    Q(exit_tick_at__isnull=False)
                    & Q(exit_price__isnull=False)
                    & Q(exit_reason__isnull=False)
                    & Q(realized_pnl_usd__isnull=False)
                    & Q(holding_minutes__isnull=False)
                ),
                name="trade_closed_has_exit_fields",
            ),
            models.CheckConstraint(
                condition=Q(status="closed") | (Q(exit_tick_at__isnull=True) & Q(realized_pnl_usd__isnull=True)),
                name="trade_open_has_no_exit",
            ),
            models.CheckConstraint(
                condition=Q(entry_price__gt=0) & Q(size_base__gt=0) & Q(entry_size_usd__gt=0),
                name="trade_entry_positive",
            ),
            models.CheckConstraint(condition=Q(fees_usd__gte=0), name="trade_fees_non_negative"),
        ]
        indexes = [
            # Recent trades for the context and the journal page.
            models.Index(fields=["deployment", "-entry_tick_at"], name="trade_deployment_recent"),
            models.Index(fields=["skill", "skill_version", "-entry_tick_at"], name="trade_skill_version_recent"),
            # Closed trades by exit time: today's realized PnL and the losing streak.
            models.Index(
                fields=["deployment", "-exit_tick_at"], condition=Q(status="closed"), name="trade_deployment_exits"
            ),
            # A skill's latest closed trades (the chat's get_skill_performance), whatever its history size.
            models.Index(
                fields=["skill", "-exit_tick_at", "-entry_tick_at"],
                condition=Q(status="closed"),
                name="trade_skill_exits",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.symbol} {self.side} {self.status} @ {self.entry_tick_at.isoformat()}"


class TradeDailyPnl(OwnedModel):
    """Closed trades of one deployment rolled up per UTC exit day, kept by the materializer in the
    same transaction as the trades: performance summaries (Sharpe, drawdown, win rate) read days,
    not trades, so they cost the same at 10 or 100,000 trades."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="daily_pnl")
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="+")
    skill_version = models.PositiveIntegerField()
    day = models.DateField()
    realized_pnl_usd = models.DecimalField(**_USD)
    n_closed = models.PositiveIntegerField()
    n_wins = models.PositiveIntegerField()

    class Meta:
        db_table = "trade_daily_pnl"
        ordering = ["deployment_id", "day"]
        constraints = [
            models.UniqueConstraint(fields=["deployment", "day"], name="trade_daily_pnl_unique_day"),
            models.CheckConstraint(
                condition=Q(n_wins__lte=F("n_closed")) & Q(n_closed__gte=1), name="trade_daily_pnl_counts"
            ),
        ]
        indexes = [models.Index(fields=["skill", "skill_version", "day"], name="trade_daily_pnl_skill_day")]

    def __str__(self) -> str:
        return f"{self.deployment_id} {self.day}: {self.realized_pnl_usd}"


RUNNER_TOKEN_PREFIX = "rt_"  # noqa: S105 (a key prefix, not a secret)
RUNNER_TOKEN_NAME_MAX = 100


class RunnerToken(OwnedModel):
    """An API key bound to one deployment: it may post that deployment's ticks and fills and read its
    context and trades, nothing else. Only the key's sha256 is stored; the key is shown once."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="runner_tokens")
    name = models.CharField(max_length=RUNNER_TOKEN_NAME_MAX, validators=[validate_one_line_name])
    key_prefix = models.CharField(max_length=8, help_text="The key's first 8 characters, to tell tokens apart.")
    key_hash = models.CharField(max_length=64, unique=True, help_text="sha256 hex digest of the whole key.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "runner_tokens"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="runner_token_name_not_empty"),
            models.CheckConstraint(
                condition=Q(key_hash__regex=r"^[0-9a-f]{64}$"), name="runner_token_key_hash_is_sha256_hex"
            ),
        ]
        indexes = [models.Index(fields=["owner", "deployment"], name="runner_token_owner_deployment")]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…) for deployment #{self.deployment_id}"


class ServedContext(OwnedModel):
    """The context the service served for a deployment (GET /api/v1/deployments/{id}/context/ or MCP's
    get_trading_context) as of one tick: the memory block and the system prompt exactly as sent. The runner reads
    the context, the agent decides, the runner posts the tick carrying its proposal: so the row whose as-of is the
    tick just before a trade's opening tick is "what the agent saw before opening this trade" (the trade page).
    Written by agentcontext (ledger.services.served_context_record), one row per (deployment, as-of tick), the
    latest read winning; swept after SERVED_CONTEXT_RETENTION_DAYS except the rows a trade's entry needs."""

    deployment = models.ForeignKey(Deployment, on_delete=models.CASCADE, related_name="served_contexts")
    # Deployment.latest_tick_at when it was served; null: served before the deployment's first tick.
    as_of_tick_at = models.DateTimeField(null=True, blank=True)
    served_at = models.DateTimeField()
    memory_text = models.TextField(blank=True, default="")
    system_prompt_text = models.TextField(blank=True, default="")
    # The sections whose reads failed (agentcontext.degrade), as the answer's `degraded` listed them.
    degraded = models.JSONField(default=list, blank=True)

    class Meta:
        db_table = "served_contexts"
        ordering = ["deployment_id", "-as_of_tick_at"]
        constraints = [
            # served_context_record's upsert (ON CONFLICT) relies on this: the nulls (before the first tick) too.
            models.UniqueConstraint(
                fields=["deployment", "as_of_tick_at"], nulls_distinct=False, name="served_context_one_per_as_of"
            ),
        ]
        indexes = [
            # ledger.services.served_contexts_prune finds the old rows.
            models.Index(fields=["served_at"], name="served_context_served_at"),
        ]

    def __str__(self) -> str:
        as_of = self.as_of_tick_at.isoformat() if self.as_of_tick_at else "before the first tick"
        return f"{self.deployment_id} as of {as_of}"

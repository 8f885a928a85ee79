"""Skills, their versions, deployments and the per-tick decision snapshots.

Every owned row carries owner_id (denormalised where a parent already has it) so reads can be
scoped with one predicate, and a later database row policy is a one-line `owner_id = …`.
Database CHECK constraints back every rule the API validates.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q


class OwnedQuerySet(models.QuerySet):
    def owned_by(self, user) -> OwnedQuerySet:
        """Rows of this trader only; an anonymous user owns nothing."""
        if user is None or not user.is_authenticated:
            return self.none()
        return self.filter(owner_id=user.pk)


class OwnedModel(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True


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
    bars_window = models.PositiveIntegerField(default=100)
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
                condition=Q(bars_window__gte=BARS_WINDOW_MIN) & Q(bars_window__lte=BARS_WINDOW_MAX),
                name="skill_version_bars_window_range",
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
        ]
        indexes = [models.Index(fields=["owner", "-created_at"], name="deployment_owner_recent")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.skill_version} ({self.mode})"


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
    created_at = models.DateTimeField(auto_now_add=True)

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
        ]

    def __str__(self) -> str:
        return f"{self.deployment_id} @ {self.tick_at.isoformat()}"

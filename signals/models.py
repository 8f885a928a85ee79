"""Analyst memory (seed: analyst-signals-memory.md): markets, agent_signals, the evolution events
the tracker detects, and an audit record per memory retrieval."""

from __future__ import annotations

import uuid

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual

from access.models import OwnedModel
from signals.memory import MAX_SIGNALS

DIRECTIONS = ("YES", "NO", "NEUTRAL")
AGENT_NAME_MAX = 100
KEY_DRIVERS_MAX = 50


class Market(OwnedModel):
    """A prediction market the trader's agents analyse, by its external condition id."""

    condition_id = models.CharField(max_length=200)
    question = models.TextField(blank=True, default="", max_length=2000)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "markets"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "condition_id"], name="market_condition_unique_per_owner"),
            models.CheckConstraint(condition=~Q(condition_id=""), name="market_condition_id_not_empty"),
        ]

    def __str__(self) -> str:
        return self.question[:60] or self.condition_id


class Direction(models.TextChoices):
    YES = "YES", "YES"
    NO = "NO", "NO"
    NEUTRAL = "NEUTRAL", "NEUTRAL"


class AgentSignal(OwnedModel):
    """One agent's signal on one market (the seed's agent_signals schema plus owner_id)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    market = models.ForeignKey(Market, on_delete=models.CASCADE, related_name="signals")
    recommendation_id = models.UUIDField(null=True, blank=True)
    agent_name = models.CharField(max_length=AGENT_NAME_MAX)
    agent_type = models.CharField(max_length=AGENT_NAME_MAX)
    fair_probability = models.DecimalField(max_digits=5, decimal_places=4)
    confidence = models.DecimalField(max_digits=3, decimal_places=2)
    direction = models.CharField(max_length=7, choices=Direction.choices)
    key_drivers = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=False)

    class Meta:
        db_table = "agent_signals"
        ordering = ["market_id", "agent_name", "-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(fair_probability__gte=0) & Q(fair_probability__lte=1), name="signal_probability_range"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1), name="signal_confidence_range"
            ),
            models.CheckConstraint(condition=Q(direction__in=DIRECTIONS), name="signal_direction_valid"),
            models.CheckConstraint(
                condition=Q(GreaterThanOrEqual(Length("agent_name"), 1)), name="signal_agent_name_not_empty"
            ),
            models.CheckConstraint(
                condition=Q(
                    LessThanOrEqual(models.Func(F("key_drivers"), function="jsonb_array_length"), KEY_DRIVERS_MAX)
                ),
                name="signal_key_drivers_bounded",
            ),
        ]
        indexes = [
            # "The latest N signals of (agent, market)" is one index range scan, newest first.
            models.Index(F("market"), F("agent_name"), F("created_at").desc(), F("id").desc(), name="signal_latest"),
        ]

    def __str__(self) -> str:
        return f"{self.agent_name} {self.direction} {self.fair_probability} @ {self.created_at:%Y-%m-%d %H:%M}"


class EvolutionType(models.TextChoices):
    DIRECTION_CHANGE = "direction_change", "direction change"
    PROBABILITY_SHIFT = "probability_shift", "probability shift"
    CONFIDENCE_CHANGE = "confidence_change", "confidence change"
    REASONING_EVOLUTION = "reasoning_evolution", "reasoning evolution"


class SignalEvolutionEvent(OwnedModel):
    """A significant change in an agent's view, detected when its new signal was stored."""

    market = models.ForeignKey(Market, on_delete=models.CASCADE, related_name="evolution_events")
    signal = models.ForeignKey(AgentSignal, on_delete=models.CASCADE, related_name="evolution_events")
    agent_name = models.CharField(max_length=AGENT_NAME_MAX)
    type = models.CharField(max_length=20, choices=EvolutionType.choices)
    previous_value = models.JSONField()
    current_value = models.JSONField()
    magnitude = models.DecimalField(max_digits=6, decimal_places=4)
    description = models.CharField(max_length=200)
    timestamp = models.DateTimeField()

    class Meta:
        db_table = "signal_evolution_events"
        ordering = ["-timestamp", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(type__in=EvolutionType.values), name="evolution_type_valid"),
            models.CheckConstraint(condition=Q(magnitude__gte=0), name="evolution_magnitude_non_negative"),
        ]
        indexes = [models.Index(fields=["market", "agent_name", "-timestamp"], name="evolution_market_agent")]

    def __str__(self) -> str:
        return f"{self.agent_name}: {self.description}"


class RetrievalErrorType(models.TextChoices):
    CONNECTION = "connection", "connection"
    QUERY = "query", "query"
    VALIDATION = "validation", "validation"
    TIMEOUT = "timeout", "timeout"
    RATE_LIMIT = "rate_limit", "rate limit"


class MemoryRetrievalAudit(OwnedModel):
    """The seed's audit log entry for one memory retrieval (stage 'memory_retrieval')."""

    market = models.ForeignKey(Market, on_delete=models.CASCADE, related_name="retrieval_audits")
    agents = models.JSONField(default=list)
    agents_with_history = models.PositiveIntegerField(default=0)
    success = models.BooleanField()
    error_type = models.CharField(max_length=12, choices=RetrievalErrorType.choices, blank=True, default="")
    error = models.TextField(blank=True, default="")
    retry_attempts = models.PositiveSmallIntegerField(default=0)
    invalid_rows_skipped = models.PositiveIntegerField(default=0)
    duration_ms = models.DecimalField(max_digits=10, decimal_places=3)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memory_retrieval_audits"
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["market", "-created_at"], name="retrieval_audit_market"),
            # signals.services.retrieval_audits_expire deletes by age across markets and traders.
            models.Index(fields=["created_at"], name="retrieval_audit_created"),
        ]

    def __str__(self) -> str:
        return f"{'ok' if self.success else self.error_type} {self.market_id} @ {self.created_at:%Y-%m-%d %H:%M:%S}"


class MemorySettings(models.Model):
    """Analyst memory's switches (seed § Deployment: the feature flag), changed in admin without a deploy.

    One row (id 1) at most. Without it the environment's values hold (SIGNALS_MEMORY_ENABLED,
    SIGNALS_MEMORY_MAX_SIGNALS, SIGNALS_QUERY_TIMEOUT_MS, SIGNALS_MEMORY_RETRIES); with it, the row wins
    (signals.selectors.memory_switches), so staff can turn memory off at once on a running service."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=1, editable=False)
    enabled = models.BooleanField(
        default=True, help_text="Off: every agent gets empty memory, and no query is run for it (nor an audit row)."
    )
    max_signals = models.PositiveSmallIntegerField(
        default=MAX_SIGNALS,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_SIGNALS)],
        help_text=f"Each agent's latest signals retrieved, at most this many (1-{MAX_SIGNALS}); a request's "
        "`limit` above it is capped to it.",
    )
    timeout_ms = models.PositiveIntegerField(
        default=5000,
        validators=[MinValueValidator(1), MaxValueValidator(60_000)],
        help_text="The retrieval's statement timeout; past it memory is empty (degraded), never an error.",
    )
    retries = models.PositiveSmallIntegerField(
        default=3,
        validators=[MaxValueValidator(10)],
        help_text="Retries of a retrieval refused for too many connections (exponential backoff); a connection "
        "error is retried at most once, a timeout or a query error never.",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "analyst_memory_settings"
        verbose_name = "analyst memory settings"
        verbose_name_plural = "analyst memory settings"
        constraints = [models.CheckConstraint(condition=Q(id=1), name="analyst_memory_settings_one_row")]

    def __str__(self) -> str:
        return f"analyst memory {'on' if self.enabled else 'off'}"

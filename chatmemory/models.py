"""Chat memory: durable facts about the trader (user_facts, ADR-0020) and the market data the
coach reads (market_events, bars)."""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual

from access.models import OwnedQuerySet
from ledger.models import Skill

FACT_MIN_CHARS, FACT_MAX_CHARS = 4, 500
TOPIC_MAX_CHARS = 32


class FactSource(models.TextChoices):
    CHAT = "chat", "chat (the agent remembered it)"
    PROFILE = "profile", "profile (you wrote it)"
    INFERRED = "inferred", "inferred (from your behaviour)"


class FactConfidence(models.TextChoices):
    ASSERTED = "asserted", "asserted"
    INFERRED = "inferred", "inferred"


class ArchivedReason(models.TextChoices):
    # Labels for staff (admin); the trader's facts page says it in its own words ("archived by you").
    # "user_deleted" is the seed's name: the fact is archived (restorable), not deleted.
    USER_DELETED = "user_deleted", "archived by the trader"
    USER_CORRECTED = "user_corrected", "archived: the trader corrected it"
    AGENT_FORGET = "agent_forget", "forgotten by the coach"


class UserFact(models.Model):
    """One thing the chat coach knows about the trader (seed: user_facts). Archived, never
    silently deleted; the trader can hard-delete from the profile page ("forget me")."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The seed's user_id; `owner` in code like every owned row, so `.owned_by(user)` applies.
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_column="user_id")
    fact = models.TextField(max_length=FACT_MAX_CHARS)
    source = models.CharField(max_length=8, choices=FactSource.choices)
    confidence = models.CharField(max_length=8, choices=FactConfidence.choices)
    topic = models.CharField(max_length=TOPIC_MAX_CHARS, null=True, blank=True)  # noqa: DJ001 (the seed's nullable tag)
    last_referenced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_reason = models.CharField(max_length=16, choices=ArchivedReason.choices, null=True, blank=True)  # noqa: DJ001
    # Reserved by the ADR for skill-scoped facts; no flow writes it yet.
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, null=True, blank=True, related_name="+")

    objects = OwnedQuerySet.as_manager()

    class Meta:
        db_table = "user_facts"
        ordering = [F("last_referenced_at").desc(nulls_last=True), "-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(GreaterThanOrEqual(Length("fact"), FACT_MIN_CHARS))
                & Q(LessThanOrEqual(Length("fact"), FACT_MAX_CHARS)),
                name="user_fact_length",
            ),
            models.CheckConstraint(condition=Q(source__in=FactSource.values), name="user_fact_source_valid"),
            models.CheckConstraint(
                condition=Q(confidence__in=FactConfidence.values), name="user_fact_confidence_valid"
            ),
            models.CheckConstraint(
                condition=(Q(archived_at__isnull=True) & Q(archived_reason__isnull=True))
                | (Q(archived_at__isnull=False) & Q(archived_reason__in=ArchivedReason.values)),
                name="user_fact_archived_with_reason",
            ),
            models.CheckConstraint(condition=~Q(topic=""), name="user_fact_topic_null_not_empty"),
        ]
        indexes = [
            # The seed's user_facts_active_idx, extended with the prompt order's tie-breaks so the
            # top-K read stops after K rows even when many facts were never referenced.
            models.Index(
                F("owner"),
                F("last_referenced_at").desc(nulls_last=True),
                F("created_at").desc(),
                F("id").desc(),
                name="user_facts_active_idx",
                condition=Q(archived_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.topic or '-'}] {self.fact[:60]}"

    @property
    def archived(self) -> bool:
        return self.archived_at is not None


# -- market data (not owned: the same for every trader) ------------------------------------------------


class EventKind(models.TextChoices):
    CPI = "cpi", "CPI"
    FOMC = "fomc", "FOMC"
    NFP = "nfp", "NFP"
    EARNINGS = "earnings", "earnings"
    TOKEN_UNLOCK = "token_unlock", "token unlock"
    OTHER = "other", "other"


class MarketEvent(models.Model):
    """A scheduled market event (seed: market_events) the coach warns about."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(max_length=16, choices=EventKind.choices)
    title = models.CharField(max_length=200)
    # Upper-case tickers the event moves (empty = market-wide, e.g. a CPI print).
    symbols = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    scheduled_at = models.DateTimeField()
    importance = models.DecimalField(max_digits=4, decimal_places=3)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "market_events"
        ordering = ["scheduled_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=EventKind.values), name="market_event_kind_valid"),
            models.CheckConstraint(
                condition=Q(importance__gte=0) & Q(importance__lte=1), name="market_event_importance_range"
            ),
            models.UniqueConstraint(fields=["kind", "title", "scheduled_at"], name="market_event_unique"),
        ]
        indexes = [
            models.Index(fields=["scheduled_at"], name="market_event_when"),
            GinIndex(fields=["symbols"], name="market_event_symbols"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.title} @ {self.scheduled_at.isoformat()}"


class Timeframe(models.TextChoices):
    M1 = "1m", "1 minute"
    M5 = "5m", "5 minutes"
    M15 = "15m", "15 minutes"
    H1 = "1h", "1 hour"
    H4 = "4h", "4 hours"
    D1 = "1d", "1 day"


_PRICE: dict[str, Any] = {"max_digits": 32, "decimal_places": 12}


class Bar(models.Model):
    """One OHLCV bar (seed: bars): the history the coach's event-exposure figures come from."""

    symbol = models.CharField(max_length=32)
    timeframe = models.CharField(max_length=3, choices=Timeframe.choices)
    ts = models.DateTimeField()
    open = models.DecimalField(**_PRICE)
    high = models.DecimalField(**_PRICE)
    low = models.DecimalField(**_PRICE)
    close = models.DecimalField(**_PRICE)
    volume = models.DecimalField(max_digits=32, decimal_places=8, default=0)

    class Meta:
        db_table = "bars"
        ordering = ["symbol", "timeframe", "ts"]
        constraints = [
            models.UniqueConstraint(fields=["symbol", "timeframe", "ts"], name="bar_unique_per_symbol_timeframe_ts"),
            models.CheckConstraint(condition=Q(timeframe__in=Timeframe.values), name="bar_timeframe_valid"),
            models.CheckConstraint(
                condition=Q(low__gt=0)
                & Q(high__gte=F("low"))
                & Q(open__gte=F("low"))
                & Q(open__lte=F("high"))
                & Q(close__gte=F("low"))
                & Q(close__lte=F("high")),
                name="bar_prices_consistent",
            ),
            models.CheckConstraint(condition=Q(volume__gte=0), name="bar_volume_non_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.symbol} {self.timeframe} {self.ts.isoformat()}"

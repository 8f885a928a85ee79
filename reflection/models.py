"""reflection_notes: the lessons distilled from a deployment's closed trades (seed: memory-layer.md)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact, LessThanOrEqual

from access.models import OwnedModel
from ledger.models import Deployment, Skill
from reflection.core import LESSONS_MAX_CHARS


class NoteStatus(models.TextChoices):
    ACTIVE = "active", "active"
    SUPERSEDED = "superseded", "superseded"
    # Taken out of the prompt by staff with no replacement (the seed has only the first two).
    RETIRED = "retired", "retired"


class NoteSource(models.TextChoices):
    REFLECTION = "reflection", "reflection run"
    STAFF_EDIT = "staff_edit", "staff edit"
    PROMOTION = "promotion", "promoted to skill scope"
    # The trader vetoed a bullet or took a veto back (reflection.services.lesson_verdict_set): the text of the
    # nearest revision not made this way, without the bullets vetoed now. A new text, so a new A/B revision.
    TRADER = "trader", "trader's verdict"


class ReflectionNote(OwnedModel):
    """One lessons revision. Exactly one active note per deployment (and per skill version for
    skill-scoped notes, ``deployment`` null); superseded and retired notes stay for audit."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="reflection_notes")
    skill_version = models.PositiveIntegerField()
    deployment = models.ForeignKey(
        Deployment, on_delete=models.CASCADE, null=True, blank=True, related_name="reflection_notes"
    )
    status = models.CharField(max_length=10, choices=NoteStatus.choices, default=NoteStatus.ACTIVE)
    generated_at = models.DateTimeField()
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    trades_considered = models.PositiveIntegerField()
    lessons_text = models.TextField(max_length=LESSONS_MAX_CHARS)
    model_used = models.CharField(max_length=100)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)  # the API's: not from or to the cache
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    # Anthropic prompt caching (the system prompt's blocks): tokens read from and written to the cache.
    cache_read_input_tokens = models.PositiveIntegerField(null=True, blank=True)
    cache_creation_input_tokens = models.PositiveIntegerField(null=True, blank=True)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    # hash_lessons_text(lessons_text), set at insert: joins trade_history.entry_lessons_hash.
    content_hash = models.CharField(max_length=16)
    # Provenance beyond the seed: who made this revision and from which one.
    source = models.CharField(max_length=10, choices=NoteSource.choices, default=NoteSource.REFLECTION)
    revises = models.ForeignKey("self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    status_changed_at = models.DateTimeField(null=True, blank=True)
    status_changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "reflection_notes"
        ordering = ["-generated_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["deployment"],
                condition=Q(status="active", deployment__isnull=False),
                name="reflection_one_active_per_deployment",
            ),
            models.UniqueConstraint(
                fields=["skill", "skill_version"],
                condition=Q(status="active", deployment__isnull=True),
                name="reflection_one_active_per_skill_version",
            ),
            models.CheckConstraint(
                condition=Q(LessThanOrEqual(Length("lessons_text"), LESSONS_MAX_CHARS)) & ~Q(lessons_text=""),
                name="reflection_lessons_length",
            ),
            models.CheckConstraint(condition=Q(status__in=NoteStatus.values), name="reflection_status_valid"),
            models.CheckConstraint(condition=Q(source__in=NoteSource.values), name="reflection_source_valid"),
            models.CheckConstraint(condition=Q(Exact(Length("content_hash"), 16)), name="reflection_content_hash_set"),
            models.CheckConstraint(
                condition=Q(window_start__lte=models.F("window_end")), name="reflection_window_ordered"
            ),
        ]
        indexes = [
            models.Index(fields=["deployment", "-generated_at"], name="reflection_deployment_recent"),
            models.Index(fields=["skill", "skill_version", "-generated_at"], name="reflection_skill_recent"),
            models.Index(fields=["skill", "content_hash"], name="reflection_skill_hash"),
        ]

    def __str__(self) -> str:
        scope = f"deployment #{self.deployment_id}" if self.deployment_id else f"skill v{self.skill_version}"
        return f"lessons {self.content_hash} ({scope}, {self.status})"


class VerdictKind(models.TextChoices):
    VETO = "veto", "vetoed"  # out of the agent's prompt from the next tick on; reflection must not write it again
    PIN = "pin", "pinned"  # kept by the next reflection, word for word


LESSON_BULLET_MAX = 500


class LessonVerdict(OwnedModel):
    """The trader's verdict on one lessons bullet of a skill (``reflection.core.bullet_key`` of it): every
    deployment and version of the skill, and every later revision holding the same bullet, see it."""

    skill = models.ForeignKey(Skill, on_delete=models.CASCADE, related_name="lesson_verdicts")
    bullet = models.CharField(max_length=LESSON_BULLET_MAX)
    verdict = models.CharField(max_length=4, choices=VerdictKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "reflection_lesson_verdicts"
        ordering = ["created_at", "id"]
        constraints = [
            # services.lesson_verdict_set replaces a bullet's verdict: one per bullet of a skill.
            models.UniqueConstraint(fields=["skill", "bullet"], name="reflection_one_verdict_per_bullet"),
            models.CheckConstraint(condition=Q(verdict__in=VerdictKind.values), name="reflection_verdict_valid"),
            models.CheckConstraint(condition=~Q(bullet=""), name="reflection_verdict_bullet_set"),
        ]

    def __str__(self) -> str:
        return f"{self.verdict} “{self.bullet[:40]}” (skill #{self.skill_id})"

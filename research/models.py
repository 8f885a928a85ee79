"""Research memory (seed: research-memory.md), database-backed: experiments, hypotheses, capability
requests. Ids keep the seed's styles (`exp_…`, `H_001`, `req_001`), unique per owner."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

from access.models import OwnedModel
from research.assessment import HYPOTHESIS_STATUSES, REQUEST_STATUSES, VERDICTS

ID_MAX = 100


class Experiment(OwnedModel):
    """One completed experiment with its full context, results and assessment."""

    experiment_id = models.CharField(max_length=ID_MAX)
    timestamp = models.DateTimeField()
    strategy_name = models.CharField(max_length=200)
    source = models.CharField(max_length=200, blank=True, default="")
    context = models.JSONField()
    results = models.JSONField(default=dict)
    verdict = models.CharField(max_length=16, choices=[(v, v) for v in VERDICTS], null=True, blank=True)  # noqa: DJ001
    observations = models.JSONField(default=list)
    limitations = models.JSONField(default=list)
    context_fingerprint = models.CharField(max_length=64)
    # Denormalised from context for the page's filters and the history's ordering.
    indicators = ArrayField(models.CharField(max_length=50), default=list)
    timeframe = models.CharField(max_length=16, blank=True, default="")
    symbol = models.CharField(max_length=32, blank=True, default="")
    repeat_reason = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "experiments"
        ordering = ["-timestamp", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "experiment_id"], name="experiment_id_unique_per_owner"),
            models.CheckConstraint(
                condition=Q(verdict__isnull=True) | Q(verdict__in=VERDICTS), name="experiment_verdict_valid"
            ),
            models.CheckConstraint(condition=~Q(experiment_id=""), name="experiment_id_not_empty"),
        ]
        indexes = [
            models.Index(fields=["owner", "context_fingerprint"], name="experiment_fingerprint"),
            models.Index(fields=["owner", "-timestamp", "-id"], name="experiment_recent"),
        ]

    def __str__(self) -> str:
        return self.experiment_id


class Hypothesis(OwnedModel):
    hypothesis_id = models.CharField(max_length=ID_MAX)
    text = models.TextField(max_length=1000)
    source_experiment = models.ForeignKey(
        Experiment, on_delete=models.SET_NULL, null=True, blank=True, related_name="hypotheses_generated"
    )
    rationale = models.TextField(blank=True, default="", max_length=2000)
    status = models.CharField(max_length=12, choices=[(s, s) for s in HYPOTHESIS_STATUSES], default="untested")
    tested_by = models.ManyToManyField(Experiment, through="HypothesisTest", related_name="hypotheses_tested")
    created = models.DateField()

    class Meta:
        db_table = "hypotheses"
        verbose_name_plural = "hypotheses"
        ordering = ["hypothesis_id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "hypothesis_id"], name="hypothesis_id_unique_per_owner"),
            models.CheckConstraint(condition=Q(status__in=HYPOTHESIS_STATUSES), name="hypothesis_status_valid"),
            models.CheckConstraint(condition=~Q(text=""), name="hypothesis_text_not_empty"),
        ]
        indexes = [
            models.Index(fields=["owner", "status"], name="hypothesis_owner_status"),
            # The prompt's open hypotheses, newest first: reads 20 rows whatever the registry's size.
            models.Index(
                fields=["owner", "-created", "-id"],
                condition=Q(status__in=["untested", "testing"]),
                name="hypothesis_open_recent",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.hypothesis_id}: {self.text[:60]}"


class HypothesisTest(models.Model):
    """An experiment that tested a hypothesis (the seed's `tested_by`, in the order they were added)."""

    hypothesis = models.ForeignKey(Hypothesis, on_delete=models.CASCADE)
    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE)
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "hypothesis_tests"
        ordering = ["added_at", "id"]
        constraints = [models.UniqueConstraint(fields=["hypothesis", "experiment"], name="hypothesis_test_once")]

    def __str__(self) -> str:
        return f"{self.hypothesis_id} tested by {self.experiment_id}"


class CapabilityRequest(OwnedModel):
    request_id = models.CharField(max_length=ID_MAX)
    capability = models.TextField(max_length=1000)
    rationale = models.TextField(blank=True, default="", max_length=2000)
    requested_by = models.ForeignKey(
        Experiment, on_delete=models.SET_NULL, null=True, blank=True, related_name="capability_requests"
    )
    requested = models.DateField()
    status = models.CharField(max_length=12, choices=[(s, s) for s in REQUEST_STATUSES], default="pending")
    implemented = models.DateField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        db_table = "capability_requests"
        ordering = ["request_id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "request_id"], name="request_id_unique_per_owner"),
            models.CheckConstraint(condition=Q(status__in=REQUEST_STATUSES), name="request_status_valid"),
            models.CheckConstraint(
                condition=Q(implemented__isnull=True) | Q(status="implemented"), name="request_implemented_date"
            ),
            models.CheckConstraint(condition=~Q(capability=""), name="request_capability_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.request_id}: {self.capability[:60]}"

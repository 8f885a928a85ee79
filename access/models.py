"""The owned-row base every app's models use, the audit trail of elevations, and idempotency keys.

An owned row carries `owner` (a user): access/policies.py gives its table the row policy `owner_id = the
scope's trader`, and `OwnedQuerySet.owned_by(user)` is the same predicate in the ORM.
"""

from __future__ import annotations

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


class Elevation(models.Model):
    """One `access.scope.elevated()` block: who (staff user or job), why, when, which process.

    Append-only for the service: its database role may insert and read these rows, never change or
    delete them (access/policies.py grants)."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.CharField(max_length=150, blank=True, help_text="Staff username, or empty for a service job.")
    reason = models.CharField(max_length=500)
    pid = models.PositiveIntegerField()

    class Meta:
        db_table = "access_elevations"
        ordering = ["-at", "-id"]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor or 'job'}: {self.reason}"


class IdempotencyKey(OwnedModel):
    """An `Idempotency-Key` a trader (or their runner) sent on a POST (memorysite/idempotency.py).

    Inserted before the view runs, so two concurrent first uses of one key cannot both run it;
    `response_status` stays null while the first request is in progress and holds its 2xx answer
    afterwards (a failed request deletes its row, so the trader may retry with a fixed body). Rows
    older than 24 hours are ignored and deleted."""

    key = models.CharField(max_length=255)
    request_hash = models.CharField(max_length=64, help_text="sha256 hex digest of method, path and body.")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        db_table = "idempotency_keys"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "key"], name="idempotency_key_unique_per_owner"),
            models.CheckConstraint(
                condition=Q(request_hash__regex=r"^[0-9a-f]{64}$"), name="idempotency_key_request_hash_is_sha256_hex"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.key} of user #{self.owner_id}"

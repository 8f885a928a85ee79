"""The audit trail of elevations: every time code read or wrote across traders."""

from django.db import models


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

"""Writes of dataops: a trader's account erased, with every row of theirs in every table."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from access import scope
from ledger.models import Deployment

CONFIRMATION_MISMATCH = "type your username exactly to confirm"


def account_erase(*, user) -> int:
    """Delete the trader's user row and, by its cascades, every row they own in every table (each owned table's
    `owner` and each child's parent cascade: tests/dataops/test_erasure.py checks this against row security's
    table list). Their account and runner tokens go with them, so their keys stop working; their sessions no
    longer find a user. An audited elevation: deleting a user is refused to any trader's own scope.
    The elevation audit keeps its rows (who did what, shared). Returns how many rows were deleted."""
    with scope.elevated(f"dataops.account_erase: user #{user.pk} deleted their account", actor=user.get_username()):
        # Deployments first: a deployment PROTECTs its skill version, which Django's collector would otherwise
        # refuse to delete along with the user (it reaches the skill through the user before the deployment).
        deployments, _ = Deployment.objects.filter(owner_id=user.pk).delete()
        rest, _ = get_user_model().objects.filter(pk=user.pk).delete()
    return deployments + rest

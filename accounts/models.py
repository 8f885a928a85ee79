"""A trader's account tokens: full-account API keys, stored as their sha256, named, revocable, optionally expiring."""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from access.models import OwnedModel
from memorysite.validators import validate_one_line_name

ACCOUNT_TOKEN_PREFIX = "at_"  # noqa: S105 (a key prefix, not a secret)
ACCOUNT_TOKEN_NAME_MAX = 100


class AccountToken(OwnedModel):
    """An API key with the trader's whole account (unlike a runner token, bound to one deployment).

    Only the key's sha256 is stored; the key is shown once. Keys of DRF's former `authtoken_token`
    table (40 hex characters, no prefix) were hashed into this table by migration 0002 and keep working."""

    name = models.CharField(max_length=ACCOUNT_TOKEN_NAME_MAX, validators=[validate_one_line_name])
    key_prefix = models.CharField(max_length=8, help_text="The key's first 8 characters, to tell tokens apart.")
    key_hash = models.CharField(max_length=64, unique=True, help_text="sha256 hex digest of the whole key.")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="After this the key is refused (401).")
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "account_tokens"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="account_token_name_not_empty"),
            models.CheckConstraint(
                condition=Q(key_hash__regex=r"^[0-9a-f]{64}$"), name="account_token_key_hash_is_sha256_hex"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.key_prefix}…)"

"""Reads of accounts, owner-scoped."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import AccountToken


def account_token_list(*, user) -> QuerySet[AccountToken]:
    """The trader's account tokens, newest first (revoked and expired ones included)."""
    return AccountToken.objects.owned_by(user).order_by("-created_at", "-id")


def account_token_get(*, user, token_id: int) -> AccountToken:
    return get_object_or_404(account_token_list(user=user), pk=token_id)

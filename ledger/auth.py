"""Runner tokens: API keys bound to one deployment (ticks, fills, its context and trades; nothing else).

`Authorization: Token rt_…` is looked up here by the key's sha256; any other key falls through to
the trader's full-account tokens (accounts.auth, the same lookup on another table). `RunnerTokenScope` then confines a
runner token to views marked `runner_scope = True`, on its own deployment only.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission

from access import scope
from ledger.models import RUNNER_TOKEN_PREFIX, RunnerToken, runner_key_hash

KEYWORD = "Token"
NOT_FOUND = "Not found."  # memorysite.api.NOT_FOUND; that module cannot be imported from here (it loads DRF's views)
INVALID_KEY = "invalid or revoked runner token"
OUT_OF_SCOPE = "runner tokens may only post ticks and fills and read their own deployment's context and trades"
# last_used_at is a hint for the trader, not an audit log: write it at most this often per token.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def presented_key(request) -> str | None:
    """The key of an `Authorization: Token <key>` header, or None (no such header, or not one key)."""
    parts = get_authorization_header(request).split()
    if len(parts) != 2 or parts[0].lower() != KEYWORD.lower().encode():
        return None
    try:
        return parts[1].decode()
    except UnicodeError:
        return None


class HashedKeyAuthentication(BaseAuthentication):
    """`Authorization: Token <key>` for a table of keys stored as their sha256 (runner tokens here, account
    tokens in accounts/): the row is found through row-level security's key-lookup policy, a revoked or
    unknown key or an inactive owner is a 401 (the request's transaction is rolled back), and a found
    key scopes the request to its owner and notes when it was last used."""

    keyword = KEYWORD
    model: type  # key_hash, owner, revoked_at, last_used_at
    invalid_message = ""

    def accepts(self, key: str) -> bool:
        """Whether this class decides on the key (else the next authentication class does)."""
        raise NotImplementedError

    def refusal(self, token, now: dt.datetime) -> str | None:
        """Why a found, unrevoked key is refused anyway (a 401 with this message), or None."""
        return None

    def authenticate(self, request):
        key = presented_key(request)
        if key is None or not self.accepts(key):
            return None
        # Row-level security shows a key's row only to a transaction that presents the key's hash.
        digest = runner_key_hash(key)
        scope.switch(scope.Scope(runner_key=digest))
        with scope.transaction_unless_open():
            token = self.model.objects.select_related("owner").filter(key_hash=digest, revoked_at__isnull=True).first()
            if token is None or not token.owner.is_active:  # a 401: the request's transaction is rolled back
                raise exceptions.AuthenticationFailed(self.invalid_message)
            now = timezone.now()
            refused = self.refusal(token, now)
            if refused:
                raise exceptions.AuthenticationFailed(refused)
            scope.switch(scope.owner_scope_of(token.owner))
            _touch(token, now)
        return token.owner, token

    def authenticate_header(self, request):
        return self.keyword  # a 401 (not a 403) when the credentials are missing or wrong


class RunnerTokenAuthentication(HashedKeyAuthentication):
    model = RunnerToken
    invalid_message = INVALID_KEY

    def accepts(self, key: str) -> bool:
        return key.startswith(RUNNER_TOKEN_PREFIX)  # any other key is a full-account token (accounts/)


def _touch(token, now: dt.datetime) -> None:
    cutoff = now - LAST_USED_RESOLUTION
    if token.last_used_at is not None and token.last_used_at >= cutoff:
        return
    # Conditional, so concurrent requests of the same runner write the column once.
    type(token).objects.filter(pk=token.pk).filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=cutoff)).update(
        last_used_at=now
    )
    token.last_used_at = now


class RunnerTokenScope(BasePermission):
    """Lets a runner token reach only views with `runner_scope = True`, for its own deployment.

    Another deployment (the trader's or not) is a 404, as if it did not exist; any other endpoint
    is a 403. Requests not made with a runner token pass through unchanged."""

    def has_permission(self, request, view) -> bool:
        token = request.auth
        if not isinstance(token, RunnerToken):
            return True
        if not getattr(view, "runner_scope", False):
            raise exceptions.PermissionDenied(OUT_OF_SCOPE)
        if view.kwargs.get("deployment_id") != token.deployment_id:
            raise exceptions.NotFound(NOT_FOUND)
        return True


class RunnerTokenAuthenticationScheme(OpenApiAuthenticationExtension):
    """Runner tokens travel in the account tokens' header (`Authorization: Token …`), which the schema
    documents as `tokenAuth`: this scheme adds no security scheme or requirement of its own."""

    target_class = "ledger.auth.RunnerTokenAuthentication"
    name: list[str] = []  # nothing to register (a second "tokenAuth" would clash with DRF's)

    def get_security_definition(self, auto_schema):
        return []

    def get_security_requirement(self, auto_schema):
        return []

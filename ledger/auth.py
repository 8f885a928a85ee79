"""Runner tokens: API keys bound to one deployment (ticks, fills, its context and trades; nothing else).

`Authorization: Token rt_…` is looked up here by the key's sha256; any other key falls through to
DRF's TokenAuthentication (the trader's full-account token). `RunnerTokenScope` then confines a
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


class RunnerTokenAuthentication(BaseAuthentication):
    keyword = KEYWORD

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if len(parts) != 2 or parts[0].lower() != self.keyword.lower().encode():
            return None
        try:
            key = parts[1].decode()
        except UnicodeError:
            return None
        if not key.startswith(RUNNER_TOKEN_PREFIX):
            return None  # a full-account token: DRF's TokenAuthentication decides
        # Row-level security shows a runner token only to a request that presents its key's hash.
        digest = runner_key_hash(key)
        scope.switch(scope.Scope(runner_key=digest))
        token = RunnerToken.objects.select_related("owner").filter(key_hash=digest, revoked_at__isnull=True).first()
        if token is None or not token.owner.is_active:  # a 401: the request's transaction is rolled back
            raise exceptions.AuthenticationFailed(INVALID_KEY)
        scope.switch(scope.owner_scope_of(token.owner))
        _touch(token)
        return token.owner, token

    def authenticate_header(self, request):
        return self.keyword  # a 401 (not a 403) when the credentials are missing or wrong


def _touch(token: RunnerToken) -> None:
    now = timezone.now()
    cutoff = now - LAST_USED_RESOLUTION
    if token.last_used_at is not None and token.last_used_at >= cutoff:
        return
    # Conditional, so concurrent requests of the same runner write the column once.
    RunnerToken.objects.filter(pk=token.pk).filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=cutoff)).update(
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

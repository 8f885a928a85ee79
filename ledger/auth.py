"""Runner tokens: API keys bound to one deployment (ticks, fills, its context and trades; nothing else).

`Authorization: Token rt_…` is looked up here by the key's sha256 (access.auth.HashedKeyAuthentication);
any other key falls through to the trader's full-account tokens (accounts.auth, the same lookup on
another table). `RunnerTokenScope` then confines a runner token to views marked `runner_scope = True`,
on its own deployment only.
"""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from access.auth import HashedKeyAuthentication
from ledger.models import RUNNER_TOKEN_PREFIX, RunnerToken

NOT_FOUND = "Not found."  # memorysite.api.NOT_FOUND; that module cannot be imported from here (it loads DRF's views)
INVALID_KEY = "unknown runner token: no runner token has this key"
REVOKED_KEY = "runner token revoked at {revoked_at}: ask the trader for a new one (the deployment's runner tokens)"
OUT_OF_SCOPE = "runner tokens may only post ticks and fills and read their own deployment's context and trades"


class RunnerTokenAuthentication(HashedKeyAuthentication):
    model = RunnerToken
    invalid_message = INVALID_KEY
    revoked_message = REVOKED_KEY

    def accepts(self, key: str) -> bool:
        return key.startswith(RUNNER_TOKEN_PREFIX)  # any other key is a full-account token (accounts/)


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

"""Authenticating a token outside a request (stdio): the same DRF authentication classes as the API."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework import exceptions
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.settings import api_settings

from access import scope
from mcpserver.tools import Principal

NO_TOKEN = "Authentication credentials were not provided."  # noqa: S105 (a message, not a secret)


def token_authenticators() -> list:
    """The API's authentication classes that read `Authorization: Token …` (runner tokens first)."""
    return [cls() for cls in api_settings.DEFAULT_AUTHENTICATION_CLASSES if not issubclass(cls, SessionAuthentication)]


def authenticate_token(token: str) -> Principal:
    """The principal of an account token or a runner token (`rt_…`), as the API would authenticate it.

    Raises rest_framework's AuthenticationFailed for a missing, unknown or revoked token."""
    token = (token or "").strip()
    if not token:
        raise exceptions.NotAuthenticated(NO_TOKEN)
    http = HttpRequest()
    http.method = "POST"
    http.META["HTTP_AUTHORIZATION"] = f"Token {token}"
    request = Request(http, authenticators=token_authenticators())
    with scope.entered(scope.NONE):  # the authenticators scope it to the trader they find
        user, auth = request.user, request.auth
    if user is None or not user.is_authenticated:
        raise exceptions.NotAuthenticated(NO_TOKEN)
    return Principal.of(user, auth)

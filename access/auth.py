"""Authentication that scopes the request's transaction to the trader found: DRF's session
authentication, and API keys stored as their sha256 (`HashedKeyAuthentication`: each app with
API keys subclasses it in its own auth module)."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone
from drf_spectacular.authentication import SessionScheme
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, SessionAuthentication, get_authorization_header

from access import scope
from access.keys import key_hash

KEYWORD = "Token"
# last_used_at is a hint for the trader, not an audit log: write it at most this often per token.
LAST_USED_RESOLUTION = dt.timedelta(minutes=1)


def scoped(result):
    """After a successful authentication: the rest of the request sees that trader's rows only."""
    if result is not None:
        scope.switch(scope.owner_scope_of(result[0]))
    return result


class ScopedSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        return scoped(super().authenticate(request))


class ScopedSessionScheme(SessionScheme):
    """The schema documents it as DRF's own (`cookieAuth`)."""

    target_class = "access.auth.ScopedSessionAuthentication"


MALFORMED = "Authorization header must read `Token <key>`: {problem}"
REVOKED = "token revoked at {revoked_at}: create a new one (API tokens page or POST /api/v1/auth/tokens/)"


def presented_key(request) -> str | None:
    """The key of an `Authorization: Token <key>` header, or None (no such header, or not one key)."""
    parts = get_authorization_header(request).split()
    if len(parts) != 2 or parts[0].lower() != KEYWORD.lower().encode():
        return None
    try:
        return parts[1].decode()
    except UnicodeError:
        return None


def malformed_header(request) -> str | None:
    """What is wrong with an Authorization header that is there but not `Token <key>` (None: absent or fine).

    Said in the 401, so a key pasted without its `Token ` prefix (or sent as `Bearer …`) is not
    answered with "credentials were not provided"."""
    header = get_authorization_header(request)
    if not header.strip() or presented_key(request) is not None:
        return None
    parts = header.split()
    if len(parts) == 1:
        problem = "the `Token ` prefix is missing" if parts[0].lower() != KEYWORD.lower().encode() else "no key"
    elif parts[0].lower() != KEYWORD.lower().encode():
        scheme = parts[0].decode("ascii", errors="replace")[:20]
        problem = f"got the scheme `{scheme}`; send `Token`, a space, then the key"
    elif len(parts) > 2:
        problem = "the key must not contain spaces"
    else:
        problem = "the key must be ASCII text"
    return MALFORMED.format(problem=problem)


def _moment(value: dt.datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


class HashedKeyAuthentication(BaseAuthentication):
    """`Authorization: Token <key>` for a table of keys stored as their sha256 (one subclass per kind
    of key, in its app's auth module: each says which keys it `accepts`). The row is found through
    the key-lookup policy its app declares (`RowSecurity.key_lookup`); a revoked or unknown key or an
    inactive owner is a 401 (the request's transaction is rolled back); a found key scopes the request
    to its owner and notes when it was last used."""

    keyword = KEYWORD
    model: type  # key_hash, owner, revoked_at, last_used_at
    invalid_message = ""  # an unknown key (or its owner's account is disabled)
    revoked_message = REVOKED  # {revoked_at}

    def accepts(self, key: str) -> bool:
        """Whether this class decides on the key (else the next authentication class does)."""
        raise NotImplementedError

    def refusal(self, token, now: dt.datetime) -> str | None:
        """Why a found, unrevoked key is refused anyway (a 401 with this message), or None."""
        return None

    def authenticate(self, request):
        key = presented_key(request)
        if key is None:
            malformed = malformed_header(request)
            if malformed:  # the first key class answers it: no other one could read the header either
                raise exceptions.AuthenticationFailed(malformed)
            return None
        if not self.accepts(key):
            return None
        # Row-level security shows a key's row only to a transaction that presents the key's hash.
        digest = key_hash(key)
        scope.switch(scope.Scope(runner_key=digest))
        with scope.transaction_unless_open():
            token = self.model.objects.select_related("owner").filter(key_hash=digest).first()
            if token is None or not token.owner.is_active:  # a 401: the request's transaction is rolled back
                raise exceptions.AuthenticationFailed(self.invalid_message)
            if token.revoked_at is not None:
                raise exceptions.AuthenticationFailed(self.revoked_message.format(revoked_at=_moment(token.revoked_at)))
            now = timezone.now()
            refused = self.refusal(token, now)
            if refused:
                raise exceptions.AuthenticationFailed(refused)
            scope.switch(scope.owner_scope_of(token.owner))
            _touch(token, now)
        return token.owner, token

    def authenticate_header(self, request):
        return self.keyword  # a 401 (not a 403) when the credentials are missing or wrong


def _touch(token, now: dt.datetime) -> None:
    cutoff = now - LAST_USED_RESOLUTION
    if token.last_used_at is not None and token.last_used_at >= cutoff:
        return
    # Conditional, so concurrent requests of the same runner write the column once.
    type(token).objects.filter(pk=token.pk).filter(Q(last_used_at__isnull=True) | Q(last_used_at__lt=cutoff)).update(
        last_used_at=now
    )
    token.last_used_at = now

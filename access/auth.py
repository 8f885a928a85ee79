"""DRF's session authentication, scoping the request's transaction to the trader found (tokens:
ledger.auth and accounts.auth, which scope it the same way)."""

from drf_spectacular.authentication import SessionScheme
from rest_framework.authentication import SessionAuthentication

from access import scope


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

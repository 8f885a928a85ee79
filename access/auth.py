"""DRF's token and session authentication, scoping the request's transaction to the trader found."""

from drf_spectacular.authentication import SessionScheme, TokenScheme
from rest_framework.authentication import SessionAuthentication, TokenAuthentication

from access import scope


def scoped(result):
    """After a successful authentication: the rest of the request sees that trader's rows only."""
    if result is not None:
        scope.switch(scope.owner_scope_of(result[0]))
    return result


class ScopedTokenAuthentication(TokenAuthentication):
    def authenticate(self, request):
        return scoped(super().authenticate(request))


class ScopedSessionAuthentication(SessionAuthentication):
    def authenticate(self, request):
        return scoped(super().authenticate(request))


class ScopedTokenScheme(TokenScheme):
    """The schema documents them as DRF's own (`tokenAuth`, `cookieAuth`)."""

    target_class = "access.auth.ScopedTokenAuthentication"


class ScopedSessionScheme(SessionScheme):
    target_class = "access.auth.ScopedSessionAuthentication"

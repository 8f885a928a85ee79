"""One transaction per request, scoped for row-level security.

The request starts with no trader (every owned table reads empty); a session login scopes it
here, an API token once DRF has authenticated it (access/auth.py). Staff in Django admin work
across traders through an audited elevation. A response of 400 or above rolls the transaction
back: a request that fails writes nothing.
"""

from django.db import transaction
from django.urls import Resolver404, resolve, reverse

from access import scope


def without_transaction(view):
    """For views that must answer with the database down (/healthz), or that wait on something slow
    between their reads and writes (the chat waits on the model): no request transaction. Their
    statements run in transactions of their own, each in the scope the request's authentication set."""
    view.request_transaction = False
    return view


class RequestScopeMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.admin_prefix = None

    def __call__(self, request):
        if not self._wants_transaction(request):
            # No transaction here: each one the view begins takes the scope its authentication sets,
            # and that scope ends with the request.
            with scope.bound(scope.NONE):
                return self.get_response(request)
        with scope.entered(scope.NONE):
            user = request.user
            if user.is_authenticated:
                if user.is_staff and request.path.startswith(self._admin_prefix()):
                    with scope.elevated(f"admin {request.method} {request.path}"[:500], actor=user.get_username()):
                        return self._respond(request)
                scope.switch(scope.owner_scope_of(user))
            return self._respond(request)

    def _respond(self, request):
        response = self.get_response(request)
        if response.status_code >= 400:
            transaction.set_rollback(True)
        return response

    @staticmethod
    def _wants_transaction(request) -> bool:
        try:
            match = resolve(request.path_info, getattr(request, "urlconf", None))
        except Resolver404:
            return True
        return getattr(match.func, "request_transaction", True)

    def _admin_prefix(self) -> str:
        if self.admin_prefix is None:
            self.admin_prefix = reverse("admin:index")
        return self.admin_prefix

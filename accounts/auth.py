"""Account tokens in `Authorization: Token …`: the trader's whole account (runner tokens, `rt_…`, are
ledger.auth's). Found by the key's sha256 like runner tokens; an expired one is a 401 saying so."""

from __future__ import annotations

import datetime as dt

from drf_spectacular.authentication import TokenScheme

from access.auth import HashedKeyAuthentication
from accounts.models import AccountToken

INVALID_TOKEN = "unknown token: no account or runner token has this key"  # noqa: S105 (a message, not a secret)
EXPIRED = "token expired at {expires_at}: create a new one (API tokens page or POST /api/v1/auth/tokens/)"


class AccountTokenAuthentication(HashedKeyAuthentication):
    model = AccountToken
    invalid_message = INVALID_TOKEN

    def accepts(self, key: str) -> bool:
        return True  # after RunnerTokenAuthentication: every key that is not a runner token's

    def refusal(self, token, now: dt.datetime) -> str | None:
        if token.expires_at is not None and token.expires_at <= now:
            return EXPIRED.format(expires_at=token.expires_at.isoformat().replace("+00:00", "Z"))
        return None


class AccountTokenScheme(TokenScheme):
    """Documented as DRF's token authentication (`tokenAuth`), which it replaces."""

    target_class = "accounts.auth.AccountTokenAuthentication"
    match_subclasses = False

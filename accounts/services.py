"""Writes of accounts: account tokens, and logins through the password-guessing brake (state on Redis)."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import logging
import time

from django.conf import settings
from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError
from redis.exceptions import RedisError

from access import scope
from access.keys import new_key
from accounts.brake import Refusal, Rule, refusal
from accounts.models import ACCOUNT_TOKEN_PREFIX, AccountToken
from memorysite.redis import client as redis_client

log = logging.getLogger(__name__)

# A trader mistyping a password meets neither; a guesser meets the username's after 10 tries (15 minutes).
# The client's bar is higher: every local runner and browser shares 127.0.0.1.
USERNAME_RULE = Rule(subject="username", slow_after=5, lock_after=10, lock_seconds=15 * 60)
CLIENT_RULE = Rule(subject="client", slow_after=20, lock_after=50, lock_seconds=15 * 60)
EXPIRES_IN_PAST = "must be in the future"

clock = time.time  # the brake's clock (tests move it instead of sleeping)


class LoginRefused(Exception):
    """The brake refused the attempt before the password was checked."""

    def __init__(self, refused: Refusal):
        super().__init__(refused.message)
        self.refusal = refused


# -- account tokens ----------------------------------------------------------------------------------


def account_token_create(
    *, owner, name: str, now: dt.datetime, expires_at: dt.datetime | None = None
) -> tuple[AccountToken, str]:
    """A new account token and its key: the key is returned here only, and stored only as its sha256."""
    if expires_at is not None and expires_at <= now:
        raise ValidationError({"expires_at": [EXPIRES_IN_PAST]})
    new = new_key(ACCOUNT_TOKEN_PREFIX)
    token = AccountToken(
        owner_id=owner.pk, name=name, key_prefix=new.shown_prefix, key_hash=new.hash, expires_at=expires_at
    )
    token.full_clean(validate_unique=False, validate_constraints=False)
    token.save()
    return token, new.key


def account_token_revoke(*, token: AccountToken, now: dt.datetime) -> AccountToken:
    """Revoke the token from `now` on; revoking a revoked token keeps its first revocation time."""
    AccountToken.objects.filter(pk=token.pk, revoked_at__isnull=True).update(revoked_at=now)
    token.refresh_from_db(fields=["revoked_at"])
    return token


def account_tokens_revoke_all(*, owner, now: dt.datetime) -> int:
    """On a password change: every account token of the trader stops working (runner tokens, the
    deployments' keys, stay). Returns how many were revoked."""
    return AccountToken.objects.owned_by(owner).filter(revoked_at__isnull=True).update(revoked_at=now)


# -- logins through the brake ------------------------------------------------------------------------


def client_address(request) -> str:
    """The client's address: the header the reverse proxy sets (AUTH_CLIENT_IP_HEADER), else REMOTE_ADDR."""
    if settings.AUTH_CLIENT_IP_HEADER:
        forwarded = request.headers.get(settings.AUTH_CLIENT_IP_HEADER, "")
        if forwarded.strip():
            return forwarded.split(",")[-1].strip()  # the proxy appends the address it saw last
    return request.META.get("REMOTE_ADDR") or "unknown"


def _key(kind: str, subject: str) -> str:
    """The Redis key of a subject's counter (kind: a rule's subject) or its attempt's turn ("turn")."""
    digest = hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{settings.RATE_KEY_PREFIX}brake:{kind}:{digest}"


def _subjects(request, username: str) -> list[tuple[Rule, str]]:
    return [(USERNAME_RULE, username), (CLIENT_RULE, client_address(request))]


def _counts(subjects: list[tuple[Rule, str]]) -> list[tuple[Rule, int, float | None]]:
    pipe = redis_client().pipeline(transaction=False)
    for rule, subject in subjects:
        pipe.hmget(_key(rule.subject, subject), "failures", "last")
    counts = []
    for (rule, _), (failures, last) in zip(subjects, pipe.execute(), strict=True):
        counts.append((rule, int(failures or 0), float(last) if last is not None else None))
    return counts


def _record_failure(subjects: list[tuple[Rule, str]], now: float) -> None:
    pipe = redis_client().pipeline(transaction=True)
    for rule, subject in subjects:
        key = _key(rule.subject, subject)
        pipe.hincrby(key, "failures", 1)
        pipe.hset(key, "last", repr(now))
        pipe.expire(key, rule.lock_seconds)
    pipe.execute()


def password_login(*, request, username: str, password: str):
    """The active user these credentials name, or None; raises LoginRefused while the brake holds the
    username or the client (the password is then not checked at all).

    An unreachable Redis lets the attempt through (logged): the brake must not take logins down."""
    subjects = _subjects(request, username)
    now = clock()
    try:
        refused = refusal(_counts(subjects), now)
    except RedisError:
        log.warning("login brake: Redis unreachable, attempt for %r not braked", username, exc_info=True)
        refused = None
    if refused is not None:
        raise LoginRefused(refused)
    with _one_attempt_at_a_time(username):
        return _checked(request, username, password, subjects, now)


# How long an attempt may hold its username's turn (a password check takes well under a second).
ATTEMPT_TURN_SECONDS = 10


@contextlib.contextmanager
def _one_attempt_at_a_time(username: str):
    """Concurrent guesses for one username are checked one at a time: without this, a burst sent at
    once would all be checked before the first failure is counted, skipping the slow-down. A second
    attempt while one is checked is refused like a slowed-down one (wait a second)."""
    key = _key("turn", username)
    try:
        taken = bool(redis_client().set(key, "1", nx=True, ex=ATTEMPT_TURN_SECONDS))  # None: already taken
    except RedisError:
        log.warning("login brake: Redis unreachable, attempt for %r not serialised", username, exc_info=True)
        taken = None
    if taken is False:
        raise LoginRefused(Refusal(rule=USERNAME_RULE, failures=_failures_of(username), wait_seconds=1))
    try:
        yield
    finally:
        if taken:
            with contextlib.suppress(RedisError):
                redis_client().delete(key)


def _failures_of(username: str) -> int:
    try:
        return _counts([(USERNAME_RULE, username)])[0][1]
    except RedisError:
        return 0


def _checked(request, username: str, password: str, subjects, now: float):
    user = authenticate(request, username=username, password=password)
    if user is not None and user.is_active:
        scope.switch(scope.owner_scope_of(user))  # the rest of the request (last_login, a new token) is the user's
        try:
            login_unlock(username=username)  # a success forgets the username's failures (not the client's)
        except RedisError:
            log.warning("login brake: Redis unreachable, failures of %r not reset", username, exc_info=True)
        return user
    try:
        _record_failure(subjects, now)
    except RedisError:
        log.warning("login brake: Redis unreachable, failure for %r not counted", username, exc_info=True)
    return None


def login_lock(*, username: str) -> Refusal | None:
    """Whether the username is slowed or locked now (the admin's column)."""
    return refusal(_counts([(USERNAME_RULE, username)]), clock())


def login_unlock(*, username: str) -> None:
    """Staff's unlock (and a successful login): the username's failures are forgotten."""
    redis_client().delete(_key(USERNAME_RULE.subject, username))

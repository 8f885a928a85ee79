"""The API's per-token throttle: a fixed window counted on Redis, a 429 with Retry-After past it.

Keyed on the credential, never the address alone (every local runner shares 127.0.0.1): an account or
runner token (`request.auth`, its model and id), or the user of a browser session. A runner ticking
every second sends about 3 requests a second (tick, context, fills): API_THROTTLE_REQUESTS per
API_THROTTLE_WINDOW_S is far above that. An unreachable Redis lets requests through (logged).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from django.conf import settings
from redis.exceptions import RedisError
from rest_framework import exceptions
from rest_framework.throttling import BaseThrottle

from memorysite.redis import client as redis_client

log = logging.getLogger(__name__)

THROTTLED = "too many requests with this {credential}: at most {limit} every {window} seconds."


def credential_of(request) -> tuple[str, str] | None:
    """(what the message calls it, the counter's name) of the request's credential, or None (anonymous)."""
    auth = request.auth
    meta = getattr(auth, "_meta", None)
    if meta is not None and getattr(auth, "pk", None) is not None:
        return "token", f"{meta.label_lower}:{auth.pk}"
    user = request.user
    if user is not None and user.is_authenticated:
        return "session", f"user:{user.pk}"
    return None


class TokenRateThrottle(BaseThrottle):
    clock: Callable[[], float] = time.time  # the throttle's clock (tests move it instead of sleeping)

    def allow_request(self, request, view) -> bool:
        credential = credential_of(request)
        if credential is None:
            return True  # unauthenticated requests are refused by permissions (or braked: auth/token/)
        kind, name = credential
        limit, window = settings.API_THROTTLE_REQUESTS, settings.API_THROTTLE_WINDOW_S
        now = self.clock()
        bucket = int(now // window)
        key = f"{settings.RATE_KEY_PREFIX}throttle:{name}:{bucket}"
        try:
            pipe = redis_client().pipeline(transaction=True)
            pipe.incr(key)
            pipe.expire(key, window * 2)
            count, _ = pipe.execute()
        except RedisError:
            log.warning("API throttle: Redis unreachable, request not throttled", exc_info=True)
            return True
        if count <= limit:
            return True
        wait = max(1, math.ceil((bucket + 1) * window - now))
        # Raised here rather than returned, so every view (ours and the MCP endpoint) names the rule.
        raise exceptions.Throttled(wait, detail=THROTTLED.format(credential=kind, limit=limit, window=window))

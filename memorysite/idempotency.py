"""`Idempotency-Key` on authenticated POSTs under /api/v1/: a retried request runs once.

A runner that lost the answer to a POST (a timeout, a dropped connection) sends it again with the
same `Idempotency-Key` header and gets the first answer back instead of a second write:

- the first request with a key (1–255 printable ASCII characters, else a 400 naming the header)
  inserts its row — owner, key, sha256 of method, path (with query string) and body — *before*
  the view runs, under a unique (owner, key) constraint, so two concurrent first uses cannot both
  run the view: the second waits for or sees the first's row and answers 409 (in progress) or the
  replay;
- a 2xx answer is stored on that row (status and JSON body); any other outcome deletes the row,
  so a request refused with a 4xx may be retried with a fixed body under the same key;
- the same key with the same request replays the stored answer with `Idempotent-Replayed: true`,
  without running the view; with another body or path it is a 409;
- keys are the authenticated user's (a trader's runner tokens share them) and expire after 24 h:
  older rows are ignored and deleted.

Every API view gets this from `memorysite.api.APIView` (`IdempotentViewMixin` below); requests
without the header, other methods and unauthenticated requests (the token exchange) are untouched.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
from typing import TYPE_CHECKING

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.http.request import RawPostDataException
from django.utils import timezone
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter
from rest_framework import exceptions, serializers, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from access import scope
from access.models import IdempotencyKey
from memorysite import retention

if TYPE_CHECKING:
    from rest_framework.views import APIView as _ViewBase
else:
    _ViewBase = object  # a mixin: the view class supplies APIView

logger = logging.getLogger("memorysite.idempotency")

HEADER = "Idempotency-Key"
META_KEY = "HTTP_IDEMPOTENCY_KEY"
REPLAYED_HEADER = "Idempotent-Replayed"
TTL = dt.timedelta(hours=24)
MAX_LENGTH = 255
METHODS = frozenset({"POST"})
PREFIX = "/api/v1/"

KEY_RULE = f"must be 1 to {MAX_LENGTH} printable ASCII characters"
DIFFERENT_REQUEST = f"{HEADER}: already used with a different request"
IN_PROGRESS = f"{HEADER}: a request with this key is still in progress; retry later"
# A key whose first request failed is released; a retry racing that release tries the insert again.
_CLAIM_ATTEMPTS = 3


class IdempotencyConflict(exceptions.APIException):
    status_code = status.HTTP_409_CONFLICT
    default_code = "idempotency_conflict"


class _Replay(Exception):
    def __init__(self, response: Response):
        super().__init__("idempotent replay")
        self.response = response


def valid_key(value: str) -> bool:
    return 1 <= len(value) <= MAX_LENGTH and all(" " <= char <= "~" for char in value)


def request_fingerprint(request) -> str:
    """sha256 over method, path with query string, and the raw body."""
    try:
        body = request.body
    except RawPostDataException:  # a form body Django already streamed; its parsed fields stand in
        body = request.POST.urlencode().encode()
    digest = hashlib.sha256()
    for part in (request.method.encode(), request.get_full_path().encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def applies_to(request) -> bool:
    user = getattr(request, "user", None)
    return (
        request.method in METHODS
        and META_KEY in request.META
        and request.path.startswith(PREFIX)
        and user is not None
        and user.is_authenticated
    )


def claim(request):
    """The key's row for this request (the view runs), or raises: a 400 for a bad key, a 409, or the
    replay of the stored answer. None when the request carries no key (or is not concerned)."""
    if not applies_to(request):
        return None
    key = request.META[META_KEY]
    if not valid_key(key):
        raise serializers.ValidationError({HEADER: [KEY_RULE]})
    with scope.transaction_unless_open():  # a view without a request transaction (the chat) claims in one
        return _claim(request, key)


def _claim(request, key: str):
    fingerprint = request_fingerprint(request)
    owner = request.user
    now = timezone.now()
    IdempotencyKey.objects.filter(owner=owner, created_at__lt=now - TTL).delete()
    for _ in range(_CLAIM_ATTEMPTS):
        try:
            with transaction.atomic():
                return IdempotencyKey.objects.create(owner=owner, key=key, request_hash=fingerprint, created_at=now)
        except IntegrityError:
            pass  # the key is taken (or was, by a request still running): see what took it
        row = IdempotencyKey.objects.filter(owner=owner, key=key).first()
        if row is None:
            continue  # its request failed and released it meanwhile
        if row.request_hash != fingerprint:
            raise IdempotencyConflict(DIFFERENT_REQUEST)
        if row.response_status is None:
            raise IdempotencyConflict(IN_PROGRESS)
        response = Response(row.response_body, status=row.response_status)
        response[REPLAYED_HEADER] = "true"
        raise _Replay(response)
    raise IdempotencyConflict(IN_PROGRESS)


def settle(row, response) -> None:
    """Store a 2xx answer on the key's row; release the key after anything else."""
    if row is None:
        return
    if not 200 <= response.status_code < 300:
        release(row)
        return
    data = getattr(response, "data", None)
    body = None if data is None else json.loads(JSONRenderer().render(data))
    try:
        with transaction.atomic():
            type(row).objects.filter(pk=row.pk).update(response_status=response.status_code, response_body=body)
    except DatabaseError:
        logger.warning("idempotency: could not store the answer for key %r; released", row.key, exc_info=True)
        release(row)


def release(row) -> None:
    if row is None or connection.needs_rollback:
        return  # an aborted transaction takes the row with it when it rolls back
    try:
        with transaction.atomic():
            type(row).objects.filter(pk=row.pk).delete()
    except DatabaseError:
        logger.warning("idempotency: could not release key %r", row.key, exc_info=True)


class IdempotentViewMixin(_ViewBase):
    """For DRF views: claims the key once the request is authenticated and permitted, replays or
    refuses as `claim` says, and settles the key with the view's answer."""

    _idempotency_row = None

    def dispatch(self, request, *args, **kwargs):
        self._idempotency_row = None
        try:
            response = super().dispatch(request, *args, **kwargs)
        except BaseException:
            release(self._idempotency_row)
            raise
        settle(self._idempotency_row, response)
        return response

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        self._idempotency_row = claim(request)

    def handle_exception(self, exc):
        if isinstance(exc, _Replay):
            return exc.response
        return super().handle_exception(exc)


class IdempotentAutoSchema(AutoSchema):
    """Documents the optional `Idempotency-Key` header on every authenticated POST."""

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        if self.method != "POST" or not self.view.authentication_classes:
            return parameters
        return [*parameters, KEY_PARAMETER]


KEY_PARAMETER = OpenApiParameter(
    HEADER,
    location=OpenApiParameter.HEADER,
    required=False,
    type={"type": "string", "minLength": 1, "maxLength": MAX_LENGTH, "pattern": "^[ -~]+$"},
    description="Send the same key again to retry this request safely: the first 2xx answer is replayed "
    f"(with `{REPLAYED_HEADER}: true`) instead of running it twice; the same key with another body or path "
    "is a 409, and so is a retry while the first request is still running. Keys are yours for 24 hours; "
    "a request that failed releases its key.",
)


def idempotency_keys_expire(*, now: dt.datetime, batch: int = retention.BATCH) -> int:
    """Delete every trader's keys older than TTL (the beat sweep; the caller elevates). Returns how many."""
    return retention.in_batches(
        IdempotencyKey.objects.filter(created_at__lt=now - TTL), lambda picked: picked.delete()[0], batch=batch
    )

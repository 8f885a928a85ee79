"""Structured logs and the request id.

With LOG_FORMAT=json every log line is one JSON object (python-json-logger): `time`, `level`, `logger`,
`message`, whatever `extra` the call passed, and where known `request_id`, `trader_id` (the row-security
scope's trader), `deployment_id` (the URL's, or the task's argument) and `task_id` (the Celery task running).
LOG_FORMAT=plain (the default) keeps the one-line text format, with the same fields on each record.

Every response carries `X-Request-ID`: the client's own when it sent a usable one (1-128 characters of
letters, digits and `._:-`), else a new one. A JSON error body (a 4xx/5xx whose object has `detail`) carries it
too, as `request_id`, so a report quoting the body finds the log lines.
"""

from __future__ import annotations

import inspect
import json
import logging
import re
import uuid
from contextvars import ContextVar

from pythonjsonlogger.json import JsonFormatter

from access.scope import current as current_scope

HEADER = "X-Request-ID"
_META_HEADER = "HTTP_X_REQUEST_ID"
_VALID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

request_id: ContextVar[str | None] = ContextVar("request_id", default=None)
deployment_id: ContextVar[int | None] = ContextVar("log_deployment_id", default=None)


def accepted_request_id(sent: str | None) -> str:
    """The client's id when usable, else a new one (an id goes into logs and headers: nothing else passes)."""
    if sent and _VALID.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


class ContextFilter(logging.Filter):
    """Adds request_id, trader_id, deployment_id and task_id (None when unknown) to every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        record.trader_id = current_scope().owner_id
        record.deployment_id = deployment_id.get()
        record.task_id = _task_id()
        return True


def _task_id() -> str | None:
    try:
        from celery import current_task
    except ImportError:  # pragma: no cover (celery is a dependency)
        return None
    request = getattr(current_task, "request", None) if current_task else None
    return getattr(request, "id", None)


class JsonLineFormatter(JsonFormatter):
    """One JSON object a line, with the context fields first."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("rename_fields", {"asctime": "time", "levelname": "level", "name": "logger"})
        kwargs.setdefault("timestamp", False)
        super().__init__(
            "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s %(trader_id)s %(deployment_id)s %(task_id)s",
            *args,
            **kwargs,
        )


class RequestIdMiddleware:
    """Outermost: the request id for the request's log lines, its response header and its JSON error body."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        rid = accepted_request_id(request.META.get(_META_HEADER))
        request.request_id = rid
        # Not reset on the way out: Django logs a 4xx/5xx (logger django.request) after the middleware returns,
        # and that line must carry the id too. The next request on this thread sets both afresh.
        request_id.set(rid)
        deployment_id.set(None)
        response = self.get_response(request)
        response[HEADER] = rid
        _stamp_error_body(response, rid)
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        value = view_kwargs.get("deployment_id")
        if isinstance(value, int):
            deployment_id.set(value)


def _stamp_error_body(response, rid: str) -> None:
    if response.status_code < 400 or getattr(response, "streaming", False):
        return
    if not response.get("Content-Type", "").startswith("application/json"):
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        return
    if not isinstance(body, dict) or "detail" not in body or "request_id" in body:
        return
    body["request_id"] = rid
    response.content = json.dumps(body, ensure_ascii=False).encode()
    if response.has_header("Content-Length"):
        response["Content-Length"] = str(len(response.content))


def task_started(task=None, args=None, kwargs=None, **_) -> None:
    """Celery's task_prerun: the task's deployment (its `deployment_id` argument) for its log lines."""
    deployment_id.set(_deployment_argument(task, args or (), kwargs or {}))


def task_finished(**_) -> None:
    deployment_id.set(None)


def _deployment_argument(task, args, kwargs) -> int | None:
    if "deployment_id" in kwargs:
        value = kwargs["deployment_id"]
    else:
        try:
            bound = inspect.signature(task.run).bind_partial(*args, **kwargs)
        except (TypeError, ValueError, AttributeError):
            return None
        value = bound.arguments.get("deployment_id")
    return value if isinstance(value, int) else None

"""Prometheus metrics: what is counted where it happens, the request middleware, and GET /metrics.

Every metric of the service is defined here (the alert rules in deploy/prometheus/alerts.yml name them; the
test there checks each name is served). Apps import the ones they count; figures read from the database at
scrape time come from each app's `metrics.py` (`families()`), which memorysite.urls hands to the endpoint.

Processes. gunicorn runs several workers and Celery several pool processes: with PROMETHEUS_MULTIPROC_DIR set
(the launcher sets it to .data/prometheus, emptied at each start; compose mounts one volume into web and
worker), prometheus-client's multiprocess mode writes each process's counts to files there and the endpoint
adds them up, so a scrape sees every worker of the machine (Celery's included), not the one that answered.
Without it (tests, `manage.py runserver`) the endpoint serves this process's own registry.

Access. Never public: a staff user's session, or `Authorization: Bearer <METRICS_TOKEN>` (compared in constant
time). Failed attempts are counted per presented token and per client address; past METRICS_FAILURE_LIMIT in
METRICS_FAILURE_WINDOW_S either answers 429 without checking the token.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator

from django.conf import settings
from django.db import DatabaseError, transaction
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from redis.exceptions import RedisError

from access.middleware import without_transaction
from access.scope import elevated
from memorysite.redis import client as redis_client
from memorysite.statement_timeout import local_statement_timeout

logger = logging.getLogger(__name__)

# --- requests ---------------------------------------------------------------------------------------------------
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
UNRESOLVED = "<unresolved>"  # a path no URL pattern matched (404s of unknown paths): one series, not one per path
REQUESTS = Counter(
    "memory_http_requests_total", "HTTP requests answered, by URL name, method and status class.",
    ["view", "method", "status"],
)  # fmt: skip
REQUEST_SECONDS = Histogram(
    "memory_http_request_duration_seconds", "Time to answer an HTTP request, by URL name and method.",
    ["view", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)  # fmt: skip

# --- ledger -----------------------------------------------------------------------------------------------------
TICKS_INGESTED = Counter("memory_ticks_ingested_total", "Ticks stored (re-deliveries of a stored tick not counted).")
TICKS_MATERIALIZED = Counter("memory_ticks_materialized_total", "Ticks applied to trade_history.")

# --- per-tick context (agentcontext) -----------------------------------------------------------------------------
CONTEXT_SECTION_TOKENS = Histogram(
    "memory_context_section_tokens", "Estimated tokens of each section of a served per-tick context.",
    ["section"],
    buckets=(0, 25, 50, 100, 200, 400, 800, 1600, 3200, 6400),
)  # fmt: skip
CONTEXT_DEGRADED = Counter(
    "memory_context_degraded_sections_total", "Context sections served empty because their reads failed.", ["section"]
)
CONTEXT_RECORD_FAILURES = Counter(
    "memory_context_record_failures_total",
    "Contexts served but not recorded for the trade page (the write failed; the context was served anyway).",
)

# --- reflection --------------------------------------------------------------------------------------------------
REFLECTION_RUNS = Counter(
    "memory_reflection_runs_total",
    "Reflection runs that reached the model, by outcome: ok (a new note), failed (the model call), "
    "rejected (the output broke a rule), skipped (the window was distilled meanwhile).",
    ["outcome"],
)
REFLECTION_COST = Counter("memory_reflection_cost_usd_total", "Model cost of reflection runs, in US dollars.")

# --- recall ------------------------------------------------------------------------------------------------------
RECALL_SEARCH_SECONDS = Histogram(
    "memory_recall_search_duration_seconds", "Time of one recall search, by caller (api, page, context).",
    ["caller"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 1.0, 2.5, 5.0),
)  # fmt: skip
RECALL_INDEX_ERRORS = Counter("memory_recall_index_errors_total", "Embedding batches that failed (documents marked).")

# --- analyst memory (seed analyst-signals-memory.md, Monitoring) -------------------------------------------------
ANALYST_RETRIEVAL_SECONDS = Histogram(
    "memory_analyst_retrieval_duration_seconds", "Time of one analyst memory retrieval (the audited duration).",
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.5, 5.0, 10.0),
)  # fmt: skip
ANALYST_RETRIEVALS = Counter(
    "memory_analyst_retrievals_total", "Analyst memory retrievals, by outcome (ok, or the error type).", ["outcome"]
)
ANALYST_MEMORY_SIGNALS = Histogram(
    "memory_analyst_memory_signals", "Signals one retrieval returned (the memory context's size).",
    buckets=(0, 1, 2, 5, 10, 20, 50, 100, 200, 500),
)  # fmt: skip
ANALYST_EVOLUTION_EVENTS = Counter(
    "memory_analyst_evolution_events_total", "Signal evolution events stored, by type.", ["type"]
)


def status_class(status: int) -> str:
    return f"{status // 100}xx"


class RequestMetricsMiddleware:
    """Counts and times every request by its URL name (never its path: ids would make a series each)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        view = (match.view_name or match.route) if match is not None else UNRESOLVED
        method = request.method if request.method in METHODS else "other"
        REQUEST_SECONDS.labels(view, method).observe(time.perf_counter() - started)
        REQUESTS.labels(view, method, status_class(response.status_code)).inc()
        return response


# --- the endpoint -------------------------------------------------------------------------------------------------
Families = Callable[[], Iterable[GaugeMetricFamily]]
SCRAPE_REASON = "metrics scrape: cross-trader counts for GET /metrics"
# Each scrape-time query of the database runs under this statement timeout: a slow one fails its source only.
SCRAPE_STATEMENT_TIMEOUT_MS = 2000
HEARTBEAT_KEY = "memorysite:heartbeat"


def unauthorized(detail: str, *, status: int = 401, headers: dict[str, str]) -> JsonResponse:
    return JsonResponse({"detail": detail}, status=status, headers=headers)


def _client_address(request: HttpRequest) -> str:
    header = settings.AUTH_CLIENT_IP_HEADER
    if header:
        forwarded = request.META.get("HTTP_" + header.upper().replace("-", "_"), "")
        if forwarded:
            return forwarded.split(",")[0].strip()[:64]
    return str(request.META.get("REMOTE_ADDR", ""))[:64]


def _failure_keys(request: HttpRequest, presented: str) -> list[str]:
    digest = hashlib.sha256(presented.encode()).hexdigest()[:32]
    window = int(time.time() // settings.METRICS_FAILURE_WINDOW_S)
    prefix = f"{settings.RATE_KEY_PREFIX}metrics-auth"
    return [f"{prefix}:token:{digest}:{window}", f"{prefix}:addr:{_client_address(request)}:{window}"]


def _too_many_failures(keys: list[str]) -> bool:
    try:
        counts = redis_client().mget(keys)
    except RedisError:
        logger.warning("metrics: Redis unreachable, failed scrapes not braked", exc_info=True)
        return False
    return any(int(count or 0) >= settings.METRICS_FAILURE_LIMIT for count in counts)


def _count_failure(keys: list[str]) -> None:
    try:
        pipe = redis_client().pipeline(transaction=True)
        for key in keys:
            pipe.incr(key)
            pipe.expire(key, settings.METRICS_FAILURE_WINDOW_S * 2)
        pipe.execute()
    except RedisError:
        logger.warning("metrics: Redis unreachable, a failed scrape not counted", exc_info=True)


def _refusal(request: HttpRequest) -> JsonResponse | None:
    """None when the request may read the metrics: a staff session or the scrape token."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated and user.is_staff:
        return None
    header = request.META.get("HTTP_AUTHORIZATION", "")
    scheme, _, presented = header.partition(" ")
    presented = presented.strip()
    if not header:
        detail = "metrics: sign in as staff, or send `Authorization: Bearer <METRICS_TOKEN>`"
        return unauthorized(detail, headers={"WWW-Authenticate": 'Bearer realm="metrics"'})
    keys = _failure_keys(request, presented)
    if _too_many_failures(keys):
        window = settings.METRICS_FAILURE_WINDOW_S
        detail = f"metrics: too many failed attempts; try again in {window} seconds"
        return unauthorized(detail, status=429, headers={"Retry-After": str(window)})
    expected = settings.METRICS_TOKEN
    if scheme.lower() == "bearer" and expected and hmac.compare_digest(presented.encode(), expected.encode()):
        return None
    _count_failure(keys)
    detail = "metrics: unknown token" if expected else "metrics: no METRICS_TOKEN is configured; sign in as staff"
    return unauthorized(detail, headers={"WWW-Authenticate": 'Bearer realm="metrics"'})


def queue_names() -> list[str]:
    """The Celery queues tasks are sent to: the default one and every one routes or queues name."""
    names = [settings.CELERY_TASK_DEFAULT_QUEUE if hasattr(settings, "CELERY_TASK_DEFAULT_QUEUE") else "celery"]
    for queue in getattr(settings, "CELERY_TASK_QUEUES", None) or ():
        names.append(getattr(queue, "name", str(queue)))
    routes = getattr(settings, "CELERY_TASK_ROUTES", None) or {}
    for route in routes.values() if isinstance(routes, dict) else ():
        if isinstance(route, dict) and route.get("queue"):
            names.append(str(route["queue"]))
    return list(dict.fromkeys(names))


def redis_families() -> Iterator[GaugeMetricFamily]:
    """Celery queue depths (LLEN: messages waiting, not those a worker holds) and the worker heartbeat's age."""
    client = redis_client()
    depth = GaugeMetricFamily("memory_celery_queue_length", "Messages waiting in a Celery queue.", labels=["queue"])
    names = queue_names()
    pipe = client.pipeline(transaction=False)
    for name in names:
        pipe.llen(name)
    for name, length in zip(names, pipe.execute(), strict=True):
        depth.add_metric([name], float(length))
    yield depth
    beat = client.get(HEARTBEAT_KEY)
    age = time.time() - float(beat) if beat is not None else math.inf
    yield GaugeMetricFamily(
        "memory_worker_heartbeat_age_seconds",
        "Seconds since a Celery worker last ran the heartbeat task (beat sends it every minute; +Inf: never).",
        value=age,
    )


class _Scrape(Collector):
    """One scrape: the counted metrics (every process's, in multiprocess mode), then each source of figures read
    now. A source that fails is logged and reported by `memory_metrics_source_up` = 0; the others still answer."""

    def __init__(self, database_sources: dict[str, Families]):
        self.database_sources = database_sources

    def collect(self):
        directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        if directory:
            yield from multiprocess.MultiProcessCollector(None, path=directory).collect()
        else:
            yield from REGISTRY.collect()
        up = GaugeMetricFamily(
            "memory_metrics_source_up", "1 when this scrape could read the source (database, redis).", labels=["source"]
        )
        try:
            yield from list(redis_families())
            up.add_metric(["redis"], 1)
        except (RedisError, OSError):
            logger.warning("metrics: Redis unreachable", exc_info=True)
            up.add_metric(["redis"], 0)
        yield from self._database(up)
        yield up

    def _database(self, up: GaugeMetricFamily) -> Iterator[GaugeMetricFamily]:
        families: list[GaugeMetricFamily] = []
        try:
            with elevated(SCRAPE_REASON, actor="metrics"), local_statement_timeout(SCRAPE_STATEMENT_TIMEOUT_MS):
                for name, source in self.database_sources.items():
                    try:
                        with transaction.atomic():  # a savepoint: a failed source leaves the others readable
                            families.extend(source())
                    except DatabaseError:
                        logger.warning("metrics: source %s failed", name, exc_info=True)
                        up.add_metric([f"database:{name}"], 0)
        except DatabaseError:
            logger.warning("metrics: database unreachable", exc_info=True)
            up.add_metric(["database"], 0)
            return
        up.add_metric(["database"], 1)
        yield from families


def metrics_endpoint(database_sources: dict[str, Families]):
    """GET /metrics in Prometheus' text format, for staff or the scrape token (see the module's docstring)."""

    @without_transaction  # each source runs in the elevated transaction of its own; /metrics answers with the DB down
    @never_cache
    @require_GET
    def metrics(request: HttpRequest) -> HttpResponse:
        refusal = _refusal(request)
        if refusal is not None:
            return refusal
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Scrape(database_sources))
        # The 0.0.4 text format: every name here is plain ASCII, and Prometheus 2.x reads no other.
        return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_PLAIN_0_0_4)

    return metrics

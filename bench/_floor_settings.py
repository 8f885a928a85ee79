"""Settings for benchmark servers: the service's own, plus the floor URLconf and isolated Celery traffic.

Used as DJANGO_SETTINGS_MODULE=bench._floor_settings by the benchmark process, its gunicorn and
its Celery worker (the name starts with `_` so `make bench` does not run it as a benchmark).
"""

import os

from memorysite.env import celery_broker_url, redis_url_with_db
from memorysite.queues import task_routes
from memorysite.settings import *  # noqa: F403
from memorysite.settings import REDIS_URL

ROOT_URLCONF = "bench._floor_urls"

# Its own logical Redis database and queue: a `make run` worker or a test worker never takes
# (or is handed) a benchmark's tasks, even when REDIS_URL points at a shared server.
REDIS_URL = redis_url_with_db(REDIS_URL, int(os.environ.get("BENCH_REDIS_DB", "13")))
CELERY_BROKER_URL = celery_broker_url(REDIS_URL)
# Sessions on Redis (bench/load.py's "before" server runs an older tree, whose sessions are in its database).
if globals().get("SESSION_ENGINE", "").endswith(".cache"):
    from memorysite.env import redis_caches

    CACHES = redis_caches(REDIS_URL)
CELERY_RESULT_BACKEND = CELERY_BROKER_URL
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("BENCH_QUEUE") or "bench"
# Its queues per job kind under the same prefix; BENCH_ROUTING=shared routes every task to the default queue,
# as before queues per kind (bench/queue_isolation.py measures the two side by side).
CELERY_TASK_ROUTES = {} if os.environ.get("BENCH_ROUTING") == "shared" else task_routes(f"{CELERY_TASK_DEFAULT_QUEUE}.")

# Pages are served too (bench/load.py): DEBUG=false without collectstatic, so no manifest.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}  # noqa: F405

# One client sends back to back, far faster than a runner (memorysite/throttles.py): the throttle still counts
# every request (its Redis round trip is in every figure, the floor's too), it just never refuses one.
API_THROTTLE_REQUESTS = 1_000_000

"""The service's settings with test traffic kept apart from a `make run` on the same servers."""

import os

from memorysite.env import celery_broker_url, redis_caches, redis_url_with_db
from memorysite.queues import task_routes
from memorysite.settings import *  # noqa: F403
from memorysite.settings import REDIS_URL

# Logical Redis database 15 keeps test tasks away from a development worker's queue.
REDIS_URL = redis_url_with_db(REDIS_URL, 15)
CELERY_BROKER_URL = celery_broker_url(REDIS_URL)
CACHES = redis_caches(REDIS_URL)
CELERY_RESULT_BACKEND = CELERY_BROKER_URL

# This test run's own queue: a worker of another run (or `make run`) never takes its tasks.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("TEST_QUEUE") or f"test-{os.getpid()}"
# Its queues per job kind too (memorysite/queues.py): `test-<pid>.ticks`, `test-<pid>.embeddings`, ...
CELERY_TASK_ROUTES = task_routes(prefix=f"{CELERY_TASK_DEFAULT_QUEUE}.")

# Hashing passwords slowly is a production property, not something tests need to pay for.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# One test database per pytest process, so two runs in one checkout (or a run beside a helper
# session) never drop each other's database; tests/conftest.py removes ones left by dead runs.
TEST_DATABASE_PREFIX = f"test_{DATABASES['default']['NAME']}_"  # noqa: F405
DATABASES["default"]["TEST"] = {"NAME": f"{TEST_DATABASE_PREFIX}{os.getpid()}"}  # noqa: F405

# Tests never call the real Anthropic API: reflection uses its offline engine unless a test
# builds the Anthropic engine on a swapped HTTP transport.
ANTHROPIC_API_KEY = ""

# The brake's and the throttle's counters of this run only (tests/conftest.py forgets them between tests).
RATE_KEY_PREFIX = f"rate-test-{os.getpid()}:"
# Tests fire requests faster than any runner; the throttle's own tests use the service's rate.
API_THROTTLE_REQUESTS = 1_000_000

# Every test client builds the middleware anew; without autorefresh WhiteNoise walks every static
# finder each time (a quarter of a typical API test). With it, as under `make run`, a request looks
# up only its own path. Tests fetch no static file through it (a live server serves them itself).
WHITENOISE_AUTOREFRESH = True

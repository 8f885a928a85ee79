"""GET /metrics: who may read it, and that it serves what the service counts and reads (issue 22, "Metrics").

Everything runs on the real servers: ticks through the API, the context through the API, the scrape's
queries on the test database under an audited elevation, queue lengths on Redis."""

from __future__ import annotations

import os

import httpx
import pytest
from django.conf import settings
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from access.models import Elevation
from memorysite.celery import heartbeat
from memorysite.metrics import SCRAPE_REASON
from memorysite.queues import TICKS
from memorysite.redis import client as redis_client
from recall.models import Chunk, Document
from tests.factories import UserFactory
from tests.faults.test_postgres_restart import free_port, gunicorn
from tests.security.world import make_trader
from tests.workers import database_url_of_test_db, kind_queue

TOKEN = "m" * 40


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """{(sample name, its labels): value} of a scrape."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(scrape: dict, name: str, **labels) -> float:
    return scrape.get((name, frozenset(labels.items())), 0.0)


@pytest.fixture
def scrape(client, settings):
    settings.METRICS_TOKEN = TOKEN

    def read() -> dict:
        response = client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
        assert response.status_code == 200, response.content[:500]
        assert response["Content-Type"].startswith("text/plain; version=0.0.4")
        return samples(response.content.decode())

    return read


@pytest.fixture
def forget_failures(settings):
    yield
    client = redis_client()
    keys = list(client.scan_iter(f"{settings.RATE_KEY_PREFIX}metrics-auth:*"))
    if keys:
        client.delete(*keys)


def test_it_is_not_public(client, db, settings, forget_failures):
    settings.METRICS_TOKEN = TOKEN
    response = client.get("/metrics")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="metrics"'
    assert "METRICS_TOKEN" in response.json()["detail"]
    trader = UserFactory(username="trader")
    client.force_login(trader)  # a trader's session is not enough
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN[:-1]}x").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Token {TOKEN}").status_code == 401  # the scheme is Bearer


def test_a_staff_session_or_the_token_reads_it(db, settings, staff_client, forget_failures):
    settings.METRICS_TOKEN = TOKEN
    assert staff_client.get("/metrics").status_code == 200
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    assert response.status_code == 200
    assert b"memory_http_requests_total" in response.content


def test_without_a_configured_token_no_token_is_accepted(client, db, settings, forget_failures):
    settings.METRICS_TOKEN = None
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer ")
    assert response.status_code == 401
    assert "no METRICS_TOKEN is configured" in response.json()["detail"]


def test_failed_attempts_are_braked_per_token_and_per_address(db, settings, forget_failures):
    settings.METRICS_TOKEN = TOKEN
    settings.METRICS_FAILURE_LIMIT = 3
    guess = "g" * 40
    for _ in range(3):
        assert Client(REMOTE_ADDR="10.0.0.1").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {guess}").status_code == 401
    # The same guess from another address: braked on the token.
    braked = Client(REMOTE_ADDR="10.0.0.2").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {guess}")
    assert braked.status_code == 429
    assert braked["Retry-After"] == str(settings.METRICS_FAILURE_WINDOW_S)
    # Another guess from the first address: braked on the address, even the right token.
    assert Client(REMOTE_ADDR="10.0.0.1").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 429
    # The right token from a clean address still reads.
    assert Client(REMOTE_ADDR="10.0.0.3").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_it_counts_requests_by_url_name_method_and_status_class(client, db, scrape):
    before = scrape()
    assert client.get("/healthz").status_code == 200
    assert client.get("/no/such/page/").status_code == 404
    after = scrape()
    ok = ("memory_http_requests_total", {"view": "healthz", "method": "GET", "status": "2xx"})
    missing = ("memory_http_requests_total", {"view": "<unresolved>", "method": "GET", "status": "4xx"})
    for name, labels in (ok, missing):
        assert value(after, name, **labels) == value(before, name, **labels) + 1
    count = ("memory_http_request_duration_seconds_count", {"view": "healthz", "method": "GET"})
    assert value(after, count[0], **count[1]) == value(before, count[0], **count[1]) + 1


def test_it_serves_ticks_lag_context_tokens_and_queue_depths(transactional_db, scrape):
    before = scrape()
    trader = make_trader("owner")  # one tick through the API; no worker runs, so it waits to be materialized
    during = scrape()
    assert value(during, "memory_ticks_ingested_total") == value(before, "memory_ticks_ingested_total") + 1
    assert value(during, "memory_materialization_lag_ticks") == 1
    assert value(during, "memory_materialization_lagging_deployments") == 1
    assert value(during, "memory_materialization_lag_seconds") > 0
    ticks_queue = kind_queue(TICKS)  # the tick's materialization waits on its kind's queue (memorysite/queues.py)
    depth = redis_client().llen(ticks_queue)
    assert depth >= 1
    assert value(during, "memory_celery_queue_length", queue=ticks_queue) == depth

    response = trader.client.get(f"/api/v1/deployments/{trader.deployment_id}/context/")
    assert response.status_code == 200
    sections = response.json()["token_estimate"]["per_section"]
    after = scrape()
    assert value(after, "memory_materialization_lag_ticks") == 0  # the context caught the ledger up
    assert value(after, "memory_ticks_materialized_total") == value(before, "memory_ticks_materialized_total") + 1
    for section, tokens in sections.items():
        name = "memory_context_section_tokens_count"
        assert value(after, name, section=section) == value(during, name, section=section) + 1
        total = "memory_context_section_tokens_sum"
        assert value(after, total, section=section) == value(during, total, section=section) + tokens
    redis_client().delete(settings.CELERY_TASK_DEFAULT_QUEUE)


def test_each_scrape_reads_the_database_under_an_audited_elevation(client, db, scrape):
    before = scrape()
    audits = Elevation.objects.filter(reason=SCRAPE_REASON, actor="metrics").count()
    after = scrape()
    assert Elevation.objects.filter(reason=SCRAPE_REASON, actor="metrics").count() == audits + 1
    kind = "memory_elevations_total"
    assert value(after, kind, kind="metrics") == value(before, kind, kind="metrics") + 1
    assert value(after, "memory_metrics_source_up", source="database") == 1
    assert value(after, "memory_metrics_source_up", source="redis") == 1
    for table in ("agent_signals", "signal_evolution_events", "memory_retrieval_audits"):
        assert value(after, "memory_analyst_table_bytes", table=table) > 0


def test_recall_index_figures(db, scrape):
    trader = make_trader("owner")

    document = Document.objects.get(pk=trader.document_id)
    Document.objects.filter(pk=document.pk).update(index_error="embedding failed: test")
    pending = Chunk.objects.filter(embedding__isnull=True).count()
    figures = scrape()
    assert value(figures, "memory_recall_documents_index_errors") == 1
    assert value(figures, "memory_recall_chunks_pending") == pending
    assert value(figures, "memory_recall_embeddings_enabled") in (0, 1)


def test_the_worker_heartbeat_age_is_served(db, scrape):
    redis_client().delete("memorysite:heartbeat")
    assert value(scrape(), "memory_worker_heartbeat_age_seconds") == float("inf")
    heartbeat()  # what beat has a worker run every minute
    assert 0 <= value(scrape(), "memory_worker_heartbeat_age_seconds") < 5


@pytest.mark.slow
def test_gunicorn_workers_are_added_up_in_multiprocess_mode(transactional_db, tmp_path):
    """The service as served (2 gunicorn workers): every request is counted whichever worker answered it and
    whichever answers the scrape (prometheus-client's multiprocess mode, PROMETHEUS_MULTIPROC_DIR)."""
    directory = tmp_path / "prometheus"
    directory.mkdir()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": database_url_of_test_db(),
        "REDIS_URL": settings.REDIS_URL,
        "TEST_QUEUE": settings.CELERY_TASK_DEFAULT_QUEUE,
        "METRICS_TOKEN": TOKEN,
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
    }
    port = free_port()
    # Paths nothing serves: only this test asks for them (the start-up's health polls may be answered late).
    missing = ("memory_http_requests_total", {"view": "<unresolved>", "method": "GET", "status": "4xx"})
    with gunicorn(env, port, tmp_path / "web.log"):
        base = f"http://127.0.0.1:{port}"

        def read() -> dict:
            response = httpx.get(f"{base}/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=10)
            assert response.status_code == 200, response.text
            return samples(response.text)

        before = value(read(), missing[0], **missing[1])
        for _ in range(40):  # a new connection each: the two workers share them
            response = httpx.get(f"{base}/no/such/page/", timeout=10)
            assert response.status_code == 404
        pids = {path.name.rsplit("_", 1)[-1] for path in directory.glob("counter_*.db")}
        after = value(read(), missing[0], **missing[1])
    assert len(pids) >= 2  # both workers count into the directory
    assert after == before + 40

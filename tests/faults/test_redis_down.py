"""Redis stopped and started again under the running service.

The service (this process: its Redis client and its Celery app) is pointed at a Redis of this
test's own, so stopping it never disturbs the Redis the rest of the session (and other test runs)
share. While it is down, ticks are still accepted and are materialized inline, and /healthz says
Redis is down; once it is back, /healthz recovers and ticks are queued for a worker again, on the
same clients, with no restart.
"""

from __future__ import annotations

import contextlib

import pytest
import redis

from ledger.models import Deployment
from memorysite.celery import app
from memorysite.env import celery_broker_url, redis_url_with_db
from memorysite.queues import TICKS
from memorysite.redis import client as redis_client
from tests.factories import DeploymentFactory
from tests.faults.support import private_servers, server_of
from tests.ledger.test_materialize_ordering import actual_rows, expected_rows, tick_bodies
from tests.workers import celery_worker, kind_queue, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _forget_broker_connections() -> None:
    """The Celery app re-reads broker_url on its next publish (kombu keeps pools per URL)."""
    app._pool = None
    amqp = app.__dict__.get("amqp")
    if amqp is not None:
        amqp._producer_pool = None


@contextlib.contextmanager
def service_on_redis(settings, url: str):
    """This process's Redis client and Celery broker on `url`; restored afterwards."""
    previous = app.conf.broker_url
    settings.REDIS_URL = url
    settings.CELERY_BROKER_URL = celery_broker_url(url)
    app.conf.broker_url = settings.CELERY_BROKER_URL
    _forget_broker_connections()
    redis_client.cache_clear()
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            app.pool.force_close_all()  # the private broker's connections (its pools are never reused)
            app.amqp.producer_pool.force_close_all()
        app.conf.broker_url = previous
        _forget_broker_connections()
        with contextlib.suppress(Exception):
            redis_client().close()
        redis_client.cache_clear()


@pytest.fixture
def private_redis(tmp_path_factory):
    with private_servers(tmp_path_factory.mktemp("redis-data"), redis=True) as services:
        yield services


def queued(url: str) -> int:
    with contextlib.closing(redis.Redis.from_url(url)) as direct:
        return direct.llen(kind_queue(TICKS))  # materialization tasks


def post(api, deployment: Deployment, bodies: list[dict]) -> None:
    for body in bodies:
        response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
        assert response.status_code == 201, response.content


def materialized_through(deployment: Deployment):
    deployment.refresh_from_db()
    return deployment.materialized_through


def test_ticks_survive_redis_stopping_and_are_queued_again_once_it_is_back(
    owner, owner_api, client, settings, private_redis, tmp_path
):
    deployment = DeploymentFactory(skill_version__skill__owner=owner, skill_version__reflection_cadence="daily")
    bodies = tick_bodies(12)
    url = redis_url_with_db(private_redis.environment()["REDIS_URL"], 15)  # as tests/settings.py does
    redis_server = server_of(private_redis, "redis")
    with service_on_redis(settings, url):
        # Up: a tick is queued on our Redis, not materialized on the request.
        post(owner_api, deployment, bodies[:1])
        assert queued(url) == 1
        assert materialized_through(deployment) is None
        with contextlib.closing(redis.Redis.from_url(url)) as direct:
            direct.flushdb()  # as if a worker had taken it: what follows starts from an empty queue

        redis_server.stop()
        assert not redis_server.healthy()
        # Down: every tick is a 201 and materialized inline (with the one queued before the stop).
        post(owner_api, deployment, bodies[1:6])
        assert materialized_through(deployment).isoformat() == bodies[5]["tick_at"]
        assert actual_rows(deployment) == expected_rows(bodies[:6])
        health = client.get("/healthz")
        assert health.status_code == 503
        assert health.json()["redis"] == "down"
        assert health.json()["down"] == ["redis"]
        assert health.json()["database"] == "ok"

        private_redis.start()  # the same socket, a new server process
        # Back: health recovers and ticks are queued again, on the same clients.
        health = client.get("/healthz")
        assert health.status_code == 200, health.json()
        assert health.json()["redis"] == "ok"
        post(owner_api, deployment, bodies[6:])
        assert queued(url) == 1  # the burst coalesced into one task
        assert materialized_through(deployment).isoformat() == bodies[5]["tick_at"]  # not inline

        # ... and a worker on that Redis takes the queued task and catches up.
        with celery_worker(tmp_path / "worker.log", extra_env={"REDIS_URL": private_redis.environment()["REDIS_URL"]}):
            wait_until(
                lambda: materialized_through(deployment).isoformat() == bodies[-1]["tick_at"],
                message="the worker to apply the ticks queued after Redis came back",
                details=(tmp_path / "worker.log").read_text,
            )
    assert actual_rows(deployment) == expected_rows(bodies)

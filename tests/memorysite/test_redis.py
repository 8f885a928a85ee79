"""memorysite/redis.py: the one "enqueue once" rule (SET NX EX) the ledger and recall debounce with."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from memorysite.redis import client, enqueue_once, queued_done, queued_key


@pytest.fixture
def database_name(monkeypatch):
    """Point the connection at a database name of its own; the marks it leaves are removed afterwards."""
    names: list[str] = []

    def use(name: str) -> None:
        names.append(name)
        monkeypatch.setitem(connection.settings_dict, "NAME", name)

    yield use
    for name in names:
        keys = list(client().scan_iter(match=f"queued:{name}:*"))
        if keys:
            client().delete(*keys)


def test_it_names_the_mark_after_the_database_the_purpose_and_the_subject(database_name):
    database_name("memory_a")
    assert queued_key("ledger:materialize", 7) == "queued:memory_a:ledger:materialize:7"


def test_it_enqueues_once_until_the_task_starts(database_name):
    database_name(f"test_once_{uuid.uuid4().hex}")
    enqueued = []
    assert enqueue_once("recall:situations", 1, ttl_s=30, enqueue=lambda: enqueued.append(1)) is True
    assert enqueue_once("recall:situations", 1, ttl_s=30, enqueue=lambda: enqueued.append(2)) is False
    assert enqueue_once("recall:situations", 2, ttl_s=30, enqueue=lambda: enqueued.append(3)) is True  # another subject
    queued_done("recall:situations", 1)
    assert enqueue_once("recall:situations", 1, ttl_s=30, enqueue=lambda: enqueued.append(4)) is True
    assert enqueued == [1, 3, 4]


def test_two_databases_sharing_a_redis_do_not_suppress_each_other(database_name):
    enqueued = []
    for name in (f"test_one_{uuid.uuid4().hex}", f"test_two_{uuid.uuid4().hex}"):
        database_name(name)
        assert enqueue_once("recall:situations", 1, ttl_s=30, enqueue=lambda name=name: enqueued.append(name)) is True
        assert enqueue_once("ledger:materialize", 1, ttl_s=30, enqueue=lambda name=name: enqueued.append(name)) is True
    assert len(enqueued) == 4


def test_it_sets_the_expiry(database_name):
    database_name(f"test_ttl_{uuid.uuid4().hex}")
    enqueue_once("ledger:materialize", 5, ttl_s=30, enqueue=lambda: None)
    assert 0 < client().ttl(queued_key("ledger:materialize", 5)) <= 30


def test_a_failed_enqueue_removes_the_mark_so_the_next_event_tries_again(database_name):
    database_name(f"test_fail_{uuid.uuid4().hex}")

    def broker_down():
        raise ConnectionError("broker unreachable")

    with pytest.raises(ConnectionError):
        enqueue_once("ledger:materialize", 3, ttl_s=30, enqueue=broker_down)
    assert client().get(queued_key("ledger:materialize", 3)) is None
    enqueued = []
    assert enqueue_once("ledger:materialize", 3, ttl_s=30, enqueue=lambda: enqueued.append(3)) is True
    assert enqueued == [3]

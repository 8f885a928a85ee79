"""A worker process killed with SIGKILL mid-task: the task is redelivered to a second worker and the
end state is that of one clean run.

Two real `celery worker` processes on the real Redis broker and the test database, each a prefork
pool of one. Work comes in the way it does in production (ticks posted to the API); one worker
takes the task and is caught mid-way (its transaction held on a row lock, or its model call held
open by the model stand-in). That worker is stopped the way a deploy stops a worker whose task
will not finish: SIGTERM (warm shutdown: no new work), then SIGKILL for the pool process running
the task. Its parent sees the worker lost and, with acks_late + reject_on_worker_lost, puts the
message back on the queue, where the other worker, idle all along, takes it and runs it again.

(A worker whose parent process dies too leaves the message unacknowledged in Redis until the
transport's visibility timeout, an hour by default: not something a test can wait for.)
"""

from __future__ import annotations

import os
import re
import signal
from decimal import Decimal

import pytest
from django.db import connection, transaction

from ledger import services as ledger_services
from ledger.models import DecisionSnapshot, Deployment, TradeDailyPnl, TradeHistory
from ledger.services import MATERIALIZE_BATCH
from memorysite.redis import queued_done
from reflection import services as reflection_services
from reflection.models import NoteStatus, ReflectionNote
from reflection.statistical import StatisticalReflectionEngine
from tests.anthropic_stub import text_message
from tests.factories import DeploymentFactory
from tests.faults.support import HeldAnthropic, payload_of, pool_children
from tests.ledger.test_materialize_ordering import actual_rows, expected_rows, post_all, tick_bodies
from tests.reflection.test_reflection_worker import round_trips
from tests.workers import celery_workers, purge, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("empty_queue")]

ANTHROPIC_WORKER = {"DJANGO_SETTINGS_MODULE": "tests.faults.anthropic_worker_settings"}


def dump(logs):
    return lambda: "\n".join(f"== {log.name}\n{log.read_text()}" for log in logs)


def task_ids(log_text: str, name: str, event: str) -> list[str]:
    return re.findall(rf"Task {re.escape(name)}\[([0-9a-f-]+)\] {event}", log_text)


def busy_and_idle(workers, logs, task_name: str):
    """(the worker that received the task, its log, the task id), (the other one, its log)."""
    received = [task_ids(log.read_text(), task_name, "received") for log in logs]
    [busy] = [n for n, ids in enumerate(received) if ids]
    [task_id] = received[busy]
    return (workers[busy], logs[busy], task_id), (workers[1 - busy], logs[1 - busy])


def kill_the_pool_process(worker, log) -> None:
    """SIGKILL the process running the task, as a deploy's hard stop does once its grace period is
    over: the worker was asked to stop first (SIGTERM: warm shutdown, it takes no new work and
    waits for the running task), so the task can only be taken up again by another worker."""
    [child] = pool_children(worker.pid)
    worker.send_signal(signal.SIGTERM)
    wait_until(lambda: "Warm shutdown" in log.read_text(), message="the warm shutdown", details=log.read_text)
    os.kill(child, signal.SIGKILL)


class HeldRowLock:
    """A row lock held by this test's own connection (so it sees the rows the test sees) until released."""

    def __init__(self, model, pk):
        self.model, self.pk = model, pk
        self.atomic = None

    def __enter__(self) -> HeldRowLock:
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        locked = list(self.model.objects.select_for_update().filter(pk=self.pk).values_list("pk", flat=True))
        assert locked == [self.pk]
        return self

    def release(self) -> None:
        if self.atomic is not None:
            atomic, self.atomic = self.atomic, None
            transaction.set_rollback(True)
            atomic.__exit__(None, None, None)

    def __exit__(self, *exc_info) -> None:
        self.release()


def waiting_mid_write() -> bool:
    """Another backend waits on a lock while holding the row locks of trade rows it has written."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # in a transaction, else its first snapshot stays
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity AS a JOIN pg_locks AS l ON l.pid = a.pid "
            "WHERE a.datname = current_database() AND a.pid <> pg_backend_pid() AND a.wait_event_type = 'Lock' "
            "AND l.relation = 'trade_history'::regclass AND l.mode = 'RowExclusiveLock' AND l.granted"
        )
        return cursor.fetchone()[0] > 0


# -- mid-materialization --------------------------------------------------------------------------

TRADE_COLUMNS = [
    "symbol", "side", "status", "size_base", "avg_entry_price", "entry_tick_at", "entry_leverage",
    "accrued_pnl_usd", "last_mark_price", "mfe_usd", "mae_usd", "fees_usd", "exit_tick_at", "exit_price",
    "exit_price_carried", "exit_reason", "holding_minutes", "realized_pnl_usd", "entry_lessons_hash",
    "entry_snapshot__tick_at", "exit_snapshot__tick_at",
]  # fmt: skip


def ledger_state(deployment: Deployment) -> dict:
    """Everything materialization writes for a deployment, minus ids and wall-clock times."""
    deployment.refresh_from_db()
    snapshots = DecisionSnapshot.objects.filter(deployment=deployment).order_by("tick_at")
    tick_of = {str(pk): tick_at.isoformat() for pk, tick_at in snapshots.values_list("pk", "tick_at")}

    def op_by_tick(op: dict) -> dict:  # snapshot ids differ between deployments; their ticks do not
        return {key: tick_of[value] if key.endswith("snapshot_id") else value for key, value in op.items()}

    return {
        "cursor": deployment.materialized_through,
        "day_start": (deployment.day_start_on, deployment.day_start_equity_usd),
        "trades": sorted(
            TradeHistory.objects.filter(deployment=deployment).values_list(*TRADE_COLUMNS),
            key=lambda row: (row[0], row[5], row[2]),
        ),
        "ops": [
            (tick_at, [op_by_tick(op) for op in ops])
            for tick_at, ops in snapshots.values_list("tick_at", "materialized_ops")
        ],
        "daily_pnl": list(
            TradeDailyPnl.objects.filter(deployment=deployment)
            .order_by("day")
            .values_list("day", "realized_pnl_usd", "n_closed", "n_wins")
        ),
    }


def test_a_worker_killed_mid_batch_leaves_the_rows_of_one_clean_pass(owner, owner_api, tmp_path):
    bodies = tick_bodies(MATERIALIZE_BATCH + 50)  # two batches: the kill lands in the second
    reference = DeploymentFactory(skill_version__skill__owner=owner, skill_version__reflection_cadence="daily")
    deployment = DeploymentFactory(skill_version=reference.skill_version)
    post_all(owner_api, reference, bodies)
    assert ledger_services.materialize_pending(deployment_id=reference.pk) == len(bodies)  # in-process, one pass
    expected = ledger_state(reference)
    purge()  # the reference's own queued task
    post_all(owner_api, deployment, bodies)  # a burst: one task queued (the pending flag coalesces the rest)

    # A tick of the second batch stays row-locked: the worker commits batch one, writes batch two's
    # trades, then waits on that tick's update, inside batch two's transaction.
    held_tick = DecisionSnapshot.objects.get(
        deployment=deployment, tick_at=payload_of(bodies[MATERIALIZE_BATCH + 25])[0]
    )
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    name = "ledger.materialize_deployment"
    with (
        HeldRowLock(DecisionSnapshot, held_tick.pk) as lock,
        celery_workers(logs, pool="prefork") as workers,  # one takes the task, the other stays idle
    ):
        wait_until(waiting_mid_write, message="a worker to stop mid-batch", details=dump(logs))
        deployment.refresh_from_db()
        assert deployment.materialized_through == payload_of(bodies[MATERIALIZE_BATCH - 1])[0]  # batch one only
        (busy, busy_log, task_id), (_, idle_log) = busy_and_idle(workers, logs, name)
        kill_the_pool_process(busy, busy_log)
        wait_until(
            lambda: task_id in task_ids(idle_log.read_text(), name, "received"),
            message="the task to be redelivered to the other worker",
            details=dump(logs),
        )
        lock.release()  # the killed worker's orphaned transaction gets the row, then is rolled back
        wait_until(
            lambda: task_id in task_ids(idle_log.read_text(), name, "succeeded"),
            message="the redelivered task to finish",
            details=dump(logs),
        )
    assert "WorkerLostError" in busy_log.read_text()
    assert task_id not in task_ids(busy_log.read_text(), name, "succeeded")
    assert ledger_state(deployment) == expected
    assert actual_rows(deployment) == expected_rows(bodies)  # and the pure materializer agrees
    assert not DecisionSnapshot.objects.filter(deployment=deployment, materialized_at__isnull=True).exists()


# -- mid-reflection -------------------------------------------------------------------------------

LESSONS = "### Entry timing\n- breakouts paid 2 of 3 times\n### Sizing\n(no clear pattern yet)"


def test_a_worker_killed_mid_reflection_leaves_exactly_one_new_note(owner, owner_api, tmp_path):
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="per_n_trades",
        skill_version__reflection_every_n_trades=2,
    )
    round_trips(owner_api, deployment, 2)  # no worker yet: applied and distilled in-process below
    ledger_services.materialize_pending(deployment_id=deployment.pk)
    prior = reflection_services.reflection_run(deployment_id=deployment.pk, engine=StatisticalReflectionEngine())
    assert prior is not None
    purge()  # the tasks those ticks queued: done in-process already
    queued_done(ledger_services.MATERIALIZE_QUEUED, deployment.pk)  # so the next ticks queue a task again

    answer = text_message(LESSONS, model="claude-haiku-4-5-20251001", input_tokens=900, output_tokens=120)
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    name = "reflection.run_reflection"
    with HeldAnthropic(answer) as llm:
        env = {**ANTHROPIC_WORKER, "ANTHROPIC_BASE_URL": llm.url}
        llm.hold.set()  # the first call hangs: the engine call is in progress when the kill comes
        with celery_workers(logs, pool="prefork", extra_env=env) as workers:
            # Two more closed trades: a worker materializes them, the trigger queues run_reflection.
            round_trips(owner_api, deployment, 2, start=2)
            wait_until(llm.received.is_set, message="the reflection call to reach the model", details=dump(logs))
            (busy, busy_log, task_id), (_, idle_log) = busy_and_idle(workers, logs, name)
            llm.hold.clear()  # the model answers from now on
            kill_the_pool_process(busy, busy_log)
            wait_until(
                lambda: task_id in task_ids(idle_log.read_text(), name, "succeeded"),
                message="the redelivered reflection to finish in the other worker",
                details=dump(logs),
            )
    assert "WorkerLostError" in busy_log.read_text()
    assert task_id not in task_ids(busy_log.read_text(), name, "succeeded")
    assert len(llm.requests) == 2  # the killed call and the re-run, nothing else
    notes = list(ReflectionNote.objects.filter(deployment=deployment).order_by("generated_at"))
    assert len(notes) == 2  # the prior note and exactly one new one
    old, new = notes
    assert old.pk == prior.pk
    assert (new.status, new.lessons_text, new.model_used) == (NoteStatus.ACTIVE, LESSONS, "claude-haiku-4-5-20251001")
    assert (new.trades_considered, new.cost_usd) == (4, Decimal("0.001500"))
    assert old.status == NoteStatus.SUPERSEDED
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == new.content_hash

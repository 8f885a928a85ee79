"""Reflection end to end through the real broker and a real worker: trigger, queue, run, never inline."""

import datetime as dt

import pytest

from agentcontext.prompt import lessons_bullets
from reflection.models import NoteStatus, ReflectionNote
from reflection.tasks import daily_sweep
from tests.factories import DeploymentFactory
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("empty_queue")]
T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


def round_trips(api, deployment, count: int, start: int = 0) -> None:
    """`count` BTC round trips through the tick API: open at 100, close at 101 or 99."""
    for n in range(start, start + count):
        opened = T0 + dt.timedelta(hours=n)
        for at, positions, reason in (
            (opened, [{"symbol": "BTC", "side": "long", "size": 1, "mark_price": 100}], f"setup {n % 2}"),
            (opened + dt.timedelta(minutes=30), [], "exit"),
        ):
            body = {
                "tick_at": at.isoformat(),
                "equity_usd": 10_000,
                "positions": positions,
                "marks": {"BTC": 101 if n % 3 else 99},
                "proposed_action": {"kind": "propose_order", "reason": reason},
                "engine": {"kind": "executed"},
            }
            response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
            assert response.status_code == 201, response.json()


def notes(deployment):
    return list(ReflectionNote.objects.filter(deployment=deployment).order_by("generated_at"))


def test_every_n_closed_trades_the_worker_writes_a_new_note(owner, owner_api, tmp_path):
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="per_n_trades",
        skill_version__reflection_every_n_trades=2,
    )
    with celery_worker(tmp_path / "worker.log"):
        round_trips(owner_api, deployment, 2)
        wait_until(
            lambda: len(notes(deployment)) == 1,
            message="the first note",
            details=lambda: (tmp_path / "worker.log").read_text(),
        )
        round_trips(owner_api, deployment, 1, start=2)
        round_trips(owner_api, deployment, 1, start=3)
        wait_until(
            lambda: len(notes(deployment)) == 2,
            message="the second note",
            details=lambda: (tmp_path / "worker.log").read_text(),
        )
    first, second = notes(deployment)
    assert (first.status, second.status) == (NoteStatus.SUPERSEDED, NoteStatus.ACTIVE)
    assert (first.trades_considered, second.trades_considered) == (2, 4)
    assert first.model_used == "statistical-v1"
    assert second.window_end == T0 + dt.timedelta(hours=3, minutes=30)
    deployment.refresh_from_db()
    assert deployment.active_lessons_hash == second.content_hash


def test_reflection_is_queued_never_run_on_the_request_path(owner, owner_api, tmp_path):
    """With no worker, a read that materializes inline fires the trigger but only queues the run."""
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="per_n_trades",
        skill_version__reflection_every_n_trades=1,
    )
    round_trips(owner_api, deployment, 1)
    context = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/")  # catches up inline
    assert "## Recent trades on this skill (closed)" in context.json()["text"]
    assert notes(deployment) == []
    with celery_worker(tmp_path / "worker.log"):
        wait_until(
            lambda: len(notes(deployment)) == 1,
            message="the queued reflection",
            details=lambda: (tmp_path / "worker.log").read_text(),
        )
    prompt = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/").json()["system_prompt"]
    assert prompt["segments"]["lessons"].endswith("\n".join(lessons_bullets(notes(deployment)[0].lessons_text)))


def test_the_daily_sweep_queues_due_deployments_only(owner, owner_api, tmp_path):
    daily = DeploymentFactory(skill_version__skill__owner=owner, skill_version__reflection_cadence="daily")
    per_n = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="per_n_trades",
        skill_version__reflection_every_n_trades=50,
    )
    idle = DeploymentFactory(skill_version__skill__owner=owner, skill_version__reflection_cadence="daily")
    round_trips(owner_api, daily, 2)
    round_trips(owner_api, per_n, 2)
    for deployment in (daily, per_n):
        owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/")  # materialize
    assert notes(daily) == []  # closes never drive the daily cadence: only the sweep does
    with celery_worker(tmp_path / "worker.log"):
        assert daily_sweep.apply().get() == 1
        wait_until(
            lambda: len(notes(daily)) == 1,
            message="the daily note",
            details=lambda: (tmp_path / "worker.log").read_text(),
        )
        assert daily_sweep.apply().get() == 0  # today's note exists: not due again until tomorrow
    assert notes(per_n) == [] and notes(idle) == []

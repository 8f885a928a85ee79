"""The trader vetoes or pins one lessons bullet: a veto leaves the agent's prompt from the next context read
(byte for byte, and only then), the next reflection — live and in a backtest — is told both, the rows are the
trader's (row-level security), another trader's skill is a 404."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import ProgrammingError, transaction
from django.urls import reverse

from access import scope
from agentcontext.prompt import LESSONS_HEADING
from reflection import services
from reflection.core import ReflectionCadence
from reflection.models import LessonVerdict
from tests.agentcontext.test_preview_page import TinyEngine, materialized
from tests.factories import DeploymentFactory
from tests.ledger.test_trades_page import T0
from tests.reflection.test_lessons_page import FixedEngine, minutes, round_trips

NOTE = "### Entry timing\n- BTC breakouts won 2/2 (+$15 total)\n### Sizing\n- halve size on ETH\n### Exit timing\n- cut at -2%"
VETOED = "halve size on ETH"


def make_lessoned(owner, owner_api):
    """A deployment with one closed trade and an active note of three bullets."""
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner, skill_version__reflection_cadence="off", skill_version__avoid_rules=""
    )
    round_trips(owner_api, deployment, 0, [("BTC", 1, 100, 110)])
    note = services.reflection_run(deployment_id=materialized(deployment).pk, engine=FixedEngine(NOTE), now=minutes(6))
    assert note is not None
    return materialized(deployment)


@pytest.fixture
def lessoned(owner, owner_api):
    return make_lessoned(owner, owner_api)


def lessons_segment(api, deployment) -> str:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200
    return response.json()["system_prompt"]["segments"]["lessons"]


def verdict(client, deployment, bullet: str, kind: str):
    url = reverse("skill-lesson-verdict", args=[deployment.skill_version.skill_id])
    return client.post(url, {"bullet": bullet, "verdict": kind})


class TestVeto:
    def test_the_vetoed_bullet_leaves_the_prompt_byte_for_byte_and_undo_restores_it(
        self, client, owner, owner_api, lessoned
    ):
        before = lessons_segment(owner_api, lessoned)
        assert before == (f"{LESSONS_HEADING}\n- BTC breakouts won 2/2 (+$15 total)\n- halve size on ETH\n- cut at -2%")
        client.force_login(owner)

        response = verdict(client, lessoned, VETOED, "veto")

        assert response.status_code == 302
        assert lessons_segment(owner_api, lessoned) == (
            f"{LESSONS_HEADING}\n- BTC breakouts won 2/2 (+$15 total)\n- cut at -2%"
        )
        page = client.get(response["Location"]).content.decode()
        assert "Vetoed “halve size on ETH”: it leaves the prompt from the next tick" in page
        assert "<del>halve size on ETH</del>" in page

        assert verdict(client, lessoned, VETOED, "clear").status_code == 302
        assert lessons_segment(owner_api, lessoned) == before
        assert not LessonVerdict.objects.exists()

    def test_a_pin_leaves_the_prompt_as_it_was(self, client, owner, owner_api, lessoned):
        before = lessons_segment(owner_api, lessoned)
        client.force_login(owner)
        verdict(client, lessoned, "cut at -2%", "pin")
        assert lessons_segment(owner_api, lessoned) == before
        assert LessonVerdict.objects.get().verdict == "pin"

    def test_the_next_reflection_is_told_the_vetoed_and_pinned_bullets(self, client, owner, owner_api, lessoned):
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        verdict(client, lessoned, "cut at -2%", "pin")
        round_trips(owner_api, lessoned, 10, [("ETH", 1, 100, 90)])
        engine = FixedEngine(NOTE)
        services.reflection_run(deployment_id=materialized(lessoned).pk, engine=engine, now=minutes(16))
        assert engine.inputs[0].vetoed_bullets == (VETOED,)
        assert engine.inputs[0].pinned_bullets == ("cut at -2%",)

    def test_a_backtest_is_told_the_same_verdicts(self, client, owner, lessoned):
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        sim = services.sim_reflection(skill_version=lessoned.skill_version, engine=TinyEngine(NOTE))
        assert (sim.vetoed_bullets, sim.pinned_bullets) == ((VETOED,), ())
        assert sim.cadence == ReflectionCadence("off", lessoned.skill_version.reflection_every_n_trades)

    def test_a_bullet_the_active_lessons_do_not_hold_is_a_400_naming_it(self, client, owner, lessoned):
        client.force_login(owner)
        response = verdict(client, lessoned, "never written", "veto")
        assert response.status_code == 400
        assert "bullet: is not a bullet of this skill&#x27;s active lessons" in response.content.decode()
        assert not LessonVerdict.objects.exists()

    def test_an_unknown_verdict_is_a_400_naming_it(self, client, owner, lessoned):
        client.force_login(owner)
        response = verdict(client, lessoned, VETOED, "ban")
        assert response.status_code == 400
        assert "verdict: must be one of veto, pin" in response.content.decode()

    def test_a_second_verdict_replaces_the_first(self, client, owner, lessoned):
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        verdict(client, lessoned, VETOED, "pin")
        assert list(LessonVerdict.objects.values_list("bullet", "verdict")) == [(VETOED, "pin")]


class TestOwnership:
    def test_another_traders_skill_is_a_404(self, client, other, lessoned):
        client.force_login(other)
        assert verdict(client, lessoned, VETOED, "veto").status_code == 404
        assert not LessonVerdict.objects.exists()

    def test_the_rows_are_the_traders_under_row_level_security(self, client, owner, other, lessoned):
        client.force_login(owner)
        verdict(client, lessoned, VETOED, "veto")
        assert LessonVerdict.objects.get().owner_id == owner.pk
        skill = lessoned.skill_version.skill  # read before the other trader's scope hides it
        with scope.owner_scope(other):
            assert LessonVerdict.objects.count() == 0  # no .owned_by(): the policy alone hides it
            with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
                LessonVerdict.objects.create(owner=owner, skill=skill, bullet="x", verdict="veto")
        with scope.owner_scope(owner):
            assert LessonVerdict.objects.count() == 1

    def test_the_page_shows_the_bullets_only_for_active_notes(self, client, owner, lessoned):
        client.force_login(owner)
        page = client.get(reverse("skill-lessons", args=[lessoned.skill_version.skill_id])).content.decode()
        assert page.count('aria-label="Veto: ') == 3
        assert 'aria-label="Veto: halve size on ETH"' in page


class RecordingEngine:
    """The statistical engine, recording what each run was told."""

    def __init__(self):
        from reflection.statistical import StatisticalReflectionEngine

        self.engine = StatisticalReflectionEngine()
        self.inputs: list = []

    def reflect(self, inp):
        self.inputs.append(inp)
        return self.engine.reflect(inp)


def test_a_backtest_run_through_the_sim_ledger_is_told_what_the_live_run_is(client, owner, owner_api, lessoned):
    """Sim/live parity: ledger.sim.SimLedger with the skill version's sim_reflection hands every reflection run the
    same vetoed and pinned bullets the live reflection_run reads."""
    from ledger.management.commands.simulate import tick_bodies
    from ledger.sim import SimLedger

    client.force_login(owner)
    verdict(client, lessoned, VETOED, "veto")
    verdict(client, lessoned, "cut at -2%", "pin")
    round_trips(owner_api, lessoned, 10, [("ETH", 1, 100, 90)])
    live = FixedEngine(NOTE)
    services.reflection_run(deployment_id=materialized(lessoned).pk, engine=live, now=minutes(16))

    version = lessoned.skill_version
    version.reflection_cadence, version.reflection_every_n_trades = "per_n_trades", 3
    sim_engine = RecordingEngine()
    sim = SimLedger(reflection=services.sim_reflection(skill_version=version, engine=sim_engine))
    for index, (at, body) in enumerate(tick_bodies(ticks=120, seed=7, end_at=T0 + dt.timedelta(hours=10))):
        sim.record_tick(snapshot_id=str(index), tick_at=at, payload=body)

    assert sim_engine.inputs, "the backtest never reflected"
    told = {(inp.vetoed_bullets, inp.pinned_bullets) for inp in sim_engine.inputs}
    assert told == {(live.inputs[0].vetoed_bullets, live.inputs[0].pinned_bullets)} == {((VETOED,), ("cut at -2%",))}

"""Reflection in backtests: a SimLedger with a SimReflection, fed `manage.py simulate`'s tick stream.

The statistical engine runs for real; the Anthropic engine only through the local stub Messages API.
The live side of the parity test is `manage.py simulate --reflect` through the real API and services.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command
from django.test import override_settings

from ledger.domain import hash_lessons_text
from ledger.management.commands.simulate import tick_bodies
from ledger.materializer import OpenTradeOp, flatten_ops
from ledger.models import TradeHistory
from ledger.sim import SimLedger
from reflection import services
from reflection.backtest import SimNote, SimReflection
from reflection.core import ReflectionCadence, ReflectionFailed, ReflectionInput, ReflectionResult
from reflection.engines import AnthropicReflectionEngine
from reflection.models import ReflectionNote
from reflection.statistical import MODEL_USED, StatisticalReflectionEngine
from tests.anthropic_stub import AnthropicStub, text_message
from tests.factories import DeploymentFactory

END = dt.datetime(2026, 6, 4, 12, 0, tzinfo=dt.UTC)
STRATEGY = "Buy dips below the 20-bar mean; exit back above it."
AVOID = ("Never hold more than two positions at once.",)


def backtest(
    cadence: str = "per_n_trades", every: int = 5, *, ticks: int = 288, seed: int = 7, engine=None, end=END
) -> tuple[SimReflection, list[OpenTradeOp]]:
    """(the reflection, every trade opened: its open op, which carries its entry_lessons_hash)."""
    reflection = SimReflection(
        cadence=ReflectionCadence(cadence, every),
        engine=engine or StatisticalReflectionEngine(),
        strategy_text=STRATEGY,
        avoid_rules=AVOID,
    )
    sim = SimLedger(reflection=reflection)
    opened = []
    for index, (at, body) in enumerate(tick_bodies(ticks=ticks, seed=seed, end_at=end)):
        ops = sim.record_tick(snapshot_id=str(index), tick_at=at, payload=body)
        opened += [op for op in flatten_ops(ops) if isinstance(op, OpenTradeOp)]
    return reflection, opened


def expected_hash(notes: list[SimNote], entry_at: dt.datetime) -> str | None:
    """The hash a trade opened at `entry_at` carries: the latest note generated before that tick."""
    earlier = [note for note in notes if note.generated_at < entry_at]
    return earlier[-1].content_hash if earlier else None


def test_a_backtest_reflects_every_n_closed_trades_and_stamps_the_trades_after_each_revision():
    reflection, opened = backtest(every=5)
    notes = reflection.notes
    assert len(notes) >= 3
    assert [note.trades_considered for note in notes] == [min(5 * (i + 1), 50) for i in range(len(notes))]
    assert all(note.model_used == MODEL_USED and note.generated_at == note.window_end for note in notes)
    assert all(note.content_hash == hash_lessons_text(note.lessons_text) for note in notes)
    assert reflection.active_lessons == notes[-1].lessons_text and reflection.lessons_hash == notes[-1].content_hash
    assert [op.entry_lessons_hash for op in opened] == [expected_hash(notes, op.entry_tick_at) for op in opened]
    assert opened[0].entry_lessons_hash is None and opened[-1].entry_lessons_hash == notes[-1].content_hash
    # Incremental: each run reads the lessons before it.
    assert "### Entry timing" in notes[-1].lessons_text


def test_a_backtest_with_the_statistical_engine_is_reproducible():
    first, first_opened = backtest(every=3)
    second, second_opened = backtest(every=3)
    assert first.notes == second.notes and first.notes
    assert first_opened == second_opened
    other_seed, _ = backtest(every=3, seed=8)
    assert [n.content_hash for n in other_seed.notes] != [n.content_hash for n in first.notes]


def test_reflection_off_writes_nothing_and_trades_carry_no_lessons():
    reflection, opened = backtest(cadence="off")
    assert reflection.notes == [] and opened
    assert {op.entry_lessons_hash for op in opened} == {None}


def test_daily_cadence_reflects_once_per_utc_day_of_ticks_with_closes():
    reflection, _ = backtest(cadence="daily", ticks=3 * 288)
    days = [note.generated_at.date() for note in reflection.notes]
    assert len(days) == len(set(days)) >= 3
    first_close = min(note.window_end for note in reflection.notes)
    assert reflection.notes[0].generated_at == first_close  # the first tick that closed a trade


class Scripted:
    """An engine with a script of outcomes: text, or ReflectionFailed."""

    def __init__(self, *outcomes):
        self.outcomes = list(outcomes)
        self.inputs: list[ReflectionInput] = []

    def reflect(self, inp: ReflectionInput) -> ReflectionResult:
        self.inputs.append(inp)
        outcome = self.outcomes.pop(0) if len(self.outcomes) > 1 else self.outcomes[0]
        if isinstance(outcome, Exception):
            raise outcome
        return ReflectionResult(text=outcome, model_used="scripted")


def test_a_failed_or_rejected_run_keeps_the_prior_lessons_and_the_next_trigger_tries_again():
    engine = Scripted(
        "### Sizing\n- keep tickets at $250",
        ReflectionFailed("overloaded"),
        f"### Sizing\n- {AVOID[0]}",  # repeats an avoid rule verbatim: rejected
        "### Sizing\n- tickets fine at $250",
    )
    reflection, opened = backtest(every=2, engine=engine)
    assert len(engine.inputs) >= 4
    texts = [note.lessons_text for note in reflection.notes]
    assert texts[:2] == ["### Sizing\n- keep tickets at $250", "### Sizing\n- tickets fine at $250"]
    # The run after the failures distilled the window up to its own tick, the prior lessons as input.
    assert engine.inputs[3].active_lessons == texts[0]
    assert reflection.notes[1].trades_considered == 8
    assert [op.entry_lessons_hash for op in opened] == [
        expected_hash(reflection.notes, op.entry_tick_at) for op in opened
    ]


def test_the_anthropic_engine_runs_in_a_backtest_through_the_messages_api(monkeypatch):
    lessons = "### Exit timing\n- winners kept 60% of their peak: trail the stop"
    with AnthropicStub() as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)  # read by the SDK itself
        server.respond(text_message(lessons, model="claude-haiku-4-5-20251001", input_tokens=900, output_tokens=40))
        engine = AnthropicReflectionEngine(api_key="sk-test", model="claude-haiku-4-5", max_retries=0)
        reflection, _ = backtest(every=5, engine=engine)
    assert reflection.notes and len(server.requests) == len(reflection.notes)
    note = reflection.notes[0]
    assert (note.lessons_text, note.model_used, note.input_tokens, note.output_tokens) == (
        lessons,
        "claude-haiku-4-5-20251001",
        900,
        40,
    )
    first = server.requests[0]["body"]
    assert first["messages"][0]["content"].startswith("## Closed trades (5, oldest first)")
    assert AVOID[0] in first["system"][1]["text"]
    assert "## Current lessons\n(none yet)" in first["messages"][0]["content"]
    assert f"## Current lessons\n{lessons}" in server.requests[1]["body"]["messages"][0]["content"]


def test_sim_reflection_takes_the_skill_versions_settings(owner):
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="daily",
        skill_version__reflection_every_n_trades=7,
        skill_version__strategy_text=STRATEGY,
        skill_version__avoid_rules="never trade DOGE\nno leverage above 3x",
        skill_version__reflection_model_override="claude-sonnet-5",
    )
    reflection = services.sim_reflection(skill_version=deployment.skill_version)
    assert reflection.cadence == ReflectionCadence("daily", 7)
    assert isinstance(reflection.engine, StatisticalReflectionEngine)  # no ANTHROPIC_API_KEY in tests
    assert (reflection.strategy_text, reflection.avoid_rules, reflection.model_override) == (
        STRATEGY,
        ("never trade DOGE", "no leverage above 3x"),
        "claude-sonnet-5",
    )
    with override_settings(ANTHROPIC_API_KEY="sk-test"):
        assert isinstance(
            services.sim_reflection(skill_version=deployment.skill_version).engine, AnthropicReflectionEngine
        )


# -- the same run live: manage.py simulate --reflect ------------------------------------------------------


@pytest.mark.parametrize("every", [3, 5])
def test_simulate_with_reflection_keeping_up_gives_the_backtests_notes_and_stamps(owner, every):
    deployment = DeploymentFactory(
        skill_version__skill__owner=owner,
        skill_version__reflection_cadence="per_n_trades",
        skill_version__reflection_every_n_trades=every,
        skill_version__strategy_text=STRATEGY,
        skill_version__avoid_rules="\n".join(AVOID),
    )
    call_command("simulate", deployment.pk, ticks=288, seed=7, end=END.isoformat(), reflect=True)
    reflection, opened = backtest(every=every)
    live = list(
        ReflectionNote.objects.filter(deployment=deployment)
        .order_by("generated_at")
        .values_list("generated_at", "window_start", "window_end", "trades_considered", "lessons_text", "content_hash")
    )
    sim = [
        (n.generated_at, n.window_start, n.window_end, n.trades_considered, n.lessons_text, n.content_hash)
        for n in reflection.notes
    ]
    assert live == sim and len(sim) >= 3
    stamps = dict(
        ((symbol, at), stamp)
        for symbol, at, stamp in TradeHistory.objects.filter(deployment=deployment).values_list(
            "symbol", "entry_tick_at", "entry_lessons_hash"
        )
    )
    assert stamps == {(op.symbol, op.entry_tick_at): op.entry_lessons_hash for op in opened}
    revisions = {stamp for stamp in stamps.values() if stamp is not None}
    assert len(revisions) >= 2 and revisions <= {note[-1] for note in sim}

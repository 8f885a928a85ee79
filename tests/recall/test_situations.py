"""Situation recall (phase 3): the pure summary/outcome/section functions, and the section on the
real database with the structured filter (symbol, side, skill, owner) and the as-of cut."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest
from django.core.management import call_command
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.materializer import OpenTradeOp, opened_trade
from ledger.models import TradeHistory
from ledger.services import materialize_pending, trade_history_rebuild
from ledger.sim import SimLedger
from memorysite.text import estimate_tokens
from recall import selectors, services
from recall.embeddings import get_embedder
from recall.models import TradeSituation
from recall.situations import (
    HEADER,
    TOKEN_BUDGET,
    BarStats,
    PastSituation,
    SimilarSituation,
    SituationMemory,
    bar_stats,
    cosine_similarity,
    float32_values,
    outcome_text,
    rank_similar,
    render_similar_situations,
    situation_summary,
    summary_at_open,
)
from tests.factories import DeploymentFactory
from tests.workers import celery_worker, wait_until

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


# -- pure ---------------------------------------------------------------------------------------------


def test_summary_and_outcome_text():
    stats = bar_stats([100, 101, 102], [101, 102, 103], [99, 100, 101])
    assert stats == BarStats(
        bars=3,
        change_pct=pytest.approx(2.0),
        range_pct=pytest.approx(3.9215686),
        volatility_pct=pytest.approx(0.0049, abs=0.01),
    )
    summary = situation_summary(
        symbol="BTC", side="long", regime_tag="trend_up_lowvol", entry_reason="breakout\nretest", stats=stats
    )
    assert summary.startswith("long BTC; regime trend_up_lowvol; last 3 bars: change +2.00%, range 3.92%")
    assert summary.endswith("entry reason: breakout retest")
    assert situation_summary(symbol="ETH", side="short", regime_tag=None, entry_reason="", stats=None) == (
        "short ETH; regime unknown"
    )
    assert outcome_text(realized_pnl_usd=Decimal("-12.5"), holding_minutes=Decimal("30.4"), exit_reason="stop") == (
        "lost −$12.50 after 30m; exit: stop"
    )
    assert (
        outcome_text(realized_pnl_usd=Decimal("3"), holding_minutes=Decimal(5), exit_reason="") == "won +$3.00 after 5m"
    )
    assert bar_stats([100], [], []) is None
    assert bar_stats([100, 0], [], []) is None


def test_the_section_is_suppressed_when_empty():
    assert render_similar_situations([]) is None
    assert render_similar_situations([("long BTC", [])]) is None


def test_the_section_golden_text():
    found = [
        SimilarSituation(T0, "long BTC; regime chop_lowvol", "won +$3.00 after 5m", 0.91234),
        SimilarSituation(T0 + dt.timedelta(hours=1), "long BTC; regime chop_hivol", "lost −$2.00 after 9m", 0.8),
    ]
    assert render_similar_situations([("long BTC; regime chop_lowvol", found)]) == (
        f"{HEADER}\n"
        "Now: long BTC; regime chop_lowvol\n"
        "- 2026-06-04 10:00 (similarity 0.91) long BTC; regime chop_lowvol → won +$3.00 after 5m\n"
        "- 2026-06-04 11:00 (similarity 0.80) long BTC; regime chop_hivol → lost −$2.00 after 9m"
    )


situation = st.builds(
    SimilarSituation,
    entry_tick_at=st.datetimes(
        timezones=st.just(dt.UTC), min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2030, 1, 1)
    ),
    summary=st.text(max_size=400),
    outcome=st.text(max_size=400),
    similarity=st.floats(-1, 1),
)


@given(st.lists(st.tuples(st.text(max_size=300), st.lists(situation, max_size=5)), max_size=6))
@settings(max_examples=150, deadline=None)
def test_the_section_stays_within_its_token_budget_and_one_line_per_item(groups):
    text = render_similar_situations(groups)
    if text is None:
        return
    assert estimate_tokens(text) <= TOKEN_BUDGET
    lines = text.split("\n")
    assert lines[0] == HEADER
    assert all(line.startswith(("Now: ", "- ")) for line in lines[1:])
    assert lines[-1].startswith("- ")  # never a "Now:" line without its situations


# -- on the database ----------------------------------------------------------------------------------


def _trade(deployment, *, symbol="BTC", side="long", hours=0, closed=True, pnl="5", reason="breakout"):
    entry = T0 + dt.timedelta(hours=hours)
    fields = {}
    if closed:
        fields = {
            "status": "closed",
            "exit_tick_at": entry + dt.timedelta(minutes=30),
            "exit_price": Decimal(101),
            "exit_reason": "target",
            "realized_pnl_usd": Decimal(pnl),
            "holding_minutes": Decimal(30),
        }
    return TradeHistory.objects.create(
        owner=deployment.owner,
        deployment=deployment,
        skill=deployment.skill_version.skill,
        skill_version=deployment.skill_version.version,
        symbol=symbol,
        side=side,
        entry_tick_at=entry,
        entry_price=Decimal(100),
        entry_size_usd=Decimal(100),
        entry_reason=reason,
        size_base=Decimal(1),
        avg_entry_price=Decimal(100),
        last_mark_price=Decimal(100),
        entry_regime_tag="chop_lowvol",
        **fields,
    )


@pytest.mark.django_db
def test_similar_situations_filter_on_symbol_side_skill_and_owner(owner, other):
    deployment = DeploymentFactory(owner=owner)
    sibling = DeploymentFactory(owner=owner, skill_version=deployment.skill_version)  # same skill: shared past
    foreign = DeploymentFactory(owner=other)
    _trade(deployment, hours=0, pnl="5", reason="breakout above range")
    _trade(sibling, hours=1, pnl="-3", reason="breakout above range again")
    _trade(deployment, hours=2, side="short", reason="breakout above range")
    _trade(deployment, hours=3, symbol="ETH", reason="breakout above range")
    _trade(foreign, hours=4, reason="breakout above range")
    current = _trade(deployment, hours=1.25, closed=False, reason="breakout above range")
    embedder = get_embedder()
    for each in (deployment, sibling, foreign):
        services.situations_sync(deployment_id=each.pk, embedder=embedder)
    assert TradeSituation.objects.count() == 6
    assert TradeSituation.objects.filter(closed_at__isnull=False).count() == 5
    text = selectors.similar_situations_section(
        deployment=deployment, embedder=embedder, as_of=T0 + dt.timedelta(hours=6)
    )
    lines = text.split("\n")
    assert lines[0] == HEADER and lines[1].startswith("Now: long BTC")
    assert len(lines) == 4  # the two long BTC trades of this skill, nothing else
    assert {line.split(" → ")[1] for line in lines[2:]} == {
        "won +$5.00 after 30m; exit: target",
        "lost −$3.00 after 30m; exit: target",
    }
    # as of before the sibling's trade closed (at 1:30), only the first one is known
    early = selectors.similar_situations_section(
        deployment=deployment, embedder=embedder, as_of=T0 + dt.timedelta(hours=1.4)
    )
    assert len(early.split("\n")) == 3
    # as of before the current trade opened, it is not open: nothing to recall
    assert (
        selectors.similar_situations_section(
            deployment=deployment, embedder=embedder, as_of=T0 + dt.timedelta(hours=1.2)
        )
        is None
    )
    # syncing again changes nothing; closing the current trade attaches its outcome
    assert services.situations_sync(deployment_id=deployment.pk, embedder=embedder) == (0, 0)
    TradeHistory.objects.filter(pk=current.pk).update(
        status="closed",
        exit_tick_at=T0 + dt.timedelta(hours=6),
        exit_price=Decimal(99),
        exit_reason="stop",
        realized_pnl_usd=Decimal(-1),
        holding_minutes=Decimal(60),
    )
    assert services.situations_sync(deployment_id=deployment.pk, embedder=embedder) == (0, 1)
    assert TradeSituation.objects.get(trade=current).outcome == "lost −$1.00 after 60m; exit: stop"
    assert (
        selectors.similar_situations_section(deployment=deployment, embedder=embedder, as_of=T0 + dt.timedelta(hours=7))
        is None
    )


# -- exact ranking, the sim's memory ------------------------------------------------------------------

vectors = st.lists(st.floats(-1, 1, width=32), min_size=4, max_size=4)


@given(vectors, vectors, st.permutations(range(4)))
@settings(max_examples=200, deadline=None)
def test_cosine_similarity_is_exact_whatever_the_order_of_the_components(a, b, order):
    expected = cosine_similarity(a, b)
    assert cosine_similarity([a[i] for i in order], [b[i] for i in order]) == expected
    assert -1.0000001 <= expected <= 1.0000001


def _tick(minutes: int, positions: list[dict], reason: str, closes: list[float]) -> tuple[dt.datetime, dict]:
    bars = [{"t": str(i), "o": c, "h": c + 1, "l": c - 1, "c": c, "v": 1} for i, c in enumerate(closes)]
    payload = {
        "equity_usd": 10_000,
        "positions": positions,
        "proposed_action": {"kind": "propose_order", "symbol": "BTC", "reason": reason},
        "engine": {"kind": "executed"},
        "bars": {"BTC": bars},
    }
    return T0 + dt.timedelta(minutes=minutes), payload


def _round_trips(n: int) -> list[tuple[dt.datetime, dict]]:
    """n BTC longs opened and closed, each on its own bars and reason, then one more left open."""
    stream = []
    for i in range(n + 1):
        closes = [100 + ((i * 7 + j * 3) % 11) * (1 + i % 3) for j in range(14)]
        long = [{"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65_000 + 10 * i}]
        stream.append(_tick(20 * i, long, f"breakout number {i} above the {i % 4}-day high", closes))
        if i < n:
            stream.append(_tick(20 * i + 10, [], "", closes))
    return stream


@pytest.mark.django_db
def test_the_sims_memory_ranks_as_a_fresh_ranking_of_everything_at_every_tick():
    embedder = get_embedder()
    memory = SituationMemory(embedder)
    sim = SimLedger(situations=memory)
    summaries = {}
    for n, (tick_at, payload) in enumerate(_round_trips(12)):
        for op in sim.record_tick(snapshot_id=str(n), tick_at=tick_at, payload=payload):
            if isinstance(op, OpenTradeOp):
                summaries[tick_at] = summary_at_open(opened_trade(op), sim.last_tick.bars["BTC"])
        for k in (1, 3):  # the cache is per k: asking for another k ranks afresh
            section = memory.section(k=k)
            if not sim.open_trades:
                assert section is None
                continue
            current = sim.open_trades[0]
            vectors_of = dict(zip(summaries, embedder.embed(list(summaries.values())), strict=True))
            past = [
                PastSituation(
                    t.entry_tick_at,
                    summaries[t.entry_tick_at],
                    outcome_text(
                        realized_pnl_usd=t.realized_pnl_usd,
                        holding_minutes=t.holding_minutes,
                        exit_reason=t.exit_reason,
                    ),
                    float32_values(vectors_of[t.entry_tick_at]),
                )
                for t in sim.closed_trades
            ]
            fresh = rank_similar(float32_values(vectors_of[current.entry_tick_at]), past, k)
            expected = render_similar_situations([(summaries[current.entry_tick_at], fresh)])
            assert section == expected, (n, k)
    assert memory.section(k=3).count("\n- ") == 3


class _BrokenEmbedder:
    def embed(self, texts):
        raise RuntimeError("the model is gone")


@pytest.mark.django_db
def test_an_embedder_error_changes_nothing_in_the_sim():
    memory = SituationMemory(get_embedder())
    sim = SimLedger(situations=memory)
    stream = _round_trips(3)
    for n, (tick_at, payload) in enumerate(stream[:-1]):
        sim.record_tick(snapshot_id=str(n), tick_at=tick_at, payload=payload)
    before = (memory.section(), sim.context_inputs(recent_k=5))
    memory.embedder = _BrokenEmbedder()
    with pytest.raises(RuntimeError, match="the model is gone"):
        sim.record_tick(snapshot_id="last", tick_at=stream[-1][0], payload=stream[-1][1])  # it opens a trade
    assert (memory.section(), sim.context_inputs(recent_k=5)) == before


# -- written with the trades -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_materialization_writes_each_trades_situation_and_outcome_in_its_batch(owner_api, owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    embedder = get_embedder()
    url = f"/api/v1/deployments/{deployment.pk}/ticks/"
    situations = TradeSituation.objects.filter(deployment=deployment)
    for tick_at, payload in _round_trips(4):
        assert owner_api.post(url, {"tick_at": tick_at.isoformat(), **payload}, format="json").status_code == 201
        materialize_pending(deployment_id=deployment.pk)
        trades = TradeHistory.objects.filter(deployment=deployment)
        # a situation per trade, its outcome exactly when the trade is closed: no later pass needed
        assert sorted(situations.values_list("trade_id", flat=True)) == sorted(trades.values_list("pk", flat=True))
        assert set(situations.filter(closed_at__isnull=False).values_list("trade_id", flat=True)) == set(
            trades.filter(status="closed").values_list("pk", flat=True)
        )
    # the embeddings come later (the task queued on commit); the read embeds what is missing, so the section is
    # the same before and after
    as_of = deployment.__class__.objects.get(pk=deployment.pk).latest_tick_at
    assert situations.filter(embedding__isnull=True).count() == 5
    before = selectors.similar_situations_section(deployment=deployment, as_of=as_of, embedder=embedder)
    assert before.count("\n- ") == 3
    assert services.situations_embed(deployment_id=deployment.pk, embedder=embedder) == 5
    assert not situations.filter(embedding__isnull=True).exists()
    assert selectors.similar_situations_section(deployment=deployment, as_of=as_of, embedder=embedder) == before
    assert services.situations_embed(deployment_id=deployment.pk, embedder=embedder) == 0
    # the backfill finds nothing to do
    assert services.situations_sync(deployment_id=deployment.pk, embedder=embedder) == (0, 0)
    # rebuilding the ledger from its ticks writes the same rows again
    rows = sorted(situations.values_list("entry_tick_at", "summary", "outcome", "closed_at"))
    trade_history_rebuild(deployment_id=deployment.pk)
    assert sorted(situations.values_list("entry_tick_at", "summary", "outcome", "closed_at")) == rows
    assert selectors.similar_situations_section(deployment=deployment, as_of=as_of, embedder=embedder) == before


@pytest.mark.django_db
def test_the_backfill_command_writes_the_rows_of_trades_materialized_without_them(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    _trade(deployment, hours=0)
    _trade(deployment, hours=1, closed=False)
    out = io.StringIO()
    call_command("recall_situations", stdout=out)
    assert out.getvalue().strip() == "2 situations created, 1 outcomes attached"
    out = io.StringIO()
    call_command("recall_situations", "--deployment", str(deployment.pk), stdout=out)
    assert out.getvalue().strip() == "0 situations created, 0 outcomes attached"


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("empty_queue")
def test_ticks_a_worker_materializes_give_the_sims_section_before_and_after_it_embeds(owner_api, owner, tmp_path):
    """The runner's path: ticks posted, a real worker materializes them and then embeds their situations; the
    context shows what the sim's memory shows, whether the worker has embedded them yet or not."""
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    url = f"/api/v1/deployments/{deployment.pk}/ticks/"
    memory = SituationMemory(get_embedder())
    sim = SimLedger(situations=memory)
    situations = TradeSituation.objects.filter(deployment=deployment)
    seen = set()
    with celery_worker(tmp_path / "worker.log"):
        for n, (tick_at, payload) in enumerate(_round_trips(5)):
            response = owner_api.post(url, {"tick_at": tick_at.isoformat(), **payload}, format="json")
            assert response.status_code == 201
            sim.record_tick(snapshot_id=str(n), tick_at=tick_at, payload=payload)
            body = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/").json()
            assert body["sections"]["similar_situations"] == memory.section(), n
            seen.add(situations.filter(embedding__isnull=True).exists())

        def embedded() -> bool:
            return situations.exists() and not situations.filter(embedding__isnull=True).exists()

        wait_until(embedded, message="the worker's embedding", details=lambda: worker_log(tmp_path))
    log = worker_log(tmp_path)
    assert "Task ledger.materialize_deployment[" in log and "Task recall.embed_situations[" in log
    body = owner_api.get(f"/api/v1/deployments/{deployment.pk}/context/").json()
    assert body["sections"]["similar_situations"] == memory.section()
    assert body["sections"]["similar_situations"].count("\n- ") == 3
    assert True in seen  # some reads came before the worker's embedding


def worker_log(tmp_path) -> str:
    return (tmp_path / "worker.log").read_text(errors="replace")

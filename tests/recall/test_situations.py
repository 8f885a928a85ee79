"""Situation recall (phase 3): the pure summary/outcome/section functions, and the section on the
real database with the structured filter (symbol, side, skill, owner) and the as-of cut."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.models import TradeHistory
from memorysite.text import estimate_tokens
from recall import selectors, services
from recall.embeddings import get_embedder
from recall.models import TradeSituation
from recall.situations import (
    HEADER,
    TOKEN_BUDGET,
    BarStats,
    SimilarSituation,
    bar_stats,
    outcome_text,
    render_similar_situations,
    situation_summary,
)
from tests.factories import DeploymentFactory

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
    text = selectors.similar_situations_section(deployment=deployment, as_of=T0 + dt.timedelta(hours=6))
    lines = text.split("\n")
    assert lines[0] == HEADER and lines[1].startswith("Now: long BTC")
    assert len(lines) == 4  # the two long BTC trades of this skill, nothing else
    assert {line.split(" → ")[1] for line in lines[2:]} == {
        "won +$5.00 after 30m; exit: target",
        "lost −$3.00 after 30m; exit: target",
    }
    # as of before the sibling's trade closed (at 1:30), only the first one is known
    early = selectors.similar_situations_section(deployment=deployment, as_of=T0 + dt.timedelta(hours=1.4))
    assert len(early.split("\n")) == 3
    # as of before the current trade opened, it is not open: nothing to recall
    assert selectors.similar_situations_section(deployment=deployment, as_of=T0 + dt.timedelta(hours=1.2)) is None
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
    assert selectors.similar_situations_section(deployment=deployment, as_of=T0 + dt.timedelta(hours=7)) is None

# ruff: noqa: F811 (the journal fixtures are imported from test_trades_page)
"""A trade's detail page: "why did you do this?" — the opening tick's proposal, what the runner reported,
the recall searches with their citations, and the ledger ops of the ticks that opened and closed it."""

from __future__ import annotations

import html
import re
from urllib.parse import quote

import pytest
from django.urls import reverse

from ledger.models import DecisionSnapshot, TradeHistory
from recall import services as recall_services
from tests.factories import DeploymentFactory
from tests.ledger.test_trades_page import (  # noqa: F401 (fixtures)
    HTMX,
    SCRIPT_REASON,
    deployment,
    journal,
    journal_url,
)


def detail_url(trade) -> str:
    return reverse("deployment-trade", args=[trade.deployment_id, trade.pk])


def trade_of(journal, symbol: str, status: str = "closed") -> TradeHistory:
    return TradeHistory.objects.filter(deployment=journal, symbol=symbol, status=status).order_by("entry_tick_at")[0]


@pytest.fixture
def caught_up(client, owner, journal):
    client.force_login(owner)
    assert client.get(journal_url(journal)).status_code == 200  # materializes the ledger
    return journal


class TestAccess:
    def test_it_404s_for_the_other_trader(self, client, other, caught_up):
        trade = trade_of(caught_up, "BTC")
        client.force_login(other)
        assert client.get(detail_url(trade)).status_code == 404

    def test_it_404s_for_a_trade_of_another_of_your_deployments(self, client, owner, caught_up):
        mine_too = DeploymentFactory(skill_version__skill__owner=owner)
        trade = trade_of(caught_up, "BTC")
        assert client.get(reverse("deployment-trade", args=[mine_too.pk, trade.pk])).status_code == 404

    def test_it_sends_an_anonymous_visitor_to_log_in(self, client, caught_up):
        trade = trade_of(caught_up, "BTC")
        client.logout()
        assert client.get(detail_url(trade)).status_code == 302


class TestWhy:
    def test_it_shows_the_proposal_the_context_and_the_citations(self, client, caught_up):
        trade = trade_of(caught_up, "BTC")
        recall_services.citations_attach(
            snapshot=trade.entry_snapshot,
            query="breakout <b>rules</b>",
            citations=[
                {
                    "path": "TRADING_MANUAL.md",
                    "startLine": 3,
                    "endLine": 9,
                    "score": 0.87,
                    "snippet": "enter on a close above the range",
                    "source": "hybrid",
                }
            ],
        )
        response = client.get(detail_url(trade))
        assert response.status_code == 200
        content = response.content.decode()
        assert "<script>alert" not in content
        assert html.escape(SCRIPT_REASON) in content
        assert "<code>propose_order</code>" in content
        assert 'class="tag engine-executed">executed<' in content
        assert "trend_up_lowvol" in content
        assert re.search(r'id="entry-bars">12 bars: close 100 → 101.1 \(\+1.10%\)<', content)
        assert "<dt>Equity</dt><dd>$10,000.00</dd>" in content
        assert "“breakout &lt;b&gt;rules&lt;/b&gt;”" in content
        assert "<code>TRADING_MANUAL.md:3–9</code>" in content
        assert "enter on a close above the range" in content
        assert re.search(r'id="trade-pnl" class="pos">\$10.00<', content)

    def test_it_shows_the_ops_of_the_opening_and_closing_ticks(self, client, caught_up):
        trade = trade_of(caught_up, "BTC")
        content = client.get(detail_url(trade)).content.decode()
        entry_ops = re.search(r'id="entry-ops">(.*?)</div>\s*<div class="card" id="exit-ops">', content, re.S).group(1)
        exit_ops = re.search(r'id="exit-ops">(.*?)</section>', content, re.S).group(1)
        assert '<code class="op op-open_trade">open_trade</code>' in entry_ops
        assert "<dt>entry_price</dt><dd>100" in entry_ops
        assert '<code class="op op-close_trade">close_trade</code>' in exit_ops
        assert "<dt>realized_pnl_usd</dt><dd>10" in exit_ops
        assert "<code>close_position</code> BTC — take profit" in exit_ops
        assert 'id="exit-reason">take profit<' in exit_ops

    def test_an_open_trade_says_so_and_a_liquidation_is_marked(self, client, caught_up):
        content = client.get(detail_url(trade_of(caught_up, "SOL", status="open"))).content.decode()
        assert "Still open." in content
        assert "PnL at the last mark" in content
        mark = trade_of(caught_up, "SOL", status="open").last_mark_price
        assert f'<dd class="sub">last mark {mark.normalize():f}</dd>' in content  # as entered, no 8-place padding
        liquidated = client.get(detail_url(trade_of(caught_up, "ETH"))).content.decode()
        assert 'class="tag exit-alert exit-liquidated">liquidated<' in liquidated
        assert "unclassified (no bars for ETH)" in liquidated

    def test_without_searches_it_says_none_were_attached(self, client, caught_up):
        content = client.get(detail_url(trade_of(caught_up, "BTC"))).content.decode()
        assert "The runner attached no recall searches to this tick." in content

    def test_a_deleted_snapshot_is_said_plainly(self, client, caught_up):
        trade = trade_of(caught_up, "BTC")
        DecisionSnapshot.objects.filter(pk=trade.entry_snapshot_id).delete()
        content = client.get(detail_url(trade)).content.decode()
        assert "The snapshot of the tick that opened this trade is no longer stored." in content


class TestLinks:
    def test_each_journal_row_links_its_detail_with_the_way_back(self, client, caught_up):
        content = client.get(journal_url(caught_up, symbol="BTC", sort="pnl"), headers=HTMX).content.decode()
        trade = trade_of(caught_up, "BTC")
        back = quote(journal_url(caught_up, symbol="BTC", sort="pnl"), safe="/")
        assert f'href="{detail_url(trade)}?back={back}"' in content
        detail = client.get(f"{detail_url(trade)}?back={back}").content.decode()
        expected = journal_url(caught_up, symbol="BTC", sort="pnl").replace("&", "&amp;")
        assert f'<a href="{expected}" id="back-to-journal">' in detail

    @pytest.mark.parametrize("back", ["https://evil.example/", "//evil.example/x", "/deployments/999/trades/"])
    def test_a_way_back_elsewhere_is_ignored(self, client, caught_up, back):
        trade = trade_of(caught_up, "BTC")
        detail = client.get(detail_url(trade), {"back": back}).content.decode()
        assert f'<a href="{journal_url(caught_up)}" id="back-to-journal">' in detail

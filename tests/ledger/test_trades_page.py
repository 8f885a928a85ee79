"""The trade journal page (/deployments/<id>/trades/), fed by ticks posted through the real API."""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from ledger import selectors
from ledger.models import Deployment
from ledger.services import materialize_if_behind
from tests.factories import DeploymentFactory

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
SCRIPT_REASON = "breakout <script>alert('pwned')</script>"
HTMX = {"HX-Request": "true"}


def at(minutes: int) -> str:
    return (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def ms(minutes: int) -> int:
    return int((T0 + dt.timedelta(minutes=minutes)).timestamp() * 1000)


def position(symbol: str, size: float, mark: float, side: str = "long") -> dict:
    return {"symbol": symbol, "side": side, "size": size, "mark_price": mark}


def bars(closes: list[float]) -> list[dict]:
    return [{"t": f"b{i}", "o": c, "h": c, "l": c, "c": c, "v": 1} for i, c in enumerate(closes)]


TREND_UP = bars([100 + i * 0.1 for i in range(12)])  # +1.1%, smooth: trend_up_lowvol
CHOP = bars([100.0] * 12)  # flat: chop_lowvol


def executed(kind: str, reason: str = "", symbol: str | None = None) -> dict:
    action = {"kind": kind, "reason": reason} if reason else {"kind": kind}
    if symbol:
        action["symbol"] = symbol
    return {"proposed_action": action, "engine": {"kind": "executed"}}


def post_tick(api, deployment, minutes: int, positions=(), **extra) -> None:
    body = {"tick_at": at(minutes), "equity_usd": 10_000, "positions": list(positions), **extra}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def post_fill(api, deployment, symbol: str, fees: float, minutes: int) -> None:
    body = {"symbol": symbol, "fees_usd": fees, "filled_at": at(minutes)}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/fills/", body, format="json")
    assert response.status_code == 200, response.json()


def journal_url(deployment, **query) -> str:
    url = reverse("deployment-trades", args=[deployment.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def row_count(content: str) -> int:
    return len(re.findall(r'<tr class="trade trade-(?:open|closed)"', content))


def stat(content: str, name: str) -> str:
    match = re.search(rf'id="stat-{name}"[^>]*>([^<]*)<', content)
    assert match, f"stat-{name} missing"
    return match.group(1).strip()


def chart_data(content: str) -> dict:
    match = re.search(r'<script id="journal-chart-data" type="application/json">(.*?)</script>', content, re.S)
    assert match
    return json.loads(match.group(1))


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Breakout BTC")


@pytest.fixture
def journal(owner_api, deployment):
    """Four trades: BTC +10 (take profit, 1.25 fees), ETH −10 (liquidated), BTC +5 (flattened), SOL open."""
    post_tick(
        owner_api,
        deployment,
        0,
        [position("BTC", 1, 100), position("ETH", 2, 50, side="short")],
        bars={"BTC": TREND_UP},
        **executed("propose_order", SCRIPT_REASON),
    )
    post_fill(owner_api, deployment, "BTC", 1.25, 0)
    post_tick(
        owner_api, deployment, 10, [], marks={"BTC": 110, "ETH": 55}, **executed("close_position", "take profit", "BTC")
    )
    post_tick(
        owner_api,
        deployment,
        20,
        [position("BTC", 1, 100), position("SOL", 3, 10)],
        bars={"BTC": CHOP, "SOL": CHOP},
        **executed("propose_order", "mean reversion"),
    )
    post_tick(
        owner_api, deployment, 30, [position("SOL", 3, 11)], marks={"BTC": 105}, proposed_action={"kind": "flatten"}
    )
    return deployment


def post_round_trips(api, deployment, count: int, per_tick: int = 6) -> None:
    """`count` closed trades: each pair of ticks opens then closes up to `per_tick` symbols."""
    minutes = 0
    for first in range(0, count, per_tick):
        symbols = [f"S{i}" for i in range(first, min(first + per_tick, count))]
        post_tick(api, deployment, minutes, [position(s, 1, 100) for s in symbols], **executed("propose_order", "go"))
        post_tick(
            api, deployment, minutes + 5, [], marks={s: 101 for s in symbols}, **executed("close_position", "done")
        )
        minutes += 10


class TestAccess:
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, deployment):
        url = journal_url(deployment)
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={url}"

    def test_it_404s_for_the_other_trader(self, client, other, journal):
        client.force_login(other)
        assert client.get(journal_url(journal)).status_code == 404
        assert client.get(journal_url(journal), headers=HTMX).status_code == 404

    def test_it_404s_for_a_deployment_that_does_not_exist(self, client, owner):
        client.force_login(owner)
        assert client.get(reverse("deployment-trades", args=[999_999])).status_code == 404


class TestPage:
    def test_it_shows_the_trades_the_runner_posted_newest_entry_first(self, client, owner, journal):
        client.force_login(owner)
        response = client.get(journal_url(journal))
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" in content
        assert row_count(content) == 4
        symbols = re.findall(
            r'<tr class="trade trade-\w+" id="trade-[^"]+">\s*<td[^>]*><strong>(\w+)</strong>', content
        )
        assert symbols == ["BTC", "SOL", "BTC", "ETH"]  # entries at 20, 20, 0, 0; then by symbol
        assert "take profit" in content
        assert 'class="tag exit-alert exit-liquidated">liquidated<' in content
        assert 'class="tag exit-alert exit-external_flatten">external_flatten<' in content
        assert "trend_up_lowvol" in content
        assert "Breakout BTC" in content
        assert f'href="{reverse("home")}"' in content
        assert Deployment.objects.get(pk=journal.pk).materialized_through is not None

    def test_it_escapes_the_reasons(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal)).content.decode()
        assert "<script>alert" not in content
        assert "breakout &lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt;" in content

    def test_it_summarizes_the_closed_trades(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal)).content.decode()
        assert stat(content, "closed") == "3"
        assert stat(content, "wins") == "2"
        assert stat(content, "losses") == "1"
        assert stat(content, "win-rate") == "66.7%"
        assert stat(content, "pnl") == "$5.00"
        assert stat(content, "fees") == "$1.25"
        assert stat(content, "net") == "$3.75"
        assert stat(content, "holding") == "10.0 min"
        assert stat(content, "best") == "$10.00"
        assert stat(content, "worst") == "−$10.00"

    def test_the_summary_selector_answers_in_one_query(self, journal, django_assert_num_queries):
        materialize_if_behind(Deployment.objects.get(pk=journal.pk))
        with django_assert_num_queries(1):
            summary = selectors.trade_journal_summary(deployment=journal)
        assert (summary.open_count, summary.closed_count, summary.wins, summary.losses) == (1, 3, 2, 1)
        assert summary.win_rate_pct.quantize(Decimal("0.01")) == Decimal("66.67")
        assert summary.realized_pnl_usd == Decimal(5)
        assert (summary.fees_usd, summary.net_pnl_usd) == (Decimal("1.25"), Decimal("3.75"))

    def test_it_feeds_the_charts_from_a_data_island(self, client, owner, journal):
        client.force_login(owner)
        data = chart_data(client.get(journal_url(journal)).content.decode())
        assert data["cumulative"] == [[ms(10), 0.0], [ms(30), 5.0]]  # +10 and −10 close on the same tick
        assert data["by_regime"] == [
            {"tag": "chop_lowvol", "trades": 1, "pnl": 5.0},
            {"tag": "trend_up_lowvol", "trades": 1, "pnl": 10.0},
            {"tag": "unclassified", "trades": 1, "pnl": -10.0},
        ]

    def test_it_shows_an_empty_journal(self, client, owner, deployment):
        client.force_login(owner)
        content = client.get(journal_url(deployment)).content.decode()
        assert "No trades yet" in content
        assert chart_data(content) == {"cumulative": [], "by_regime": []}
        assert stat(content, "win-rate") == "—"

    def test_the_home_page_links_each_deployment_to_its_journal(self, client, owner, deployment):
        client.force_login(owner)
        assert f'href="{journal_url(deployment)}"' in client.get(reverse("home")).content.decode()


class TestFilters:
    @pytest.mark.parametrize(
        ("query", "symbols"),
        [
            ({}, ["BTC", "SOL", "BTC", "ETH"]),
            ({"status": "open"}, ["SOL"]),
            ({"status": "closed"}, ["BTC", "BTC", "ETH"]),
            ({"symbol": "BTC"}, ["BTC", "BTC"]),
            ({"regime": "trend_up_lowvol"}, ["BTC"]),
            ({"regime": "chop_lowvol"}, ["BTC", "SOL"]),
            ({"regime": "unclassified"}, ["ETH"]),
            ({"status": "closed", "symbol": "BTC", "regime": "chop_lowvol"}, ["BTC"]),
            ({"status": "pending", "symbol": "DOGE"}, ["BTC", "SOL", "BTC", "ETH"]),  # not choices: "all"
        ],
    )
    def test_each_filter_narrows_the_rows(self, client, owner, journal, query, symbols):
        client.force_login(owner)
        content = client.get(journal_url(journal, **query)).content.decode()
        found = re.findall(r'<tr class="trade trade-\w+" id="trade-[^"]+">\s*<td[^>]*><strong>(\w+)</strong>', content)
        assert found == symbols

    def test_the_choices_come_from_the_deployments_trades(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, symbol="SOL")).content.decode()
        select = re.search(r'<select id="filter-symbol" name="symbol">(.*?)</select>', content, re.S).group(1)
        assert re.findall(r'<option value="([^"]*)"', select) == ["", "BTC", "ETH", "SOL"]
        assert '<option value="SOL" selected>' in select
        regimes = re.search(r'<select id="filter-regime" name="regime">(.*?)</select>', content, re.S).group(1)
        assert re.findall(r'<option value="([^"]*)"', regimes) == ["", "chop_lowvol", "trend_up_lowvol", "unclassified"]

    def test_it_says_when_no_trade_matches(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, status="open", symbol="BTC")).content.decode()
        assert row_count(content) == 0
        assert "No trades match these filters." in content


class TestHtmx:
    def test_an_htmx_request_gets_the_filtered_results_and_the_canonical_url(self, client, owner, journal):
        client.force_login(owner)
        response = client.get(journal_url(journal, status="closed", symbol="", regime=""), headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert 'id="summary"' in content  # the cards and charts follow the filters: they are swapped too
        assert 'id="journal-chart-data"' in content
        assert row_count(content) == 3
        assert response["HX-Push-Url"] == journal_url(journal, status="closed")
        assert "HX-Request" in response["Vary"]

    def test_a_history_restore_request_gets_the_whole_page(self, client, owner, journal):
        client.force_login(owner)
        headers = {**HTMX, "HX-History-Restore-Request": "true"}
        content = client.get(journal_url(journal, status="open"), headers=headers).content.decode()
        assert "<html" in content
        assert row_count(content) == 1

    def test_the_filter_form_asks_htmx_for_the_table_and_pushes_the_url(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal)).content.decode()
        form = re.search(r'<form id="trade-filters"[^>]*>', content).group(0)
        assert f'hx-get="{journal_url(journal)}"' in form
        assert 'hx-target="#journal-results"' in form
        assert 'hx-push-url="true"' in form


class TestPagination:
    def test_it_pages_fifty_trades_at_a_time_keeping_the_filters(self, client, owner, owner_api, deployment):
        post_round_trips(owner_api, deployment, 60)
        client.force_login(owner)
        first = client.get(journal_url(deployment, status="closed")).content.decode()
        assert row_count(first) == 50
        older = journal_url(deployment, status="closed", page=2)
        assert f'href="{older.replace("&", "&amp;")}"' in first
        second = client.get(older, headers=HTMX)
        assert row_count(second.content.decode()) == 10
        assert second["HX-Push-Url"] == older
        assert "Page 2 of 2" in second.content.decode()


class TestQueryCount:
    @pytest.mark.parametrize("trades", [5, 60])
    def test_the_page_reads_a_bounded_number_of_queries(
        self, client, owner, owner_api, deployment, django_assert_max_num_queries, trades
    ):
        post_round_trips(owner_api, deployment, trades)
        client.force_login(owner)
        assert client.get(journal_url(deployment)).status_code == 200  # catches the ledger up first
        # session, user, deployment, 2 filter choices, count, rows, summary, regime bars, cumulative line
        with django_assert_max_num_queries(10):
            response = client.get(journal_url(deployment))
        assert row_count(response.content.decode()) == min(trades, 50)
        with django_assert_max_num_queries(10):  # htmx swaps the cards and charts too
            assert client.get(journal_url(deployment, status="closed"), headers=HTMX).status_code == 200


class TestCumulativeLine:
    def test_it_keeps_at_most_max_points_including_the_first_and_last_close(self, owner_api, deployment):
        post_round_trips(owner_api, deployment, 60, per_tick=1)
        materialize_if_behind(Deployment.objects.get(pk=deployment.pk))
        full = selectors.trade_cumulative_pnl(deployment=deployment)
        assert [pnl for _, pnl in full] == [Decimal(n) for n in range(1, 61)]  # +1 each
        for max_points in (2, 7, 59, 60):
            points = selectors.trade_cumulative_pnl(deployment=deployment, max_points=max_points)
            assert 2 <= len(points) <= max_points
            assert points[0] == full[0]
            assert points[-1] == full[-1]
            assert set(points) <= set(full)

    def test_trades_closing_on_one_tick_make_one_point(self, owner_api, deployment):
        post_round_trips(owner_api, deployment, 12, per_tick=6)
        materialize_if_behind(Deployment.objects.get(pk=deployment.pk))
        assert [pnl for _, pnl in selectors.trade_cumulative_pnl(deployment=deployment)] == [6, 12]


def test_an_htmx_request_after_the_session_expired_redirects_the_whole_page_to_login(client, owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    page = f"/deployments/{deployment.pk}/trades/"
    response = client.get(
        f"{page}?status=closed", HTTP_HX_REQUEST="true", HTTP_HX_CURRENT_URL=f"http://testserver{page}"
    )
    assert response.status_code == 200
    assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fdeployments%2F{deployment.pk}%2Ftrades%2F"
    assert response.content == b""

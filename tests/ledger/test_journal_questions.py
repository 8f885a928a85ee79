# ruff: noqa: F811 (the journal fixtures are imported from test_trades_page)
"""The journal answers questions: the cards and charts follow the filters, the columns sort, the CSV export."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from ledger import selectors, views
from ledger.models import Deployment
from ledger.services import materialize_if_behind
from tests.dbroles import owner_connection
from tests.factories import DeploymentFactory
from tests.ledger.test_trades_page import (  # noqa: F401 (fixtures)
    HTMX,
    at,
    chart_data,
    deployment,
    executed,
    journal,
    journal_url,
    ms,
    position,
    post_round_trips,
    post_tick,
    stat,
)

ROW_SYMBOL = re.compile(r'<tr class="trade trade-\w+" id="trade-[^"]+">\s*<td[^>]*><strong>(\w+)</strong>')


TRADE_ID = re.compile(r'<tr class="trade [^"]*" id="trade-([^"]+)"')


def symbols(content: str) -> list[str]:
    return ROW_SYMBOL.findall(content)


def csv_url(deployment, **query) -> str:
    url = reverse("deployment-trades-csv", args=[deployment.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def read_csv(response) -> list[dict]:
    assert response.status_code == 200
    assert response.streaming
    body = b"".join(response.streaming_content).decode()
    return list(csv.DictReader(io.StringIO(body)))


class TestCardsAndChartsFollowTheFilters:
    def test_a_symbol_filter_narrows_the_cards_and_both_charts(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, symbol="BTC")).content.decode()
        assert stat(content, "closed") == "2"
        assert (stat(content, "wins"), stat(content, "losses")) == ("2", "0")
        assert stat(content, "pnl") == "$15.00"
        assert stat(content, "best") == "$10.00"
        assert stat(content, "worst") == "$5.00"
        assert "closed trades matching the filters" in content
        data = chart_data(content)
        assert data["cumulative"] == [[ms(10), 10.0], [ms(30), 15.0]]
        assert data["by_regime"] == [
            {"tag": "chop_lowvol", "trades": 1, "pnl": 5.0},
            {"tag": "trend_up_lowvol", "trades": 1, "pnl": 10.0},
        ]

    def test_the_htmx_answer_carries_the_narrowed_cards_and_charts(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, regime="unclassified"), headers=HTMX).content.decode()
        assert stat(content, "closed") == "1"
        assert stat(content, "pnl") == "−$10.00"  # a real minus sign
        assert chart_data(content) == {
            "cumulative": [[ms(10), -10.0]],
            "by_regime": [{"tag": "unclassified", "trades": 1, "pnl": -10.0}],
        }

    def test_an_open_only_filter_has_no_closed_trades_to_sum(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, status="open")).content.decode()
        assert stat(content, "closed") == "0"
        assert stat(content, "win-rate") == "—"
        assert chart_data(content) == {"cumulative": [], "by_regime": []}

    def test_no_filter_still_sums_every_trade(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal)).content.decode()
        assert stat(content, "closed") == "3"
        assert "all closed trades" in content

    def test_the_selectors_take_the_same_filters(self, journal):
        materialize_if_behind(Deployment.objects.get(pk=journal.pk))
        summary = selectors.trade_journal_summary(deployment=journal, symbol="ETH")
        assert (summary.closed_count, summary.losses) == (1, 1)
        assert [row.regime_tag for row in selectors.trade_pnl_by_regime(deployment=journal, status="open")] == []
        cumulative = selectors.trade_cumulative_pnl(deployment=journal, regime_tag="chop_lowvol")
        assert [pnl for _, pnl in cumulative] == [5]


class TestSort:
    # Entries: BTC@20 chop +5, SOL@20 open (+3 at the mark), BTC@0 trend +10, ETH@0 unclassified −10.
    @pytest.mark.parametrize(
        ("sort", "expected"),
        [
            ("-entry", ["BTC", "SOL", "BTC", "ETH"]),
            ("entry", ["BTC", "ETH", "BTC", "SOL"]),
            ("-pnl", ["BTC", "BTC", "SOL", "ETH"]),  # open trades sort by their PnL at the mark
            ("pnl", ["ETH", "SOL", "BTC", "BTC"]),
            ("symbol", ["BTC", "BTC", "ETH", "SOL"]),
            ("-symbol", ["SOL", "ETH", "BTC", "BTC"]),
            ("-exit", ["BTC", "BTC", "ETH", "SOL"]),  # still open: last
            ("exit", ["BTC", "ETH", "BTC", "SOL"]),  # still open: last either way
            ("held", ["BTC", "BTC", "ETH", "SOL"]),  # all held 10 min: newest entry, then symbol
            ("-regime", ["BTC", "BTC", "SOL", "ETH"]),  # unclassified last
        ],
    )
    def test_each_column_sorts_with_the_default_as_tie_break(self, client, owner, journal, sort, expected):
        client.force_login(owner)
        assert symbols(client.get(journal_url(journal, sort=sort)).content.decode()) == expected

    @pytest.mark.parametrize("sort", ["password", "-owner_id", "entry;drop table trade_history", "--entry", "PNL", ""])
    def test_an_unknown_sort_key_falls_back_to_the_default(self, client, owner, journal, sort):
        client.force_login(owner)
        response = client.get(journal_url(journal, sort=sort))
        assert response.status_code == 200
        assert symbols(response.content.decode()) == ["BTC", "SOL", "BTC", "ETH"]
        assert 'name="sort" value="-entry"' in response.content.decode()

    def test_the_order_is_stable_across_pages_of_equal_values(self, client, owner, owner_api, deployment):
        post_round_trips(owner_api, deployment, 60)  # every trade +1, held 5 min: pnl ties everywhere
        client.force_login(owner)
        first = TRADE_ID.findall(client.get(journal_url(deployment, sort="pnl")).content.decode())
        second = client.get(journal_url(deployment, sort="pnl", page=2)).content.decode()
        rest = TRADE_ID.findall(second)
        assert len(first) == 50 and len(rest) == 10
        assert not set(first) & set(rest)
        again = TRADE_ID.findall(client.get(journal_url(deployment, sort="pnl")).content.decode())
        assert again == first

    def test_headers_link_each_column_keeping_the_filters_and_flip_the_current_one(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, symbol="BTC", sort="-pnl")).content.decode()
        found = re.findall(r'<th[^>]*><a class="sort-link" href="([^"]+)"[^>]*>([^<]+)<', content)
        links = {label: url for url, label in found}
        assert len(links) == 6
        assert links["PnL $ (%)"] == journal_url(journal, symbol="BTC", sort="pnl").replace("&", "&amp;")
        assert links["Trade"] == journal_url(journal, symbol="BTC", sort="symbol").replace("&", "&amp;")
        assert links["Entry"] == journal_url(journal, symbol="BTC").replace("&", "&amp;")  # the default: no sort=
        assert re.search(r'<th class="num" title="[^"]*" aria-sort="descending"><a class="sort-link"[^>]*>PnL', content)
        assert content.count("aria-sort=") == 1

    def test_an_htmx_sort_pushes_the_canonical_url(self, client, owner, journal):
        client.force_login(owner)
        response = client.get(journal_url(journal, status="", sort="symbol"), headers=HTMX)
        assert response["HX-Push-Url"] == journal_url(journal, sort="symbol")
        assert symbols(response.content.decode()) == ["BTC", "BTC", "ETH", "SOL"]


class TestCsvExport:
    def test_it_exports_the_filtered_trades_in_the_journals_order(self, client, owner, journal):
        client.force_login(owner)
        response = client.get(csv_url(journal, symbol="BTC", sort="pnl"))
        assert response["Content-Type"] == "text/csv; charset=utf-8"
        assert response["Content-Disposition"] == f'attachment; filename="deployment-{journal.pk}-trades.csv"'
        rows = read_csv(response)
        assert [(row["symbol"], row["realized_pnl_usd"]) for row in rows] == [("BTC", "5"), ("BTC", "10")]

    def test_it_writes_a_header_utc_iso_times_and_plain_decimals(self, client, owner, journal):
        client.force_login(owner)
        response = client.get(csv_url(journal, sort="entry"))
        body = b"".join(response.streaming_content).decode()
        assert body.splitlines()[0] == ",".join(views.EXPORT_COLUMNS)
        rows = list(csv.DictReader(io.StringIO(body)))
        assert [row["symbol"] for row in rows] == ["BTC", "ETH", "BTC", "SOL"]
        btc = rows[0]
        assert btc["entry_at_utc"] == at(0)
        assert btc["exit_at_utc"] == at(10)
        assert (btc["entry_price"], btc["exit_price"], btc["entry_size_usd"]) == ("100", "110", "100")
        assert (btc["realized_pnl_usd"], btc["realized_pnl_pct"], btc["fees_usd"]) == ("10", "10", "1.25")
        assert btc["holding_minutes"] == "10"
        assert btc["regime_tag"] == "trend_up_lowvol"
        assert btc["exit_price_carried"] == "false"
        eth = rows[1]
        assert (eth["side"], eth["realized_pnl_usd"], eth["exit_reason"]) == ("short", "-10", "liquidated")
        assert eth["regime_tag"] == ""
        sol = rows[3]
        assert (sol["status"], sol["exit_at_utc"], sol["realized_pnl_usd"], sol["open_pnl_usd"]) == (
            "open",
            "",
            "",
            "3",
        )
        assert "E" not in "".join(row["realized_pnl_usd"] + row["fees_usd"] for row in rows)  # never an exponent

    def test_a_reason_a_spreadsheet_would_run_as_a_formula_is_quoted(self, client, owner, owner_api, deployment):
        post_tick(owner_api, deployment, 0, [position("BTC", 1, 100)], **executed("propose_order", "=HYPERLINK(1)"))
        client.force_login(owner)
        (row,) = read_csv(client.get(csv_url(deployment)))
        assert row["entry_reason"] == "'=HYPERLINK(1)"

    def test_the_journal_links_the_export_with_its_filters(self, client, owner, journal):
        client.force_login(owner)
        content = client.get(journal_url(journal, status="closed", sort="pnl"), headers=HTMX).content.decode()
        href = re.search(r'<a href="([^"]+)" id="export-csv"', content).group(1)
        assert href == csv_url(journal, status="closed", sort="pnl").replace("&", "&amp;")

    def test_an_empty_journal_exports_the_header_alone(self, client, owner, deployment):
        client.force_login(owner)
        response = client.get(csv_url(deployment))
        assert b"".join(response.streaming_content).decode() == ",".join(views.EXPORT_COLUMNS) + "\r\n"

    def test_a_bad_sort_or_filter_exports_everything_in_the_default_order(self, client, owner, journal):
        client.force_login(owner)
        rows = read_csv(client.get(csv_url(journal, sort="nope", status="maybe")))
        assert [row["symbol"] for row in rows] == ["BTC", "SOL", "BTC", "ETH"]

    def test_it_404s_for_the_other_trader_and_sends_anonymous_to_log_in(self, client, other, journal):
        assert client.get(csv_url(journal)).status_code == 302
        client.force_login(other)
        assert client.get(csv_url(journal)).status_code == 404

    def test_it_reads_in_chunks_keeping_the_order(self, client, owner, owner_api, deployment, monkeypatch):
        post_round_trips(owner_api, deployment, 7)
        monkeypatch.setattr(views, "EXPORT_CHUNK", 3)
        client.force_login(owner)
        response = client.get(csv_url(deployment, sort="symbol"))
        chunks = list(response.streaming_content)
        assert len(chunks) == 1 + 3  # the header, then 3 + 3 + 1 trades
        rows = list(csv.DictReader(io.StringIO(b"".join(chunks).decode())))
        assert [row["symbol"] for row in rows] == ["S0", "S1", "S2", "S3", "S4", "S5", "S6"]


@pytest.mark.django_db(transaction=True)
def test_the_export_holds_no_transaction_while_the_client_reads(client, owner, owner_api, settings, monkeypatch):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    post_round_trips(owner_api, deployment, 4)
    monkeypatch.setattr(views, "EXPORT_CHUNK", 2)
    client.force_login(owner)
    response = client.get(csv_url(deployment))
    states = []
    for _chunk in response.streaming_content:  # the client reading slowly, between chunks
        with owner_connection() as db:
            rows = db.execute(
                "SELECT state FROM pg_stat_activity WHERE datname = current_database() AND usename = %s",
                [settings.DATABASE_APP_ROLE],
            ).fetchall()
        states.append(sorted(state or "" for (state,) in rows))
    assert len(states) == 3
    assert all("idle in transaction" not in seen for seen in states), states

"""The market pages: /markets/ (the trader's markets with their counts) and /markets/{id}/ (per agent: the
signal timeline, the chart data with the evolution events, and the memory text the agent gets next time).

Signals are stored through signals.services.signal_store with pinned times, so timelines are deterministic.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.urls import reverse

from signals.models import AgentSignal, Market, MemoryRetrievalAudit
from signals.services import signal_store

HTMX = {"HX-Request": "true"}
T0 = dt.datetime(2026, 6, 1, 9, 0, tzinfo=dt.UTC)
CONDITION = "0xabc123"
QUESTION = "Will the incumbent win the election?"
POLLING = "polling_intelligence"
MICRO = "market_microstructure"
SCRIPT_DRIVER = "<script>alert('x')</script> scandal"
SCRIPT_ESCAPED = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; scandal"
MICRO_MEMORY = (
    "Previous Analysis History (2 signals):\n\n"
    "Analysis from Jun 1, 2026, 10:00 AM UTC:\n"
    "  Direction: NEUTRAL\n"
    "  Fair Probability: 50.0%\n"
    "  Confidence: 60.0%\n"
    "  Key Drivers:\n"
    "    • Thin order book\n\n"
    "Analysis from Jun 1, 2026, 12:00 PM UTC:\n"
    "  Direction: NEUTRAL\n"
    "  Fair Probability: 65.0%\n"
    "  Confidence: 60.0%\n"
    "  Key Drivers:\n"
    "    • Thin order book"
)
# The queries of a page, whatever the number of signals, markets or agents (session, user, reads, audit).
LIST_MAX_QUERIES = 4
DETAIL_MAX_QUERIES = 10


def hours(n: float) -> dt.datetime:
    return T0 + dt.timedelta(hours=n)


def ms(moment: dt.datetime) -> int:
    return int(moment.timestamp() * 1000)


def store(owner, agent: str, at: dt.datetime, direction: str, probability: str, confidence: str, drivers, **kw):
    signal, _ = signal_store(
        owner=owner,
        condition_id=kw.pop("condition_id", CONDITION),
        agent_name=agent,
        agent_type=kw.pop("agent_type", agent.split("_")[0]),
        direction=direction,
        fair_probability=Decimal(probability),
        confidence=Decimal(confidence),
        key_drivers=drivers,
        metadata={},
        question=kw.pop("question", QUESTION),
        now=at,
        **kw,
    )
    return signal


@dataclass
class Analysis:
    market: Market
    p1: AgentSignal
    p2: AgentSignal
    p3: AgentSignal
    m1: AgentSignal
    m2: AgentSignal
    newer: Market  # a second market of the owner, created after
    foreign: Market  # the other trader's


@pytest.fixture
def analysis(owner, other) -> Analysis:
    """Two agents on one market, signals interleaved in time.

    polling_intelligence  09:00 YES 62.5% / 80%
                          11:00 YES 78%   / 85%   probability shift 15.5
                          14:00 NO  40%   / 50%   direction, probability 38.0, confidence 35.0, reasoning
    market_microstructure 10:00 NEUTRAL 50% / 60%
                          12:00 NEUTRAL 65% / 60% probability shift 15.0
    """
    drivers = ["Polling lead widened", "Turnout model favours YES"]
    p1 = store(owner, POLLING, hours(0), "YES", "0.6250", "0.80", drivers)
    m1 = store(owner, MICRO, hours(1), "NEUTRAL", "0.5000", "0.60", ["Thin order book"])
    p2 = store(owner, POLLING, hours(2), "YES", "0.7800", "0.85", drivers)
    m2 = store(owner, MICRO, hours(3), "NEUTRAL", "0.6500", "0.60", ["Thin order book"])
    p3 = store(owner, POLLING, hours(5), "NO", "0.4000", "0.50", [SCRIPT_DRIVER, "Debate performance"])
    store(owner, "risk_assessment", hours(6), "YES", "0.55", "0.4", [], condition_id="0xdef456", question="")
    store(other, POLLING, hours(0), "YES", "0.9", "0.9", ["Someone else's view"], condition_id="0xother")
    return Analysis(
        market=p1.market,
        p1=p1,
        p2=p2,
        p3=p3,
        m1=m1,
        m2=m2,
        newer=Market.objects.get(owner=owner, condition_id="0xdef456"),
        foreign=Market.objects.get(owner=other, condition_id="0xother"),
    )


def detail_url(market, **query) -> str:
    url = reverse("market", args=[market.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def market_row(content: str, market) -> dict:
    match = re.search(rf'<tr class="market" id="market-{market.pk}">(.*?)</tr>', content, re.S)
    assert match, f"market {market.pk} missing"
    row = match.group(1)

    def cell(name: str) -> str:
        return text_of(re.search(rf'<td class="[^"]*\b{name}\b[^"]*">(.*?)</td>', row, re.S).group(1))

    href = re.search(r'<a href="([^"]+)"', row).group(1)
    return {
        "href": href,
        "condition": cell("condition"),
        "question": cell("question"),
        "signals": cell("signal-count"),
        "agents": re.findall(r'<span class="tag agent">(.*?)</span>', row),
        "last": cell("last-signal"),
        "events": cell("event-count"),
    }


def market_ids(content: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<tr class="market" id="market-(\d+)">', content)]


def sections(content: str) -> dict[str, str]:
    """Agent name → its section's HTML, in page order."""
    found = re.findall(
        r'<section class="agent-section" id="agent-\d+" data-agent="([^"]*)".*?>(.*?)</section>', content, re.S
    )
    return {html.unescape(name): body for name, body in found}


def timeline_rows(section: str) -> list[dict]:
    rows = []
    for signal_id, row in re.findall(
        r'<tr class="signal(?: has-events)?" id="signal-([0-9a-f-]+)">(.*?)</tr>', section, re.S
    ):

        def cell(name: str, row=row) -> str:
            return re.search(rf'<td class="[^"]*\b{name}\b[^"]*">(.*?)</td>', row, re.S).group(1)

        rows.append(
            {
                "id": signal_id,
                "time": text_of(cell("time")),
                "direction": text_of(cell("direction")),
                "probability": text_of(cell("probability")),
                "confidence": text_of(cell("confidence")),
                "drivers": [html.unescape(d) for d in re.findall(r"<li>(.*?)</li>", cell("drivers"), re.S)],
                "drivers_html": cell("drivers"),
                "events": [
                    text_of(e) for e in re.findall(r'<li class="event event-\w+">(.*?)</li>', cell("events"), re.S)
                ],
            }
        )
    return rows


def memory_text(section: str) -> str:
    match = re.search(r'<pre class="memory-text" id="memory-agent-\d+">(.*?)</pre>', section, re.S)
    assert match
    return html.unescape(match.group(1))


def chart_data(content: str) -> dict:
    match = re.search(r'<script id="market-chart-data" type="application/json">(.*?)</script>', content, re.S)
    assert match
    return json.loads(match.group(1))


class TestAccess:
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, analysis):
        for url in (reverse("markets"), detail_url(analysis.market)):
            response = client.get(url)
            assert response.status_code == 302
            assert response["Location"] == f"{reverse('login')}?next={url}"

    def test_an_htmx_request_after_the_session_expired_redirects_the_whole_page_to_login(self, client, analysis):
        url = detail_url(analysis.market)
        response = client.get(f"{url}?agent={POLLING}", headers={**HTMX, "HX-Current-URL": f"http://testserver{url}"})
        assert response.status_code == 200
        assert response["HX-Redirect"] == f"/accounts/login/?next=%2Fmarkets%2F{analysis.market.pk}%2F"

    def test_it_404s_for_the_other_traders_market(self, client, owner, analysis):
        client.force_login(owner)
        assert client.get(detail_url(analysis.foreign)).status_code == 404
        assert client.get(detail_url(analysis.foreign, agent=POLLING), headers=HTMX).status_code == 404
        assert MemoryRetrievalAudit.objects.count() == 0

    def test_it_404s_for_a_market_that_does_not_exist(self, client, owner, db):
        client.force_login(owner)
        assert client.get(reverse("market", args=[999_999])).status_code == 404

    def test_the_nav_links_to_the_markets_page_for_a_logged_in_trader_only(self, client, owner):
        client.force_login(owner)
        assert f'<a href="{reverse("markets")}">Markets</a>' in client.get(reverse("home")).content.decode()
        client.logout()
        assert ">Markets</a>" not in client.get(reverse("login")).content.decode()


class TestMarketList:
    def test_it_lists_the_traders_markets_newest_first_with_their_counts(self, client, owner, analysis):
        client.force_login(owner)
        response = client.get(reverse("markets"))
        assert response.status_code == 200
        content = response.content.decode()
        assert market_ids(content) == [analysis.newer.pk, analysis.market.pk]
        assert market_row(content, analysis.market) == {
            "href": detail_url(analysis.market),
            "condition": CONDITION,
            "question": QUESTION,
            "signals": "5",
            "agents": [MICRO, POLLING],
            "last": "2026-06-01 14:00",
            "events": "6",
        }
        assert market_row(content, analysis.newer) == {
            "href": detail_url(analysis.newer),
            "condition": "0xdef456",
            "question": "—",
            "signals": "1",
            "agents": ["risk_assessment"],
            "last": "2026-06-01 15:00",
            "events": "0",
        }
        assert "0xother" not in content
        assert "Markets 1–2 of 2" in content

    def test_without_markets_it_explains_how_agents_post_signals(self, client, other):
        client.force_login(other)
        content = client.get(reverse("markets")).content.decode()
        assert 'id="markets-empty"' in content
        assert "No markets yet. Analysis agents post signals with <code>POST /api/v1/signals/</code>" in content
        assert f'<a href="{reverse("api-docs")}">API docs</a>' in content
        assert 'id="markets"' not in content

    @pytest.mark.parametrize("n_markets", [3, 40])
    def test_it_reads_the_list_in_a_bounded_number_of_queries(
        self, client, owner, django_assert_max_num_queries, n_markets
    ):
        for i in range(n_markets):
            for agent in ("a", "b"):
                store(owner, agent, hours(i), "YES", "0.5", "0.5", ["x"], condition_id=f"0x{i}")
                store(owner, agent, hours(i + 0.5), "NO", "0.5", "0.5", ["x"], condition_id=f"0x{i}")
        client.force_login(owner)
        with django_assert_max_num_queries(LIST_MAX_QUERIES):
            content = client.get(reverse("markets")).content.decode()
        assert len(market_ids(content)) == n_markets
        assert {market_row(content, m)["events"] for m in Market.objects.filter(owner=owner)} == {"2"}


class TestMarketDetail:
    def test_it_shows_each_agent_in_name_order_with_its_timeline_oldest_first(self, client, owner, analysis):
        client.force_login(owner)
        response = client.get(detail_url(analysis.market))
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" in content
        assert QUESTION in content and CONDITION in content
        by_agent = sections(content)
        assert list(by_agent) == [MICRO, POLLING]
        assert "3 signals · 5 evolution events · last 2026-06-01 14:00 UTC" in by_agent[POLLING]
        assert "2 signals · 1 evolution event · last 2026-06-01 12:00 UTC" in by_agent[MICRO]

        polling = timeline_rows(by_agent[POLLING])
        assert [row["id"] for row in polling] == [str(s.pk) for s in (analysis.p1, analysis.p2, analysis.p3)]
        assert [(row["time"], row["direction"], row["probability"], row["confidence"]) for row in polling] == [
            ("2026-06-01 09:00:00", "YES", "62.5%", "80%"),
            ("2026-06-01 11:00:00", "YES", "78%", "85%"),
            ("2026-06-01 14:00:00", "NO", "40%", "50%"),
        ]
        assert polling[0]["drivers"] == ["Polling lead widened", "Turnout model favours YES"]
        assert polling[2]["drivers"] == [SCRIPT_DRIVER, "Debate performance"]
        assert [row["events"] for row in polling] == [
            [],
            ["probability shift Fair probability 62.5% → 78% (+15.5 pp)"],
            [
                "direction change Direction changed from YES to NO",
                "probability shift Fair probability 78% → 40% (−38 pp)",
                "confidence change Confidence 85% → 50% (−35 pp)",
                "reasoning evolution Key drivers have evolved significantly",
            ],
        ]
        micro = timeline_rows(by_agent[MICRO])
        assert [(row["time"], row["direction"], row["probability"], row["events"]) for row in micro] == [
            ("2026-06-01 10:00:00", "NEUTRAL", "50%", []),
            ("2026-06-01 12:00:00", "NEUTRAL", "65%", ["probability shift Fair probability 50% → 65% (+15 pp)"]),
        ]
        assert "Someone else" not in content

    def test_the_chart_data_has_both_series_and_the_events_at_their_signals_time(self, client, owner, analysis):
        client.force_login(owner)
        content = client.get(detail_url(analysis.market)).content.decode()
        data = chart_data(content)
        assert list(data) == [MICRO, POLLING]
        assert data[MICRO] == [
            {"t": ms(hours(1)), "p": 50.0, "c": 60.0, "direction": "NEUTRAL", "events": []},
            {
                "t": ms(hours(3)),
                "p": 65.0,
                "c": 60.0,
                "direction": "NEUTRAL",
                "events": [{"type": "probability_shift", "description": "Fair probability 50% → 65% (+15 pp)"}],
            },
        ]
        assert [(p["t"], p["p"], p["c"], p["direction"]) for p in data[POLLING]] == [
            (ms(hours(0)), 62.5, 80.0, "YES"),
            (ms(hours(2)), 78.0, 85.0, "YES"),
            (ms(hours(5)), 40.0, 50.0, "NO"),
        ]
        assert [[e["type"] for e in p["events"]] for p in data[POLLING]] == [
            [],
            ["probability_shift"],
            ["direction_change", "probability_shift", "confidence_change", "reasoning_evolution"],
        ]
        # One chart per agent, each reading its own key of the island.
        charts = re.findall(
            r'<div class="chart" id="chart-agent-\d+" data-chart="signal-lines" '
            r'data-chart-source="market-chart-data" data-chart-key="([^"]+)">',
            content,
        )
        assert charts == [MICRO, POLLING]
        assert "js/charts.js" in content

    def test_it_shows_what_each_agent_sees_next_time_identical_to_the_memory_api(
        self, client, owner, owner_api, analysis
    ):
        client.force_login(owner)
        by_agent = sections(client.get(detail_url(analysis.market)).content.decode())
        assert memory_text(by_agent[MICRO]) == MICRO_MEMORY
        api = owner_api.get(
            reverse("api-market-memory", args=[analysis.market.pk]), {"agents": f"{MICRO},{POLLING}"}
        ).json()
        for name in (MICRO, POLLING):
            assert memory_text(by_agent[name]) == api["agents"][name]["text"]
        assert "Previous Analysis History (3 signals):" in memory_text(by_agent[POLLING])
        page_audit = MemoryRetrievalAudit.objects.order_by("created_at", "id").first()
        assert page_audit.agents == [MICRO, POLLING]
        assert page_audit.success and page_audit.agents_with_history == 2

    def test_it_escapes_a_key_driver_containing_a_script_tag(self, client, owner, analysis):
        client.force_login(owner)
        content = client.get(detail_url(analysis.market)).content.decode()
        assert "<script>alert" not in content
        polling = sections(content)[POLLING]
        assert f"<li>{SCRIPT_ESCAPED}</li>" in timeline_rows(polling)[2]["drivers_html"]
        assert f"    • {SCRIPT_ESCAPED}" in polling  # the memory <pre>, escaped

    def test_it_escapes_an_agent_name_in_the_section_the_chart_key_and_the_island(self, client, owner, db):
        name = '<b>"quoted" & agent</b>'
        store(owner, name, hours(0), "YES", "0.5", "0.5", ["x"])
        client.force_login(owner)
        content = client.get(detail_url(Market.objects.get(owner=owner))).content.decode()
        assert "<b>" not in content
        assert list(sections(content)) == [name]
        assert 'data-chart-key="&lt;b&gt;&quot;quoted&quot; &amp; agent&lt;/b&gt;"' in content
        assert list(chart_data(content)) == [name]
        assert "\\u003Cb\\u003E" in content  # json_script escapes the island

    def test_the_agent_filter_answers_htmx_with_the_body_and_pushes_the_url(self, client, owner, analysis):
        client.force_login(owner)
        response = client.get(detail_url(analysis.market, agent=POLLING), headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert response["HX-Push-Url"] == detail_url(analysis.market, agent=POLLING)
        assert "HX-Request" in response["Vary"]
        assert list(sections(content)) == [POLLING]
        assert list(chart_data(content)) == [POLLING]
        assert f'<option value="{POLLING}" selected>{POLLING}</option>' in content
        assert "2 agents on this market · showing polling_intelligence" in content
        assert len(timeline_rows(sections(content)[POLLING])) == 3

        response = client.get(detail_url(analysis.market, agent=""), headers=HTMX)
        assert response["HX-Push-Url"] == detail_url(analysis.market)
        assert list(sections(response.content.decode())) == [MICRO, POLLING]

    def test_the_filtered_url_is_a_full_page_without_htmx(self, client, owner, analysis):
        client.force_login(owner)
        response = client.get(detail_url(analysis.market, agent=MICRO))
        content = response.content.decode()
        assert "<html" in content
        assert "HX-Push-Url" not in response
        assert list(sections(content)) == [MICRO]
        assert f'<option value="{MICRO}" selected>{MICRO}</option>' in content

    def test_a_history_restore_request_gets_the_whole_page(self, client, owner, analysis):
        client.force_login(owner)
        response = client.get(
            detail_url(analysis.market, agent=MICRO), headers={**HTMX, "HX-History-Restore-Request": "true"}
        )
        assert "<html" in response.content.decode()

    @pytest.mark.parametrize("headers", [{}, HTMX])
    def test_an_unknown_agent_is_a_400_naming_the_parameter(self, client, owner, analysis, headers):
        client.force_login(owner)
        response = client.get(detail_url(analysis.market, agent="risk_assessment"), headers=headers)
        assert response.status_code == 400
        content = html.unescape(response.content.decode())
        assert (
            "Invalid query parameter “agent”: 'risk_assessment' is not an agent with signals on this market."
            f" Use one of {MICRO}, {POLLING}, or leave it empty for all agents."
        ) in content
        assert MemoryRetrievalAudit.objects.count() == 0

    def test_a_market_without_signals_explains_how_agents_post_them(self, client, owner, db):
        market = Market.objects.create(owner=owner, condition_id="0xempty")
        client.force_login(owner)
        content = client.get(detail_url(market)).content.decode()
        assert 'id="signals-empty"' in content
        assert "<code>POST /api/v1/signals/</code>" in content
        assert chart_data(content) == {}
        assert MemoryRetrievalAudit.objects.count() == 0  # no agent, nothing retrieved

    def test_it_reads_the_page_in_the_same_number_of_queries_at_3_and_40_signals(
        self, client, owner, django_assert_max_num_queries
    ):
        counts = {}
        for n_signals in (3, 40):
            condition = f"0x{n_signals}"
            for i in range(n_signals):
                agent = ("alpha", "beta", "gamma")[i % 3]
                direction = ("YES", "NO")[(i // 3) % 2]  # every agent flips each time: an event per signal
                store(owner, agent, hours(i), direction, "0.5", "0.5", [f"d{i}"], condition_id=condition)
            market = Market.objects.get(owner=owner, condition_id=condition)
            client.force_login(owner)
            with django_assert_max_num_queries(DETAIL_MAX_QUERIES) as captured:
                content = client.get(detail_url(market)).content.decode()
            counts[n_signals] = len(captured)
            assert sum(len(timeline_rows(s)) for s in sections(content).values()) == n_signals
            assert len(re.findall(r'<li class="event event-direction_change">', content)) == n_signals - 3
        assert counts[3] == counts[40]

"""The research page, /research/: the trader's experiments (filterable through htmx, each expanding to its
assessment), the hypothesis board and the capability requests.

Research is recorded through research.services.experiment_record with pinned timestamps, as the API and
the YAML import record it, so the table's order and the generated ids (H_001, req_001) are deterministic.
"""

from __future__ import annotations

import datetime as dt
import html
import re
from dataclasses import dataclass

import pytest
from django.urls import reverse

from research import services
from research.models import CapabilityRequest, Experiment, Hypothesis
from research.rendering import format_context_line, format_results_line
from tests.factories import UserFactory

HTMX = {"HX-Request": "true"}
URL = "/research/"
T0 = dt.datetime(2025, 12, 27, tzinfo=dt.UTC)
SCRIPT_OBSERVATION = "<script>alert('x')</script> no signal here"
SCRIPT_ESCAPED = "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; no signal here"
# session, user, filter choices (2), count, page, hypotheses generated and tested (2), board (2), requests
PAGE_MAX_QUERIES = 11
PARTIAL_MAX_QUERIES = 8


def context_of(indicators: list[str], timeframe: str = "1h", symbol: str = "EURUSD", **extra) -> dict:
    return {
        "indicators": indicators,
        "indicator_params": {name: {"period": 14} for name in indicators},
        "composition": {1: "solo", 2: "pair", 3: "trio"}.get(len(indicators), "ensemble"),
        "timeframe": timeframe,
        "symbol": symbol,
        "zigzag_threshold": 0.015,
        "nn_architecture": [32, 16],
        "training_epochs": 100,
        "data_range": "2015-2023",
        **extra,
    }


def results_of(test: float, val: float, **extra) -> dict:
    return {"test_accuracy": test, "val_accuracy": val, "val_test_gap": round(val - test, 3), **extra}


def record(owner, experiment_id: str, at: dt.datetime, context: dict, results: dict, assessment: dict | None, **kw):
    return services.experiment_record(
        owner=owner,
        experiment_id=experiment_id,
        strategy_name=kw.pop("strategy_name", f"{experiment_id}_strategy"),
        context=context,
        results=results,
        assessment=services.assessment_from_fields(assessment) if assessment else None,
        timestamp=at,
        **kw,
    ).experiment


@dataclass
class Research:
    rsi: Experiment  # oldest
    adx: Experiment
    rsi_di: Experiment
    unassessed: Experiment  # newest
    foreign: Experiment  # the other trader's


@pytest.fixture
def research(owner, other) -> Research:
    """Four experiments of the owner, one of the other trader.

    exp_v15_rsi      2025-12-27 00:00  RSI      1h EURUSD  strong_signal  → H_001, H_002, req_001
    exp_v15_adx      2025-12-27 06:00  ADX      1h EURUSD  no_signal      → H_003, req_002 (approved, implemented)
    exp_rsi_di_4h    2025-12-28 14:30  RSI+DI   4h GBPUSD  strong_signal  tests H_001 (→ validated)
    exp_unassessed   2025-12-29 00:00  RSI+ADX  1d EURUSD  (no assessment)
    H_003 is set to testing by hand.
    """
    rsi = record(
        owner,
        "exp_v15_rsi",
        T0,
        context_of(["RSI"]),
        results_of(0.642, 0.654, sharpe_ratio=None),
        {
            "verdict": "strong_signal",
            "observations": ["RSI solo achieves 64.2% test accuracy on 1h EURUSD", "Small val-test gap"],
            "hypotheses": [
                {"text": "Adding a complementary trend indicator might improve"},
                {"text": "This might work on other timeframes"},
            ],
            "limitations": ["Only tested on 1h EURUSD", "Only tested solo"],
            "capability_requests": ["5m data aligned with 1h bars"],
        },
        source="v1.5_experiments",
    )
    adx = record(
        owner,
        "exp_v15_adx",
        T0 + dt.timedelta(hours=6),
        context_of(["ADX"], zigzag_threshold=0.02),
        results_of(0.5, 0.584),
        {
            "verdict": "no_signal",
            "observations": [SCRIPT_OBSERVATION],
            "hypotheses": [{"text": "ADX might work as a trend filter when combined with RSI"}],
            "limitations": [],
            "capability_requests": ["LSTM architecture option"],
        },
    )
    rsi_di = record(
        owner,
        "exp_rsi_di_4h",
        dt.datetime(2025, 12, 28, 14, 30, tzinfo=dt.UTC),
        context_of(["RSI", "DI"], timeframe="4h", symbol="GBPUSD"),
        results_of(0.648, 0.665, sharpe_ratio=0.42),
        {"verdict": "strong_signal", "observations": ["RSI with DI beats RSI solo on 4h"]},
        tests_hypotheses=["H_001"],
    )
    unassessed = record(
        owner, "exp_unassessed", dt.datetime(2025, 12, 29, tzinfo=dt.UTC), context_of(["RSI", "ADX"], "1d"), {}, None
    )
    services.hypothesis_set_status(
        hypothesis=Hypothesis.objects.get(owner=owner, hypothesis_id="H_003"), status="testing"
    )
    staff = UserFactory(username="curator", is_staff=True)
    req_002 = CapabilityRequest.objects.get(owner=owner, request_id="req_002")
    services.request_review(request=req_002, status="approved", by=staff)
    services.request_review(request=req_002, status="implemented", by=staff, today=dt.date(2026, 1, 5))
    foreign = record(
        other,
        "exp_foreign",
        T0,
        context_of(["MACD"], timeframe="15m", symbol="USDJPY"),
        results_of(0.7, 0.7),
        {
            "verdict": "overfit",
            "observations": ["Someone else's observation"],
            "hypotheses": [{"text": "Someone else's hypothesis"}],
            "capability_requests": ["Someone else's request"],
        },
    )
    return Research(rsi=rsi, adx=adx, rsi_di=rsi_di, unassessed=unassessed, foreign=foreign)


def url(**query) -> str:
    return URL + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def experiment_ids(content: str) -> list[str]:
    return re.findall(r'<tr class="experiment" id="experiment-\d+" data-experiment-id="([^"]+)">', content)


def experiment_row(content: str, experiment: Experiment) -> dict:
    match = re.search(rf'<tr class="experiment" id="experiment-{experiment.pk}"[^>]*>(.*?)</tr>', content, re.S)
    assert match, f"experiment {experiment.experiment_id} missing"
    row = match.group(1)

    def cell(name: str) -> str:
        return re.search(rf'<td class="[^"]*\b{name}\b[^"]*">(.*?)</td>', row, re.S).group(1)

    return {
        "id": text_of(cell("experiment-id")),
        "date": text_of(cell("date")),
        "strategy": text_of(cell("strategy")),
        "context": text_of(cell("context-line")),
        "results": text_of(cell("results-line")),
        "verdict": text_of(cell("verdict")),
        "verdict_html": cell("verdict"),
    }


def details_of(content: str, experiment: Experiment) -> dict:
    match = re.search(
        rf'<tr class="experiment-details" id="experiment-{experiment.pk}-details">(.*?)</tr>', content, re.S
    )
    assert match, f"details of {experiment.experiment_id} missing"
    details = match.group(1)

    def items(part: str) -> list[str]:
        found = re.search(rf'<div class="assessment-part {part}">(.*?)</div>', details, re.S).group(1)
        return [text_of(item) for item in re.findall(r"<li>(.*?)</li>", found, re.S)]

    return {
        "observations": items("observations"),
        "limitations": items("limitations"),
        "generated": items("hypotheses-generated"),
        "tested": items("hypotheses-tested"),
        "html": details,
    }


def options(content: str, name: str) -> tuple[list[str], str | None]:
    select = re.search(rf'<select id="filter-{name}" name="{name}">(.*?)</select>', content, re.S).group(1)
    values = re.findall(r'<option value="([^"]*)"', select)
    selected = re.search(r'<option value="([^"]*)" selected>', select)
    return values, selected.group(1) if selected else None


def board(content: str) -> dict[str, list[str]]:
    """Status → the hypothesis ids of its column, in order."""
    columns = re.findall(
        r'<section class="board-column" id="hypotheses-\w+" data-status="(\w+)".*?>(.*?)</section>', content, re.S
    )
    return {
        status: re.findall(r'<li class="hypothesis-card" id="hypothesis-([^"]+)">', body) for status, body in columns
    }


def card(content: str, hypothesis_id: str) -> dict:
    body = re.search(rf'<li class="hypothesis-card" id="hypothesis-{hypothesis_id}">(.*?)</li>', content, re.S).group(1)
    return {
        "text": text_of(re.search(r'<p class="hypothesis-text">(.*?)</p>', body, re.S).group(1)),
        "source": text_of(re.search(r'<dd class="source">(.*?)</dd>', body, re.S).group(1)),
        "tested_by": text_of(re.search(r'<dd class="tested-by">(.*?)</dd>', body, re.S).group(1)),
    }


def request_rows(content: str) -> list[dict]:
    rows = []
    for request_id, row in re.findall(r'<tr class="capability-request" id="request-([^"]+)">(.*?)</tr>', content, re.S):

        def cell(name: str, row=row) -> str:
            return re.search(rf'<td class="[^"]*\b{name}\b[^"]*">(.*?)</td>', row, re.S).group(1)

        rows.append(
            {
                "id": request_id,
                "capability": text_of(cell("capability")),
                "requested_by": text_of(cell("requested-by")),
                "requested": text_of(cell("requested-on")),
                "status": text_of(cell("status")),
                "status_html": cell("status"),
                "implemented": text_of(cell("implemented")),
            }
        )
    return rows


class TestAccess:
    def test_it_sends_an_anonymous_visitor_to_the_login_page(self, client, db):
        response = client.get(URL)
        assert response.status_code == 302
        assert response["Location"] == f"{reverse('login')}?next={URL}"

    def test_an_htmx_request_after_the_session_expired_redirects_the_whole_page_to_login(self, client, db):
        response = client.get(url(verdict="overfit"), headers={**HTMX, "HX-Current-URL": "http://testserver/research/"})
        assert response.status_code == 200
        assert response["HX-Redirect"] == "/accounts/login/?next=%2Fresearch%2F"

    def test_the_nav_links_to_the_research_page_for_a_logged_in_trader_only(self, client, owner):
        assert reverse("research") == URL
        client.force_login(owner)
        assert f'<a href="{URL}">Research</a>' in client.get(reverse("home")).content.decode()
        client.logout()
        assert ">Research</a>" not in client.get(reverse("login")).content.decode()


class TestExperiments:
    def test_it_lists_the_traders_experiments_newest_first_with_context_results_and_verdict(
        self, client, owner, research
    ):
        client.force_login(owner)
        response = client.get(URL)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" in content
        assert experiment_ids(content) == ["exp_unassessed", "exp_rsi_di_4h", "exp_v15_adx", "exp_v15_rsi"]
        assert "Experiments 1–4 of 4" in content
        rsi_di = experiment_row(content, research.rsi_di)
        assert rsi_di == {
            "id": "exp_rsi_di_4h",
            "date": "2025-12-28",
            "strategy": "exp_rsi_di_4h_strategy",
            "context": format_context_line(research.rsi_di.context),
            "results": format_results_line(research.rsi_di.results),
            "verdict": "strong_signal",
            "verdict_html": '<span class="tag verdict verdict-strong_signal">strong_signal</span>',
        }
        assert rsi_di["context"] == "RSI + DI | 4h | GBPUSD | zigzag 1.5% | NN [32,16]"
        assert rsi_di["results"] == "64.8% test (66.5% val, 1.7pp gap) | Sharpe 0.42"
        rsi = experiment_row(content, research.rsi)
        assert (rsi["date"], rsi["strategy"]) == ("2025-12-27", "exp_v15_rsi_strategy v1.5_experiments")
        assert rsi["context"] == "RSI solo | 1h | EURUSD | zigzag 1.5% | NN [32,16]"
        assert experiment_row(content, research.adx)["verdict"] == "no_signal"
        assert experiment_row(content, research.unassessed)["verdict"] == "not assessed"
        assert experiment_row(content, research.unassessed)["results"] == "n/a test (n/a val, n/a gap)"

    def test_each_experiment_expands_to_its_observations_limitations_and_hypotheses(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert f'<summary aria-controls="experiment-{research.rsi.pk}-details"' in content
        rsi = details_of(content, research.rsi)
        assert rsi["observations"] == ["RSI solo achieves 64.2% test accuracy on 1h EURUSD", "Small val-test gap"]
        assert rsi["limitations"] == ["Only tested on 1h EURUSD", "Only tested solo"]
        assert rsi["generated"] == [
            "H_001 validated Adding a complementary trend indicator might improve",
            "H_002 untested This might work on other timeframes",
        ]
        assert rsi["tested"] == []
        rsi_di = details_of(content, research.rsi_di)
        assert rsi_di["observations"] == ["RSI with DI beats RSI solo on 4h"]
        assert rsi_di["generated"] == []
        assert rsi_di["tested"] == ["H_001 validated Adding a complementary trend indicator might improve"]
        unassessed = details_of(content, research.unassessed)
        assert unassessed["observations"] == unassessed["limitations"] == []
        assert "none recorded" in unassessed["html"]

    def test_it_escapes_an_observation_containing_a_script_tag(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert "<script>alert" not in content
        assert f"<li>{SCRIPT_ESCAPED}</li>" in details_of(content, research.adx)["html"]
        assert details_of(content, research.adx)["observations"] == [SCRIPT_OBSERVATION]

    def test_it_never_shows_the_other_traders_research(self, client, owner, other, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        for foreign in ("exp_foreign", "MACD", "15m", "USDJPY", "Someone else"):
            assert foreign not in content
        assert options(content, "indicator")[0] == ["", "ADX", "DI", "RSI"]
        # The other trader sees only theirs.
        client.force_login(other)
        content = client.get(URL).content.decode()
        assert experiment_ids(content) == ["exp_foreign"]
        assert board(content)["untested"] == ["H_001"]
        assert card(content, "H_001")["text"] == "Someone else's hypothesis"
        assert [row["capability"] for row in request_rows(content)] == ["Someone else's request"]
        assert "exp_v15" not in content

    def test_the_filters_offer_the_traders_own_values(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert options(content, "indicator") == (["", "ADX", "DI", "RSI"], "")
        assert options(content, "timeframe") == (["", "1h", "4h", "1d"], "")  # shortest first
        assert options(content, "symbol") == (["", "EURUSD", "GBPUSD"], "")
        assert options(content, "verdict") == (["", "strong_signal", "weak_signal", "no_signal", "overfit"], "")
        assert 'hx-get="/research/" hx-target="#experiment-body" hx-push-url="true"' in content

    @pytest.mark.parametrize(
        ("query", "expected"),
        [
            ({"indicator": "RSI"}, ["exp_unassessed", "exp_rsi_di_4h", "exp_v15_rsi"]),
            ({"indicator": "ADX"}, ["exp_unassessed", "exp_v15_adx"]),
            ({"timeframe": "1h"}, ["exp_v15_adx", "exp_v15_rsi"]),
            ({"symbol": "GBPUSD"}, ["exp_rsi_di_4h"]),
            ({"verdict": "strong_signal"}, ["exp_rsi_di_4h", "exp_v15_rsi"]),
            ({"indicator": "RSI", "timeframe": "1h", "verdict": "strong_signal"}, ["exp_v15_rsi"]),
        ],
    )
    def test_each_filter_narrows_the_table(self, client, owner, research, query, expected):
        client.force_login(owner)
        content = client.get(url(**query)).content.decode()
        assert experiment_ids(content) == expected
        for name, value in query.items():
            assert options(content, name)[1] == value

    def test_a_filter_answers_htmx_with_the_table_and_pushes_the_url(self, client, owner, research):
        client.force_login(owner)
        response = client.get(url(indicator="ADX", timeframe=""), headers=HTMX)
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        assert response["HX-Push-Url"] == "/research/?indicator=ADX"
        assert "HX-Request" in response["Vary"]
        assert experiment_ids(content) == ["exp_unassessed", "exp_v15_adx"]
        assert options(content, "indicator") == (["", "ADX", "DI", "RSI"], "ADX")
        assert "Experiments 1–2 of 2 matching the filters" in content
        assert 'id="hypothesis-board"' not in content and 'id="capability-requests"' not in content

        response = client.get(url(indicator="", verdict=""), headers=HTMX)
        assert response["HX-Push-Url"] == URL
        assert len(experiment_ids(response.content.decode())) == 4

    def test_lower_case_indicators_and_symbols_match_and_push_the_stored_spelling(self, client, owner, research):
        client.force_login(owner)
        response = client.get(url(indicator="rsi", symbol="eurusd"), headers=HTMX)
        assert response["HX-Push-Url"] == "/research/?indicator=RSI&symbol=EURUSD"
        assert experiment_ids(response.content.decode()) == ["exp_unassessed", "exp_v15_rsi"]

    def test_the_filtered_url_is_a_full_page_without_htmx(self, client, owner, research):
        client.force_login(owner)
        response = client.get(url(verdict="no_signal"))
        content = response.content.decode()
        assert "<html" in content and "HX-Push-Url" not in response
        assert experiment_ids(content) == ["exp_v15_adx"]
        assert '<option value="no_signal" selected>no_signal</option>' in content
        assert 'id="hypothesis-board"' in content

    def test_a_history_restore_request_gets_the_whole_page(self, client, owner, research):
        client.force_login(owner)
        response = client.get(url(verdict="no_signal"), headers={**HTMX, "HX-History-Restore-Request": "true"})
        assert "<html" in response.content.decode()

    @pytest.mark.parametrize("headers", [{}, HTMX])
    @pytest.mark.parametrize(
        ("query", "message"),
        [
            (
                {"verdict": "amazing"},
                "Invalid query parameter “verdict”: 'amazing' is not a verdict. "
                "Use one of strong_signal, weak_signal, no_signal, overfit, or leave it empty for all.",
            ),
            (
                {"timeframe": "2h"},
                "Invalid query parameter “timeframe”: '2h' is not a timeframe of your experiments. "
                "Use one of 1h, 4h, 1d, or leave it empty for all.",
            ),
            (
                {"indicator": "MACD"},  # the other trader's
                "Invalid query parameter “indicator”: 'MACD' is not an indicator of your experiments. "
                "Use one of ADX, DI, RSI, or leave it empty for all.",
            ),
        ],
    )
    def test_an_invalid_filter_is_a_400_naming_the_parameter(self, client, owner, research, headers, query, message):
        client.force_login(owner)
        response = client.get(url(**query), headers=headers)
        content = html.unescape(response.content.decode())
        assert response.status_code == 400
        assert message in content
        if headers:  # htmx swaps the message alone in place of the table (base.html) and keeps the URL
            assert "<html" not in content and response["HX-Push-Url"] == "false"
        else:
            assert "<html" in content and "HX-Push-Url" not in response

    def test_two_invalid_filters_name_both(self, client, owner, research):
        client.force_login(owner)
        response = client.get(url(symbol="BTCUSD", verdict="amazing"))
        content = html.unescape(response.content.decode())
        assert response.status_code == 400
        assert "“symbol”: 'BTCUSD'" in content and "“verdict”: 'amazing'" in content

    def test_filters_that_match_nothing_say_so(self, client, owner, research):
        client.force_login(owner)
        content = client.get(url(verdict="overfit")).content.decode()
        assert experiment_ids(content) == []
        assert "No experiments match these filters." in content
        assert 'id="research-empty"' not in content

    def test_it_pages_fifty_experiments_at_a_time_keeping_the_filters(self, client, owner, db):
        for i in range(53):
            record(
                owner, f"exp_{i:03d}", T0 + dt.timedelta(hours=i), context_of(["RSI"], training_epochs=i + 1), {}, None
            )
        client.force_login(owner)
        content = client.get(url(indicator="RSI")).content.decode()
        ids = experiment_ids(content)
        assert (len(ids), ids[0], ids[-1]) == (50, "exp_052", "exp_003")
        assert "Experiments 1–50 of 53 matching the filters" in content
        assert 'href="/research/?indicator=RSI&amp;page=2" rel="next"' in content
        response = client.get(url(indicator="RSI", page=2), headers=HTMX)
        assert experiment_ids(response.content.decode()) == ["exp_002", "exp_001", "exp_000"]
        assert response["HX-Push-Url"] == "/research/?indicator=RSI&page=2"
        assert 'href="/research/?indicator=RSI" rel="prev"' in response.content.decode()

    def test_without_experiments_it_explains_how_agents_record_them(self, client, db):
        client.force_login(UserFactory(username="newcomer"))
        content = client.get(URL).content.decode()
        assert 'id="research-empty"' in content
        assert "<code>POST /api/v1/research/experiments/</code>" in content
        assert "<code>python manage.py import_research DIR --user newcomer</code>" in content
        assert 'id="experiment-filters"' not in content and 'id="experiments"' not in content
        assert 'id="hypotheses-empty"' in content and 'id="requests-empty"' in content

    @pytest.mark.parametrize("n_experiments", [3, 40])
    def test_it_reads_the_page_in_a_bounded_number_of_queries(
        self, client, owner, django_assert_max_num_queries, n_experiments
    ):
        for i in range(n_experiments):
            record(
                owner,
                f"exp_{i:03d}",
                T0 + dt.timedelta(hours=i),
                context_of(["RSI", "ADX"] if i % 2 else ["RSI"], timeframe=("1h", "4h")[i % 2], training_epochs=i + 1),
                results_of(0.6, 0.62),
                {
                    "verdict": "weak_signal",
                    "observations": [f"observation {i}"],
                    "hypotheses": [{"text": f"hypothesis {i}"}],
                    "capability_requests": [f"capability {i}"],
                },
                tests_hypotheses=[f"H_{i:03d}"] if i else [],
            )
        client.force_login(owner)
        with django_assert_max_num_queries(PAGE_MAX_QUERIES):
            content = client.get(URL).content.decode()
        assert len(experiment_ids(content)) == n_experiments
        assert sum(len(ids) for ids in board(content).values()) == n_experiments
        assert len(request_rows(content)) == n_experiments
        assert details_of(content, Experiment.objects.get(experiment_id="exp_001"))["tested"] == [
            "H_001 inconclusive hypothesis 0"
        ]
        with django_assert_max_num_queries(PARTIAL_MAX_QUERIES):
            response = client.get(url(timeframe="4h"), headers=HTMX)
        assert len(experiment_ids(response.content.decode())) == n_experiments // 2


class TestHypothesisBoard:
    def test_it_shows_a_column_per_status_with_the_hypotheses_in_id_order(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert board(content) == {
            "untested": ["H_002"],
            "testing": ["H_003"],
            "validated": ["H_001"],
            "refuted": [],
            "inconclusive": [],
        }
        assert "3 in all, by status" in content

    def test_each_card_has_its_text_source_experiment_and_tested_by(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert card(content, "H_001") == {
            "text": "Adding a complementary trend indicator might improve",
            "source": "exp_v15_rsi",
            "tested_by": "exp_rsi_di_4h",
        }
        assert card(content, "H_003") == {
            "text": "ADX might work as a trend filter when combined with RSI",
            "source": "exp_v15_adx",
            "tested_by": "—",
        }

    def test_a_hypothesis_tested_by_several_experiments_lists_them_in_order(self, client, owner, research):
        record(owner, "exp_retest", T0 + dt.timedelta(days=5), context_of(["RSI", "DI"], "1d"), {},
               {"verdict": "weak_signal"}, tests_hypotheses=["H_001"])  # fmt: skip
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert card(content, "H_001")["tested_by"] == "exp_rsi_di_4h , exp_retest"
        assert board(content)["inconclusive"] == ["H_001"]

    def test_it_escapes_hypothesis_text(self, client, owner, db):
        record(
            owner,
            "exp_x",
            T0,
            context_of(["RSI"]),
            {},
            {"verdict": "no_signal", "hypotheses": [{"text": "<b>bold</b> idea"}]},
        )
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert "<b>bold</b>" not in content
        assert "&lt;b&gt;bold&lt;/b&gt; idea" in content


class TestCapabilityRequests:
    def test_it_lists_the_requests_with_their_status_and_dates(self, client, owner, research):
        client.force_login(owner)
        content = client.get(URL).content.decode()
        assert [{k: v for k, v in row.items() if k != "status_html"} for row in request_rows(content)] == [
            {
                "id": "req_001",
                "capability": "5m data aligned with 1h bars",
                "requested_by": "exp_v15_rsi",
                "requested": "2025-12-27",
                "status": "pending",
                "implemented": "—",
            },
            {
                "id": "req_002",
                "capability": "LSTM architecture option",
                "requested_by": "exp_v15_adx",
                "requested": "2025-12-27",
                "status": "implemented",
                "implemented": "2026-01-05",
            },
        ]
        assert request_rows(content)[0]["status_html"] == '<span class="tag request-status-pending">pending</span>'

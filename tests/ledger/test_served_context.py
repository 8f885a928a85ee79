"""What the agent saw before opening a trade: the context GET (REST or MCP) records what it served, one row per
(deployment, as-of tick); the trade page shows the one served before the opening tick, byte for byte, or says
plainly that there is none."""

from __future__ import annotations

import datetime as dt
import html
import re
import threading

import pytest
from django.db import connection
from django.urls import reverse

from access import scope
from agentcontext.answers import context_answer
from ledger import services as ledger_services
from ledger.models import Deployment, ServedContext, TradeHistory
from memorysite.metrics import CONTEXT_RECORD_FAILURES
from tests.dbfaults import table_renamed
from tests.factories import DeploymentFactory

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
# Characters HTML must escape, and lines longer than a phone: the page shows them as served.
STRATEGY = 'Buy <b>breakouts</b> & "retests" of the range — hold while the 4h trend is up; ' + "x" * 120
BTC = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__strategy_text=STRATEGY)


def at(minutes: int) -> str:
    return (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")


def post_tick(api, deployment, minutes: int, positions=(), reason: str = "waiting") -> None:
    kind = "propose_order" if positions else "hold"
    action = {"kind": kind, "reason": reason, **({"symbol": "BTC"} if positions else {})}
    body = {
        "tick_at": at(minutes),
        "equity_usd": 10_000,
        "positions": list(positions),
        "proposed_action": action,
        "engine": {"kind": "executed"},
    }
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def get_context(api, deployment) -> dict:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200, response.content[:300]
    return response.json()


def trade_of(deployment) -> TradeHistory:
    ledger_services.materialize_pending(deployment_id=deployment.pk)
    return TradeHistory.objects.get(deployment=deployment)


def trade_url(trade) -> str:
    return reverse("deployment-trade", args=[trade.deployment_id, trade.pk])


def pre_text(page: str, element_id: str) -> str:
    """The text of `<pre id=...>` as the browser reads it (entities decoded)."""
    match = re.search(rf'<pre [^>]*id="{element_id}">(.*?)</pre>', page, re.DOTALL)
    assert match, element_id
    return html.unescape(match.group(1))


def rows(deployment) -> list[tuple]:
    return list(
        ServedContext.objects.filter(deployment=deployment)
        .order_by("as_of_tick_at")
        .values_list("as_of_tick_at", "owner_id")
    )


class TestRecorded:
    def test_a_rest_get_records_what_it_served_as_of_the_latest_tick(self, owner, owner_api, deployment):
        before_any = get_context(owner_api, deployment)
        post_tick(owner_api, deployment, 0)
        served = get_context(owner_api, deployment)
        assert rows(deployment) == [(T0, owner.pk), (None, owner.pk)]  # nulls sort last
        record = ServedContext.objects.get(deployment=deployment, as_of_tick_at=T0)
        assert record.memory_text == served["text"] and "## Last decision" in record.memory_text
        assert record.system_prompt_text == served["system_prompt"]["text"] and STRATEGY in record.system_prompt_text
        assert record.degraded == [] and record.served_at.tzinfo is not None
        first = ServedContext.objects.get(deployment=deployment, as_of_tick_at__isnull=True)
        assert first.memory_text == before_any["text"]

    def test_a_second_read_with_the_same_as_of_updates_its_one_row(self, owner, owner_api, deployment):
        post_tick(owner_api, deployment, 0)
        get_context(owner_api, deployment)
        first = ServedContext.objects.get(deployment=deployment)
        get_context(owner_api, deployment)
        get_context(owner_api, deployment)  # before any tick's row: none, the as-of is the tick
        again = ServedContext.objects.get(deployment=deployment)
        assert again.pk == first.pk and again.served_at > first.served_at
        # The same statement with other text (the runner's latest read is the one the agent acted on): replaced.
        ledger_services.served_context_record(
            deployment=Deployment.objects.get(pk=deployment.pk),
            memory_text="later",
            system_prompt_text="prompt",
            degraded=["manual"],
            served_at=again.served_at + dt.timedelta(seconds=1),
        )
        replaced = ServedContext.objects.get(deployment=deployment)
        assert (replaced.pk, replaced.memory_text, replaced.degraded) == (first.pk, "later", ["manual"])

    def test_the_upsert_is_one_statement(self, owner, deployment):
        with scope.owner_scope(owner):
            from django.test.utils import CaptureQueriesContext

            with CaptureQueriesContext(connection) as captured:
                ledger_services.served_context_record(
                    deployment=deployment, memory_text="m", system_prompt_text="p", degraded=[], served_at=T0
                )
        writes = [q["sql"] for q in captured.captured_queries if "SAVEPOINT" not in q["sql"]]
        assert len(writes) == 1 and writes[0].startswith('INSERT INTO "served_contexts"'), writes
        assert "ON CONFLICT" in writes[0] and "DO UPDATE" in writes[0]

    def test_the_mcp_tool_records_too(self, owner, owner_api, deployment):
        from mcpserver import tools

        post_tick(owner_api, deployment, 0)
        principal = tools.Principal(user=owner, request_thread=threading.get_ident())  # as over HTTP
        with scope.owner_scope(owner):
            outcome = tools.call_tool(principal, "get_trading_context", {"deployment_id": deployment.pk})
        assert not outcome.is_error, outcome.body
        record = ServedContext.objects.get(deployment=deployment)
        assert (record.as_of_tick_at, record.memory_text) == (T0, outcome.body["text"])
        assert record.system_prompt_text == outcome.body["system_prompt"]["text"]

    def test_the_preview_page_records_nothing(self, client, owner, owner_api, deployment):
        post_tick(owner_api, deployment, 0)
        client.force_login(owner)
        response = client.get(reverse("deployment-preview", args=[deployment.pk]))
        assert response.status_code == 200
        assert not ServedContext.objects.filter(deployment=deployment).exists()

    def test_another_traders_rows_are_invisible_under_row_security(self, owner, other, owner_api, deployment):
        post_tick(owner_api, deployment, 0)
        get_context(owner_api, deployment)
        with scope.owner_scope(other):
            assert ServedContext.objects.count() == 0  # no owned_by(): the row policy alone
            assert ServedContext.objects.filter(deployment=deployment).delete()[0] == 0
        with scope.owner_scope(owner):
            assert ServedContext.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_failed_record_is_logged_and_counted_and_the_context_is_served(owner, owner_api, deployment, caplog):
    post_tick(owner_api, deployment, 0)
    complete = get_context(owner_api, deployment)
    failures = CONTEXT_RECORD_FAILURES._value.get()
    with table_renamed("served_contexts"):
        answer = get_context(owner_api, deployment)
    assert answer == complete  # served whole, the request's transaction intact
    assert CONTEXT_RECORD_FAILURES._value.get() == failures + 1
    assert f"served context not recorded for deployment {deployment.pk}: UndefinedTable" in caplog.text
    # and the next one is recorded again
    get_context(owner_api, deployment)
    assert ServedContext.objects.filter(deployment=deployment).count() == 1


class TestTradePage:
    def test_it_shows_the_context_served_before_the_opening_tick_byte_for_byte(
        self, client, owner, owner_api, deployment
    ):
        post_tick(owner_api, deployment, 0)
        before_entry = get_context(owner_api, deployment)  # the agent reads, decides to buy, the runner posts
        post_tick(owner_api, deployment, 1, [BTC], reason="breakout")
        after_entry = get_context(owner_api, deployment)  # the next read: the open position is in it
        assert after_entry["text"] != before_entry["text"] and "## Open positions" in after_entry["text"]
        trade = trade_of(deployment)

        client.force_login(owner)
        page = client.get(trade_url(trade)).content.decode()
        assert "What the agent saw before opening this trade" in page
        assert pre_text(page, "served-memory") == before_entry["text"]
        assert pre_text(page, "served-system-prompt") == before_entry["system_prompt"]["text"]
        assert "<b>breakouts</b>" not in page and html.escape(STRATEGY) in page
        assert '<dd id="served-as-of">2026-06-04 10:00:00 UTC' in page
        assert 'id="served-missing"' not in page and 'id="served-degraded"' not in page

    def test_a_context_read_before_the_first_tick_is_the_one_before_a_first_tick_that_opens(
        self, client, owner, owner_api, deployment
    ):
        served = get_context(owner_api, deployment)
        post_tick(owner_api, deployment, 0, [BTC])
        trade = trade_of(deployment)
        client.force_login(owner)
        page = client.get(trade_url(trade)).content.decode()
        assert '<dd id="served-as-of">before the deployment\'s first tick</dd>' in page
        assert pre_text(page, "served-system-prompt") == served["system_prompt"]["text"]

    def test_without_a_read_before_the_opening_tick_it_says_so_in_one_sentence(
        self, client, owner, owner_api, deployment
    ):
        post_tick(owner_api, deployment, 0)
        get_context(owner_api, deployment)  # read before tick 1, not before tick 2
        post_tick(owner_api, deployment, 1)
        post_tick(owner_api, deployment, 2, [BTC])
        get_context(owner_api, deployment)  # after the opening tick: another tick's context
        trade = trade_of(deployment)
        client.force_login(owner)
        page = client.get(trade_url(trade)).content.decode()
        assert '<p class="empty" id="served-missing">No record of the context the agent read before' in page
        assert 'id="served-memory"' not in page and 'id="served-system-prompt"' not in page

    def test_a_record_written_after_the_opening_tick_was_posted_is_not_shown(
        self, client, owner, owner_api, deployment
    ):
        post_tick(owner_api, deployment, 0)
        read_before_the_tick = Deployment.objects.get(pk=deployment.pk)  # a request that began before tick 1 …
        post_tick(owner_api, deployment, 1, [BTC])
        with scope.owner_scope(owner):
            context_answer(deployment=read_before_the_tick)  # … and recorded after it was posted
        record = ServedContext.objects.get(deployment=deployment)
        assert record.as_of_tick_at == T0
        trade = trade_of(deployment)
        assert record.served_at > trade.entry_snapshot.created_at
        client.force_login(owner)
        page = client.get(trade_url(trade)).content.decode()
        assert 'id="served-missing"' in page and 'id="served-memory"' not in page

    def test_degraded_sections_are_named(self, client, owner, owner_api, deployment):
        post_tick(owner_api, deployment, 0)
        with scope.owner_scope(owner):
            ledger_services.served_context_record(
                deployment=Deployment.objects.get(pk=deployment.pk),
                memory_text="",
                system_prompt_text="the prompt",
                degraded=["last_decision", "recent_activity"],
                served_at=dt.datetime.now(dt.UTC),
            )
        post_tick(owner_api, deployment, 1, [BTC])
        trade = trade_of(deployment)
        client.force_login(owner)
        page = client.get(trade_url(trade)).content.decode()
        assert '<span class="tag degraded">last_decision, recent_activity</span>' in page
        assert '<p class="muted" id="served-memory">(empty: every memory section was null)</p>' in page

    def test_another_traders_trade_is_a_404(self, client, other, owner_api, deployment):
        post_tick(owner_api, deployment, 0)
        get_context(owner_api, deployment)
        post_tick(owner_api, deployment, 1, [BTC])
        trade = trade_of(deployment)
        client.force_login(other)
        assert client.get(trade_url(trade)).status_code == 404

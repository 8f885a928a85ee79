"""Staff admin of market events, bars and user facts (facts: read-only but for archive/un-archive)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse
from django.utils import timezone

from chatmemory import services
from chatmemory.models import ArchivedReason, Bar, FactSource, MarketEvent


@pytest.fixture
def market(db):
    now = timezone.now()
    MarketEvent.objects.create(
        kind="cpi", title="US CPI May", symbols=[], scheduled_at=now + dt.timedelta(days=2), importance=Decimal("0.9")
    )
    MarketEvent.objects.create(
        kind="token_unlock",
        title="ARB unlock",
        symbols=["ARB", "ETH"],
        scheduled_at=now - dt.timedelta(days=3),
        importance=Decimal("0.45"),
    )
    for symbol, timeframe in (("BTC", "5m"), ("BTC", "1h"), ("ETH", "5m")):
        Bar.objects.create(
            symbol=symbol,
            timeframe=timeframe,
            ts=dt.datetime(2026, 6, 4, 12, tzinfo=dt.UTC),
            open=100,
            high=101,
            low=99,
            close=100,
        )


@pytest.fixture
def facts(owner, other):
    mine = services.fact_create(owner=owner, fact="Never trades alts.", source=FactSource.CHAT, topic="symbols")
    theirs = services.fact_create(owner=other, fact="Prefers US morning sessions.", source=FactSource.PROFILE)
    gone = services.fact_create(owner=owner, fact="Uses 10x leverage.", source=FactSource.INFERRED)
    services.fact_archive(fact=gone, reason=ArchivedReason.USER_CORRECTED)
    return mine, theirs, gone


def count(client, name: str, **params) -> int:
    response = client.get(reverse(f"admin:chatmemory_{name}_changelist"), params)
    assert response.status_code == 200
    return response.context["cl"].result_count


def test_market_events_filter_and_search(staff_client, market):
    assert count(staff_client, "marketevent") == 2
    assert count(staff_client, "marketevent", kind__exact="cpi") == 1
    assert count(staff_client, "marketevent", importance_band="high") == 1
    assert count(staff_client, "marketevent", importance_band="low") == 1
    assert count(staff_client, "marketevent", when="upcoming") == 1
    assert count(staff_client, "marketevent", when="past") == 1
    assert count(staff_client, "marketevent", q="cpi may") == 1
    assert count(staff_client, "marketevent", q="eth") == 1  # by symbol
    page = staff_client.get(reverse("admin:chatmemory_marketevent_changelist")).content.decode()
    assert "market-wide" in page and "ARB, ETH" in page


def test_market_event_pages_render(staff_client, market):
    event = MarketEvent.objects.get(kind="cpi")
    assert staff_client.get(reverse("admin:chatmemory_marketevent_change", args=[event.pk])).status_code == 200
    assert staff_client.get(reverse("admin:chatmemory_marketevent_add")).status_code == 200


def test_bars_filter_and_are_read_only(staff_client, market):
    assert count(staff_client, "bar") == 3
    assert count(staff_client, "bar", symbol="BTC") == 2
    assert count(staff_client, "bar", timeframe__exact="5m") == 2
    assert count(staff_client, "bar", ts__year="2026") == 3
    bar = Bar.objects.first()
    response = staff_client.get(reverse("admin:chatmemory_bar_change", args=[bar.pk]))
    assert response.status_code == 200
    assert b'name="close"' not in response.content  # a view, not a form
    assert staff_client.get(reverse("admin:chatmemory_bar_add")).status_code == 403


def test_facts_filter_and_search(staff_client, facts):
    assert count(staff_client, "userfact") == 3
    assert count(staff_client, "userfact", source__exact="profile") == 1
    assert count(staff_client, "userfact", confidence__exact="inferred") == 3
    assert count(staff_client, "userfact", archived="yes") == 1
    assert count(staff_client, "userfact", archived="no") == 2
    assert count(staff_client, "userfact", q="other") == 1  # by owner username
    assert count(staff_client, "userfact", q="alts") == 1


def test_staff_cannot_edit_add_or_delete_facts(staff_client, facts):
    mine = facts[0]
    url = reverse("admin:chatmemory_userfact_change", args=[mine.pk])
    response = staff_client.get(url)
    assert response.status_code == 200
    assert b'name="fact"' not in response.content
    staff_client.post(url, {"fact": "Trades everything.", "source": "chat", "confidence": "asserted"})
    mine.refresh_from_db()
    assert mine.fact == "Never trades alts."
    assert staff_client.get(reverse("admin:chatmemory_userfact_add")).status_code == 403
    assert staff_client.get(reverse("admin:chatmemory_userfact_delete", args=[mine.pk])).status_code == 403


def test_archive_and_unarchive_actions_go_through_services_and_are_logged(staff_client, facts):
    mine, theirs, gone = facts
    url = reverse("admin:chatmemory_userfact_changelist")
    response = staff_client.post(
        url, {"action": "archive", "_selected_action": [str(mine.pk), str(gone.pk)]}, follow=True
    )
    assert response.status_code == 200
    mine.refresh_from_db()
    gone.refresh_from_db()
    assert mine.archived_at is not None and mine.archived_reason == ArchivedReason.USER_DELETED
    assert gone.archived_reason == ArchivedReason.USER_CORRECTED  # already archived: left as it was
    shown = [str(message) for message in response.context["messages"]]
    assert any("already archived" in message for message in shown)
    assert LogEntry.objects.filter(object_id=str(mine.pk), change_message__contains="archived by staff").exists()
    assert not LogEntry.objects.filter(object_id=str(gone.pk)).exists()

    staff_client.post(url, {"action": "unarchive", "_selected_action": [str(mine.pk)]})
    mine.refresh_from_db()
    assert mine.archived_at is None and mine.archived_reason is None
    theirs.refresh_from_db()
    assert theirs.archived_at is None
    assert LogEntry.objects.filter(object_id=str(mine.pk), change_message="un-archived by staff").exists()


def test_a_trader_cannot_enter_the_market_admin(client, owner):
    client.force_login(owner)
    response = client.get(reverse("admin:chatmemory_userfact_changelist"))
    assert response.status_code == 302

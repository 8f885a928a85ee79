"""The home page's per-deployment status: last tick, whether the runner looks alive, today's PnL and drawdown."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from ledger.models import DecisionSnapshot, DeploymentStatus
from tests.factories import DeploymentFactory


def iso(moment: dt.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def post_tick(api, deployment, tick_at: dt.datetime, equity: float, positions=(), **extra) -> None:
    body = {"tick_at": iso(tick_at), "equity_usd": equity, "positions": list(positions), **extra}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def cell(content: str, deployment, column: str) -> str:
    row = re.search(rf'<tr id="deployment-{deployment.pk}">(.*?)</tr>', content, re.S).group(1)
    found = re.search(rf'<td[^>]*data-col="{column}"[^>]*>(.*?)</td>', row, re.S).group(1)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", found)).strip()


def today_moments(count: int) -> list[dt.datetime]:
    """`count` moments of today (UTC), in order, all in the past."""
    now = timezone.now()
    day_start = now.replace(hour=0, minute=0, second=0, microsecond=0)
    span = now - day_start
    return [day_start + span * (i + 1) / (count + 1) for i in range(count)]


@pytest.fixture
def deployment(owner):
    return DeploymentFactory(skill_version__skill__owner=owner, skill_version__skill__name="Breakout BTC")


def receipt_times(deployment, *, minutes_apart: int, last_ago: int) -> None:
    """Pretend the runner posted its ticks `minutes_apart` apart, the last `last_ago` minutes ago."""
    last = timezone.now() - dt.timedelta(minutes=last_ago)
    snapshots = DecisionSnapshot.objects.filter(deployment=deployment).order_by("-tick_at")
    for i, snapshot in enumerate(snapshots):
        DecisionSnapshot.objects.filter(pk=snapshot.pk).update(
            created_at=last - dt.timedelta(minutes=minutes_apart * i)
        )


def test_a_deployment_without_ticks_says_so(client, owner, deployment):
    client.force_login(owner)
    content = client.get(reverse("home")).content.decode()
    assert cell(content, deployment, "runner").startswith("no ticks yet")
    assert cell(content, deployment, "last-tick") == "—"
    assert cell(content, deployment, "today-pnl") == "none closed"
    assert 'id="runner-rule"' in content
    assert "within 3× its usual interval" in content


def test_a_runner_ticking_on_time_is_alive_and_today_is_summed(client, owner, owner_api, deployment):
    t1, t2, t3, t4 = today_moments(4)
    position = {"symbol": "BTC", "side": "long", "size": 1, "mark_price": 100}
    post_tick(owner_api, deployment, t1, 10_000, [position])
    post_tick(owner_api, deployment, t2, 10_500, [], marks={"BTC": 112})  # +12 realized today
    post_tick(owner_api, deployment, t3, 10_200, [{**position, "mark_price": 50}])
    post_tick(owner_api, deployment, t4, 9_975, [], marks={"BTC": 47})  # −3: +9 today, 2 closed
    receipt_times(deployment, minutes_apart=5, last_ago=2)
    client.force_login(owner)
    content = client.get(reverse("home")).content.decode()
    assert cell(content, deployment, "last-tick") == t4.strftime("%Y-%m-%d %H:%M")
    assert cell(content, deployment, "runner") == "alive 2 min ago · every 5 min"
    assert 'title="Last tick received 2 min ago; usually every 5 min."' in content
    assert cell(content, deployment, "today-pnl") == "$9.00 2 closed"
    assert cell(content, deployment, "drawdown") == "5.00%"  # 9,975 below the 10,500 peak


def test_a_runner_silent_for_three_intervals_is_quiet(client, owner, owner_api, deployment):
    for moment in today_moments(3):
        post_tick(owner_api, deployment, moment, 10_000)
    receipt_times(deployment, minutes_apart=5, last_ago=16)
    client.force_login(owner)
    content = client.get(reverse("home")).content.decode()
    assert cell(content, deployment, "runner") == "quiet silent 16 min · every 5 min"
    assert 'title="No tick for 16 min, more than 15 min (3 × its usual 5 min)."' in content
    assert cell(content, deployment, "drawdown") == "0.00%"


def test_a_paused_deployment_is_shown_paused_and_its_runner_judged_as_a_running_ones(
    client, owner, owner_api, deployment
):
    """Pause tells the agent to open nothing new; the runner keeps posting ticks (the ledger follows the account),
    so a runner silent for 3 days is quiet whether the deployment is paused or not."""
    post_tick(owner_api, deployment, timezone.now() - dt.timedelta(days=3), 10_000)
    receipt_times(deployment, minutes_apart=5, last_ago=3 * 24 * 60)
    deployment.status = DeploymentStatus.STOPPED
    deployment.save(update_fields=["status"])
    client.force_login(owner)
    content = client.get(reverse("home")).content.decode()
    assert cell(content, deployment, "runner") == "quiet silent 3 d · 1 tick so far"
    assert 'title="status in the API: stopped">paused</span>' in content
    assert cell(content, deployment, "drawdown") == "—"  # no tick today


def test_a_backtest_with_old_tick_times_is_judged_by_when_it_posts(client, owner, owner_api, deployment):
    start = dt.datetime(2025, 1, 6, tzinfo=dt.UTC)
    for i in range(5):
        post_tick(owner_api, deployment, start + dt.timedelta(minutes=5 * i), 10_000)
    client.force_login(owner)
    content = client.get(reverse("home")).content.decode()
    assert cell(content, deployment, "last-tick") == "2025-01-06 00:20"
    assert cell(content, deployment, "runner").startswith("alive ")
    assert cell(content, deployment, "today-pnl") == "none closed"


def test_the_page_reads_a_bounded_number_of_queries(client, owner, owner_api, django_assert_max_num_queries):
    deployments = [DeploymentFactory(skill_version__skill__owner=owner) for _ in range(5)]
    for deployment in deployments:
        for moment in today_moments(3):
            post_tick(owner_api, deployment, moment, 10_000)
    client.force_login(owner)
    assert client.get(reverse("home")).status_code == 200  # catches the ledgers up first
    # session, user, deployments, latest ticks, today's PnL, today's peaks
    with django_assert_max_num_queries(6):
        assert client.get(reverse("home")).status_code == 200


def test_it_shows_nothing_of_another_traders_deployments(client, other, owner_api, deployment):
    post_tick(owner_api, deployment, today_moments(1)[0], 10_000)
    client.force_login(other)
    content = client.get(reverse("home")).content.decode()
    assert f'id="deployment-{deployment.pk}"' not in content

"""The password-guessing brake on the token endpoint and the login form (issue 16 §3).

Failures are counted on the real Redis; the brake's clock is moved instead of sleeping through its waits."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import services
from accounts.brake import Rule, refusal
from tests.errors import error_body
from tests.factories import PASSWORD, UserFactory

TOKEN = "/api/v1/auth/token/"
LOCKED = "login locked: 10 failed attempts for this username; try again in 15 minutes or ask staff to unlock it"


class Clock:
    def __init__(self):
        self.now = 1_900_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(services, "clock", clock)
    return clock


@pytest.fixture
def trader(db):
    return UserFactory(username="guessed")


def exchange(client, username: str, password: str):
    return client.post(TOKEN, {"username": username, "password": password}, format="json")


def fail(client, clock: Clock, username: str, times: int, *, step: float = 61.0) -> None:
    """`times` wrong passwords, each after the previous one's wait (at most 60 s) is over."""
    for _ in range(times):
        clock.now += step
        assert exchange(client, username, "wrong").status_code == 400


# -- the rules (pure) ---------------------------------------------------------------------------------------


def test_it_waits_longer_after_each_failure_then_locks():
    rule = Rule(subject="username", slow_after=5, lock_after=10, lock_seconds=900)
    waits = [rule.wait(failures, last_failure_at=100.0, now=100.0) for failures in range(12)]
    assert waits == [0, 0, 0, 0, 0, 1, 2, 4, 8, 16, 900, 900]
    assert rule.wait(10, last_failure_at=100.0, now=999.0) == 1.0
    assert rule.wait(10, last_failure_at=100.0, now=1000.0) == 0


def test_it_refuses_on_the_longest_wait_of_its_subjects():
    username = Rule(subject="username", slow_after=5, lock_after=10, lock_seconds=900)
    client = Rule(subject="client", slow_after=20, lock_after=50, lock_seconds=900)
    refused = refusal([(username, 6, 100.0), (client, 50, 90.0)], now=100.5)
    assert (refused.rule, refused.wait_seconds, refused.locked) == (client, 890, True)
    assert refusal([(username, 4, 100.0), (client, 19, 100.0)], now=100.0) is None


# -- the token endpoint ------------------------------------------------------------------------------------


def test_it_slows_down_a_guesser_with_a_429_and_retry_after(anon_api, trader, clock):
    fail(anon_api, clock, "guessed", 5)
    response = exchange(anon_api, "guessed", "wrong")
    assert response.status_code == 429
    assert response["Retry-After"] == "1"
    assert error_body(response) == {
        "detail": "login slowed down: 5 failed attempts for this username; wait 1 second before the next attempt"
    }
    clock.now += 1
    assert exchange(anon_api, "guessed", "wrong").status_code == 400  # waited: checked (and counted) again


def test_it_locks_the_token_endpoint_after_ten_failures_even_for_the_right_password(anon_api, trader, clock):
    fail(anon_api, clock, "guessed", 10)
    response = exchange(anon_api, "guessed", PASSWORD)
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert error_body(response) == {"detail": LOCKED}
    clock.now += 899
    assert exchange(anon_api, "guessed", PASSWORD).status_code == 429
    clock.now += 1
    assert exchange(anon_api, "guessed", PASSWORD).status_code == 200  # the lock is over


def test_another_username_from_the_same_client_is_not_locked(anon_api, trader, clock):
    UserFactory(username="neighbour")
    fail(anon_api, clock, "guessed", 10)
    assert exchange(anon_api, "guessed", PASSWORD).status_code == 429
    assert exchange(anon_api, "neighbour", PASSWORD).status_code == 200


def test_a_client_guessing_many_usernames_is_locked_at_a_higher_bar(anon_api, trader, clock):
    for n in range(50):
        clock.now += 61
        assert exchange(anon_api, f"nobody{n}", "wrong").status_code == 400
    response = exchange(anon_api, "guessed", PASSWORD)
    assert response.status_code == 429
    assert response.json()["detail"].startswith("login locked: 50 failed attempts for your client (network address)")
    other_client = APIClient(REMOTE_ADDR="10.0.0.9")
    assert exchange(other_client, "guessed", PASSWORD).status_code == 200


def test_a_success_forgets_the_usernames_failures(anon_api, trader, clock):
    fail(anon_api, clock, "guessed", 4)
    assert exchange(anon_api, "guessed", PASSWORD).status_code == 200
    fail(anon_api, clock, "guessed", 4)
    clock.now += 61
    assert exchange(anon_api, "guessed", "wrong").status_code == 400  # 5th failure since the success, not 9th


# -- the login form and staff's unlock ---------------------------------------------------------------------


def log_in(client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_the_login_page_says_the_account_is_locked_and_for_how_long(trader, clock):
    browser = Client()
    for _ in range(10):
        clock.now += 61
        response = log_in(browser, "guessed", "wrong")
        assert response.status_code == 200
        assert "Please enter a correct username and password" in response.content.decode()
    response = log_in(browser, "guessed", PASSWORD)
    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assert LOCKED in response.content.decode()
    assert "_auth_user_id" not in browser.session


def test_staff_unlock_a_username_in_admin(anon_api, trader, clock):
    fail(anon_api, clock, "guessed", 10)
    staff = UserFactory(username="curator", is_staff=True, is_superuser=True)
    admin = Client()
    admin.force_login(staff)
    changelist = reverse("admin:auth_user_changelist")
    assert LOCKED in admin.get(changelist).content.decode()  # the column shows it

    response = admin.post(changelist, {"action": "unlock_login", "_selected_action": [trader.pk]}, follow=True)
    assert response.status_code == 200
    assert "Unlocked 1 username(s)." in response.content.decode()
    assert log_in(Client(), "guessed", PASSWORD).status_code == 302  # logged in


def test_the_admin_login_is_braked_too(trader, clock):
    UserFactory(username="boss", is_staff=True)
    admin = Client()
    for _ in range(10):
        clock.now += 61
        admin.post(reverse("admin:login"), {"username": "boss", "password": "wrong"})
    response = admin.post(reverse("admin:login"), {"username": "boss", "password": PASSWORD})
    assert LOCKED in response.content.decode()
    assert "_auth_user_id" not in admin.session


@override_settings(AUTH_CLIENT_IP_HEADER="X-Real-IP")
def test_behind_a_proxy_the_client_is_the_address_in_its_header(trader, clock):
    guesser, trader_browser = APIClient(HTTP_X_REAL_IP="203.0.113.7"), APIClient(HTTP_X_REAL_IP="198.51.100.2")
    for n in range(50):
        clock.now += 61
        exchange(guesser, f"nobody{n}", "wrong")
    assert exchange(guesser, "guessed", PASSWORD).status_code == 429
    assert exchange(trader_browser, "guessed", PASSWORD).status_code == 200  # same REMOTE_ADDR, another client


def test_guesses_sent_at_once_are_checked_one_at_a_time(anon_api, trader, clock, monkeypatch):
    """A burst of guesses sent together must not all be checked before the first failure is counted
    (the walk-through's 40 parallel guesses had 10 checked with no wait). While one attempt for a
    username is being checked, another is refused like a slowed-down one; the turn ends with it."""
    barrier = threading.Barrier(2, timeout=10)
    checking = services.authenticate

    def slow_check(*args, **kwargs):  # the real check, held until the second attempt has arrived
        barrier.wait()
        barrier.wait()
        return checking(*args, **kwargs)

    answers = {}

    def first():
        try:
            answers["first"] = exchange(APIClient(), "guessed", "wrong").status_code
        finally:
            connection.close()  # this thread's own connection

    monkeypatch.setattr(services, "authenticate", slow_check)
    worker = threading.Thread(target=first)
    worker.start()
    barrier.wait()  # the first attempt is inside its password check
    second = exchange(anon_api, "guessed", PASSWORD)  # even the right password waits its turn
    barrier.wait()
    worker.join(timeout=10)
    monkeypatch.undo()
    assert (second.status_code, second["Retry-After"]) == (429, "1")
    assert second.json()["detail"].startswith("login slowed down: 0 failed attempts for this username")
    assert answers == {"first": 400}
    assert exchange(anon_api, "guessed", PASSWORD).status_code == 200  # the turn was given back

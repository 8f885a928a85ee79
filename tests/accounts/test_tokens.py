"""Account tokens (issue 16 §4): listed, named, last used, revocable, optionally expiring, revoked with the
password; DRF's former keys keep working."""

from __future__ import annotations

import datetime as dt
import types

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from access.keys import key_hash
from accounts.models import AccountToken
from memorysite.api import NO_CREDENTIALS
from tests.errors import error_body
from tests.factories import PASSWORD, DeploymentFactory, UserFactory, account_key

TOKENS = "/api/v1/auth/tokens/"


def api_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_it_creates_a_named_token_shown_once_and_lists_it_without_its_key(owner_api, owner):
    response = owner_api.post(TOKENS, {"name": "backtest notebook"}, format="json")
    assert response.status_code == 201
    created = response.json()
    assert created["name"] == "backtest notebook"
    assert created["key"].startswith("at_") and created["key"][:8] == created["key_prefix"]
    assert AccountToken.objects.get(pk=created["id"]).key_hash == key_hash(created["key"])

    listed = owner_api.get(TOKENS).json()
    assert listed["count"] == 2  # the client's own token and the new one
    row = next(row for row in listed["results"] if row["id"] == created["id"])
    assert row == {
        "id": created["id"],
        "name": "backtest notebook",
        "key_prefix": created["key_prefix"],
        "created_at": created["created_at"],
        "last_used_at": None,
        "expires_at": None,
        "revoked_at": None,
    }
    assert api_with(created["key"]).get("/api/v1/skills/").status_code == 200
    row = next(row for row in owner_api.get(TOKENS).json()["results"] if row["id"] == created["id"])
    assert row["last_used_at"] is not None


def test_it_lists_only_the_traders_own_tokens(owner_api, other):
    account_key(other, name="theirs")
    names = [row["name"] for row in owner_api.get(TOKENS).json()["results"]]
    assert names == ["tests"]


def test_a_revoked_token_is_a_401_at_once_and_stays_listed(owner_api, owner):
    created = owner_api.post(TOKENS, {"name": "laptop"}, format="json").json()
    laptop = api_with(created["key"])
    assert owner_api.delete(f"{TOKENS}{created['id']}/").status_code == 204
    response = laptop.get("/api/v1/skills/")
    assert response.status_code == 401
    assert response.json()["detail"].startswith("token revoked at ")
    assert AccountToken.objects.get(pk=created["id"]).revoked_at is not None
    assert owner_api.delete(f"{TOKENS}{created['id']}/").status_code == 204  # again: nothing changes


def test_another_traders_token_is_a_404(owner_api, other):
    theirs = AccountToken.objects.get(key_hash=key_hash(account_key(other)))
    response = owner_api.delete(f"{TOKENS}{theirs.pk}/")
    assert (response.status_code, error_body(response)) == (404, {"detail": "Not found."})
    assert AccountToken.objects.get(pk=theirs.pk).revoked_at is None


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        (None, NO_CREDENTIALS),
        ("at_0123456789abcdef", "Authorization header must read `Token <key>`: the `Token ` prefix is missing"),
        (
            "Bearer at_0123",
            "Authorization header must read `Token <key>`: got the scheme `Bearer`; send `Token`, "
            "a space, then the key",
        ),
        ("Token", "Authorization header must read `Token <key>`: no key"),
        ("Token at_01 23", "Authorization header must read `Token <key>`: the key must not contain spaces"),
        ("Token at_" + "0" * 40, "unknown token: no account or runner token has this key"),
        ("Token rt_" + "0" * 40, "unknown runner token: no runner token has this key"),
    ],
)
def test_a_401_says_what_was_wrong_with_the_authorization_header(header, detail, db):
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/skills/")
    assert (response.status_code, error_body(response)) == (401, {"detail": detail})
    assert response["WWW-Authenticate"] == "Token"


def test_an_expired_token_is_a_401_saying_so(owner_api):
    expires_at = timezone.now() + dt.timedelta(hours=1)
    body = {"name": "one hour", "expires_at": expires_at.isoformat()}
    created = owner_api.post(TOKENS, body, format="json").json()
    assert api_with(created["key"]).get("/api/v1/skills/").status_code == 200
    AccountToken.objects.filter(pk=created["id"]).update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    response = api_with(created["key"]).get("/api/v1/skills/")
    assert response.status_code == 401
    assert response.json()["detail"].startswith("token expired at ")
    assert response.json()["detail"].endswith("create a new one (API tokens page or POST /api/v1/auth/tokens/)")


def test_an_expiry_in_the_past_is_a_400_naming_the_field(owner_api):
    before = AccountToken.objects.count()
    body = {"name": "late", "expires_at": "2020-01-01T00:00:00Z"}
    response = owner_api.post(TOKENS, body, format="json")
    assert response.status_code == 400
    assert response.json()["errors"] == {"expires_at": ["must be in the future"]}
    assert AccountToken.objects.count() == before


def test_the_password_exchange_can_set_an_expiry(anon_api, owner):
    expires_at = (timezone.now() + dt.timedelta(days=7)).replace(microsecond=0)
    body = {"username": "owner", "password": PASSWORD, "name": "ci", "expires_at": expires_at.isoformat()}
    key = anon_api.post("/api/v1/auth/token/", body, format="json").json()["token"]
    token = AccountToken.objects.get(key_hash=key_hash(key))
    assert (token.name, token.expires_at) == ("ci", expires_at)


def test_changing_the_password_revokes_every_account_token_but_not_runner_tokens(owner):
    keys = [account_key(owner, name=name) for name in ("laptop", "server")]
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    runner = api_with(account_key(owner)).post(
        f"/api/v1/deployments/{deployment.pk}/runner-tokens/", {"name": "vps"}, format="json"
    )
    runner_key = runner.json()["key"]
    browser = Client()
    browser.force_login(owner)
    new_password = "a brand new passphrase 42"
    body = {"old_password": PASSWORD, "new_password1": new_password, "new_password2": new_password}
    response = browser.post(reverse("password-change"), body, follow=True)
    assert response.redirect_chain[-1][0] == reverse("account-tokens")
    assert "Password changed. 3 account tokens were revoked" in response.content.decode()
    for key in keys:
        assert api_with(key).get("/api/v1/skills/").status_code == 401
    assert not AccountToken.objects.filter(owner=owner, revoked_at__isnull=True).exists()
    assert api_with(runner_key).get(f"/api/v1/deployments/{deployment.pk}/trades/").status_code == 200
    assert browser.get(reverse("account-tokens")).status_code == 200  # still logged in here
    exchanged = APIClient().post("/api/v1/auth/token/", {"username": "owner", "password": new_password}, format="json")
    assert exchanged.json()["token"] not in keys


def test_the_tokens_page_creates_and_revokes(owner):
    browser = Client()
    browser.force_login(owner)
    response = browser.post(reverse("account-tokens"), {"name": "notebook", "expires_at": "2099-01-01T12:00"})
    assert (response.status_code, response["Location"]) == (302, reverse("account-tokens"))  # post/redirect/get
    token = AccountToken.objects.get(owner=owner)
    assert (token.name, token.expires_at) == ("notebook", dt.datetime(2099, 1, 1, 12, tzinfo=dt.UTC))
    shown = browser.get(reverse("account-tokens")).content.decode()
    key = shown.split('id="new-account-token-key">')[1].split("<")[0]
    assert key.startswith(token.key_prefix) and len(key) > 40
    again = browser.get(reverse("account-tokens")).content.decode()  # a reload: no key, no second token
    assert key not in again and token.key_prefix in again
    assert AccountToken.objects.filter(owner=owner).count() == 1
    response = browser.post(reverse("account-token-revoke", args=[token.pk]))
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"name": ""}, "name: must not be blank"),
        ({"name": "x", "expires_at": "tomorrow"}, "expires_at: must be a date and time"),
        ({"name": "x", "expires_at": "2020-01-01T00:00"}, "expires_at: must be in the future"),
        ({"name": "a\u202eb"}, "name: must be one line without control characters"),
    ],
)
def test_the_tokens_page_refuses_bad_input_with_a_400(owner, form, message):
    browser = Client()
    browser.force_login(owner)
    response = browser.post(reverse("account-tokens"), form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not AccountToken.objects.exists()


def test_another_traders_token_on_the_page_is_a_404(owner, other):
    theirs = AccountToken.objects.get(key_hash=key_hash(account_key(other)))
    browser = Client()
    browser.force_login(owner)
    assert browser.post(reverse("account-token-revoke", args=[theirs.pk])).status_code == 404
    assert AccountToken.objects.get(pk=theirs.pk).revoked_at is None


def test_a_drf_token_from_before_the_upgrade_keeps_working(db):
    """Migration 0002 hashes DRF's `authtoken_token` keys into account_tokens and drops that table."""
    from importlib import import_module

    migration = import_module("accounts.migrations.0002_from_drf_authtoken")
    user = UserFactory(username="veteran")
    legacy_key = "0123456789abcdef0123456789abcdef01234567"
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE authtoken_token (key varchar(40), user_id integer, created timestamptz)")
        cursor.execute("INSERT INTO authtoken_token VALUES (%s, %s, now())", [legacy_key, user.pk])
    migration.hash_drf_tokens(None, types.SimpleNamespace(connection=connection))
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('authtoken_token')")
        assert cursor.fetchone() == (None,)
    token = AccountToken.objects.get(owner=user)
    assert (token.name, token.key_prefix) == ("API token from before named tokens", "01234567")
    assert api_with(legacy_key).get("/api/v1/skills/").status_code == 200


def test_staff_see_and_revoke_account_tokens_in_admin(owner):
    key = account_key(owner, name="leaked laptop")
    token = AccountToken.objects.get(key_hash=key_hash(key))
    admin = Client()
    admin.force_login(UserFactory(username="curator", is_staff=True, is_superuser=True))
    changelist = reverse("admin:accounts_accounttoken_changelist")
    assert "leaked laptop" in admin.get(changelist).content.decode()
    response = admin.post(changelist, {"action": "revoke", "_selected_action": [token.pk]}, follow=True)
    assert "Revoked 1 token." in response.content.decode()
    assert api_with(key).get("/api/v1/skills/").status_code == 401

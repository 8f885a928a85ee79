import pytest
from django.core.management import CommandError, call_command

from access.keys import key_hash
from accounts.models import AccountToken
from tests.factories import PASSWORD, UserFactory

TOKEN = "/api/v1/auth/token/"


@pytest.fixture
def trader(db):
    return UserFactory(username="runner-owner")


def test_it_exchanges_a_password_for_a_token_that_authenticates(anon_api, trader):
    response = anon_api.post(TOKEN, {"username": "runner-owner", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert AccountToken.objects.get(owner=trader).key_hash == key_hash(token)
    anon_api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anon_api.get("/api/v1/deployments/").status_code == 200


def test_it_issues_a_new_named_token_each_time(anon_api, trader):
    """Keys are stored hashed, so an exchange cannot hand back an existing one: each is a listed token."""
    first = anon_api.post(TOKEN, {"username": "runner-owner", "password": PASSWORD}, format="json").json()
    body = {"username": "runner-owner", "password": PASSWORD, "name": "backtests"}
    second = anon_api.post(TOKEN, body, format="json").json()
    assert first["token"] != second["token"]
    names = list(AccountToken.objects.filter(owner=trader).order_by("id").values_list("name", flat=True))
    assert names == ["issued by POST /api/v1/auth/token/", "backtests"]


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"username": "runner-owner", "password": "wrong"}, "credentials", "unable to log in with these credentials"),
        ({"username": "nobody", "password": PASSWORD}, "credentials", "unable to log in with these credentials"),
        ({"username": "runner-owner"}, "password", "This field is required."),
        ({"username": "runner-owner", "password": PASSWORD, "scope": "all"}, "scope", None),
    ],
)
def test_it_refuses_bad_credentials_without_issuing_a_token(anon_api, trader, body, field, message):
    response = anon_api.post(TOKEN, body, format="json")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert list(errors) == [field]
    if message:
        assert errors[field] == [message]
    assert not AccountToken.objects.exists()


def test_it_refuses_an_inactive_trader(anon_api, trader):
    trader.is_active = False
    trader.save()
    assert anon_api.post(TOKEN, {"username": "runner-owner", "password": PASSWORD}, format="json").status_code == 400


def test_it_refuses_a_bogus_token(anon_api):
    anon_api.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = anon_api.get("/api/v1/skills/")
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_issue_token_prints_the_traders_token(trader, capsys):
    call_command("issue_token", "runner-owner")
    printed = capsys.readouterr().out.strip()
    assert AccountToken.objects.get(owner=trader).key_hash == key_hash(printed)


def test_issue_token_rotates(trader, capsys):
    call_command("issue_token", "runner-owner")
    old = capsys.readouterr().out.strip()
    call_command("issue_token", "runner-owner", "--rotate")
    new = capsys.readouterr().out.strip()
    assert new != old
    live = AccountToken.objects.filter(owner=trader, revoked_at__isnull=True)
    assert [token.key_hash for token in live] == [key_hash(new)]


def test_issue_token_names_an_unknown_user(db):
    with pytest.raises(CommandError, match="no user named 'ghost'"):
        call_command("issue_token", "ghost")

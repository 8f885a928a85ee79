"""Runner tokens (issue 9): bound to one deployment, they post its ticks and fills and read its context
and trades, nothing else; the trader creates and revokes them on a page and over the API."""

import datetime as dt

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from ledger import services
from ledger.auth import OUT_OF_SCOPE
from ledger.models import DecisionSnapshot, RunnerToken
from tests.errors import error_body
from tests.factories import DeploymentFactory
from tests.openapi import assert_matches_schema

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)


def tick_body(minutes=0):
    at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    position = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    return {"tick_at": at, "equity_usd": 10_000, "positions": [position]}


def runner_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def tokens_url(deployment) -> str:
    return f"/api/v1/deployments/{deployment.pk}/runner-tokens/"


@pytest.fixture
def created(owner_api, deployment):
    response = owner_api.post(tokens_url(deployment), {"name": "vps runner"}, format="json")
    assert response.status_code == 201, response.json()
    assert_matches_schema(response)
    return response.json()


@pytest.fixture
def runner(created):
    return runner_client(created["key"])


class TestWhatARunnerTokenMayDo:
    def test_it_posts_ticks_and_fills_and_reads_its_deployments_context_and_trades(self, runner, deployment):
        base = f"/api/v1/deployments/{deployment.pk}"
        tick = runner.post(f"{base}/ticks/", tick_body(), format="json")
        assert tick.status_code == 201, tick.json()
        assert runner.get(f"{base}/ticks/{tick.json()['snapshot_id']}/").status_code == 200
        assert runner.get(f"{base}/context/").status_code == 200
        trades = runner.get(f"{base}/trades/")
        assert trades.status_code == 200
        assert [trade["symbol"] for trade in trades.json()] == ["BTC"]
        fill = {"symbol": "BTC", "fees_usd": 1.5, "filled_at": "2026-06-04T10:00:30Z"}
        assert runner.post(f"{base}/fills/", fill, format="json").status_code == 200
        assert DecisionSnapshot.objects.filter(deployment=deployment, owner=deployment.owner).count() == 1

    def test_another_deployment_of_the_same_trader_is_a_404(self, runner, owner):
        sibling = DeploymentFactory(skill_version__skill__owner=owner)
        base = f"/api/v1/deployments/{sibling.pk}"
        assert runner.post(f"{base}/ticks/", tick_body(), format="json").status_code == 404
        assert runner.get(f"{base}/context/").status_code == 404
        assert error_body(runner.get(f"{base}/trades/")) == {"detail": "Not found."}
        assert not DecisionSnapshot.objects.filter(deployment=sibling).exists()

    @pytest.mark.parametrize(
        ("method", "path"),
        [
            ("get", "/api/v1/facts/"),
            ("post", "/api/v1/facts/"),
            ("get", "/api/v1/deployments/"),
            ("get", "/api/v1/deployments/{id}/"),
            ("get", "/api/v1/deployments/{id}/lessons/"),
            ("get", "/api/v1/skills/"),
            ("get", "/api/v1/recall/search/?q=breakout"),
            ("get", "/api/v1/deployments/{id}/runner-tokens/"),
            ("post", "/api/v1/deployments/{id}/runner-tokens/"),
        ],
    )
    def test_everything_else_is_a_403(self, runner, deployment, method, path):
        response = getattr(runner, method)(path.format(id=deployment.pk), {}, format="json")
        assert response.status_code == 403
        assert error_body(response) == {"detail": OUT_OF_SCOPE}

    def test_revoking_another_token_with_a_runner_token_is_a_403(self, runner, created, deployment):
        response = runner.delete(f"{tokens_url(deployment)}{created['id']}/")
        assert response.status_code == 403
        assert RunnerToken.objects.get().revoked_at is None

    def test_a_revoked_or_unknown_key_is_a_401(self, owner_api, created, deployment):
        assert owner_api.delete(f"{tokens_url(deployment)}{created['id']}/").status_code == 204
        context = f"/api/v1/deployments/{deployment.pk}/context/"
        assert runner_client(created["key"]).get(context).status_code == 401
        assert runner_client(created["key"][:-2] + "xx").get(context).status_code == 401
        assert runner_client("rt_").get(context).status_code == 401
        assert runner_client("not-a-key").get(context).status_code == 401  # DRF's token authentication

    def test_the_full_account_token_still_works_everywhere(self, owner_api, created, deployment):
        base = f"/api/v1/deployments/{deployment.pk}"
        assert owner_api.post(f"{base}/ticks/", tick_body(), format="json").status_code == 201
        for path in ("/api/v1/facts/", "/api/v1/deployments/", f"{base}/", f"{base}/context/", tokens_url(deployment)):
            assert owner_api.get(path).status_code == 200, path

    def test_last_used_at_is_set_on_use_and_written_at_most_once_a_minute(self, runner, deployment):
        token = RunnerToken.objects.get()
        assert token.last_used_at is None
        context = f"/api/v1/deployments/{deployment.pk}/context/"
        assert runner.get(context).status_code == 200
        first = RunnerToken.objects.get().last_used_at
        assert first is not None
        assert runner.get(context).status_code == 200
        assert RunnerToken.objects.get().last_used_at == first
        RunnerToken.objects.update(last_used_at=first - dt.timedelta(minutes=2))
        assert runner.get(context).status_code == 200
        assert RunnerToken.objects.get().last_used_at > first - dt.timedelta(minutes=2)


class TestManagingRunnerTokens:
    def test_create_answers_the_key_once_and_stores_only_its_hash(self, owner_api, created, deployment):
        key = created["key"]
        assert key.startswith("rt_") and len(key) > 40
        assert created["key_prefix"] == key[:8]
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM runner_tokens")
            rows = cursor.fetchall()
        assert len(rows) == 1
        assert not any(isinstance(value, str) and key in value for value in rows[0])
        listed = owner_api.get(tokens_url(deployment))
        assert_matches_schema(listed)
        assert listed.json()["results"] == [
            {
                "id": created["id"],
                "name": "vps runner",
                "key_prefix": key[:8],
                "created_at": created["created_at"],
                "last_used_at": None,
                "revoked_at": None,
            }
        ]
        assert key not in listed.content.decode()

    def test_revoke_is_idempotent_and_keeps_the_row(self, owner_api, created, deployment):
        url = f"{tokens_url(deployment)}{created['id']}/"
        first = owner_api.delete(url)
        assert first.status_code == 204
        assert_matches_schema(first)
        revoked_at = RunnerToken.objects.get().revoked_at
        assert revoked_at is not None
        assert owner_api.delete(url).status_code == 204
        assert RunnerToken.objects.get().revoked_at == revoked_at
        assert owner_api.get(tokens_url(deployment)).json()["results"][0]["revoked_at"] is not None

    def test_another_traders_deployment_or_token_is_a_404(self, other_api, other, created, deployment):
        assert other_api.get(tokens_url(deployment)).status_code == 404
        assert other_api.post(tokens_url(deployment), {"name": "x"}, format="json").status_code == 404
        assert other_api.delete(f"{tokens_url(deployment)}{created['id']}/").status_code == 404
        theirs = DeploymentFactory(skill_version__skill__owner=other)
        assert other_api.delete(f"{tokens_url(theirs)}{created['id']}/").status_code == 404
        assert RunnerToken.objects.get().revoked_at is None

    @pytest.mark.parametrize(
        ("body", "field"),
        [
            ({"name": ""}, "name"),
            ({"name": "   "}, "name"),
            ({}, "name"),
            ({"name": "bad\x1b[31m"}, "name"),
            ({"name": "two\nlines"}, "name"),
            ({"name": "x" * 101}, "name"),
            ({"name": 12}, "name"),
            ({"name": "ok", "key": "rt_mine"}, "key"),
        ],
    )
    def test_bad_input_is_a_400_naming_the_field(self, owner_api, deployment, body, field):
        response = owner_api.post(tokens_url(deployment), body, format="json")
        assert response.status_code == 400
        assert field in response.json()["errors"]
        assert_matches_schema(response)
        assert not RunnerToken.objects.exists()

    def test_the_services_refuse_a_bad_name_too(self, deployment):
        from django.core.exceptions import ValidationError

        with pytest.raises(ValidationError) as error:
            services.runner_token_create(deployment=deployment, name="hidden\u202eevil")
        assert "name" in error.value.message_dict
        token, _ = services.runner_token_create(deployment=deployment, name="ok")
        now = timezone.now()
        assert services.runner_token_revoke(token=token, now=now).revoked_at == now


class TestRunnerTokensPage:
    def page(self, deployment) -> str:
        return reverse("deployment-runner-tokens", args=[deployment.pk])

    def test_home_links_to_it(self, client, owner, deployment):
        client.force_login(owner)
        assert self.page(deployment) in client.get("/").content.decode()

    def test_create_shows_the_key_once_and_revoke_stops_it(self, client, owner, deployment):
        client.force_login(owner)
        posted = client.post(self.page(deployment), {"name": "laptop runner"})
        assert (posted.status_code, posted["Location"]) == (302, self.page(deployment))  # post/redirect/get
        created = client.get(self.page(deployment))
        assert "no-store" in created["Cache-Control"]
        content = created.content.decode()
        key = content.split('id="new-runner-token-key">')[1].split("<")[0]
        assert key.startswith("rt_")
        assert "shown only once" in content
        context = f"/api/v1/deployments/{deployment.pk}/context/"
        assert runner_client(key).get(context).status_code == 200

        assert 'data-copy-from="new-runner-token-key"' in content  # the copy button (static/js/copy.js)
        listed = client.get(self.page(deployment)).content.decode()
        assert "laptop runner" in listed and key[:8] in listed
        assert key not in listed
        assert RunnerToken.objects.count() == 1  # the reload made no second token
        revoke_form = listed.split('<details class="confirm-revoke">')[1].split("</details>")[0]
        assert "<summary" in revoke_form and 'class="danger"' in revoke_form  # asks first; the real button is red

        token = RunnerToken.objects.get()
        revoke = client.post(reverse("deployment-runner-token-revoke", args=[deployment.pk, token.pk]))
        assert revoke.status_code == 302
        assert RunnerToken.objects.get().revoked_at is not None
        assert runner_client(key).get(context).status_code == 401

    def test_a_blank_or_unsafe_name_is_a_400_page_and_writes_nothing(self, client, owner, deployment):
        client.force_login(owner)
        blank = client.post(self.page(deployment), {"name": "  "})
        assert blank.status_code == 400
        assert b"name: must not be blank" in blank.content
        assert client.post(self.page(deployment), {"name": "bidi\u202e"}).status_code == 400
        assert not RunnerToken.objects.exists()

    def test_another_traders_deployment_is_a_404_and_login_is_required(self, client, owner, other, deployment):
        token, _ = services.runner_token_create(deployment=deployment, name="mine")
        revoke = reverse("deployment-runner-token-revoke", args=[deployment.pk, token.pk])
        anonymous = client.get(self.page(deployment))
        assert anonymous.status_code == 302 and anonymous["Location"].startswith(reverse("login"))
        assert client.post(revoke).status_code == 302
        client.force_login(other)
        assert client.get(self.page(deployment)).status_code == 404
        assert client.post(self.page(deployment), {"name": "theirs"}).status_code == 404
        assert client.post(revoke).status_code == 404
        assert RunnerToken.objects.get().revoked_at is None
        assert RunnerToken.objects.count() == 1

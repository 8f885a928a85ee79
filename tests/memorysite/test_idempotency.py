"""Idempotency-Key on authenticated POSTs (issue 9, memorysite/idempotency.py): a retried request runs once."""

import datetime as dt
import threading

import pytest
from django.db import connection
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from access.models import IdempotencyKey
from ledger import services
from ledger.models import DecisionSnapshot, RunnerToken, Skill
from memorysite.idempotency import DIFFERENT_REQUEST, HEADER, IN_PROGRESS, KEY_RULE, IdempotentViewMixin
from tests.errors import error_body
from tests.factories import DeploymentFactory, UserFactory, account_key
from tests.openapi import assert_matches_schema, openapi_schema

SKILLS = "/api/v1/skills/"
BODY = {"name": "Trend", "strategy_text": "Follow the trend."}


def post(client, url, body, key=None, **extra):
    if key is not None:
        extra["HTTP_IDEMPOTENCY_KEY"] = key
    return client.post(url, body, format="json", **extra)


class TestReplay:
    def test_the_same_key_and_request_replay_the_first_answer_without_running_the_view(self, owner_api):
        first = post(owner_api, SKILLS, BODY, key="k-1")
        assert first.status_code == 201, first.json()
        assert "Idempotent-Replayed" not in first
        again = post(owner_api, SKILLS, BODY, key="k-1")
        assert again.status_code == 201
        assert again.json() == first.json()
        assert again["Idempotent-Replayed"] == "true"
        assert_matches_schema(again)
        assert Skill.objects.count() == 1  # without the key the second POST would be a 400 (name taken)

    def test_the_stored_answer_is_the_owners_status_and_json_body(self, owner_api, owner):
        first = post(owner_api, SKILLS, BODY, key="k-1")
        row = IdempotencyKey.objects.get()
        assert (row.owner, row.key, row.response_status, row.response_body) == (owner, "k-1", 201, first.json())
        assert len(row.request_hash) == 64

    def test_without_the_header_nothing_is_stored_or_replayed(self, owner_api):
        assert post(owner_api, SKILLS, BODY).status_code == 201
        assert post(owner_api, SKILLS, BODY).status_code == 400  # the name is taken: the view ran again
        assert not IdempotencyKey.objects.exists()

    @pytest.fixture
    def runner(self, owner_api, owner):
        """(a runner token's client, its deployment's ticks URL, a tick)."""
        deployment = DeploymentFactory(skill_version__skill__owner=owner)
        created = owner_api.post(f"/api/v1/deployments/{deployment.pk}/runner-tokens/", {"name": "vps"}, format="json")
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {created.json()['key']}")
        tick = {"tick_at": "2026-06-04T10:00:00Z", "equity_usd": 10_000, "positions": []}
        return client, f"/api/v1/deployments/{deployment.pk}/ticks/", tick, deployment

    def test_a_runner_token_replays_a_tick(self, runner):
        runner, url, tick, deployment = runner
        first = post(runner, url, tick, key="tick-2026-06-04T10:00")
        again = post(runner, url, tick, key="tick-2026-06-04T10:00")
        assert (first.status_code, again.status_code) == (201, 201)  # not 200 "duplicate": the view did not run
        assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
        assert DecisionSnapshot.objects.filter(deployment=deployment).count() == 1

    def test_a_revoked_runner_token_cannot_replay(self, runner):
        runner, url, tick, _ = runner
        assert post(runner, url, tick, key="t").status_code == 201
        RunnerToken.objects.update(revoked_at=timezone.now())
        assert post(runner, url, tick, key="t").status_code == 401


class TestConflicts:
    def test_the_same_key_with_another_body_is_a_409_and_runs_nothing(self, owner_api):
        post(owner_api, SKILLS, BODY, key="k-1")
        response = post(owner_api, SKILLS, {**BODY, "name": "Other"}, key="k-1")
        assert response.status_code == 409
        assert error_body(response) == {"detail": DIFFERENT_REQUEST}
        assert DIFFERENT_REQUEST == "Idempotency-Key: already used with a different request"
        assert list(Skill.objects.values_list("name", flat=True)) == ["Trend"]

    def test_the_same_key_on_another_path_is_a_409(self, owner_api):
        skill_id = post(owner_api, SKILLS, BODY, key="k-1").json()["id"]
        response = post(owner_api, "/api/v1/deployments/", {"skill_id": skill_id, "mode": "paper"}, key="k-1")
        assert response.status_code == 409
        assert error_body(response) == {"detail": DIFFERENT_REQUEST}

    def test_a_key_whose_first_request_is_still_running_is_a_409(self, owner_api, owner):
        fingerprint_source = post(owner_api, SKILLS, BODY, key="k-1")
        assert fingerprint_source.status_code == 201
        IdempotencyKey.objects.update(response_status=None, response_body=None)  # as while the first one runs
        response = post(owner_api, SKILLS, BODY, key="k-1")
        assert response.status_code == 409
        assert error_body(response) == {"detail": IN_PROGRESS}

    def test_keys_are_per_trader(self, owner_api, other_api):
        assert post(owner_api, SKILLS, BODY, key="shared").status_code == 201
        theirs = post(other_api, SKILLS, BODY, key="shared")
        assert theirs.status_code == 201
        assert "Idempotent-Replayed" not in theirs
        assert Skill.objects.count() == 2
        assert IdempotencyKey.objects.count() == 2


class TestFailuresReleaseTheKey:
    def test_a_4xx_is_not_stored_so_the_fixed_request_runs_under_the_same_key(self, owner_api):
        bad = post(owner_api, SKILLS, {"name": "Trend"}, key="k-1")
        assert bad.status_code == 400
        assert not IdempotencyKey.objects.exists()
        fixed = post(owner_api, SKILLS, BODY, key="k-1")
        assert fixed.status_code == 201
        assert "Idempotent-Replayed" not in fixed

    def test_a_404_is_not_stored(self, owner_api):
        response = post(owner_api, "/api/v1/skills/424242/versions/", {"strategy_text": "x"}, key="k-1")
        assert response.status_code == 404
        assert not IdempotencyKey.objects.exists()

    def test_an_exception_in_the_view_releases_the_key(self, owner_api, monkeypatch):
        def boom(**kwargs):
            raise RuntimeError("the view failed")

        monkeypatch.setattr(services, "skill_create", boom)
        owner_api.raise_request_exception = True
        with pytest.raises(RuntimeError):
            post(owner_api, SKILLS, BODY, key="k-1")
        assert not IdempotencyKey.objects.exists()


class TestExpiry:
    def test_a_key_older_than_24_hours_is_forgotten(self, owner_api):
        post(owner_api, SKILLS, BODY, key="k-1")
        IdempotencyKey.objects.update(created_at=timezone.now() - dt.timedelta(hours=24, seconds=1))
        response = post(owner_api, SKILLS, {**BODY, "name": "Other"}, key="k-1")
        assert response.status_code == 201
        assert "Idempotent-Replayed" not in response
        row = IdempotencyKey.objects.get()
        assert row.response_body["name"] == "Other"
        assert row.created_at > timezone.now() - dt.timedelta(minutes=1)

    def test_a_key_younger_than_24_hours_still_replays(self, owner_api):
        post(owner_api, SKILLS, BODY, key="k-1")
        IdempotencyKey.objects.update(created_at=timezone.now() - dt.timedelta(hours=23, minutes=59))
        assert post(owner_api, SKILLS, BODY, key="k-1")["Idempotent-Replayed"] == "true"

    def test_a_new_key_deletes_the_traders_expired_rows(self, owner_api, owner, other):
        old = timezone.now() - dt.timedelta(days=2)
        IdempotencyKey.objects.create(owner=owner, key="old", request_hash="0" * 64, created_at=old)
        IdempotencyKey.objects.create(owner=other, key="old", request_hash="0" * 64, created_at=old)
        post(owner_api, SKILLS, BODY, key="new")
        assert sorted(IdempotencyKey.objects.values_list("owner__username", "key")) == [
            ("other", "old"),
            ("owner", "new"),
        ]


class TestTheHeader:
    @pytest.mark.parametrize(
        "key",
        ["", "x" * 256, "clé", "tab\there", "nul\x00", "del\x7f"],
        ids=["empty", "256-chars", "non-ascii", "tab", "nul", "del"],
    )
    def test_a_malformed_key_is_a_400_naming_the_header(self, owner_api, key):
        response = post(owner_api, SKILLS, BODY, key=key)
        assert response.status_code == 400
        assert error_body(response) == {"detail": f"{HEADER}: {KEY_RULE}", "errors": {HEADER: [KEY_RULE]}}
        assert KEY_RULE == "must be 1 to 255 printable ASCII characters"
        assert not Skill.objects.exists()
        assert not IdempotencyKey.objects.exists()

    @pytest.mark.parametrize("key", ["x" * 255, " ~!", "550e8400-e29b-41d4-a716-446655440000"])
    def test_printable_ascii_up_to_255_characters_is_accepted(self, owner_api, key):
        assert post(owner_api, SKILLS, BODY, key=key).status_code == 201
        assert IdempotencyKey.objects.get().key == key

    def test_other_methods_ignore_it(self, owner_api):
        fact = owner_api.post("/api/v1/facts/", {"fact": "I trade BTC only."}, format="json").json()
        patched = owner_api.patch(
            f"/api/v1/facts/{fact['id']}/", {"topic": "markets"}, format="json", HTTP_IDEMPOTENCY_KEY=""
        )
        assert patched.status_code == 200
        assert owner_api.get(SKILLS, HTTP_IDEMPOTENCY_KEY="").status_code == 200
        assert not IdempotencyKey.objects.exists()

    def test_the_token_exchange_ignores_it(self, anon_api, owner):
        body = {"username": "owner", "password": "correct horse battery staple"}
        assert post(anon_api, "/api/v1/auth/token/", body, key="k").status_code == 200
        assert not IdempotencyKey.objects.exists()

    def test_an_unauthenticated_post_is_a_401_first(self, anon_api):
        assert post(anon_api, SKILLS, BODY, key="").status_code == 401


class TestCoverage:
    def test_every_api_view_is_idempotent_capable(self):
        """A new API view that does not derive from memorysite.api.APIView fails here."""
        views = []

        def walk(patterns, prefix=""):
            for pattern in patterns:
                route = prefix + str(pattern.pattern)
                if isinstance(pattern, URLResolver):
                    walk(pattern.url_patterns, route)
                elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
                    views.append((route, getattr(pattern.callback, "cls", None)))

        walk(get_resolver().url_patterns)
        assert len(views) > 20
        missing = [route for route, cls in views if cls is None or not issubclass(cls, IdempotentViewMixin)]
        assert missing == []

    def test_every_authenticated_post_documents_the_header(self):
        schema = openapi_schema()
        posts = {
            path: operations["post"]
            for path, operations in schema["paths"].items()
            if path.startswith("/api/v1/") and "post" in operations
        }
        assert len(posts) > 15
        for path, operation in posts.items():
            headers = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
            expected = [] if path == "/api/v1/auth/token/" else [HEADER]
            assert headers == expected, path


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_first_uses_of_a_key_run_the_view_once(monkeypatch):
    owner = UserFactory(username="racer")
    key = account_key(owner)
    entered, release = threading.Event(), threading.Event()
    real_create = services.skill_create
    calls = []

    def slow_create(**kwargs):
        calls.append(kwargs["name"])
        entered.set()
        assert release.wait(10)
        return real_create(**kwargs)

    monkeypatch.setattr(services, "skill_create", slow_create)
    responses = {}

    def send(name):
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {key}")  # real authentication: it sets the scope
            responses[name] = post(client, SKILLS, BODY, key="race")
        finally:
            connection.close()

    first = threading.Thread(target=send, args=("first",))
    first.start()
    assert entered.wait(10)
    second = threading.Thread(target=send, args=("second",))
    second.start()
    second.join(2)  # with autocommit it answers at once; in a request-wide transaction it waits for the first
    release.set()
    first.join(10)
    second.join(10)
    assert calls == ["Trend"]
    assert responses["first"].status_code == 201
    loser = responses["second"]
    if loser.status_code == 409:
        assert error_body(loser) == {"detail": IN_PROGRESS}
    else:
        assert (loser.status_code, loser["Idempotent-Replayed"]) == (201, "true")
    assert Skill.objects.filter(owner=owner).count() == 1

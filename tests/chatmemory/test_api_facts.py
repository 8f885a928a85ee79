"""/api/v1/facts/: the trader's own facts over REST — rules, owner scoping, soft and hard delete."""

import pytest

from chatmemory import services
from chatmemory.models import UserFact
from tests.openapi import assert_matches_schema

URL = "/api/v1/facts/"


def call(api, method, url, body=None, status=200):
    response = getattr(api, method)(url, body, format="json") if body is not None else getattr(api, method)(url)
    assert response.status_code == status, response.content
    if status != 204:
        assert_matches_schema(response)
    return response.json() if response.content else None


@pytest.fixture
def fact(owner):
    return services.fact_create(owner=owner, fact="You never trade alts.", topic="symbols", source="chat")


def test_add_list_edit_archive_unarchive_and_delete(owner_api, owner):
    created = call(owner_api, "post", URL, {"fact": "  Max leverage 3x.  ", "topic": "Risk"}, status=201)
    assert (created["fact"], created["topic"], created["source"], created["confidence"]) == (
        "Max leverage 3x.",
        "risk",
        "profile",
        "asserted",
    )
    fact_url = f"{URL}{created['id']}/"
    listed = call(owner_api, "get", URL)
    assert [row["id"] for row in listed["results"]] == [created["id"]]
    edited = call(owner_api, "patch", fact_url, {"fact": "Max leverage 2x.", "confidence": "inferred"})
    assert (edited["fact"], edited["confidence"], edited["topic"]) == ("Max leverage 2x.", "inferred", "risk")
    archived = call(owner_api, "post", f"{fact_url}archive/", {"reason": "user_corrected"})
    assert archived["archived_reason"] == "user_corrected" and archived["archived_at"]
    assert call(owner_api, "get", URL)["results"] == []
    assert [row["id"] for row in call(owner_api, "get", f"{URL}?archived=true")["results"]] == [created["id"]]
    assert len(call(owner_api, "get", f"{URL}?archived=all")["results"]) == 1
    restored = call(owner_api, "post", f"{fact_url}unarchive/", {})
    assert restored["archived_at"] is None and restored["archived_reason"] is None
    call(owner_api, "delete", fact_url, status=204)
    assert not UserFact.objects.filter(pk=created["id"]).exists()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"fact": "abc"}, "fact", "must be at least 4 characters"),
        ({"fact": "x" * 501}, "fact", "must be at most 500 characters"),
        ({"fact": "ignore\nprevious"}, "fact", "must be a single line"),
        ({"fact": "evil \u202etxt.exe"}, "fact", "control characters"),
        ({"fact": "fine fact", "confidence": "certain"}, "confidence", "must be one of asserted, inferred"),
        ({"fact": "fine fact", "topic": "a]b"}, "topic", "letters, digits"),
        ({"fact": "fine fact", "source": "chat"}, "source", "unknown field"),
        ({}, "fact", "required"),
    ],
)
def test_bad_facts_are_400_naming_the_field_and_write_nothing(owner_api, body, field, message):
    response = owner_api.post(URL, body, format="json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    assert any(message in text for text in errors[field]), errors
    assert not UserFact.objects.exists()


def test_a_bad_edit_changes_nothing(owner_api, fact):
    response = owner_api.patch(f"{URL}{fact.pk}/", {"fact": "ab"}, format="json")
    assert response.status_code == 400
    assert "fact" in response.json()["errors"]
    fact.refresh_from_db()
    assert fact.fact == "You never trade alts."


def test_archive_twice_and_unarchive_an_active_fact_are_400(owner_api, fact):
    call(owner_api, "post", f"{URL}{fact.pk}/archive/", {})
    response = owner_api.post(f"{URL}{fact.pk}/archive/", {}, format="json")
    assert response.status_code == 400 and "already archived" in response.content.decode()
    call(owner_api, "post", f"{URL}{fact.pk}/unarchive/", {})
    response = owner_api.post(f"{URL}{fact.pk}/unarchive/", {}, format="json")
    assert response.status_code == 400 and "not archived" in response.content.decode()


def test_another_traders_fact_is_404_for_every_verb(other_api, anon_api, fact):
    url = f"{URL}{fact.pk}/"
    assert other_api.get(url).status_code == 404
    assert other_api.patch(url, {"fact": "hijacked fact"}, format="json").status_code == 404
    assert other_api.post(f"{url}archive/", {}, format="json").status_code == 404
    assert other_api.delete(url).status_code == 404
    assert other_api.get(URL).json()["results"] == []
    assert anon_api.get(URL).status_code == 401
    fact.refresh_from_db()
    assert fact.fact == "You never trade alts." and fact.archived_at is None


def test_topic_filter(owner_api, owner, fact):
    services.fact_create(owner=owner, fact="Max leverage 3x.", topic="risk", source="profile")
    assert [row["topic"] for row in call(owner_api, "get", f"{URL}?topic=risk")["results"]] == ["risk"]
    response = owner_api.get(f"{URL}?archived=maybe")
    assert response.status_code == 400 and "archived" in response.json()["errors"]

import pytest

from ledger.models import REFLECTION_MODEL_RULE, Skill, SkillVersion
from tests.errors import error_body
from tests.factories import SkillFactory, SkillVersionFactory

SKILLS = "/api/v1/skills/"


def _skill_body(**overrides):
    body = {"name": "Breakout", "strategy_text": "Buy breakouts above the 20-bar high."}
    body.update(overrides)
    return body


def _db_state():
    return (Skill.objects.count(), SkillVersion.objects.count())


class TestSkillCreate:
    def test_it_creates_the_skill_with_version_1_from_the_same_body(self, owner_api, owner):
        response = owner_api.post(
            SKILLS,
            _skill_body(avoid_rules="Never short.\n\nNever hold overnight.\n", recent_trades_k=30),
            format="json",
        )
        assert response.status_code == 201, response.json()
        body = response.json()
        assert body["name"] == "Breakout"
        assert body["versions"] == [1]
        latest = body["latest_version"]
        assert latest["version"] == 1
        assert latest["recent_trades_k"] == 30
        assert latest["avoid_rules_list"] == ["Never short.", "Never hold overnight."]
        version = SkillVersion.objects.get(skill_id=body["id"])
        assert version.owner_id == owner.pk
        assert Skill.objects.get(pk=body["id"]).owner_id == owner.pk

    def test_it_applies_the_memory_defaults(self, owner_api):
        latest = owner_api.post(SKILLS, _skill_body(), format="json").json()["latest_version"]
        assert {k: latest[k] for k in latest if k in _DEFAULTS} == _DEFAULTS

    @pytest.mark.parametrize(
        ("field", "value", "message"),
        [
            ("recent_trades_k", 0, "must be between 1 and 30"),
            ("recent_trades_k", 31, "must be between 1 and 30"),
            ("recent_trades_k", "ten", "must be an integer; must be between 1 and 30"),
            ("reflection_every_n_trades", 0, "must be between 1 and 1000"),
            ("bars_window", 1001, "must be between 1 and 1000"),
            ("reflection_cadence", "hourly", "must be one of off, per_n_trades, daily"),
            ("name", "", "must not be blank"),
            ("name", "x" * 101, "must be at most 100 characters"),
            ("name", "two\nlines", "must be a single line"),
            ("strategy_text", "bad \u202e override", "must not contain control characters or bidirectional overrides"),
            ("strategy_text", "nul \x00 byte", "must not contain control characters or bidirectional overrides"),
            ("memory_enabled", "maybe", "must be true or false"),
            ("manual_enabled", "maybe", "must be true or false"),
            ("manual_k", 0, "must be between 1 and 10"),
            ("manual_k", 11, "must be between 1 and 10"),
            ("manual_k", "three", "must be an integer; must be between 1 and 10"),
            ("manual_token_cap", 49, "must be between 50 and 2000"),
            ("manual_token_cap", 2001, "must be between 50 and 2000"),
            ("manual_token_cap", 1.5, "must be an integer; must be between 50 and 2000"),
            *[
                ("reflection_model_override", bad, REFLECTION_MODEL_RULE)
                for bad in ("gpt-4o", "Claude-Haiku-4-5", "claude-haiku--4-5", "claude-haiku_4_5", "claude-")
            ],
            ("reflection_model_override", "", "must not be blank"),
            ("reflection_model_override", "claude-" + "x" * 58, "must be at most 64 characters"),
            ("reflection_model_override", 5, "must be a string"),
        ],
    )
    def test_it_names_the_field_and_rule_and_writes_nothing(self, owner_api, field, value, message):
        before = _db_state()
        response = owner_api.post(SKILLS, _skill_body(**{field: value}), format="json")
        assert response.status_code == 400
        body = response.json()
        assert body["errors"][field] == [message]
        assert body["detail"] == f"{field}: {message}"
        assert _db_state() == before

    def test_it_requires_strategy_text(self, owner_api):
        response = owner_api.post(SKILLS, {"name": "No text"}, format="json")
        assert response.status_code == 400
        assert response.json()["errors"] == {"strategy_text": ["This field is required."]}

    @pytest.mark.parametrize("field", ["owner", "owner_id", "id", "version", "colour"])
    def test_it_rejects_unknown_and_read_only_fields(self, owner_api, field):
        before = _db_state()
        response = owner_api.post(SKILLS, _skill_body(**{field: 1}), format="json")
        assert response.status_code == 400
        assert response.json()["errors"][field][0].startswith("unknown field; accepted fields are: avoid_rules,")
        assert _db_state() == before

    def test_it_refuses_a_second_skill_with_the_same_name(self, owner_api):
        assert owner_api.post(SKILLS, _skill_body(), format="json").status_code == 201
        response = owner_api.post(SKILLS, _skill_body(), format="json")
        assert response.status_code == 400
        assert response.json()["errors"] == {"name": ["you already have a skill with this name"]}
        assert _db_state() == (1, 1)

    def test_it_lets_two_traders_use_the_same_name(self, owner_api, other_api):
        assert owner_api.post(SKILLS, _skill_body(), format="json").status_code == 201
        assert other_api.post(SKILLS, _skill_body(), format="json").status_code == 201

    def test_it_refuses_anonymous_requests(self, anon_api):
        response = anon_api.post(SKILLS, _skill_body(), format="json")
        assert response.status_code == 401
        assert anon_api.get(SKILLS).status_code == 401
        assert _db_state() == (0, 0)


_DEFAULTS = {
    "memory_enabled": True,
    "recent_trades_k": 10,
    "reflection_cadence": "per_n_trades",
    "reflection_every_n_trades": 5,
    "bars_window": 100,
    "avoid_rules": "",
    "manual_enabled": True,
    "manual_k": 3,
    "manual_token_cap": 400,
    "reflection_model_override": None,
}


class TestSkillRead:
    def test_it_lists_only_the_traders_own_skills(self, owner_api, owner, other):
        mine = SkillVersionFactory(skill=SkillFactory(owner=owner, name="Mine")).skill
        SkillVersionFactory(skill=SkillFactory(owner=other, name="Theirs"))
        body = owner_api.get(SKILLS).json()
        assert body["count"] == 1
        assert [skill["id"] for skill in body["results"]] == [mine.pk]

    def test_it_shows_one_skill_with_its_latest_version(self, owner_api, owner):
        skill = SkillFactory(owner=owner)
        SkillVersionFactory(skill=skill, version=1)
        SkillVersionFactory(skill=skill, version=2, strategy_text="v2 text")
        body = owner_api.get(f"{SKILLS}{skill.pk}/").json()
        assert body["versions"] == [1, 2]
        assert body["latest_version"]["strategy_text"] == "v2 text"

    def test_it_404s_another_traders_skill(self, owner_api, other):
        theirs = SkillVersionFactory(skill=SkillFactory(owner=other)).skill
        response = owner_api.get(f"{SKILLS}{theirs.pk}/")
        assert response.status_code == 404
        assert error_body(response) == {"detail": "Not found."}
        assert error_body(owner_api.get(f"{SKILLS}999999/")) == error_body(response)  # identical but for its id


class TestSkillVersions:
    def test_it_adds_the_next_version(self, owner_api, owner):
        skill_id = owner_api.post(SKILLS, _skill_body(), format="json").json()["id"]
        response = owner_api.post(
            f"{SKILLS}{skill_id}/versions/", {"strategy_text": "Tighter stops.", "recent_trades_k": 5}, format="json"
        )
        assert response.status_code == 201, response.json()
        assert response.json()["version"] == 2
        assert response.json()["recent_trades_k"] == 5
        listed = owner_api.get(f"{SKILLS}{skill_id}/versions/").json()
        assert [v["version"] for v in listed["results"]] == [2, 1]
        assert SkillVersion.objects.get(skill_id=skill_id, version=2).owner_id == owner.pk

    def test_it_404s_versions_of_another_traders_skill(self, owner_api, other):
        theirs = SkillVersionFactory(skill=SkillFactory(owner=other)).skill
        before = _db_state()
        response = owner_api.post(f"{SKILLS}{theirs.pk}/versions/", {"strategy_text": "mine now"}, format="json")
        assert response.status_code == 404
        assert owner_api.get(f"{SKILLS}{theirs.pk}/versions/").status_code == 404
        assert _db_state() == before

    def test_it_keeps_the_manual_sections_settings_per_version(self, owner_api, owner):
        skill_id = owner_api.post(SKILLS, _skill_body(manual_k=10, manual_token_cap=2000), format="json").json()["id"]
        body = {"strategy_text": "Quieter.", "manual_enabled": False, "manual_k": 1, "manual_token_cap": 50}
        response = owner_api.post(f"{SKILLS}{skill_id}/versions/", body, format="json")
        assert response.status_code == 201, response.json()
        assert {k: response.json()[k] for k in ("manual_enabled", "manual_k", "manual_token_cap")} == {
            "manual_enabled": False,
            "manual_k": 1,
            "manual_token_cap": 50,
        }
        first, second = SkillVersion.objects.filter(skill_id=skill_id).order_by("version")
        assert (first.manual_enabled, first.manual_k, first.manual_token_cap) == (True, 10, 2000)
        assert (second.manual_enabled, second.manual_k, second.manual_token_cap) == (False, 1, 50)

    def test_it_keeps_a_reflection_model_override_per_version(self, owner_api, owner):
        created = owner_api.post(
            SKILLS, _skill_body(reflection_model_override="claude-opus-4-5-20251101"), format="json"
        )
        assert created.status_code == 201, created.json()
        assert created.json()["latest_version"]["reflection_model_override"] == "claude-opus-4-5-20251101"
        skill_id = created.json()["id"]
        response = owner_api.post(
            f"{SKILLS}{skill_id}/versions/", {"strategy_text": "x", "reflection_model_override": None}, format="json"
        )
        assert response.status_code == 201, response.json()
        assert response.json()["reflection_model_override"] is None
        first, second = SkillVersion.objects.filter(skill_id=skill_id).order_by("version")
        assert (first.reflection_model_override, second.reflection_model_override) == ("claude-opus-4-5-20251101", None)
        listed = owner_api.get(f"{SKILLS}{skill_id}/versions/").json()["results"]
        assert [v["reflection_model_override"] for v in listed] == [None, "claude-opus-4-5-20251101"]

    def test_the_database_refuses_a_reflection_model_outside_the_pattern(self, owner):
        from django.db import IntegrityError, transaction

        version = SkillVersionFactory(skill=SkillFactory(owner=owner), version=1)
        with pytest.raises(IntegrityError, match="skill_version_reflection_model_override_valid"), transaction.atomic():
            SkillVersion.objects.filter(pk=version.pk).update(reflection_model_override="gpt-4o")

    @pytest.mark.parametrize(("field", "value"), [("manual_k", 11), ("manual_token_cap", 10_000)])
    def test_the_database_refuses_manual_settings_out_of_range(self, owner, field, value):
        from django.core.exceptions import ValidationError

        from ledger import services

        skill = SkillVersionFactory(skill=SkillFactory(owner=owner), version=1).skill
        with pytest.raises(ValidationError, match=f"skill_version_{field}_range"):
            services.skill_version_create(skill=skill, strategy_text="x", **{field: value})

    def test_it_validates_a_new_version_and_writes_nothing(self, owner_api, owner):
        skill = SkillVersionFactory(skill=SkillFactory(owner=owner), version=1).skill
        response = owner_api.post(
            f"{SKILLS}{skill.pk}/versions/", {"strategy_text": "ok", "recent_trades_k": 99}, format="json"
        )
        assert response.status_code == 400
        assert response.json()["detail"] == "recent_trades_k: must be between 1 and 30"
        assert skill.versions.count() == 1

    def test_it_refuses_anonymous_requests(self, anon_api, owner):
        skill = SkillVersionFactory(skill=SkillFactory(owner=owner), version=1).skill
        assert anon_api.post(f"{SKILLS}{skill.pk}/versions/", {"strategy_text": "x"}, format="json").status_code == 401
        assert anon_api.get(f"{SKILLS}{skill.pk}/versions/").status_code == 401

"""The lessons page names revisions by number and date (the hash stays, for the A/B join), gives each note its own
status (one text can be active in a deployment and retired as its promoted copy), lists what agents see now first,
and says which model each version reflects with."""

from __future__ import annotations

import re

from django.test import override_settings

from reflection import services
from tests.factories import DeploymentFactory, SkillVersionFactory, UserFactory
from tests.reflection.test_lessons_page import (  # noqa: F401 (fixtures)
    HASH_A,
    HASH_B,
    HASH_C,
    TEXT_A,
    history_ids,
    lessons,
    minutes,
    note_block,
    page_url,
    reflect,
    round_trips,
    skill,
)


def ab_cells(content: str, content_hash: str) -> str:
    match = re.search(rf'<tr class="ab-revision" id="ab-{content_hash}">(.*?)</tr>', content, re.S)
    assert match, content_hash
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", match.group(1))).strip()


def test_revisions_are_numbered_by_first_appearance_with_the_hash_beside(client, owner, lessons):  # noqa: F811
    client.force_login(owner)
    content = client.get(page_url(lessons.skill)).content.decode()
    assert ab_cells(content, HASH_A).startswith(f"Revision 1 {HASH_A} 2026-06-04 10:06")
    assert ab_cells(content, HASH_B).startswith(f"Revision 2 {HASH_B} 2026-06-04 10:16")
    assert ab_cells(content, HASH_C).startswith(f"Revision 3 {HASH_C}")
    assert "Revision 2" in note_block(content, lessons.promoted)  # same text, same revision
    assert "Revision 2" in note_block(content, lessons.b1)


def test_the_numbers_stay_when_filtered_to_one_version(client, owner, lessons):  # noqa: F811
    client.force_login(owner)
    content = client.get(page_url(lessons.skill, version=2)).content.decode()
    assert ab_cells(content, HASH_C).startswith(f"Revision 3 {HASH_C}")
    assert "Revision 3" in note_block(content, lessons.c3)


def test_each_note_of_one_text_shows_its_own_status_and_scope(client, owner, lessons):  # noqa: F811
    """B is retired in deployment d1 and active as the promoted v1 skill-scope copy: never "active retired"."""
    client.force_login(owner)
    cells = ab_cells(client.get(page_url(lessons.skill)).content.decode(), HASH_B)
    assert f"active skill scope v1 retired deployment #{lessons.d1.pk}" in cells
    assert "active retired" not in cells


def test_an_active_note_is_listed_before_a_newer_retired_copy(client, owner, owner_api, skill):  # noqa: F811
    staff = UserFactory(username="staff2", is_staff=True)
    deployment = DeploymentFactory(skill_version=SkillVersionFactory(skill=skill, version=1, reflection_cadence="off"))
    round_trips(owner_api, deployment, 0, [("BTC", 1, 100, 110)])
    active = reflect(deployment, TEXT_A, at=6)
    copy = services.note_promote(note=active, by=staff, now=minutes(10))
    services.note_retire(note=copy, by=staff, now=minutes(12))
    client.force_login(owner)

    content = client.get(page_url(skill)).content.decode()

    assert history_ids(content) == [str(active.pk), str(copy.pk)]
    assert '<span class="tag note-status-active">active</span>' in note_block(content, active)
    assert '<span class="tag note-status-retired">retired</span>' in note_block(content, copy)
    assert f"active deployment #{deployment.pk} retired skill scope v1" in ab_cells(content, active.content_hash)


@override_settings(REFLECTION_MODEL="claude-haiku-4-5", ANTHROPIC_API_KEY="sk-ant-test")
def test_it_says_which_model_each_version_reflects_with_once_lessons_exist(client, owner, lessons):  # noqa: F811
    v2 = lessons.d3.skill_version
    v2.reflection_model_override = "claude-sonnet-5"
    v2.save()
    client.force_login(owner)
    assert "v2: reflection off · model claude-sonnet-5 (this version's override)" in settings_list(client, lessons)
    assert "v1: reflection off · model claude-haiku-4-5 (the service's default)" in settings_list(client, lessons)
    # Without an API key the statistical engine writes the lessons, whatever the default model's name.
    with override_settings(ANTHROPIC_API_KEY=""):
        assert (
            "v1: reflection off · model statistical-v1, the statistical engine (no ANTHROPIC_API_KEY is set; with"
            " one, claude-haiku-4-5)" in settings_list(client, lessons)
        )


def settings_list(client, fixture) -> str:
    found = client.get(page_url(fixture.skill)).content.decode().split('id="reflection-settings"')[1]
    return re.sub(r"<[^>]+>", "", found.split("</ul>")[0])

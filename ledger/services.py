"""Writes: each service validates, then writes in one transaction. Messages are constants."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.shortcuts import get_object_or_404

from ledger.models import Deployment, Skill, SkillVersion

SKILL_NAME_TAKEN = "you already have a skill with this name"
VERSION_NOT_FOUND = "this skill has no version {version}; its latest is {latest}"

VERSION_FIELDS = (
    "strategy_text",
    "avoid_rules",
    "memory_enabled",
    "recent_trades_k",
    "reflection_cadence",
    "reflection_every_n_trades",
    "bars_window",
)


@transaction.atomic
def skill_create(*, owner, name: str, **version_fields) -> Skill:
    """A new skill with its version 1 built from the same fields."""
    if Skill.objects.filter(owner=owner, name=name).exists():
        raise ValidationError({"name": [SKILL_NAME_TAKEN]})
    skill = Skill(owner=owner, name=name)
    skill.full_clean()
    try:
        with transaction.atomic():
            skill.save()
    except IntegrityError as exc:  # a concurrent create of the same name won the race
        raise ValidationError({"name": [SKILL_NAME_TAKEN]}) from exc
    _version_save(skill=skill, version=1, fields=version_fields)
    return skill


@transaction.atomic
def skill_version_create(*, skill: Skill, **version_fields) -> SkillVersion:
    """The next version of the skill (latest + 1); versions are never edited in place."""
    Skill.objects.select_for_update().filter(pk=skill.pk).get()  # serialises concurrent numbering
    latest = skill.versions.aggregate(latest=Max("version"))["latest"] or 0
    return _version_save(skill=skill, version=latest + 1, fields=version_fields)


def _version_save(*, skill: Skill, version: int, fields: dict) -> SkillVersion:
    unknown = set(fields) - set(VERSION_FIELDS)
    if unknown:
        raise TypeError(f"unknown skill version fields: {sorted(unknown)}")
    skill_version = SkillVersion(skill=skill, owner_id=skill.owner_id, version=version, **fields)
    skill_version.full_clean()
    skill_version.save()
    return skill_version


@transaction.atomic
def deployment_create(*, owner, skill_id: int, version: int | None, mode: str) -> Deployment:
    """Deploy one version of the trader's skill (its latest when version is None)."""
    skill = get_object_or_404(Skill.objects.owned_by(owner), pk=skill_id)
    versions = skill.versions.order_by("-version")
    skill_version = versions.first() if version is None else versions.filter(version=version).first()
    if skill_version is None:
        latest = versions.values_list("version", flat=True).first()
        raise ValidationError({"version": [VERSION_NOT_FOUND.format(version=version, latest=latest)]})
    deployment = Deployment(owner=owner, skill_version=skill_version, mode=mode)
    deployment.full_clean()
    deployment.save()
    return deployment

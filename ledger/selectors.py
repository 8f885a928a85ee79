"""Reads, always scoped to one trader. A row that is not theirs is indistinguishable from none."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet
from django.shortcuts import get_object_or_404

from ledger.models import Deployment, Skill, SkillVersion


def skill_list(*, user) -> QuerySet[Skill]:
    return (
        Skill.objects.owned_by(user)
        .prefetch_related(Prefetch("versions", queryset=SkillVersion.objects.order_by("-version")))
        .order_by("name", "id")
    )


def skill_get(*, user, skill_id: int) -> Skill:
    return get_object_or_404(skill_list(user=user), pk=skill_id)


def skill_version_list(*, user, skill_id: int) -> QuerySet[SkillVersion]:
    skill = get_object_or_404(Skill.objects.owned_by(user), pk=skill_id)
    return skill.versions.select_related("skill").order_by("-version")


def deployment_list(*, user) -> QuerySet[Deployment]:
    return Deployment.objects.owned_by(user).select_related("skill_version__skill").order_by("-created_at", "-id")


def deployment_get(*, user, deployment_id: int) -> Deployment:
    return get_object_or_404(deployment_list(user=user), pk=deployment_id)

"""The database itself refuses what the API refuses: CHECKs and unique indexes, bypassing validation."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion
from tests.factories import DeploymentFactory, SkillFactory, SkillVersionFactory

TICK = dt.datetime(2026, 11, 2, 12, 0, tzinfo=dt.UTC)


def _refused(queryset_update=None, create=None):
    with pytest.raises(IntegrityError), transaction.atomic():
        if create:
            create()
        else:
            queryset_update()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("recent_trades_k", 0),
        ("recent_trades_k", 31),
        ("reflection_cadence", "hourly"),
        ("reflection_every_n_trades", 0),
        ("bars_window", 0),
        ("bars_window", 1001),
        ("version", 0),
    ],
)
def test_skill_version_checks(owner, field, value):
    version = SkillVersionFactory(skill=SkillFactory(owner=owner))
    _refused(lambda: SkillVersion.objects.filter(pk=version.pk).update(**{field: value}))


def test_skill_names_are_unique_per_owner_and_not_empty(owner):
    SkillFactory(owner=owner, name="A")
    _refused(create=lambda: Skill.objects.create(owner=owner, name="A"))
    _refused(create=lambda: Skill.objects.create(owner=owner, name=""))


def test_skill_versions_are_unique_per_skill(owner):
    version = SkillVersionFactory(skill=SkillFactory(owner=owner), version=1)
    _refused(create=lambda: SkillVersionFactory(skill=version.skill, version=1))


@pytest.mark.parametrize(("field", "value"), [("mode", "yolo"), ("status", "paused"), ("day_start_equity_usd", -1)])
def test_deployment_checks(owner, field, value):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    _refused(lambda: Deployment.objects.filter(pk=deployment.pk).update(**{field: value}))


def test_snapshots_are_unique_per_deployment_and_tick(owner):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    DecisionSnapshot.objects.create(deployment=deployment, owner=owner, tick_at=TICK, equity_usd=1000)
    _refused(
        create=lambda: DecisionSnapshot.objects.create(deployment=deployment, owner=owner, tick_at=TICK, equity_usd=1)
    )
    other_deployment = DeploymentFactory(skill_version__skill__owner=owner)
    DecisionSnapshot.objects.create(deployment=other_deployment, owner=owner, tick_at=TICK, equity_usd=1000)


@pytest.mark.parametrize(("field", "value"), [("engine_kind", "maybe"), ("equity_usd", -5)])
def test_snapshot_checks(owner, field, value):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    snapshot = DecisionSnapshot.objects.create(deployment=deployment, owner=owner, tick_at=TICK, equity_usd=1000)
    _refused(lambda: DecisionSnapshot.objects.filter(pk=snapshot.pk).update(**{field: value}))


def test_owned_by_scopes_every_owned_table(owner, other):
    mine = DeploymentFactory(skill_version__skill__owner=owner)
    DeploymentFactory(skill_version__skill__owner=other)
    for model in (Skill, SkillVersion, Deployment):
        rows = model.objects.owned_by(owner)
        assert rows.count() == 1
        assert {row.owner_id for row in rows} == {owner.pk}
    assert list(Deployment.objects.owned_by(owner)) == [mine]


def test_owned_by_an_anonymous_user_is_empty(owner):
    from django.contrib.auth.models import AnonymousUser

    DeploymentFactory(skill_version__skill__owner=owner)
    assert not Deployment.objects.owned_by(AnonymousUser()).exists()
    assert not Deployment.objects.owned_by(None).exists()

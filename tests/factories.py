import factory
from django.contrib.auth import get_user_model

from ledger.models import Deployment, DeploymentMode, Skill, SkillVersion

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"trader{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(PASSWORD)


class SkillFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Skill

    owner = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"Skill {n}")


class SkillVersionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = SkillVersion

    skill = factory.SubFactory(SkillFactory)
    owner = factory.SelfAttribute("skill.owner")
    version = factory.Sequence(lambda n: n + 1)
    strategy_text = "Buy the dip on BTC."
    avoid_rules = "Never hold more than two positions."


class DeploymentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Deployment

    skill_version = factory.SubFactory(SkillVersionFactory)
    owner = factory.SelfAttribute("skill_version.owner")
    mode = DeploymentMode.PAPER


def account_key(user, *, name: str = "tests") -> str:
    """A new account token of the user: its key (only its hash is stored)."""
    from django.utils import timezone

    from accounts.services import account_token_create

    return account_token_create(owner=user, name=name, now=timezone.now())[1]


def token_client(user):
    """An API client authenticated as served (a new account token of the user), so requests are scoped to them."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {account_key(user)}")
    return client

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from django.utils import timezone

from accounts import services
from memorysite.commands import MaintenanceCommand

DEFAULT_NAME = "issued by manage.py issue_token"


class Command(MaintenanceCommand):
    help = (
        "Print a new account token of USERNAME (keys are stored hashed: an existing one cannot be shown); "
        "--rotate revokes the user's other account tokens first."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--name", default=DEFAULT_NAME, help="what the token is for (listed on the tokens page)")
        parser.add_argument("--rotate", action="store_true", help="revoke the user's account tokens, then issue one")

    def handle(self, *args, username, name, rotate, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        now = timezone.now()
        if rotate:
            services.account_tokens_revoke_all(owner=user, now=now)
        _, key = services.account_token_create(owner=user, name=name, now=now)
        self.stdout.write(key)

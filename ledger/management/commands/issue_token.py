from django.contrib.auth import get_user_model
from django.core.management.base import CommandError
from rest_framework.authtoken.models import Token

from memorysite.commands import MaintenanceCommand


class Command(MaintenanceCommand):
    help = "Print the API token of USERNAME (creating it if needed); --rotate replaces the old one."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--rotate", action="store_true", help="revoke the current token and issue a new one")

    def handle(self, *args, username, rotate, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"no user named {username!r}")
        if rotate:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)

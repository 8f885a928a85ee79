from django.core.management.base import BaseCommand, CommandError

from ledger import services
from ledger.models import Deployment


class Command(BaseCommand):
    help = "Rebuild a deployment's trade_history from its stored decision snapshots (safe to run again)."

    def add_arguments(self, parser):
        parser.add_argument("deployment", type=int, help="deployment id")

    def handle(self, *args, deployment, **options):
        if not Deployment.objects.filter(pk=deployment).exists():
            raise CommandError(f"no deployment with id {deployment}")
        applied = services.trade_history_rebuild(deployment_id=deployment, progress=self._progress)
        self.stdout.write(f"\ndeployment {deployment}: rebuilt trade_history from {applied} ticks")

    def _progress(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // total if total else width
        self.stdout.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} ticks", ending="")
        self.stdout.flush()

from django.core.management.base import CommandError

from ledger import services
from ledger.models import Deployment
from memorysite.commands import MaintenanceCommand, progress_bar


class Command(MaintenanceCommand):
    help = "Rebuild a deployment's trade_history from its stored decision snapshots (safe to run again)."

    def add_arguments(self, parser):
        parser.add_argument("deployment", type=int, help="deployment id")

    def handle(self, *args, deployment, **options):
        if not Deployment.objects.filter(pk=deployment).exists():
            raise CommandError(f"no deployment with id {deployment}")
        applied = services.trade_history_rebuild(deployment_id=deployment, progress=progress_bar(self.stdout, "ticks"))
        self.stdout.write(f"deployment {deployment}: rebuilt trade_history from {applied} ticks")

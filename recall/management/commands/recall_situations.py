"""manage.py recall_situations [--deployment ID ...]: situation rows for trades materialized without them."""

from django.db import transaction

from ledger.models import Deployment
from memorysite.commands import MaintenanceCommand
from recall import services
from recall.embeddings import background_embedder


class Command(MaintenanceCommand):
    help = (
        "Situation rows (summary, embedding, outcome) for the trades that have none: trades materialized before "
        "situations were written with them. Materialization writes them now, so this is a one-off after upgrading; "
        "running it again finds nothing."
    )
    one_transaction = False

    def add_arguments(self, parser):
        parser.add_argument("--deployment", type=int, action="append", default=[], metavar="ID")

    def handle(self, *args, deployment, **options):
        embedder = background_embedder()
        ids = deployment or list(Deployment.objects.order_by("pk").values_list("pk", flat=True))
        created = attached = 0
        for deployment_id in ids:
            while True:
                # The deployment's row lock first, as materialization takes it: the two never interleave.
                with transaction.atomic():
                    list(Deployment.objects.select_for_update().filter(pk=deployment_id).values_list("pk"))
                    made, outcomes = services.situations_sync(deployment_id=deployment_id, embedder=embedder)
                created, attached = created + made, attached + outcomes
                if made < services.SITUATIONS_SYNC_BATCH:
                    break
        self.stdout.write(f"{created} situations created, {attached} outcomes attached")

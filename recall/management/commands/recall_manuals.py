"""manage.py recall_manuals [--keep ID ...]: list the manuals a deployment reads two of, and keep one."""

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError

from memorysite.commands import MaintenanceCommand
from recall import services
from recall.models import Document


def _scope(document: Document) -> str:
    return f"deployment #{document.deployment_id}" if document.deployment_id else "all deployments"


class Command(MaintenanceCommand):
    help = (
        "One TRADING_MANUAL.md per deployment scope (seed §5; recall migration 0003 refuses a database where a "
        "deployment reads two). Lists the manuals in breach; --keep ID makes that document its scope's only "
        "manual: the manuals beside it are renamed TRADING_MANUAL.superseded-<id>.md (content and embeddings "
        "kept, nothing deleted)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--keep", type=int, action="append", default=[], metavar="ID", help="the manual to keep")

    def handle(self, *args, keep, **options):
        for document_id in keep:
            document = Document.objects.select_related("owner", "deployment").filter(pk=document_id).first()
            if document is None:
                raise CommandError(f"no document {document_id}")
            try:
                renamed = services.manual_keep(document=document)
            except ValidationError as error:
                raise CommandError(error.messages[0]) from error
            self.stdout.write(f"kept document {document.pk} {document.path} ({_scope(document)})")
            for other in renamed:
                self.stdout.write(f"  renamed document {other.pk} to {other.path} ({_scope(other)})")
        conflicts = services.manual_conflicts()
        if not conflicts:
            self.stdout.write("every deployment reads at most one manual")
            return
        self.stdout.write("a deployment reads more than one of these manuals (keep one with --keep ID):")
        for document in conflicts:
            trader = document.owner.username if document.owner else "(global)"  # manuals always have one
            self.stdout.write(
                f"  {trader}: document {document.pk} {document.path} ({_scope(document)}, "
                f"updated {document.updated_at:%Y-%m-%d %H:%M} UTC)"
            )

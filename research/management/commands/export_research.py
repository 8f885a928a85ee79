"""manage.py export_research DIR --user USERNAME: write research memory as the seed's YAML files."""

from pathlib import Path

from django.core.management.base import CommandError

from memorysite.commands import MaintenanceCommand, progress_bar, user_named
from research.yaml_export import export_research
from research.yaml_shapes import ResearchFilesInvalid


class Command(MaintenanceCommand):
    help = (
        "Write a trader's research memory to DIR (created if missing) in the layout import_research reads: "
        "experiments/<id>.yaml, hypotheses.yaml and capability_requests.yaml, ids in natural order and keys in "
        "the seed's order, so exporting the same memory twice gives the same bytes. DIR mirrors the memory "
        "afterwards: experiments/*.yaml files of experiments the trader does not have are removed."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="research directory to write")
        parser.add_argument("--user", required=True, help="username of the trader whose memory this is")

    def handle(self, *args, directory, user, **options):
        owner = user_named(user)
        try:
            summary = export_research(owner, Path(directory), progress=progress_bar(self.stderr, "files"))
        except ResearchFilesInvalid as exc:
            raise CommandError(f"{directory}: {exc}") from exc
        self.stdout.write(f"{user} → {directory}: {summary}")

"""manage.py import_research DIR --user USERNAME: load research memory from the seed's YAML files."""

from pathlib import Path

from django.core.management.base import CommandError

from memorysite.commands import MaintenanceCommand, progress_bar, user_named
from research.yaml_import import import_research
from research.yaml_shapes import ResearchFilesInvalid


class Command(MaintenanceCommand):
    help = (
        "Load a trader's research memory from DIR: experiments/<id>.yaml (one `experiment:` record each), "
        "hypotheses.yaml (`hypotheses:`) and capability_requests.yaml (`requests:`), the layout "
        "export_research writes. Every file is checked first; any problem (reported as "
        "'<file>, <record id>, <field>: <rule>') means nothing is written. Ids already stored with the same "
        "content are left alone, so importing the same directory again changes nothing; an id stored with "
        "different content is a problem. Hypotheses and capability requests listed in an experiment's "
        "assessment are linked to the registry entry with the same text and source experiment, or created "
        "with the next H_###/req_### id."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", help="research directory to read")
        parser.add_argument("--user", required=True, help="username of the trader whose memory this is")

    def handle(self, *args, directory, user, **options):
        owner = user_named(user)
        if not Path(directory).is_dir():
            raise CommandError(f"{directory}: no such directory")
        try:
            summary = import_research(owner, Path(directory), progress=progress_bar(self.stderr, "experiments"))
        except ResearchFilesInvalid as exc:
            raise CommandError(f"{directory}: {exc}") from exc
        self.stdout.write(f"{directory} → {user}: {summary}")

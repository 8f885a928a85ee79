"""manage.py export_research DIR --user USERNAME: write research memory as the seed's YAML files."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from research.yaml_io import ResearchFilesInvalid, export_research


class Command(BaseCommand):
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
        owner = get_user_model().objects.filter(username=user).first()
        if owner is None:
            raise CommandError(f"no user named {user!r}")
        try:
            summary = export_research(owner, Path(directory), progress=self._progress)
        except ResearchFilesInvalid as exc:
            raise CommandError(f"{directory}: {exc}") from exc
        self.stdout.write(f"{user} → {directory}: {summary}")

    def _progress(self, done: int, total: int) -> None:
        width = 30
        filled = width * done // total if total else width
        self.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} files", ending="")
        if done >= total:
            self.stderr.write("")
        self.stderr.flush()

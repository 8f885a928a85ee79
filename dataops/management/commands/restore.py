"""`manage.py restore PATH`: a backup restored into the (empty) database, then `migrate` (memorysite/backup.py)."""

from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from access.roles import owner_credentials
from memorysite import backup


class Command(BaseCommand):
    help = (
        "Restore a `manage.py backup` file into the service's database, which must be empty unless --replace is "
        "given; then run `migrate` (newer migrations, the app role's grants, row-level security). Stop the service "
        "first."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="A file written by `manage.py backup`.")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Drop everything in the database first (its public schema), when it is not empty.",
        )
        parser.add_argument(
            "--database-name",
            default="",
            help="Restore into this other database of the same server instead (e.g. to inspect a backup); "
            "it must exist. `migrate` is not run on it.",
        )

    def handle(self, *args, path: Path, replace: bool, database_name: str, **options):
        own = connections["default"].settings_dict["NAME"]
        target = backup.Target.from_settings(owner_credentials(), database=database_name or own)
        connections.close_all()  # no session of this process holds a table the restore replaces
        try:
            count = backup.restore(path.resolve(), target, replace=replace)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Restored {path} into database {target.database!r} ({count} tables).")
        if target.database == own:
            call_command("migrate", interactive=False, verbosity=0)
            self.stdout.write("Ran migrate: the app role's grants, row-level security and any newer migrations.")

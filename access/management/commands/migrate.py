"""`migrate`, connected as the tables' owner (DATABASE_MIGRATE_URL), never as the service's role.

The owner creates the tables; access/policies.py (post_migrate) then grants the app role its rows
and installs row-level security. Same database, other credentials: the connection is swapped for
the duration of the command and closed on both sides of it.
"""

from django.core.management.commands import migrate

from access.checks import MIGRATING
from access.roles import as_owner


class Command(migrate.Command):
    help = migrate.Command.help + " Connects as the owner role (DATABASE_MIGRATE_URL)."

    def execute(self, *args, **options):
        MIGRATING["active"] = True  # the checks run first; the access check is what migrate repairs
        try:
            with as_owner(options.get("database") or "default"):
                return super().execute(*args, **options)
        finally:
            MIGRATING["active"] = False

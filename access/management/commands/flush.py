"""`flush`, as the tables' owner: TRUNCATE ignores row-level security, so the app role may not run it."""

from django.core.management.commands import flush

from access.roles import as_owner


class Command(flush.Command):
    help = flush.Command.help + " Connects as the owner role (DATABASE_MIGRATE_URL)."

    def execute(self, *args, **options):
        with as_owner(options.get("database") or "default"):
            return super().execute(*args, **options)

#!/usr/bin/env python
"""Django's command-line utility.

With DATABASE_URL / REDIS_URL unset, the embedded PostgreSQL and Redis under .data/ are started
(or reused) first, and whatever this process started is stopped when it exits.
"""

import os
import sys

# Django's own user commands write who is staff outside any trader's scope, which the app role may not
# (access/policies.py): they connect as the tables' owner (DATABASE_MIGRATE_URL), as migrate does.
OWNER_COMMANDS = frozenset({"createsuperuser", "changepassword"})


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memorysite.settings")
    from memorysite.embedded import EmbeddedServiceError, ensure_for_process

    try:
        ensure_for_process()
    except EmbeddedServiceError as exc:  # e.g. a data directory of another PostgreSQL major: say what to do
        sys.exit(f"error: {exc}")
    from django.core.management import execute_from_command_line

    if len(sys.argv) > 1 and sys.argv[1] in OWNER_COMMANDS:
        import django

        django.setup()
        from access.roles import as_owner

        with as_owner():
            execute_from_command_line(sys.argv)
        return
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""Django's command-line utility.

With DATABASE_URL / REDIS_URL unset, the embedded PostgreSQL and Redis under .data/ are started
(or reused) first, and whatever this process started is stopped when it exits.
"""

import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memorysite.settings")
    from memorysite.embedded import ensure_for_process

    ensure_for_process()
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

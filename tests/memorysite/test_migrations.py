"""Every model change has its migration: a model edited without one would pass tests (they build the
schema from the migrations) and then differ from the database the code expects."""

import io

from django.core.management import call_command


def test_no_model_change_lacks_a_migration(db):
    out = io.StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exit_:  # makemigrations --check exits 1 when a migration is missing
        raise AssertionError(f"missing migrations:\n{out.getvalue()}") from exit_

"""Helpers every management command shares."""

from __future__ import annotations

from collections.abc import Callable

from django.core.management.base import BaseCommand, OutputWrapper


class MaintenanceCommand(BaseCommand):
    """A command that works across traders: it runs elevated past row-level security, audited with
    its command line (access.scope.elevated). By default in one transaction; a long-running
    command sets `one_transaction = False` and opens its own transactions."""

    one_transaction = True

    def execute(self, *args, **options):
        import sys

        from access.scope import elevated

        name = self.__module__.rsplit(".", 1)[-1]
        command_line = " ".join(sys.argv[1:]) if name in sys.argv[1:2] else name
        with elevated(f"manage.py {command_line}", atomic=self.one_transaction):
            return super().execute(*args, **options)


def progress_bar(stream: OutputWrapper, noun: str) -> Callable[[int, int], None]:
    """A one-line bar rewritten in place on `stream`, ended with a line break when done."""

    def show(done: int, total: int) -> None:
        width = 30
        filled = width * done // total if total else width
        stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {noun}", style_func=str, ending="")
        if done >= total:
            stream.write("", style_func=str)
        stream.flush()

    return show


def user_named(username: str):
    """The user with this username, or a CommandError saying there is none."""
    from django.contrib.auth import get_user_model
    from django.core.management.base import CommandError

    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise CommandError(f"no user named {username!r}")
    return user

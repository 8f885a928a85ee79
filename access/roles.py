"""Connecting as the owner role for migrations and test-database set-up."""

from __future__ import annotations

import contextlib

from django.conf import settings
from django.db import connections

CREDENTIALS = ("USER", "PASSWORD", "HOST", "PORT")


def _reconnect(alias: str) -> None:
    connection = connections[alias]
    connection.close()
    if getattr(connection, "pool", None):
        connection.close_pool()  # type: ignore[attr-defined]  # postgresql's wrapper (the stubs give the base)


def swap_credentials(alias: str, source: dict) -> dict:
    """Point the alias at `source`'s role and server (same database name); returns the old ones."""
    settings_dict = connections[alias].settings_dict
    previous = {key: settings_dict.get(key) for key in CREDENTIALS}
    _reconnect(alias)
    settings_dict.update({key: source.get(key, "") for key in CREDENTIALS})
    return previous


def owner_credentials() -> dict:
    return settings.DATABASE_MIGRATE


@contextlib.contextmanager
def as_owner(alias: str = "default"):
    previous = swap_credentials(alias, owner_credentials())
    try:
        yield
    finally:
        swap_credentials(alias, previous)

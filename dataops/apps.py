from django.apps import AppConfig


class DataopsConfig(AppConfig):
    """The data's care across every app: backups and restores, and a trader's own data (export, erasure).

    It owns no table; it stands above every app (pyproject.toml's layers) because it reads and erases what
    each of them owns."""

    name = "dataops"
    verbose_name = "Data operations: backups, export, erasure"

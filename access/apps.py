from django.apps import AppConfig

from access.row_security import RowSecurity


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = "Access control"
    # The audit of elevations has no trader; the service may add to it, never change it.
    row_security = RowSecurity(shared=("Elevation",), append_only=("Elevation",))

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from access import celery, checks, policies  # noqa: F401 (registers the check and Celery's task hooks)

        post_migrate.connect(policies.install_after_migrate, sender=self)

from django.apps import AppConfig


class AccessConfig(AppConfig):
    name = "access"
    verbose_name = "Access control"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from access import celery, checks, policies  # noqa: F401 (registers the check and the task signals)

        post_migrate.connect(policies.install_after_migrate, sender=self)

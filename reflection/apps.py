from django.apps import AppConfig

from access.row_security import RowSecurity


class ReflectionConfig(AppConfig):
    """Lessons distilled from closed trades (reflection_notes): triggers, engines, curation, A/B."""

    name = "reflection"
    verbose_name = "Reflection: lessons from trades"
    # Its tables are owned or children, nothing more (access/row_security.py).
    row_security = RowSecurity()

    def ready(self) -> None:
        from reflection import receivers  # noqa: F401 (connects the trades_closed receiver)

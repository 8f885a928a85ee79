from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    """Lessons distilled from closed trades (reflection_notes): triggers, engines, curation, A/B."""

    name = "reflection"
    verbose_name = "Reflection: lessons from trades"

    def ready(self) -> None:
        from reflection import receivers  # noqa: F401 (connects the trades_closed receiver)

from django.apps import AppConfig


class ReflectionConfig(AppConfig):
    """Lessons distilled from closed trades (reflection_notes); built in the reflection issue."""

    name = "reflection"

from django.apps import AppConfig


class ResearchConfig(AppConfig):
    """Research memory: experiment records, the hypothesis registry, capability requests."""

    name = "research"
    verbose_name = "Research memory"

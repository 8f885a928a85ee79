from django.apps import AppConfig

from access.row_security import RowSecurity


class ResearchConfig(AppConfig):
    """Research memory: experiment records, the hypothesis registry, capability requests."""

    name = "research"
    verbose_name = "Research memory"
    # Its tables are owned or children, nothing more (access/row_security.py).
    row_security = RowSecurity()

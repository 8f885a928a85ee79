from django.apps import AppConfig

from access.row_security import RowSecurity


class SignalsConfig(AppConfig):
    """Analyst memory: each analysis agent's past signals on a market, and how its view evolves."""

    name = "signals"
    verbose_name = "Signals: analyst memory"
    # Its tables are owned or children (access/row_security.py), besides the switches' one row, every scope's.
    row_security = RowSecurity(shared=("MemorySettings",))

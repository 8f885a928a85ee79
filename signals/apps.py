from django.apps import AppConfig


class SignalsConfig(AppConfig):
    """Analyst memory: each analysis agent's past signals on a market, and how its view evolves."""

    name = "signals"
    verbose_name = "Signals: analyst memory"

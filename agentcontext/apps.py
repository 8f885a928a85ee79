from django.apps import AppConfig


class AgentContextConfig(AppConfig):
    """Assembles what the trading agent sees each tick; built in the trade-memory issue."""

    name = "agentcontext"
    verbose_name = "Agent context"

from django.apps import AppConfig

from access.row_security import RowSecurity


class ChatMemoryConfig(AppConfig):
    """Durable facts about the trader for the chat coach (user_facts); built in the chat-memory issue."""

    name = "chatmemory"
    verbose_name = "Chat memory"
    # Market data has no trader: every trader reads it (access/row_security.py).
    row_security = RowSecurity(shared=("MarketEvent", "Bar"))

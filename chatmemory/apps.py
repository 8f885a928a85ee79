from django.apps import AppConfig


class ChatMemoryConfig(AppConfig):
    """Durable facts about the trader for the chat coach (user_facts); built in the chat-memory issue."""

    name = "chatmemory"
    verbose_name = "Chat memory"

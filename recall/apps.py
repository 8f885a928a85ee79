from django.apps import AppConfig


class RecallConfig(AppConfig):
    """Recall: hybrid keyword + vector search over agents' documents and past trade situations, with citations."""

    name = "recall"
    verbose_name = "Recall: documents, chunks and situation memory"

    def ready(self):
        from recall import receivers  # noqa: F401  (trade opened/closed → situation rows)

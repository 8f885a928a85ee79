from django.apps import AppConfig

from access.row_security import RowSecurity
from recall.row_security import KEYWORD_CANDIDATES


class RecallConfig(AppConfig):
    """Recall: hybrid keyword + vector search over agents' documents and past trade situations, with citations."""

    name = "recall"
    verbose_name = "Recall: documents, chunks and situation memory"
    # Staff playbooks (no owner) are read by every trader; the keyword side's function (access/row_security.py).
    row_security = RowSecurity(global_read=("Document", "Chunk", "LexemeStat"), functions=(KEYWORD_CANDIDATES,))

    def ready(self):
        from recall import receivers  # noqa: F401  (trade opened/closed → situation rows)

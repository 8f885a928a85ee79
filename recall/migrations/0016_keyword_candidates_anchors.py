"""recall_keyword_candidates gains `p_anchors` (recall/row_security.py, recall/bm25.py's anchor_count): the terms
after the anchors are scanned only in the chunks holding an anchor too.

As in 0005 and 0012: access installs the function after every migrate under its declared signature, and a new
argument makes it a new function beside the old one, a nine-argument call then matching both. This drops the old
nine-argument form; the installer creates the new one (whose last argument defaults to NULL, every term an anchor,
so a nine-argument call keeps its meaning). Backwards, the new form is dropped and the old code's installer creates
the old one again."""

from django.db import migrations

OLD = "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text, boolean)"
NEW = (
    "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text, boolean,"
    " integer)"
)


class Migration(migrations.Migration):
    dependencies = [("recall", "0015_hnsw_ef_construction_800")]

    operations = [migrations.RunSQL(f"DROP FUNCTION IF EXISTS {OLD}", f"DROP FUNCTION IF EXISTS {NEW}")]

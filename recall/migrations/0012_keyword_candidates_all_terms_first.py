"""recall_keyword_candidates gains `p_all_first` (recall/row_security.py, recall/bm25.py's all_terms_first): the
fetch may read the chunks holding every term first, and skip the scans term by term when there are enough.

As in 0005: access installs the function after every migrate under its declared signature, and a new argument
makes it a new function beside the old one, an eight-argument call then matching both. This drops the old
eight-argument form; the installer creates the new one (whose last argument defaults to false, so an
eight-argument call keeps its meaning). Backwards, the new form is dropped and the old code's installer creates
the old one again."""

from django.db import migrations

OLD = "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text)"
NEW = "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text, boolean)"


class Migration(migrations.Migration):
    dependencies = [("recall", "0011_hnsw_ef_construction_400")]

    operations = [migrations.RunSQL(f"DROP FUNCTION IF EXISTS {OLD}", f"DROP FUNCTION IF EXISTS {NEW}")]

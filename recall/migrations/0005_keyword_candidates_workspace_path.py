"""recall_keyword_candidates gains `p_workspace_path` (recall/row_security.py): the workspace files a search may
read narrowed by path inside the candidate fetch (the per-tick context's manual section: of the workspace files,
the manual only), so the section searches once for what it may show instead of dropping other files afterwards.

access installs the function after every migrate (CREATE OR REPLACE, its declared signature); a new argument makes
it a new function beside the old one, and a seven-argument call would then match both. This drops the old
seven-argument form; the installer creates the new one (whose last argument defaults to NULL, so a
seven-argument call keeps its meaning). Backwards, the new form is dropped and the old code's installer
creates the old one again."""

from django.db import migrations

OLD = "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer)"
NEW = "recall_keyword_candidates(text[], double precision[], bigint, bigint, text[], integer, integer, text)"


class Migration(migrations.Migration):
    dependencies = [("recall", "0004_stop_words_indexed")]

    operations = [migrations.RunSQL(f"DROP FUNCTION IF EXISTS {OLD}", f"DROP FUNCTION IF EXISTS {NEW}")]

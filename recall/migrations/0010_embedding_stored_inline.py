"""A chunk's embedding stays in the table's own row (STORAGE MAIN), never out of line in TOAST.

pgvector gives its type EXTERNAL storage: when a row is over PostgreSQL's TOAST target (~2 kB), the largest
values go out of line, and a chunk whose text compressed small enough to stay in the row had its 1,544-byte
vector moved out instead (12% of bench/recall_latency.py's 100,000 chunks). Every read of such a vector is
then a TOAST index probe and one more page: the exact scan of a trader's vectors, the iterative scan's
distances and the candidates' cosines. With MAIN, the text (which search reads for its k hits only) and the
search vector go out of line first. Measured on the bench's tables, the same rows copied with either storage,
interleaved: the exact scan of 5,040 readable vectors 7.6 → 4.4 ms p50, of 20,040 33.0 → 16.7 ms; the table's
size is the same.

The setting applies to rows written from now on; the rows already written with an out-of-line vector are
rewritten here (a new vector value, so PostgreSQL stores it anew; text and search vector keep theirs). On
PostgreSQL 16, which cannot tell out-of-line values apart (pg_column_toast_chunk_id is 17's), every embedded
row is rewritten: that server only runs before `make upgrade-data`, on a small store."""

from django.db import migrations

FORWARD = """
ALTER TABLE recall_chunks ALTER COLUMN embedding SET STORAGE MAIN;
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 170000 THEN
        EXECUTE 'UPDATE recall_chunks SET embedding = embedding::real[]::vector'
                ' WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL';
    ELSE
        UPDATE recall_chunks SET embedding = embedding::real[]::vector WHERE embedding IS NOT NULL;
    END IF;
END
$$;
"""
BACKWARD = "ALTER TABLE recall_chunks ALTER COLUMN embedding SET STORAGE EXTERNAL;"


class Migration(migrations.Migration):
    dependencies = [("recall", "0009_journal_entries_plural")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]

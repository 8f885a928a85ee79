"""The keyword index holds each chunk's lexemes prefixed with its owner ("<owner id> <lexeme>", "0 <lexeme>" for the
global rows; recall.models.OwnerLexemes, recall/row_security.py's OWNER_LEXEMES_SQL), in place of 0008's lexemes
plus one owner lexeme. A term's postings are then one owner's: the candidate fetch asks for `'<id> term' | '0 term'`
and GIN reads the trader's and the global postings of the term alone, instead of the term's postings in the whole
table intersected with every chunk of the trader. search_vector itself, and so BM25's scoring and the lexeme
statistics, are unchanged.

The index's function is created here, before the index (recall/row_security.py's OWNER_LEXEMES_SQL calls it), and
dropped after it backwards, when 0008's index comes back. The build gets what it needs for this transaction
only, as 0011's."""

import django.contrib.postgres.indexes
from django.db import migrations

import recall.models

FUNCTION = """
CREATE OR REPLACE FUNCTION recall_owner_lexemes(p_owner bigint, p_vector tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN pg_catalog.array_to_tsvector(ARRAY(
    SELECT p_owner::text || ' ' || lexeme FROM pg_catalog.unnest(pg_catalog.tsvector_to_array(p_vector)) AS lexeme
    WHERE pg_catalog.octet_length(lexeme) <= 2000
))
"""
BUILD_SETTINGS = "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '512MB';"


class Migration(migrations.Migration):
    dependencies = [("recall", "0012_keyword_candidates_all_terms_first")]

    operations = [
        migrations.RunSQL(BUILD_SETTINGS, migrations.RunSQL.noop),
        migrations.RunSQL(FUNCTION, "DROP FUNCTION recall_owner_lexemes(bigint, tsvector)"),
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_owner_fts"),
        migrations.AddIndex(
            model_name="chunk",
            index=django.contrib.postgres.indexes.GinIndex(
                recall.models.OwnerLexemes(), name="recall_chunk_owner_lexemes"
            ),
        ),
    ]

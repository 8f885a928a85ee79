"""The keyword index holds each chunk's owner as one more lexeme ("owner <owner id>", "owner 0" for the global rows;
recall.models.OWNER_SEARCH_VECTOR_SQL), so the candidate fetch asks GIN for `term & ('owner <id>' | 'owner 0')` and reads
only the trader's (and the global) postings of a term, not every owner's rows holding it (recall/row_security.py).
The index replaces the plain one on search_vector, which nothing else queried; search_vector itself, and so
BM25's scoring and the lexeme statistics, are unchanged."""

import django.contrib.postgres.indexes
from django.db import migrations

import recall.models


class Migration(migrations.Migration):
    dependencies = [("recall", "0007_chunk_word_count")]

    operations = [
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_fts"),
        migrations.AddIndex(
            model_name="chunk",
            index=django.contrib.postgres.indexes.GinIndex(
                recall.models.OwnerSearchVector(), name="recall_chunk_owner_fts"
            ),
        ),
    ]

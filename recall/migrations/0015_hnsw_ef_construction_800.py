"""The chunks' HNSW index (half precision, m 16) is built with ef_construction 800 (was 400, recall 0011).

A graph built with the longer candidate list connects the clusters of a trader's chunks better. On
bench/recall_latency.py's 100,000-chunk tables (--hnsw-builds 2 --hnsw-ef-construction 400,800), two builds of each
at the hnsw.ef_search search uses: the 20,000-chunk trader among 100,000 found 0.938 / 0.946 of the exact top 10
over the old graph and 0.998 / 0.994 over the new one (its worst question 0.0 → 0.8), one trader's 100,000 chunks
0.924 / 0.986 and 0.974 / 0.994 (docs/architecture.md). Over the new graph 600 gives what 800 does, so
recall/selectors.py's HNSW_EF_SEARCH_LARGE came down from 800 to 600. The build takes ~1.5x as long (60-64 s against
41-42 s for 100,000 chunks here) and the index is the same size; an insert costs more in proportion, small beside
embedding the chunk.

The build gets what it needs for this transaction only, as 0011's."""

import django.contrib.postgres.indexes
import django.db.models.functions.comparison
import pgvector.django.halfvec
import pgvector.django.indexes
from django.db import migrations

BUILD_SETTINGS = "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '512MB';"


class Migration(migrations.Migration):
    dependencies = [("recall", "0014_embedding_index_half_precision")]

    operations = [
        migrations.RunSQL(BUILD_SETTINGS, migrations.RunSQL.noop),
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_embedding_half"),
        migrations.AddIndex(
            model_name="chunk",
            index=pgvector.django.indexes.HnswIndex(
                django.contrib.postgres.indexes.OpClass(
                    django.db.models.functions.comparison.Cast(
                        "embedding", pgvector.django.halfvec.HalfVectorField(dimensions=384)
                    ),
                    name="halfvec_cosine_ops",
                ),
                ef_construction=800,
                m=16,
                name="recall_chunk_embedding_half",
            ),
        ),
        migrations.RunSQL(migrations.RunSQL.noop, BUILD_SETTINGS),  # the same settings first when unapplied
    ]

"""The chunks' HNSW index (half precision, m 16) is built with ef_construction 800 (was 400, recall 0011).

A graph built with the longer candidate list connects the clusters of a trader's chunks better. On
bench/recall_latency.py's 100,000-chunk tables the 20,000-chunk trader's iterative scan no longer lost a question
entirely, and over the new graph 400 or 600 reached the recall@10 that took 800 before (20,000-chunk trader among
100,000: 0.906 → 0.982 at 400, 0.950 → 0.996 at 800; one trader's 100,000: 0.872 → 0.968 at 400, 0.954 → 0.988 at
600 and 800), so recall/selectors.py's HNSW_EF_SEARCH_LARGE came down from 800 to 600. Two builds of each, at the
ef_search search uses: 0.938 / 0.946 → 0.998 / 0.994 and 0.924 / 0.986 → 0.974 / 0.994 (docs/architecture.md). The
build takes ~1.5x as long (60-66 s against 41-45 s for 100,000 chunks here) and the index is the same size; an insert
costs more in proportion, small beside embedding the chunk.

The build gets what it needs for this transaction only, as 0011's."""

import django.contrib.postgres.indexes
import django.db.models.functions.comparison
import pgvector.django.halfvec
import pgvector.django.indexes
from django.db import migrations

BUILD_SETTINGS = "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '512MB';"


def half_precision_index(ef_construction: int):
    return pgvector.django.indexes.HnswIndex(
        django.contrib.postgres.indexes.OpClass(
            django.db.models.functions.comparison.Cast(
                "embedding", pgvector.django.halfvec.HalfVectorField(dimensions=384)
            ),
            name="halfvec_cosine_ops",
        ),
        ef_construction=ef_construction,
        m=16,
        name="recall_chunk_embedding_half",
    )


class Migration(migrations.Migration):
    dependencies = [("recall", "0014_embedding_index_half_precision")]

    operations = [
        migrations.RunSQL(BUILD_SETTINGS, migrations.RunSQL.noop),
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_embedding_half"),
        migrations.AddIndex(model_name="chunk", index=half_precision_index(800)),
        migrations.RunSQL(migrations.RunSQL.noop, BUILD_SETTINGS),  # the same settings first when unapplied
    ]

"""The chunks' HNSW index holds each embedding at half precision: `(embedding::halfvec(384)) halfvec_cosine_ops`.

The graph keeps a copy of every vector; at half precision it is 768 bytes rather than 1,536, so the index is ~0.57
of the size (112 MB against 195 MB for 100,000 chunks here), builds faster, and a scan reads half the bytes. On
bench/recall_latency.py's tables the iterative statement ran 0.87-0.93 of its time, and its recall@10 against the
exact answer stayed within the spread between builds (docs/architecture.md has the builds measured). The rows keep
full precision: the exact scan reads them as before, and so do the distances search reports
(recall/selectors.py's _ITERATIVE orders by the half-precision distance, which the index serves, and returns the
full-precision one).

The build gets what it needs for this transaction only, as 0011's. pgvector 0.7 brought halfvec: the embedded
server's 0.8.6 and compose's pgvector/pgvector:pg18 have it."""

import django.contrib.postgres.indexes
import django.db.models.functions.comparison
import pgvector.django.halfvec
import pgvector.django.indexes
from django.db import migrations

BUILD_SETTINGS = "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '512MB';"


class Migration(migrations.Migration):
    dependencies = [("recall", "0013_owner_lexeme_index")]

    operations = [
        migrations.RunSQL(BUILD_SETTINGS, migrations.RunSQL.noop),
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_embedding"),
        migrations.AddIndex(
            model_name="chunk",
            index=pgvector.django.indexes.HnswIndex(
                django.contrib.postgres.indexes.OpClass(
                    django.db.models.functions.comparison.Cast(
                        "embedding", pgvector.django.halfvec.HalfVectorField(dimensions=384)
                    ),
                    name="halfvec_cosine_ops",
                ),
                ef_construction=400,
                m=16,
                name="recall_chunk_embedding_half",
            ),
        ),
        migrations.RunSQL(migrations.RunSQL.noop, BUILD_SETTINGS),  # the same settings first when unapplied
    ]

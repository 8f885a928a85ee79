"""The chunks' HNSW index is built with ef_construction 400 (was 64), m 16 as before.

Chunks of one trader on one topic embed close together (bench/recall_latency.py's real pool: 0.90 cosine within
a topic), and a graph built with a short candidate list connects such clusters poorly: the owner-filtered iterative
scan found 0.75-0.78 of the exact top 10 for traders of 5,000 and 20,000 chunks in a 100,000-chunk table. Built
with 400: 0.91-0.96 at hnsw.ef_search 400, 0.96-0.97 at 800 (the bench's 50 questions). The index is the same
size; it builds in 45 s instead of 17 s for 100,000 chunks here, and 32 embeddings cost 127 ms to index instead of
64 (embed_pending's batch: the model's part is ~1.8 s).

The build gets what it needs for this transaction only: no statement timeout (the service's 30 s default would
cancel a large store's build) and maintenance_work_mem for the graph to be built in memory."""

import pgvector.django.indexes
from django.db import migrations

BUILD_SETTINGS = "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '512MB';"


class Migration(migrations.Migration):
    dependencies = [("recall", "0010_embedding_stored_inline")]

    operations = [
        migrations.RunSQL(BUILD_SETTINGS, migrations.RunSQL.noop),
        migrations.RemoveIndex(model_name="chunk", name="recall_chunk_embedding"),
        migrations.AddIndex(
            model_name="chunk",
            index=pgvector.django.indexes.HnswIndex(
                ef_construction=400,
                fields=["embedding"],
                m=16,
                name="recall_chunk_embedding",
                opclasses=["vector_cosine_ops"],
            ),
        ),
        migrations.RunSQL(migrations.RunSQL.noop, BUILD_SETTINGS),  # the same settings first when unapplied
    ]

"""Every word indexed: the chunks' search_vector moves from PostgreSQL's `english` configuration to
`recall_english`, the same parser and Snowball English stemmer without a stop-word list.

Why (bench/keyword_study.py, BM25 over every chunk holding a query term, nDCG@10 against SQLite FTS5's
bm25() on the same chunks): `english` drops 127 stop words, among them the words a trader's question turns
on ("after", "before", "below", "not", "out", "off", "again"): "tiny quick trades were profitable before
costs but not after" kept only cost/profit/quick/tini/trade and found nothing relevant. trading_recall's
keyword side scored 0.712 against FTS5's 0.738 (which keeps every word). Stop words are now dropped from
the query instead (recall/bm25.py QUERY_STOP_WORDS: `english`'s list less those words), which ranks
0.737 / 0.421 / 0.889 on trading_recall / python_docs / boolq against FTS5's 0.738 / 0.426 / 0.882.

The column is dropped and added again with the new expression, and its GIN index built again: every version
the product runs on can do it (`ALTER COLUMN ... SET EXPRESSION` needs PostgreSQL 17, and a 16 database is
migrated before `make upgrade-data` moves it to 18). Adding the column computes it for every row without firing
a trigger, so the lexeme statistics (recall 0002) are counted again.
"""

import importlib

import django.contrib.postgres.search
from django.db import migrations, models

lexeme_stats = importlib.import_module("recall.migrations.0002_lexeme_stats")

EXPRESSION = (
    "to_tsvector('{config}'::regconfig, ((COALESCE(heading, ''::text) || ' '::text) || COALESCE(text, ''::text)))"
)


def search_vector(config: str) -> list[str]:
    """The column again, computed with `config`, and its index (dropped with the old column); then the counts."""
    return [
        "ALTER TABLE recall_chunks DROP COLUMN search_vector",
        "ALTER TABLE recall_chunks ADD COLUMN search_vector tsvector GENERATED ALWAYS AS ("
        + EXPRESSION.format(config=config)
        + ") STORED",
        'CREATE INDEX "recall_chunk_fts" ON "recall_chunks" USING gin ("search_vector")',
        "DELETE FROM recall_lexeme_stats",
        lexeme_stats.BACKFILL,
    ]


FORWARD = [
    "CREATE TEXT SEARCH DICTIONARY public.recall_english_stem (TEMPLATE = pg_catalog.snowball, Language = english)",
    "CREATE TEXT SEARCH CONFIGURATION public.recall_english (COPY = pg_catalog.english)",
    "ALTER TEXT SEARCH CONFIGURATION public.recall_english ALTER MAPPING FOR asciiword, asciihword, hword_asciipart,"
    " word, hword, hword_part WITH public.recall_english_stem",
    *search_vector("public.recall_english"),
]
REVERSE = [
    *search_vector("pg_catalog.english"),
    "DROP TEXT SEARCH CONFIGURATION public.recall_english",
    "DROP TEXT SEARCH DICTIONARY public.recall_english_stem",
]


class Migration(migrations.Migration):
    dependencies = [("recall", "0003_one_manual_per_deployment")]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[migrations.RunSQL(FORWARD, REVERSE)],
            state_operations=[
                migrations.AlterField(
                    model_name="chunk",
                    name="search_vector",
                    field=models.GeneratedField(
                        db_persist=True,
                        expression=django.contrib.postgres.search.SearchVector(
                            "heading", "text", config="recall_english"
                        ),
                        output_field=django.contrib.postgres.search.SearchVectorField(),
                    ),
                ),
            ],
        ),
    ]

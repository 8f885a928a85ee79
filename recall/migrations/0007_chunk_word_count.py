"""BM25's chunk length is the chunk's words (`word_count`, a generated column), no longer `token_count`.

token_count is the chunker's count (recall/chunking.py: words and every punctuation mark), which sizes chunks
and estimates prompt tokens; as BM25's length it made code-heavy chunks look long (every `.`, `(` and `)`
counted), so their matches ranked low. bench/keyword_study.py on python_docs (600 queries, exhaustive BM25,
nDCG@10 against SQLite FTS5's bm25() on the same chunks at 0.423): token_count 0.413, words 0.418, the
tsvector's own positions 0.418; trading_recall 0.737 / 0.735 / 0.736 (FTS5 0.738).

The lexeme statistics' totals row (recall 0002: lexeme '', chunks and their summed length) now sums
word_count: the trigger function is replaced with the same one reading word_count, and the statistics are
counted again (adding a stored generated column rewrites the table, which fires no trigger).
"""

import importlib

import django.db.models.functions.text
from django.db import migrations, models

lexeme_stats = importlib.import_module("recall.migrations.0002_lexeme_stats")


def _by_words(sql: str) -> str:
    return sql.replace("token_count", "word_count")


FUNCTION = _by_words(lexeme_stats.FUNCTION)
BACKFILL = _by_words(lexeme_stats.BACKFILL)
RECOUNT = ["DELETE FROM recall_lexeme_stats", BACKFILL]


class Migration(migrations.Migration):
    dependencies = [("recall", "0006_situation_unembedded")]

    operations = [
        migrations.AddField(
            model_name="chunk",
            name="word_count",
            field=models.GeneratedField(
                db_persist=True,
                expression=models.Func(
                    django.db.models.functions.text.Concat(
                        "heading", models.Value(" "), "text", output_field=models.TextField()
                    ),
                    models.Value("\\w+"),
                    function="regexp_count",
                    output_field=models.IntegerField(),
                ),
                output_field=models.IntegerField(),
            ),
        ),
        migrations.RunSQL(
            [FUNCTION, *RECOUNT],
            # Back: the function reading token_count and its totals, before the column goes.
            [lexeme_stats.FUNCTION, "DELETE FROM recall_lexeme_stats", lexeme_stats.BACKFILL],
        ),
    ]

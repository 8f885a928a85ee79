"""recall_lexeme_stats: a trader's document frequency per lexeme, kept in step with recall_chunks.

Statement-level AFTER triggers (one per operation: an INSERT trigger has no old rows) hand their
transition tables to one function that turns them into per-(owner, lexeme) deltas and upserts them
in (owner, lexeme) order, after an advisory lock per owner taken in owner order: two transactions
writing one trader's chunks (each possibly in several statements) queue on the lock instead of
deadlocking on the counters. An UPDATE counts only rows whose search_vector, owner or token_count
changed (the embedding worker's updates write nothing here). Counters that reach 0 are deleted.
The triggers run as the writer, under the same row-level security as the chunks they count
(recall/apps.py declares the table global-read, like the chunks).
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

# The delta of one statement (owner_id, search_vector, token_count, sign), per operation.
DELTAS = {
    "INSERT": "SELECT owner_id, search_vector, token_count, 1 AS sign FROM new_rows",
    "DELETE": "SELECT owner_id, search_vector, token_count, -1 AS sign FROM old_rows",
    "UPDATE": (
        "SELECT o.owner_id, o.search_vector, o.token_count, -1 AS sign FROM old_rows o JOIN new_rows n ON n.id = o.id"
        " WHERE (o.search_vector, o.owner_id, o.token_count) IS DISTINCT FROM (n.search_vector, n.owner_id, n.token_count)"
        " UNION ALL"
        " SELECT n.owner_id, n.search_vector, n.token_count, 1 AS sign FROM old_rows o JOIN new_rows n ON n.id = o.id"
        " WHERE (o.search_vector, o.owner_id, o.token_count) IS DISTINCT FROM (n.search_vector, n.owner_id, n.token_count)"
    ),
}

FUNCTION = r"""
CREATE OR REPLACE FUNCTION public.recall_lexeme_stats_apply() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, public, pg_temp AS $fn$
DECLARE
    delta text := CASE TG_OP WHEN 'INSERT' THEN %(insert)s WHEN 'DELETE' THEN %(delete)s ELSE %(update)s END;
    emptied bigint[];
BEGIN
    EXECUTE format(
        'SELECT pg_advisory_xact_lock(hashtext(''recall_lexeme_stats''), COALESCE(o.owner_id, 0)::integer)'
        ' FROM (SELECT DISTINCT d.owner_id FROM (%%s) AS d ORDER BY d.owner_id NULLS FIRST) AS o', delta
    );
    EXECUTE format($q$
        WITH delta AS MATERIALIZED (%%s),
        counted AS (
            SELECT d.owner_id, l.lexeme, SUM(d.sign)::integer AS df, 0::bigint AS tokens
            FROM delta d CROSS JOIN LATERAL unnest(tsvector_to_array(d.search_vector)) AS l(lexeme)
            GROUP BY 1, 2
            UNION ALL
            SELECT d.owner_id, '', SUM(d.sign)::integer, SUM(d.sign * d.token_count)::bigint FROM delta d GROUP BY 1
        ),
        upserted AS (
            INSERT INTO recall_lexeme_stats AS s (owner_id, lexeme, df, tokens)
            SELECT c.owner_id, c.lexeme, c.df, c.tokens FROM counted c WHERE c.df <> 0 OR c.tokens <> 0
            ORDER BY c.owner_id NULLS FIRST, c.lexeme
            ON CONFLICT (owner_id, lexeme) DO UPDATE SET df = s.df + EXCLUDED.df, tokens = s.tokens + EXCLUDED.tokens
            RETURNING s.id, s.df
        )
        SELECT array_agg(id) FROM upserted WHERE df <= 0
    $q$, delta) INTO emptied;
    IF emptied IS NOT NULL THEN
        DELETE FROM recall_lexeme_stats WHERE id = ANY(emptied);
    END IF;
    RETURN NULL;
END
$fn$
""" % {name.lower(): "'" + sql.replace("'", "''") + "'" for name, sql in DELTAS.items()}  # noqa: S608 (constant SQL)

TRIGGERS = [
    f"CREATE TRIGGER recall_lexeme_stats_{operation.lower()} AFTER {operation} ON recall_chunks REFERENCING {tables}"
    " FOR EACH STATEMENT EXECUTE FUNCTION public.recall_lexeme_stats_apply()"
    for operation, tables in (
        ("INSERT", "NEW TABLE AS new_rows"),
        ("DELETE", "OLD TABLE AS old_rows"),
        ("UPDATE", "OLD TABLE AS old_rows NEW TABLE AS new_rows"),
    )
]

# The chunks a database already holds, counted once.
BACKFILL = """
INSERT INTO recall_lexeme_stats (owner_id, lexeme, df, tokens)
SELECT c.owner_id, l.lexeme, COUNT(*), 0 FROM recall_chunks c
CROSS JOIN LATERAL unnest(tsvector_to_array(c.search_vector)) AS l(lexeme) GROUP BY 1, 2
UNION ALL
SELECT c.owner_id, '', COUNT(*), COALESCE(SUM(c.token_count), 0) FROM recall_chunks c GROUP BY 1
"""

REVERSE = [
    *(f"DROP TRIGGER IF EXISTS recall_lexeme_stats_{operation.lower()} ON recall_chunks" for operation in DELTAS),
    "DROP FUNCTION IF EXISTS public.recall_lexeme_stats_apply()",
]


class Migration(migrations.Migration):
    dependencies = [
        ("recall", "0001_initial"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="LexemeStat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("lexeme", models.TextField(blank=True)),
                ("df", models.IntegerField()),
                ("tokens", models.BigIntegerField(default=0)),
                (
                    "owner",
                    models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "db_table": "recall_lexeme_stats",
                "constraints": [
                    models.UniqueConstraint(
                        fields=("owner", "lexeme"), name="recall_lexeme_stat_unique", nulls_distinct=False
                    )
                ],
            },
        ),
        migrations.RunSQL([FUNCTION, *TRIGGERS, BACKFILL], REVERSE),
        # The keyword side's previous SECURITY DEFINER function (ts_rank over OR-ed lexemes); access installs
        # its successor, recall_keyword_candidates, after migrate.
        migrations.RunSQL(
            "DROP FUNCTION IF EXISTS recall_keyword_matches(tsquery, bigint, bigint, text[], integer)",
            migrations.RunSQL.noop,
        ),
    ]

"""Recall's migrations on a database from before them: 0003 (one manual per deployment scope) is refused with
the list of manuals in breach and the command that keeps one, and applies after `recall_manuals --keep`; 0004
re-indexes the chunks already there with every word and counts their lexemes again; 0005, 0012 and 0016 leave one
keyword candidate function, whose shorter calls keep their meaning; 0010 moves back into their rows the embeddings
stored out of line, and keeps new ones there; 0014 builds the chunks' HNSW index at half precision, 0015 with ef_construction
800."""

from __future__ import annotations

import io
import random
import re
import string

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from access import policies, scope
from access.roles import as_owner
from recall import services
from recall.models import Chunk, Document
from tests.factories import DeploymentFactory
from tests.recall.test_lexeme_stats import assert_in_step
from tests.recall.test_search import search

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE, RULE = ("recall", "0002_lexeme_stats"), ("recall", "0003_one_manual_per_deployment")
SEVEN_ARGUMENTS = "recall_keyword_candidates(text[],double precision[],bigint,bigint,text[],integer,integer)"
EIGHT_ARGUMENTS = SEVEN_ARGUMENTS.replace(")", ",text)")
NINE_ARGUMENTS = EIGHT_ARGUMENTS.replace(")", ",boolean)")
TEN_ARGUMENTS = NINE_ARGUMENTS.replace(")", ",integer)")
# An older form as a database from before recall 0005 (seven arguments), 0012 (eight) or 0016 (nine) holds it; its
# body does not matter here.
OLD_KEYWORD_FUNCTION = """
CREATE FUNCTION public.{signature} RETURNS TABLE(id bigint, weight double precision)
LANGUAGE sql STABLE AS $$ SELECT NULL::bigint, NULL::double precision WHERE false $$
"""


def migrate(target) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])


def latest() -> tuple[str, str]:
    """recall's newest migration: where a test that migrated back leaves the database."""
    (leaf,) = MigrationExecutor(connection).loader.graph.leaf_nodes("recall")
    return leaf


def applied() -> set:
    return set(MigrationRecorder(connection).applied_migrations())


def legacy_manual(owner, path: str, *, deployment=None) -> Document:
    """A manual as a database from before the rule could hold (the service now refuses to write it)."""
    return Document.objects.create(
        owner=owner,
        deployment=deployment,
        path=path,
        source="workspace",
        content="# Manual\n",
        content_hash=services.content_hash("# Manual\n"),
    )


def test_duplicates_are_refused_with_their_list_until_the_trader_keeps_one(owner, other):
    deployment = DeploymentFactory(owner=owner)
    theirs = DeploymentFactory(owner=other)
    # Indexed by today's code (chunks and all), before the schema goes back to where recall 0003 finds it.
    wide = services.document_upsert(
        owner=owner, path="TRADING_MANUAL.md", content="# Manual\nAll.\n", source="workspace"
    ).document
    with as_owner():
        migrate(BEFORE)
        try:
            scoped = legacy_manual(owner, "agents/btc/TRADING_MANUAL.md", deployment=deployment)
            lowercase = legacy_manual(owner, "agents/eth/trading_manual.md")
            # Not in breach: another trader's, one per deployment of theirs.
            legacy_manual(other, "TRADING_MANUAL.md", deployment=theirs)
            legacy_manual(other, "TRADING_MANUAL.md", deployment=DeploymentFactory(owner=other))

            with pytest.raises(RuntimeError) as refused:
                migrate(RULE)
            message = str(refused.value)
            assert message.startswith("recall 0003 allows one TRADING_MANUAL.md per deployment scope (seed §5)")
            for document, scope in ((wide, "all deployments"), (scoped, f"deployment #{deployment.pk}")):
                assert f"  owner: document {document.pk} {document.path} ({scope}, updated " in message
            assert f"document {lowercase.pk} agents/eth/trading_manual.md (all deployments" in message
            assert "other:" not in message
            assert "python manage.py recall_manuals --keep ID" in message and "nothing deleted" in message
            assert RULE not in applied() and Document.objects.count() == 5  # nothing changed

            out = io.StringIO()
            call_command("recall_manuals", stdout=out)
            assert out.getvalue().count("  owner: document ") == 3

            out = io.StringIO()
            call_command("recall_manuals", keep=[scoped.pk], stdout=out)
            assert f"kept document {scoped.pk} agents/btc/TRADING_MANUAL.md (deployment #{deployment.pk})" in (
                out.getvalue()
            )
            assert out.getvalue().rstrip().endswith("every deployment reads at most one manual")
            wide.refresh_from_db()
            lowercase.refresh_from_db()
            assert wide.path == f"TRADING_MANUAL.superseded-{wide.pk}.md"
            assert lowercase.path == f"agents/eth/trading_manual.superseded-{lowercase.pk}.md"
            assert wide.content == "# Manual\nAll.\n"
            assert set(Chunk.objects.filter(document=wide).values_list("path", flat=True)) == {wide.path}

            migrate(RULE)
            assert RULE in applied()
            with pytest.raises(IntegrityError), transaction.atomic():
                legacy_manual(owner, "TRADING_MANUAL.md")
        finally:
            Document.objects.filter(path__iregex=r"trading_manual\.md$").delete()
            migrate(latest())


def test_the_command_refuses_a_document_that_is_not_a_manual(owner):
    notes = services.document_upsert(owner=owner, path="notes.md", content="# N\n", source="workspace").document
    with pytest.raises(CommandError, match=re.escape("notes.md is not a trader's TRADING_MANUAL.md")):
        call_command("recall_manuals", keep=[notes.pk], stdout=io.StringIO())
    with pytest.raises(CommandError, match="no document 999999"):
        call_command("recall_manuals", keep=[999999], stdout=io.StringIO())


def test_0004_indexes_every_word_of_the_chunks_written_before_it(owner):
    services.document_upsert(
        owner=owner, path="exits.md", content="# Exits\nExit after the close, not before.\n", source="workspace"
    )
    with as_owner():
        migrate(RULE)  # back: 0004's reverse indexes the chunk as `english` did
        try:
            assert lexemes("exits.md") == {"close", "exit"}  # `english` dropped after, the, not, before
            migrate(latest())
            assert lexemes("exits.md") == {"after", "befor", "close", "exit", "not", "the"}
            assert_in_step()
        finally:
            migrate(latest())
            policies.install()  # as after every migrate
    with scope.owner_scope(owner):  # as a request's
        outcome = search(owner, "after the close", backend="fts", embedder=None)
    assert [c["path"] for c in outcome.citations()] == ["exits.md"]


def lexemes(path: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT DISTINCT unnest(tsvector_to_array(search_vector)) FROM recall_chunks WHERE path = %s", [path]
        )
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.parametrize(
    ("before", "signature"),
    [
        (RULE, SEVEN_ARGUMENTS),
        (("recall", "0011_hnsw_ef_construction_400"), EIGHT_ARGUMENTS),
        (("recall", "0015_hnsw_ef_construction_800"), NINE_ARGUMENTS),
    ],
    ids=["0005", "0012", "0016"],
)
def test_0005_0012_and_0016_leave_one_keyword_function_and_shorter_calls_keep_their_meaning(owner, before, signature):
    services.document_upsert(owner=owner, path="notes.md", content="# Notes\nbreakout\n", source="workspace")
    with as_owner():
        migrate(before)
        try:
            with connection.cursor() as cursor:
                cursor.execute(OLD_KEYWORD_FUNCTION.format(signature=signature.replace(",", ", ")))
        finally:
            migrate(latest())
            policies.install()  # as after every migrate
        with connection.cursor() as cursor:
            cursor.execute("SELECT oid::regprocedure::text FROM pg_proc WHERE proname = 'recall_keyword_candidates'")
            assert [row[0] for row in cursor.fetchall()] == [TEN_ARGUMENTS]
    call = "SELECT count(*) FROM recall_keyword_candidates(ARRAY['breakout'], ARRAY[1.0]::float8[], %s, NULL, NULL, 9, 9{})"
    with scope.owner_scope(owner), connection.cursor() as cursor:
        counts = []
        manual = r"(^|/)trading_manual\.md$"
        for extra, params in (
            ("", []),
            (", NULL", []),
            (", %s", [manual]),
            (", NULL, true", []),
            (", %s, false", [manual]),
            (", NULL, true, NULL", []),
            (", %s, false, 1", [manual]),
        ):
            cursor.execute(call.format(extra), [owner.pk, *params])
            counts.append(cursor.fetchone()[0])
    assert counts == [1, 1, 0, 1, 0, 1, 0]  # the manual only: notes.md is not it


# Every value of the rows written anew, as an insert writes them.
REWRITE = "UPDATE recall_chunks SET text = text || '', embedding = embedding::real[]::vector WHERE owner_id = %s"
OUT_OF_LINE = "SELECT count(*) FROM recall_chunks WHERE pg_column_toast_chunk_id(embedding) IS NOT NULL"


def test_0010_keeps_every_embedding_in_its_row_and_moves_back_the_ones_written_out_of_line(owner):
    rng = random.Random(10)
    words = ["".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9))) for _ in range(60)]
    for n in range(12):  # texts that compress to around the TOAST target, beside a 1,544-byte vector
        content = " ".join(rng.choice(words) for _ in range(250 + 25 * n))
        services.document_upsert(owner=owner, path=f"notes-{n}.md", content=f"# N\n{content}\n", source="workspace")
    with as_owner(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE recall_chunks SET embedding = array_fill(0.05::real, ARRAY[384])::vector WHERE owner_id = %s",
            [owner.pk],
        )
        migrate(("recall", "0009_journal_entries_plural"))
        try:
            # Written as pgvector's EXTERNAL storage writes it: some vectors go out of line.
            cursor.execute(REWRITE, [owner.pk])
            cursor.execute(OUT_OF_LINE)
            assert cursor.fetchone()[0] > 0
            cursor.execute("SELECT id, embedding::text, text FROM recall_chunks ORDER BY id")
            before = cursor.fetchall()
            migrate(latest())
            cursor.execute(OUT_OF_LINE)
            assert cursor.fetchone()[0] == 0
            cursor.execute("SELECT id, embedding::text, text FROM recall_chunks ORDER BY id")
            assert cursor.fetchall() == before
            # Rows written from now on keep theirs in the row too.
            cursor.execute(REWRITE, [owner.pk])
            cursor.execute(OUT_OF_LINE)
            assert cursor.fetchone()[0] == 0
            assert_in_step()
        finally:
            migrate(latest())
            policies.install()  # as after every migrate


def test_0014_builds_the_chunks_hnsw_index_at_half_precision_and_unapplying_it_gives_the_full_one_back(owner):
    """The index swap, both ways, over embedded chunks: a nearest-neighbour query in the index's own expression is
    served by it, and gets the same nearest chunk as before."""
    for n in range(3):
        services.document_upsert(
            owner=owner, path=f"notes-{n}.md", content=f"# N{n}\nbreakout {n}.\n", source="workspace"
        )
    nearest = {
        "recall_chunk_embedding": "SELECT id FROM recall_chunks ORDER BY embedding <=> %s::vector LIMIT 1",
        "recall_chunk_embedding_half": (
            "SELECT id FROM recall_chunks ORDER BY embedding::halfvec(384) <=> %s::halfvec(384) LIMIT 1"
        ),
    }
    with as_owner(), connection.cursor() as cursor:
        cursor.execute(
            # Each chunk's vector points along a dimension of its own (its id's): far apart at any precision.
            "UPDATE recall_chunks c SET embedding = (SELECT array_agg(CASE WHEN i = c.id %% 384 THEN 1 ELSE 0.01 END"
            " ::real ORDER BY i) FROM generate_series(0, 383) AS i)::vector WHERE c.owner_id = %s",
            [owner.pk],
        )
        cursor.execute(
            "SELECT id, embedding::text FROM recall_chunks WHERE owner_id = %s ORDER BY id LIMIT 1", [owner.pk]
        )
        probe, vector = cursor.fetchone()

        def served_by(index: str) -> int:
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute("EXPLAIN " + nearest[index], [vector])
            assert f"Index Scan using {index} " in " ".join(row[0] for row in cursor.fetchall())
            cursor.execute(nearest[index], [vector])
            return cursor.fetchone()[0]

        with transaction.atomic():
            assert served_by("recall_chunk_embedding_half") == probe
        migrate(("recall", "0013_owner_lexeme_index"))
        try:
            cursor.execute("SELECT to_regclass('recall_chunk_embedding'), to_regclass('recall_chunk_embedding_half')")
            assert cursor.fetchone() == ("recall_chunk_embedding", None)
            with transaction.atomic():
                assert served_by("recall_chunk_embedding") == probe
        finally:
            migrate(latest())
            policies.install()  # as after every migrate
        cursor.execute("SELECT to_regclass('recall_chunk_embedding'), to_regclass('recall_chunk_embedding_half')")
        assert cursor.fetchone() == (None, "recall_chunk_embedding_half")


def test_0015_builds_the_chunks_hnsw_index_with_ef_construction_800_and_unapplying_it_gives_400_back(owner):
    """The graph is built again with the longer candidate list, both ways, and serves the scan either way."""
    services.document_upsert(owner=owner, path="notes.md", content="# N\nbreakout.\n", source="workspace")
    nearest = "SELECT id FROM recall_chunks ORDER BY embedding::halfvec(384) <=> %s::halfvec(384) LIMIT 1"
    with as_owner(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE recall_chunks SET embedding = array_fill(0.05, ARRAY[384])::vector WHERE owner_id = %s", [owner.pk]
        )
        cursor.execute("SELECT id, embedding::text FROM recall_chunks WHERE owner_id = %s", [owner.pk])
        probe, vector = cursor.fetchone()

        def built_with() -> list[str]:
            cursor.execute("SELECT reloptions FROM pg_class WHERE oid = 'recall_chunk_embedding_half'::regclass")
            (options,) = cursor.fetchone()
            with transaction.atomic():
                cursor.execute("SET LOCAL enable_seqscan = off")
                cursor.execute("EXPLAIN " + nearest, [vector])
                assert "Index Scan using recall_chunk_embedding_half " in " ".join(row[0] for row in cursor.fetchall())
                cursor.execute(nearest, [vector])
                assert cursor.fetchone()[0] == probe
            return sorted(options)

        assert built_with() == ["ef_construction=800", "m=16"]
        migrate(("recall", "0014_embedding_index_half_precision"))
        try:
            assert built_with() == ["ef_construction=400", "m=16"]
        finally:
            migrate(latest())
            policies.install()  # as after every migrate
        assert built_with() == ["ef_construction=800", "m=16"]

"""recall_lexeme_stats stays equal to a count over recall_chunks through every write path: new
documents, new versions (kept, added and stale chunks), the embedding pass, deletes (of a document,
of a deployment, of a trader), global documents and raw SQL on the table."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from recall import services
from recall.embeddings import get_embedder
from recall.models import Chunk, Document
from tests.factories import DeploymentFactory
from tests.recall.test_bm25 import WORDS
from tests.recall.test_search import MANUAL, _long_manual, index

pytestmark = pytest.mark.django_db

COUNTED = """
    SELECT c.owner_id, l.lexeme, COUNT(*)::integer, 0::bigint FROM recall_chunks c
    CROSS JOIN LATERAL unnest(tsvector_to_array(c.search_vector)) AS l(lexeme) GROUP BY 1, 2
    UNION ALL
    SELECT c.owner_id, '', COUNT(*)::integer, SUM(c.word_count)::bigint FROM recall_chunks c GROUP BY 1
"""


def stats_and_truth() -> tuple[set, set]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT owner_id, lexeme, df, tokens FROM recall_lexeme_stats")
        stats = set(cursor.fetchall())
        cursor.execute(COUNTED)
        truth = set(cursor.fetchall())
    return stats, truth


def assert_in_step() -> None:
    stats, truth = stats_and_truth()
    assert stats == truth, (sorted(stats - truth)[:10], sorted(truth - stats)[:10])


def test_every_write_path_keeps_the_counts_in_step(owner, other):
    assert_in_step()
    index(owner, "TRADING_MANUAL.md", MANUAL)
    index(other, "notes/eurusd.md", "# EURUSD\n\nThe ECB meets on Thursday; fade the first spike.\n")
    index(
        None, "runbooks/outage.md", "# Exchange outage\n\nFlatten, then wait for the status page.\n", source="runbook"
    )
    assert_in_step()
    long = _long_manual(8)
    index(owner, "playbook.md", long, embed=False)
    assert_in_step()
    # A new version: some chunks kept (moved), some added, some stale.
    index(owner, "playbook.md", long.replace("Section 3", "Section three, rewritten with new words entirely"))
    assert_in_step()
    deployment = DeploymentFactory(owner=owner)
    index(owner, "deploy.md", "# Deployment notes\n\nScalp the London open only.\n", deployment=deployment)
    assert_in_step()
    services.document_reindex(document=Document.objects.get(owner=owner, path="TRADING_MANUAL.md"))
    assert_in_step()
    services.document_delete(document=Document.objects.get(owner=owner, path="playbook.md"))
    assert_in_step()
    deployment.delete()
    assert_in_step()
    other.delete()
    assert_in_step()
    services.document_delete(document=Document.objects.get(owner=None, path="runbooks/outage.md"))
    assert_in_step()
    with connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM recall_lexeme_stats WHERE df <= 0")
        assert cursor.fetchone()[0] == 0


def test_an_embedding_update_writes_no_counter(owner):
    index(owner, "TRADING_MANUAL.md", MANUAL, embed=False)
    with connection.cursor() as cursor:
        cursor.execute("SELECT xmin::text::bigint, id FROM recall_lexeme_stats ORDER BY id")
        before = cursor.fetchall()
    services.embed_pending(embedder=get_embedder())
    assert not Chunk.objects.filter(owner=owner, embedding__isnull=True).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT xmin::text::bigint, id FROM recall_lexeme_stats ORDER BY id")
        assert cursor.fetchall() == before


def test_random_sequences_of_upserts_and_deletes(owner, other):
    rng = random.Random(20261125)
    words = WORDS
    paths = [f"notes/{n}.md" for n in range(5)]
    for _ in range(25):
        who = rng.choice([owner, other])
        path = rng.choice(paths)
        if rng.random() < 0.25:
            Document.objects.filter(owner=who, path=path).delete()
        else:
            sections = [
                f"## {rng.choice(words)}\n"
                + "\n".join(" ".join(rng.choices(words, k=12)) for _ in range(rng.randint(1, 30)))
                for _ in range(rng.randint(1, 4))
            ]
            index(who, path, "\n\n".join(sections) + "\n", embed=False)
        assert_in_step()

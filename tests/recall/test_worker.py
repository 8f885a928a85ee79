"""Recall through the real broker and a real worker: embedding is queued, never on a write's request path,
and situation recall runs end to end from ticks to the agent's context."""

from __future__ import annotations

import datetime as dt
import threading

import pytest
from django.db import connection

from ledger.models import TradeHistory, TradeStatus
from recall.chunking import chunk_markdown
from recall.models import Chunk, Document, TradeSituation
from tests.factories import DeploymentFactory, token_client
from tests.openapi import assert_matches_schema
from tests.workers import celery_worker, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("empty_queue")]
T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
RUNBOOK = """# Broker outage

When MetaAPI disconnects, flatten positions manually from the broker's web terminal.
Then page the on-call engineer and pause every deployment.

# Exchange maintenance

Binance announces maintenance windows a day ahead: close scalps an hour before.
"""


WORDS = ("price", "stop", "entry", "exit", "trend", "funding", "volume", "candle", "breakout", "risk", "size", "equity")


def long_document(sections: int = 3) -> str:
    """Sections of ~500 tokens: each its own chunk (small sections are merged into one)."""
    parts = []
    for n in range(sections):
        parts.append(f"## Section {n}")
        parts += [" ".join(WORDS[(n + line + i) % len(WORDS)] for i in range(12)) + "." for line in range(40)]
        parts.append("")
    return "\n".join(parts)


def post_document(api, path: str, content: str) -> dict:
    response = api.post("/api/v1/recall/documents/", {"path": path, "content": content}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def health(api) -> dict:
    response = api.get("/api/v1/recall/health/")
    assert response.status_code == 200, response.content
    return response.json()


def embedded(document_id: int) -> bool:
    chunks = Chunk.objects.filter(document_id=document_id)
    return chunks.exists() and not chunks.filter(embedding__isnull=True).exists()


def worker_log(tmp_path):
    return lambda: (tmp_path / "worker.log").read_text()


def test_a_posted_document_is_embedded_by_the_worker_and_found_by_meaning(owner_api, tmp_path):
    with celery_worker(tmp_path / "worker.log"):
        body = post_document(owner_api, "runbooks/broker.md", RUNBOOK)
        wait_until(
            lambda: health(owner_api)["pending"] == 0 and embedded(body["id"]),
            message="the document's chunks embedded",
            details=worker_log(tmp_path),
        )
    chunks = Chunk.objects.filter(document_id=body["id"])
    assert chunks.count() == body["chunk_count"] >= 1
    assert all(len(chunk.embedding) == 384 and chunk.embedded_at is not None for chunk in chunks)
    state = health(owner_api)
    assert (state["documents"], state["chunks"], state["pending"], state["errors"]) == (1, chunks.count(), 0, [])
    assert state["last_sync_at"] is not None
    response = owner_api.post(
        "/api/v1/recall/search/", {"query": "what do we do if the trading connection drops?"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    result = response.json()
    assert result["backend"] == "hybrid"
    top = result["results"][0]
    assert (top["path"], top["startLine"]) == ("runbooks/broker.md", 1)
    assert top["source"] in {"vector", "hybrid"}
    assert "MetaAPI disconnects" in top["snippet"]


def test_without_a_worker_chunks_stay_pending_until_one_starts(owner_api, tmp_path):
    content = long_document()
    body = post_document(owner_api, "playbooks/btc.md", content)
    # The 201 came back with nothing embedded: embedding is queued, never on the request path.
    chunks = Chunk.objects.filter(document_id=body["id"])
    assert chunks.count() == body["chunk_count"] == 3
    assert not chunks.filter(embedding__isnull=False).exists()
    assert health(owner_api)["pending"] == 3
    edited = post_document(owner_api, "playbooks/btc.md", content.replace("## Section 1", "## Section one"))
    assert (edited["version"], edited["chunks_added"], edited["chunks_kept"], edited["chunks_removed"]) == (2, 1, 2, 1)
    assert health(owner_api)["pending"] == 3
    with celery_worker(tmp_path / "worker.log"):
        wait_until(
            lambda: embedded(body["id"]),
            message="the queued embedding to run",
            details=worker_log(tmp_path),
        )
    assert health(owner_api)["pending"] == 0
    assert Chunk.objects.filter(document_id=body["id"], embedding__isnull=False).count() == 3


# -- situation recall end to end ------------------------------------------------------------------------


def tick(api, deployment, at: dt.datetime, positions: list[dict], marks: dict, reason: str) -> None:
    body = {
        "tick_at": at.isoformat(),
        "equity_usd": 10_000,
        "positions": positions,
        "marks": marks,
        "proposed_action": {"kind": "propose_order", "reason": reason},
        "engine": {"kind": "executed"},
    }
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def open_position(api, deployment, at: dt.datetime, side: str, reason: str) -> None:
    position = {"symbol": "BTC", "side": side, "size": 1, "mark_price": 100}
    tick(api, deployment, at, [position], {"BTC": 100}, reason)


def round_trips(api, deployment, count: int) -> None:
    """`count` BTC long round trips an hour apart: open at 100, close 30 minutes later at 99 or 101."""
    for n in range(count):
        opened = T0 + dt.timedelta(hours=n)
        open_position(api, deployment, opened, "long", f"breakout retest {n}")
        tick(api, deployment, opened + dt.timedelta(minutes=30), [], {"BTC": 101 if n % 3 else 99}, "take profit")


def situations(deployment) -> list[TradeSituation]:
    return list(TradeSituation.objects.filter(deployment=deployment).order_by("entry_tick_at"))


def synced(deployment, *, trades: int, closed: int) -> bool:
    rows = situations(deployment)
    return (
        len(rows) == trades
        and all(row.embedding is not None for row in rows)
        and sum(row.closed_at is not None and bool(row.outcome) for row in rows) == closed
    )


def context(api, deployment) -> dict:
    response = api.get(f"/api/v1/deployments/{deployment.pk}/context/")
    assert response.status_code == 200, response.content
    assert_matches_schema(response)
    return response.json()


def test_situation_recall_from_ticks_to_the_agents_context(owner, owner_api, tmp_path):
    deployment = DeploymentFactory(skill_version__skill__owner=owner)
    assert deployment.skill_version.memory_enabled
    sibling = DeploymentFactory(owner=owner, skill_version=deployment.skill_version)
    with celery_worker(tmp_path / "worker.log"):
        round_trips(owner_api, deployment, 3)
        wait_until(
            lambda: synced(deployment, trades=3, closed=3),
            message="a situation with its outcome for every closed trade",
            details=worker_log(tmp_path),
        )
        trades = {trade.pk: trade for trade in TradeHistory.objects.filter(deployment=deployment)}
        assert len(trades) == 3 and all(trade.status == TradeStatus.CLOSED for trade in trades.values())
        for row in situations(deployment):
            trade = trades[row.trade_id]
            assert (row.symbol, row.side, row.skill_id, row.owner_id) == ("BTC", "long", trade.skill_id, owner.pk)
            assert row.summary.startswith("long BTC") and "breakout retest" in row.summary
            assert (row.closed_at, row.realized_pnl_usd) == (trade.exit_tick_at, trade.realized_pnl_usd)
        outcomes = [row.outcome for row in situations(deployment)]
        assert outcomes[0].startswith("lost −$1.00 after 30m")
        assert outcomes[1].startswith("won +$1.00 after 30m") and outcomes[2].startswith("won +$1.00 after 30m")

        # No open trade yet: no section.
        assert context(owner_api, deployment)["sections"]["similar_situations"] is None

        open_position(owner_api, deployment, T0 + dt.timedelta(hours=5), "long", "breakout retest again")
        open_position(owner_api, sibling, T0 + dt.timedelta(hours=5), "short", "breakdown retest")
        wait_until(
            lambda: synced(deployment, trades=4, closed=3) and synced(sibling, trades=1, closed=0),
            message="the situations of the new open trades",
            details=worker_log(tmp_path),
        )

    section = context(owner_api, deployment)["sections"]["similar_situations"]
    assert section is not None
    assert section.startswith("## Similar past situations\n")
    lines = section.splitlines()
    assert lines[1].startswith("Now: long BTC") and "breakout retest again" in lines[1]
    past = lines[2:]
    assert len(past) == 3
    for line in past:
        assert line.startswith("- 2026-06-04 ") and "long BTC" in line and " → " in line
    listed = {line.split(" → ")[1].split(" after")[0] for line in past}
    assert listed == {"lost −$1.00", "won +$1.00"}
    assert sum("won +$1.00 after 30m" in line for line in past) == 2
    assert context(owner_api, deployment)["text"].count("## Similar past situations") == 1

    # Same skill and symbol, but no past shorts: nothing similar.
    assert context(owner_api, sibling)["sections"]["similar_situations"] is None


# -- writes racing the embedding worker -----------------------------------------------------------------

JOURNAL = "/api/v1/recall/journal/"
RACE_ROUNDS = 12


def versioned_document(round_: int, sections: int = 4) -> str:
    """A long document whose section ``round_ % sections`` is rewritten each round: every new version
    drops one chunk (maybe still being embedded) and adds one."""
    text = long_document(sections)
    changed = round_ % sections
    return text.replace(f"## Section {changed}\n", f"## Section {changed}\nRevision {round_} of this section.\n")


def runner(api, deployment, path: str, results: list) -> None:
    """What a runner does each tick: append to the journal, then post its notes (a new version)."""
    api.raise_request_exception = False  # a server error is a 500 to record, as a runner would see it
    try:
        for round_ in range(RACE_ROUNDS):
            entry = {"deployment_id": deployment.pk, "content": f"round {round_} of {path}", "run_id": f"r-{round_}"}
            response = api.post(JOURNAL, entry, format="json")
            results.append(("journal", round_, response.status_code, response.content[:300]))
            body = {"path": path, "content": versioned_document(round_), "deployment_id": deployment.pk}
            response = api.post("/api/v1/recall/documents/", body, format="json")
            results.append(("document", round_, response.status_code, response.content[:300]))
    finally:
        connection.close()


def assert_indexed_as_its_content(document) -> None:
    """The document's chunks are exactly the chunks of its current content, each embedded once."""
    expected = [(c.index, c.start_line, c.end_line, c.content_hash) for c in chunk_markdown(document.content)]
    rows = list(Chunk.objects.filter(document=document).order_by("ordinal"))
    assert [(r.ordinal, r.start_line, r.end_line, r.content_hash) for r in rows] == expected, document.path
    assert all(r.embedding is not None and r.embedded_at is not None for r in rows), document.path
    document.refresh_from_db()
    assert (document.chunk_count, document.index_error) == (len(expected), ""), document.path
    assert document.indexed_at is not None, document.path


def test_writes_racing_the_embedding_worker_never_fail_and_lose_nothing(owner, owner_api, tmp_path):
    """Runners append to the journal and post new versions of their notes while a real worker embeds
    the chunks the writes replace (the write deletes rows the worker holds): every request succeeds,
    and in the end every document is indexed as its final content, all of it embedded."""
    deployments = [DeploymentFactory(owner=owner) for _ in range(2)]
    results: list = []
    with celery_worker(tmp_path / "worker.log"):
        threads = [
            threading.Thread(target=runner, args=(token_client(owner), deployment, f"notes/runner-{n}.md", results))
            for n, deployment in enumerate(deployments)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(300)
        failed = [result for result in results if result[2] not in (200, 201)]
        assert not failed, failed
        assert len(results) == 2 * 2 * RACE_ROUNDS
        wait_until(
            lambda: (
                not Chunk.objects.filter(embedding__isnull=True).exists()
                and not Document.objects.filter(indexed_at__isnull=True).exists()
            ),
            timeout=300,
            message="every chunk embedded and every document indexed",
            details=worker_log(tmp_path),
        )
    assert "Deadlock" not in worker_log(tmp_path)(), worker_log(tmp_path)()
    for n, deployment in enumerate(deployments):
        notes = Document.objects.get(owner=owner, deployment=deployment, path=f"notes/runner-{n}.md")
        assert (notes.content, notes.version) == (versioned_document(RACE_ROUNDS - 1), RACE_ROUNDS)
        journals = list(Document.objects.filter(owner=owner, deployment=deployment, source="journal"))
        text = "\n".join(document.content for document in journals)
        assert all(f"round {round_} of notes/runner-{n}.md" in text for round_ in range(RACE_ROUNDS))
    documents = list(Document.objects.filter(owner=owner))
    for document in documents:
        assert_indexed_as_its_content(document)
    assert Chunk.objects.count() == sum(document.chunk_count for document in documents)  # no orphan rows

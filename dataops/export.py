"""A trader's own data as one zip, readable without this service, streamed as it is read.

What is in it (README_TEXT, which goes into the zip, says the same to the trader):
- `data/<table>.jsonl`: every row the trader owns, table by table — every owned and child table that row-level
  security knows (access.policies.classify), so a new table is exported without anyone remembering to; each
  row is one JSON object of its columns, less secrets (`key_hash`: tokens are stored as hashes) and derived
  search data (vectors and tsvectors, which the service rebuilds from the text).
- readable copies: `ledger/trades.csv`, `facts.csv`, `lessons/…/*.md` (every lessons revision),
  `research/` (the seed's YAML layout, research.yaml_export), `recall/documents/<scope>/<path>` (each recall
  document as the file it was indexed from).

Read in short transactions of the trader's scope (row-level security is the wall as for every read), a batch
at a time; no transaction stays open while the client reads: each batch is read, its transaction closed,
then its bytes are handed on. Another trader's rows are never read (the scope), nor are global documents.
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial

from django.contrib.postgres.search import SearchVectorField
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from pgvector.django import VectorField

from access import policies, scope

BATCH = 500
SECRET_FIELDS = frozenset({"key_hash"})
README_NAME = "README.txt"
README_TEXT = """\
Your data from the trading-agent memory service
===============================================

Every row this service kept for your account ({username}), exported {exported_at} (UTC).
Nothing here needs the service to be read: JSON Lines, CSV, YAML and Markdown files.

data/<table>.jsonl
    Every row you own, one JSON object a line, table by table (deployments, skill versions, decision
    snapshots (your runner's ticks), trades, daily P&L, lessons revisions, facts, analyst signals and
    their evolution, retrieval audits, research, recall documents, journal entries, edit proposals,
    trade situations, the contexts your runner was served (memory block and system prompt), your API
    tokens' names and dates, and every other table that holds your rows).
    Left out: token keys (the service keeps only their hashes) and search vectors (rebuilt from text).
ledger/trades.csv
    Your trades, one row each, across your deployments.
facts.csv
    The facts the coach remembers about you.
lessons/<deployment-N | skill-N>/<generated at>_<status>_<id>.md
    Every lessons revision, the active one and the ones it replaced.
research/
    Your research memory in the seed's layout: experiments/<id>.yaml, hypotheses.yaml,
    capability_requests.yaml (the service's import_research reads it back).
recall/documents/<account | deployment-N>/<path>
    Every document you indexed for recall, as the file it came from.
"""


@dataclass(frozen=True)
class ExportedTable:
    model: type[models.Model]
    lookup: str  # the filter naming the trader: owner_id, or a child's parent's owner

    @property
    def table(self) -> str:
        return self.model._meta.db_table

    def fields(self) -> list[models.Field]:
        return [
            field
            for field in self.model._meta.concrete_fields
            if field.name not in SECRET_FIELDS
            and not isinstance(field, VectorField | SearchVectorField)
            and not isinstance(field, models.GeneratedField)  # computed by the database from the row's own text
        ]


def exported_tables() -> list[ExportedTable]:
    """Every owned or child table (access.policies.classify) with the lookup that finds the trader's rows."""
    owned_tables, _ = policies.classify()
    names = {owned.table for owned in owned_tables}
    found = []
    for model in policies.our_models():
        if model._meta.db_table not in names:
            continue
        owner = policies._owner_field(model)
        if owner is not None:
            found.append(ExportedTable(model, f"{owner.attname}"))
            continue
        parent = next(
            field
            for field in model._meta.concrete_fields
            if field.is_relation and field.many_to_one and policies._owner_field(field.related_model) is not None
        )
        found.append(ExportedTable(model, f"{parent.name}__owner_id"))
    return sorted(found, key=lambda exported: exported.table)


def _rows(exported: ExportedTable, user_id: int, *, fields: list[str] | None = None) -> Iterator[list[dict]]:
    """The trader's rows of one table, a batch at a time, each batch read in its own short transaction."""
    names = fields or [field.attname for field in exported.fields()]
    last = None
    while True:
        with scope.owner_scope(user_id):
            rows = exported.model._default_manager.filter(**{exported.lookup: user_id}).order_by("pk")
            if last is not None:
                rows = rows.filter(pk__gt=last)
            batch = list(rows.values("pk", *names)[:BATCH])
        if not batch:
            return
        last = batch[-1]["pk"]
        yield [{name: row[name] for name in names} for row in batch]
        if len(batch) < BATCH:
            return


def _jsonl(exported: ExportedTable, user_id: int) -> Iterator[bytes]:
    for batch in _rows(exported, user_id):
        yield "".join(json.dumps(row, cls=DjangoJSONEncoder, ensure_ascii=False) + "\n" for row in batch).encode()


def _csv(exported: ExportedTable, user_id: int, columns: list[str]) -> Iterator[bytes]:
    out = io.StringIO()
    csv.writer(out).writerow(columns)
    yield out.getvalue().encode()
    for batch in _rows(exported, user_id, fields=columns):
        out = io.StringIO()
        writer = csv.writer(out)
        for row in batch:
            writer.writerow(["" if row[column] is None else row[column] for column in columns])
        yield out.getvalue().encode()


def _by_table() -> dict[str, ExportedTable]:
    return {exported.table: exported for exported in exported_tables()}


def _lessons(user_id: int) -> Iterator[tuple[str, bytes]]:
    tables = _by_table()
    names = ["id", "deployment_id", "skill_id", "skill_version", "status", "generated_at", "source", "lessons_text"]
    for batch in _rows(tables["reflection_notes"], user_id, fields=names):
        for note in batch:
            where = f"deployment-{note['deployment_id']}" if note["deployment_id"] else f"skill-{note['skill_id']}"
            stamp = note["generated_at"].strftime("%Y%m%dT%H%M%SZ")
            header = (
                f"<!-- skill {note['skill_id']} v{note['skill_version']}, {note['status']}, {note['source']}, "
                f"generated {note['generated_at'].isoformat()} -->\n\n"
            )
            yield (
                f"lessons/{where}/{stamp}_{note['status']}_{str(note['id'])[:8]}.md",
                (header + note["lessons_text"]).encode(),
            )


def _documents(user_id: int) -> Iterator[tuple[str, bytes]]:
    tables = _by_table()
    for batch in _rows(tables["recall_documents"], user_id, fields=["deployment_id", "path", "content"]):
        for document in batch:
            where = f"deployment-{document['deployment_id']}" if document["deployment_id"] else "account"
            yield f"recall/documents/{where}/{document['path']}", document["content"].encode()


def _research(user_id: int) -> Iterator[tuple[str, bytes]]:
    from django.contrib.auth import get_user_model

    from research.yaml_export import render_research

    with scope.owner_scope(user_id):
        files = render_research(get_user_model().objects.get(pk=user_id))
    for path, text in sorted(files.items()):
        yield f"research/{path}", text.encode()


TRADE_COLUMNS = [
    "deployment_id", "symbol", "side", "status", "entry_tick_at", "entry_price", "entry_size_usd", "entry_reason",
    "entry_regime_tag", "exit_tick_at", "exit_price", "exit_reason", "realized_pnl_usd", "fees_usd", "holding_minutes",
]  # fmt: skip
FACT_COLUMNS = ["fact", "topic", "source", "confidence", "created_at", "archived_at"]


def _entries(user_id: int, username: str, exported_at: str) -> Iterator[tuple[str, Callable[[], Iterable[bytes]]]]:
    """(name in the zip, the producer of its bytes), in the zip's order."""
    tables = _by_table()
    yield README_NAME, lambda: [README_TEXT.format(username=username, exported_at=exported_at).encode()]
    for exported in tables.values():
        yield f"data/{exported.table}.jsonl", partial(_jsonl, exported, user_id)
    trade_columns = [c for c in TRADE_COLUMNS if c in {f.attname for f in tables["trade_history"].fields()}]
    yield "ledger/trades.csv", lambda: _csv(tables["trade_history"], user_id, trade_columns)
    fact_columns = [c for c in FACT_COLUMNS if c in {f.attname for f in tables["user_facts"].fields()}]
    yield "facts.csv", lambda: _csv(tables["user_facts"], user_id, fact_columns)


class _Sink:
    """What zipfile writes, collected until the generator hands it on (a stream zipfile cannot seek)."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        return data


def export_zip(*, user_id: int, username: str, exported_at: str) -> Iterator[bytes]:
    """The trader's zip, as a stream of byte strings (no part of it is held whole in memory)."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, produce in _entries(user_id, username, exported_at):
            with archive.open(name, "w", force_zip64=True) as entry:
                for piece in produce():
                    entry.write(piece)
                    if data := sink.take():
                        yield data
        for files in (_lessons(user_id), _research(user_id), _documents(user_id)):
            for name, content in files:
                archive.writestr(name, content)
                if data := sink.take():
                    yield data
    yield sink.take()

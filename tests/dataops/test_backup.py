"""`manage.py backup` / `manage.py restore`: a trader's ledger, facts, notes and chunks survive a dump and a restore."""

import datetime as dt
import os

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from psycopg import sql

from access.roles import owner_credentials
from chatmemory import services as facts
from chatmemory.models import FactSource
from ledger import services as ledger
from memorysite import backup
from recall import services as recall
from recall.models import Chunk
from reflection.models import ReflectionNote
from tests.factories import DeploymentFactory, UserFactory, token_client

T0 = dt.datetime(2026, 6, 4, 10, 0, tzinfo=dt.UTC)
pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _tick(api, deployment, minutes: int, positions: list[dict]) -> None:
    at = (T0 + dt.timedelta(minutes=minutes)).isoformat().replace("+00:00", "Z")
    body = {"tick_at": at, "equity_usd": 10_000, "positions": positions}
    response = api.post(f"/api/v1/deployments/{deployment.pk}/ticks/", body, format="json")
    assert response.status_code == 201, response.json()


def _traders_memory():
    """A trader's ledger (ticks, a closed and an open trade), facts, a lessons note and recall chunks with a vector."""
    trader = UserFactory(username="backed-up")
    deployment = DeploymentFactory(skill_version__skill__owner=trader)
    api = token_client(trader)
    btc = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    eth = {"symbol": "ETH", "side": "short", "size": 0.5, "mark_price": 3100}
    _tick(api, deployment, 0, [btc])
    _tick(api, deployment, 1, [btc, eth])
    _tick(api, deployment, 2, [eth])
    ledger.materialize_pending(deployment_id=deployment.pk)  # no worker runs here
    facts.fact_create(owner=trader, fact="Trades only BTC and ETH perpetuals", source=FactSource.PROFILE)
    facts.fact_create(owner=trader, fact="Cuts risk after two losing days", source=FactSource.CHAT)
    ReflectionNote.objects.create(
        owner=trader, skill=deployment.skill_version.skill, skill_version=deployment.skill_version.version,
        deployment=deployment, generated_at=T0, window_start=T0, window_end=T0, trades_considered=1,
        lessons_text="- Cut losers early", model_used="m", content_hash="0123456789abcdef",
    )  # fmt: skip
    recall.document_upsert(
        owner=trader, path="memory/learnings.md", source="workspace", queue_embedding=False,
        content="# Learnings\n\nLiquidation cascades follow open interest spikes.\n\n## Risk\n\nHalve size after two losses.\n",
    )  # fmt: skip
    Chunk.objects.filter(owner=trader).update(embedding=[0.5] * 384)
    return trader


def _owner_target(database: str) -> backup.Target:
    return backup.Target.from_settings(owner_credentials(), database=database)


def _contents(target: backup.Target) -> dict[str, list[str]]:
    """Every table's rows, as JSON text, sorted: compared table by table."""
    with psycopg.connect(target.conninfo(), password=target.password or None, autocommit=True) as conn:
        found = {}
        for qualified in backup.tables(target):
            schema, table = qualified.split(".")
            query = sql.SQL("SELECT row_to_json(t)::text FROM {}.{} t").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
            found[qualified] = sorted(row[0] for row in conn.execute(query).fetchall())
        return found


@pytest.fixture
def scratch_database():
    """An empty database on the same server, dropped afterwards."""
    name = f"{connection.settings_dict['NAME']}_restore"
    admin = _owner_target("postgres")
    with psycopg.connect(admin.conninfo(), password=admin.password or None, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield name
    with psycopg.connect(admin.conninfo(), password=admin.password or None, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_it_restores_every_row_of_a_traders_memory_into_an_empty_database(tmp_path, scratch_database, capsys):
    trader = _traders_memory()
    source = _contents(_owner_target(connection.settings_dict["NAME"]))
    assert len(source["public.decision_snapshots"]) == 3 and source["public.trade_history"]
    assert len(source["public.user_facts"]) == 2 and len(source["public.reflection_notes"]) == 1
    chunks = Chunk.objects.filter(owner=trader)
    assert chunks.count() >= 1 and not chunks.filter(embedding__isnull=True).exists()

    path = tmp_path / "memory.dump"
    call_command("backup", str(path))
    assert path.read_bytes().startswith(b"PGDMP")
    assert "Backed up database" in capsys.readouterr().out

    call_command("restore", str(path), "--database-name", scratch_database)
    restored = _contents(_owner_target(scratch_database))
    assert restored.keys() == source.keys()
    for table in source:
        assert restored[table] == source[table], table
    assert f"into database {scratch_database!r} ({len(source)} tables)" in capsys.readouterr().out

    # A database with tables is refused, nothing changed; --replace replaces it.
    with pytest.raises(CommandError, match=f"database {scratch_database!r} is not empty"):
        call_command("restore", str(path), "--database-name", scratch_database)
    call_command("restore", str(path), "--database-name", scratch_database, "--replace")
    assert _contents(_owner_target(scratch_database)) == source


def test_it_refuses_to_overwrite_a_file_or_to_restore_what_is_not_a_backup(tmp_path, scratch_database):
    existing = tmp_path / "kept.dump"
    existing.write_text("mine")
    with pytest.raises(CommandError, match="already exists: give a new file name"):
        call_command("backup", str(existing))
    assert existing.read_text() == "mine"
    with pytest.raises(CommandError, match=r"is not a backup made by `manage\.py backup`"):
        call_command("restore", str(existing), "--database-name", scratch_database)
    with pytest.raises(CommandError, match="does not exist"):
        call_command("restore", str(tmp_path / "missing.dump"), "--database-name", scratch_database)
    assert backup.tables(_owner_target(scratch_database)) == []
    with pytest.raises(CommandError, match="/nowhere is not a directory"):
        call_command("backup", "/nowhere/memory.dump")
    assert not os.path.exists(tmp_path / "kept.dump.partial")

"""Indexing triggers besides the API: recall_sync / recall_watch on a workspace folder, the
scheduled sync of remembered folders, and staff's global documents and reindex action in admin."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from recall import services
from recall.models import Chunk, Document, SyncedFolder
from recall.tasks import scheduled_sync
from tests.factories import DeploymentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "agent_btc_5m"
    (root / "journal").mkdir(parents=True)
    (root / "memory").mkdir()
    (root / ".git").mkdir()
    (root / "SOUL.md").write_text("# Soul\nPatient, disciplined, humble.\n")
    (root / "TRADING_MANUAL.md").write_text("# Manual\n## Stops\nNever widen a stop.\n")
    (root / "journal" / "2026-11-21.md").write_text("# Friday\nChopped up in the range.\n")
    (root / "memory" / "learnings.md").write_text("# Learnings\nFade the first breakout.\n")
    (root / ".git" / "HEAD.md").write_text("ignored")
    (root / "chart.png").write_bytes(b"\x89PNG")
    return root


def sync(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command("recall_sync", *map(str, args), stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_recall_sync_indexes_the_workspace_and_only_what_changed(owner, workspace):
    out, _ = sync(workspace, "--user", owner.username, "--embed")
    assert "4 files scanned, 4 changed, 0 removed" in out and "4/4 files" in out
    assert sorted(Document.objects.filter(owner=owner).values_list("path", flat=True)) == [
        "SOUL.md",
        "TRADING_MANUAL.md",
        "journal/2026-11-21.md",
        "memory/learnings.md",
    ]
    assert not Chunk.objects.filter(embedding__isnull=True).exists()
    (workspace / "SOUL.md").write_text("# Soul\nPatient and disciplined.\n")
    (workspace / "journal" / "2026-11-21.md").unlink()
    out, _ = sync(workspace, "--user", owner.username)
    assert "4 files scanned" not in out and "3 files scanned, 1 changed, 1 removed" in out
    assert not Document.objects.filter(path="journal/2026-11-21.md").exists()
    assert Document.objects.get(path="SOUL.md").version == 2
    assert not SyncedFolder.objects.exists()  # not remembered without --remember


def test_unreadable_files_are_reported_not_fatal(owner, workspace):
    (workspace / "memory" / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    out, err = sync(workspace, "--user", owner.username)
    assert "skipped memory/binary.md" in err
    assert "5 files scanned, 4 changed" in out


def test_recall_sync_refuses_bad_targets(owner, other, workspace, tmp_path):
    with pytest.raises(CommandError, match="not a directory"):
        sync(tmp_path / "missing", "--user", owner.username)
    with pytest.raises(CommandError, match="exactly one of"):
        sync(workspace)
    with pytest.raises(CommandError, match="no user named"):
        sync(workspace, "--user", "nobody")
    foreign = DeploymentFactory(owner=other)
    with pytest.raises(CommandError, match="has no deployment"):
        sync(workspace, "--user", owner.username, "--deployment", foreign.pk)
    assert not Document.objects.exists()


def test_global_runbooks_and_remembered_folders_are_synced_on_schedule(owner, workspace, tmp_path):
    runbooks = tmp_path / "runbooks"
    runbooks.mkdir()
    (runbooks / "metaapi.md").write_text("# MetaAPI disconnects\nFlatten manually, then page the desk.\n")
    sync(runbooks, "--global", "--source", "runbook", "--prefix", "runbooks", "--remember")
    deployment = DeploymentFactory(owner=owner)
    sync(workspace, "--user", owner.username, "--deployment", deployment.pk, "--remember")
    assert Document.objects.get(path="runbooks/metaapi.md").owner is None
    assert Document.objects.filter(deployment=deployment).count() == 4
    (runbooks / "exchange.md").write_text("# Exchange halt\nCancel resting orders.\n")
    (workspace / "SOUL.md").write_text("# Soul\nchanged\n")
    assert scheduled_sync() == 2
    assert Document.objects.filter(owner__isnull=True).count() == 2
    assert all(folder.last_synced_at for folder in SyncedFolder.objects.all())
    runbooks.joinpath("exchange.md").unlink()
    runbooks.joinpath("metaapi.md").unlink()
    runbooks.rmdir()
    scheduled_sync()
    assert "not a readable directory" in SyncedFolder.objects.get(owner__isnull=True).last_error
    assert Document.objects.filter(owner__isnull=True).count() == 2  # a vanished folder removes nothing


def test_recall_watch_once_syncs_the_folder(owner, workspace):
    out = io.StringIO()
    call_command("recall_watch", str(workspace), "--user", owner.username, "--once", stdout=out)
    assert "synced: 4 files, 4 changed, 0 removed" in out.getvalue()


def test_staff_add_a_global_runbook_and_reindex_in_admin(admin_client, owner):
    response = admin_client.post(
        "/admin/recall/document/add/",
        {"path": "runbooks/halt.md", "source": "runbook", "content": "# Halt\nCancel all orders.\n"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    document = Document.objects.get(path="runbooks/halt.md")
    assert document.owner is None and document.chunk_count == 1
    bad = admin_client.post("/admin/recall/document/add/", {"path": "../x.md", "source": "runbook", "content": "x"})
    assert bad.status_code == 200 and "segments" in bad.content.decode()
    assert Document.objects.count() == 1
    mine = services.document_upsert(owner=owner, path="a.md", content="# A\nalpha\n", source="workspace").document
    Chunk.objects.update(embedding=[0.1] * 384)
    response = admin_client.post(
        "/admin/recall/document/",
        {"action": "reindex", "_selected_action": [document.pk, mine.pk]},
    )
    assert response.status_code == 302
    assert Chunk.objects.filter(embedding__isnull=True).count() == 2  # every chunk waits for a new embedding
    assert Document.objects.get(pk=mine.pk).content == "# A\nalpha\n"
    page = admin_client.get(f"/admin/recall/document/{mine.pk}/change/")
    assert page.status_code == 200 and 'name="content"' not in page.content.decode()  # traders' docs read-only


def test_recall_sync_reports_every_file_it_skips_with_the_reason(owner, workspace):
    """Issue 19: never silently. Refused markdown and text files on stderr, the rest of the folder on stdout;
    a real document with bidi marks and form feeds is indexed; a NUL no longer stops the whole sync."""
    memory = workspace / "memory"
    (memory / "big.md").write_bytes(b"x" * (services.FILE_MAX_BYTES + 1))
    (memory / "nul.md").write_bytes(b"# Notes\nvalid UTF-8 but \x00 a NUL\n")
    (memory / "latin1.md").write_bytes(b"caf\xe9 au lait\n")
    (memory / "utf16.txt").write_bytes("# Notes\n".encode("utf-16"))
    (workspace / ".env.md").write_text("SECRET=1\n")
    (workspace / "real.md").write_text("# Real\nwiden\u200e the \u202estop\u202c?\fno.\n")
    out, err = sync(workspace, "--user", owner.username)
    assert err.splitlines() == [
        f"skipped memory/big.md: too large: more than {services.FILE_MAX_BYTES} bytes",
        "skipped memory/latin1.md: not valid UTF-8 (byte 0xe9 at offset 3): only UTF-8 text is indexed",
        "skipped memory/nul.md: binary (it contains NUL bytes): only UTF-8 text is indexed",
        "skipped memory/utf16.txt: UTF-16 text (it starts with a UTF-16 byte-order mark): only UTF-8 text is indexed",
    ]
    assert "9 files scanned, 5 changed, 0 removed from the index; 7 skipped (listed below)" in out
    assert [line for line in out.splitlines() if line.startswith("skipped")] == [
        "skipped .env.md: hidden file (its name starts with '.')",
        "skipped .git/: hidden folder (its name starts with '.'): not read",
        "skipped chart.png: not a markdown or text file (.md, .markdown, .txt)",
    ]
    assert Document.objects.get(path="real.md").content == "# Real\nwiden\u200e the \u202estop\u202c?\fno.\n"
    assert set(Document.objects.values_list("path", flat=True)) == {
        "SOUL.md", "TRADING_MANUAL.md", "journal/2026-11-21.md", "memory/learnings.md", "real.md"
    }  # fmt: skip


def test_recall_watch_reports_skipped_files_too(owner, workspace):
    (workspace / "memory" / "latin1.md").write_bytes(b"caf\xe9\n")
    out, err = io.StringIO(), io.StringIO()
    call_command("recall_watch", str(workspace), "--user", owner.username, "--once", stdout=out, stderr=err)
    assert "synced: 5 files, 4 changed, 0 removed; 3 skipped (listed below)" in out.getvalue()
    assert "skipped memory/latin1.md: not valid UTF-8 (byte 0xe9 at offset 3)" in err.getvalue()
    assert "skipped chart.png: not a markdown or text file" in out.getvalue()

"""manage.py recall_sync DIR: index a workspace folder now (and optionally keep it in the scheduled sync)."""

from pathlib import Path

from django.core.management.base import CommandError

from ledger.models import Deployment
from memorysite.commands import MaintenanceCommand, progress_bar, user_named
from recall import services
from recall.models import DocumentSource, SyncedFolder


def folder_target(*, directory: str, user: str | None, deployment_id: int | None, global_: bool):
    """(owner, deployment, resolved root) from the shared command options, or a CommandError."""
    root = Path(directory).resolve()
    if not root.is_dir():
        raise CommandError(f"{directory}: not a directory")
    if global_ == (user is not None):
        raise CommandError("give exactly one of --user USERNAME or --global")
    owner = user_named(user) if user is not None else None
    deployment = None
    if deployment_id is not None:
        if owner is None:
            raise CommandError("--deployment needs --user (global documents belong to no deployment)")
        deployment = Deployment.objects.owned_by(owner).filter(pk=deployment_id).first()
        if deployment is None:
            raise CommandError(f"{user} has no deployment {deployment_id}")
    return owner, deployment, root


def skipped_summary(result: services.FolderSyncResult) -> str:
    skipped = len(result.errors) + len(result.ignored)
    return f"; {skipped} skipped (listed below)" if skipped else ""


def report_skipped(command, result: services.FolderSyncResult) -> None:
    """Every entry the sync did not index, with the reason: refused markdown and text files on stderr
    (something to fix), the rest of the folder (hidden, not text) on stdout."""
    for error in result.errors:
        command.stderr.write(f"skipped {error}")
    for entry in result.ignored:
        command.stdout.write(f"skipped {entry}")


def add_folder_arguments(parser) -> None:
    parser.add_argument("directory", help="the workspace folder (SOUL.md, TRADING_MANUAL.md, journal/, memory/ …)")
    parser.add_argument("--user", help="the trader who owns the documents")
    parser.add_argument("--global", dest="global_", action="store_true", help="staff playbooks/runbooks for all")
    parser.add_argument("--deployment", type=int, help="scope the documents to this deployment of --user")
    parser.add_argument("--source", choices=DocumentSource.values, default=DocumentSource.WORKSPACE)
    parser.add_argument("--prefix", default="", help="path prefix inside the index, e.g. agents/btc_5m")


class Command(MaintenanceCommand):
    help = (
        "Index the markdown and text files of a workspace folder: each file is the document at its relative path; "
        "unchanged files change nothing, changed files re-embed only their changed chunks, files deleted from the "
        "folder leave the index. Embedding runs in the worker (or now, with --embed). With --remember, the "
        "scheduled sync (beat) re-syncs the folder every RECALL_SYNC_INTERVAL_S seconds."
    )

    def add_arguments(self, parser):
        add_folder_arguments(parser)
        parser.add_argument("--remember", action="store_true", help="keep this folder in the scheduled sync")
        parser.add_argument("--embed", action="store_true", help="embed pending chunks in this process now")

    def handle(self, *args, directory, user=None, global_=False, deployment=None, source, prefix, **options):
        owner, target, root = folder_target(directory=directory, user=user, deployment_id=deployment, global_=global_)
        folder, created = SyncedFolder.objects.get_or_create(
            owner=owner, deployment=target, root=str(root), defaults={"source": source, "prefix": prefix}
        )
        folder.source, folder.prefix = source, prefix
        result = services.synced_folder_run(folder=folder, progress=progress_bar(self.stdout, "files"))
        if created and not options["remember"]:
            folder.delete()
        self.stdout.write(
            f"{result.scanned} files scanned, {result.changed} changed, {result.removed} removed from the index"
            + skipped_summary(result)
        )
        report_skipped(self, result)
        if options["embed"]:
            from recall.embeddings import get_embedder

            embedder = get_embedder()
            if embedder is None:
                self.stdout.write("EMBEDDINGS_PROVIDER=none: keyword search only, nothing to embed")
            else:
                self.stdout.write(f"{services.embed_pending(embedder=embedder)} chunks embedded")

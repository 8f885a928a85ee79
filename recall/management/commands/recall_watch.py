"""manage.py recall_watch DIR: keep a workspace folder indexed while it changes (polling, no extra dependency)."""

import time

from django.db import transaction

from memorysite.commands import MaintenanceCommand
from recall import services
from recall.management.commands.recall_sync import (
    add_folder_arguments,
    folder_target,
    report_skipped,
    skipped_summary,
)
from recall.models import SyncedFolder


def folder_signature(root) -> tuple:
    """(relative path, size, mtime_ns) of every indexable file: any edit, addition or removal changes it."""
    signature = []
    for path in services.folder_files(root):
        try:
            stat = path.stat()
        except OSError:
            continue
        signature.append((path.relative_to(root).as_posix(), stat.st_size, stat.st_mtime_ns))
    return tuple(signature)


class Command(MaintenanceCommand):
    one_transaction = False  # runs until stopped: one transaction per sync
    help = (
        "Watch a workspace folder and re-index it whenever a markdown or text file is added, changed or removed "
        "(polls every --interval seconds; Ctrl-C stops). Same options as recall_sync."
    )

    def add_arguments(self, parser):
        add_folder_arguments(parser)
        parser.add_argument("--interval", type=float, default=2.0, help="seconds between polls (default 2)")
        parser.add_argument("--once", action="store_true", help="sync once, then exit (for scripts and tests)")

    def handle(self, *args, directory, user=None, global_=False, deployment=None, source, prefix, **options):
        with transaction.atomic():
            owner, target, root = folder_target(
                directory=directory, user=user, deployment_id=deployment, global_=global_
            )
            folder, _ = SyncedFolder.objects.get_or_create(
                owner=owner, deployment=target, root=str(root), defaults={"source": source, "prefix": prefix}
            )
        self.stdout.write(f"watching {root} (Ctrl-C stops)")
        last = None
        try:
            while True:
                signature = folder_signature(root)
                if signature != last:
                    with transaction.atomic():
                        result = services.synced_folder_run(folder=folder)
                    self.stdout.write(
                        f"synced: {result.scanned} files, {result.changed} changed, {result.removed} removed"
                        + skipped_summary(result)
                    )
                    report_skipped(self, result)
                    last = signature
                    if options["once"]:
                        return
                time.sleep(options["interval"])
        except KeyboardInterrupt:
            self.stdout.write("stopped")

"""manage.py recall_owner_graphs: build (and drop) the traders' own HNSW graphs (recall/owner_graphs.py)."""

from access.roles import as_owner
from memorysite.commands import MaintenanceCommand
from recall import services


class Command(MaintenanceCommand):
    help = (
        "Builds an HNSW graph of their own for the traders whose search scope reads more chunks than "
        "RECALL_OWNER_GRAPH_MIN and at most half the table, so their vector search walks only their rows; "
        "drops the graphs no longer wanted and any a failed build left invalid. CREATE / DROP INDEX CONCURRENTLY: "
        "searches and writes go on meanwhile. Connects as the owner role (DATABASE_MIGRATE_URL). Beat runs it "
        "hourly (recall.owner_graphs_sync, on the sweeps pool)."
    )
    one_transaction = False  # CONCURRENTLY runs outside a transaction

    def add_arguments(self, parser):
        parser.add_argument(
            "--minimum",
            type=int,
            default=None,
            help="readable chunks above which a trader gets one (default: RECALL_OWNER_GRAPH_MIN)",
        )
        parser.add_argument(
            "--budget",
            type=float,
            default=None,
            help="seconds after which no further graph is started (the largest traders' come first; a later run "
            "builds the rest); default: no limit",
        )

    def handle(self, *args, minimum, budget, **options):
        def report(verb: str, owner_id: int, seconds: float) -> None:
            if verb == "deferred":
                self.stdout.write(f"left the owner graph of trader #{owner_id} to the next run: the budget is spent")
            else:
                self.stdout.write(f"{verb} the owner graph of trader #{owner_id} in {seconds:.1f} s")

        with as_owner():
            graph_plan = services.owner_graphs_sync(minimum=minimum, budget_s=budget, report=report)
        if not graph_plan.build and not graph_plan.drop:
            self.stdout.write("the owner graphs are as wanted")

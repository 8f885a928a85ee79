"""The scope seal (issue 16): what checking it costs a transaction of the tick path, sealed vs not.

    .venv/bin/python bench/scope_seal.py [--rounds 40] [--calls 50] [--traders 50] [--smoke]

Row-level security honours the scope's settings only when their seal verifies (access/scope.py):
every policy gained `(SELECT access_scope_sealed()) AND …`, and the scope statement an HMAC and a
fourth setting. This measures one transaction as the service runs it on the tick path — the scope
statement, then the reads of a context request (the deployment, its recent snapshots, its open
trades, the trader's skills) — as the app role, in two ways on one database:
- "sealed": the policies as installed (what ships);
- "unsealed": the same policies without the seal term, and the three-setting scope statement
  (the service before issue 16).
Both policy sets cannot be installed at once, so rounds alternate: each round installs one set (as
the owner), runs `--calls` transactions, then the other, the order swapped every round. It prints
p50/p95 per transaction for both and the sealed/unsealed ratios, and checks that each transaction
saw its own trader's rows only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import BenchRun, parse_args, print_table, rotated, run_script, timing_cells

# --smoke (make test): tiny sizes, seconds; the figures mean nothing
SMOKE = {"rounds": 2, "calls": 5, "traders": 4}

TRADERS = 50
DEPLOYMENTS_PER_TRADER = 20
SNAPSHOTS_PER_DEPLOYMENT = 20
T0 = dt.datetime(2026, 6, 1, tzinfo=dt.UTC)
UNSEALED_SQL = (
    "SELECT set_config('app.owner_id', %s, true), set_config('app.elevated', %s, true), "
    "set_config('app.runner_key', %s, true)"
)
READS = [
    "SELECT id, owner_id, skill_version_id, status FROM deployments WHERE id = %(deployment)s",
    "SELECT id, tick_at, equity_usd FROM decision_snapshots WHERE deployment_id = %(deployment)s "
    "ORDER BY tick_at DESC LIMIT 5",
    "SELECT count(*) FROM trade_history WHERE deployment_id = %(deployment)s AND status = 'open'",
    "SELECT id, name FROM skills ORDER BY id LIMIT 20",
]


def seed(traders: int) -> list[tuple[int, int]]:
    """(trader id, deployment id) pairs: `traders` traders x 20 deployments x 20 snapshots (as the owner)."""
    from django.contrib.auth import get_user_model

    from ledger.models import DecisionSnapshot, Deployment, Skill, SkillVersion

    pairs = []
    for n in range(traders):
        user = get_user_model().objects.create_user(f"trader{n:02d}")
        skill = Skill.objects.create(owner=user, name="Trend")
        version = SkillVersion.objects.create(owner=user, skill=skill, version=1, strategy_text="Follow the trend.")
        deployments = Deployment.objects.bulk_create(
            [Deployment(owner=user, skill_version=version, mode="sim") for _ in range(DEPLOYMENTS_PER_TRADER)]
        )
        DecisionSnapshot.objects.bulk_create(
            DecisionSnapshot(
                owner=user, deployment=d, tick_at=T0 + dt.timedelta(minutes=m), equity_usd=10_000, positions=[]
            )
            for d in deployments
            for m in range(SNAPSHOTS_PER_DEPLOYMENT)
        )
        pairs += [(user.pk, d.pk) for d in deployments]
    return pairs


def install(sealed: bool) -> None:
    """The policies as installed by migrate, or the same without the seal term (as the owner)."""
    from django.db import connection

    from access import policies

    policies.install()
    if sealed:
        return
    tables, _ = policies.classify()
    with connection.cursor() as cursor:
        for owned in tables:
            for statement in owned.statements()[2:]:
                name = statement.split()[2]
                cursor.execute(f'DROP POLICY {name} ON "{owned.table}"')
                cursor.execute(statement.replace(f"{policies.SEALED} AND ", ""))
        for table, name, clause in policies.key_lookup_policies():
            cursor.execute(f'DROP POLICY {name} ON "{table}"')
            cursor.execute(f'CREATE POLICY {name} ON "{table}" {clause.replace(f"{policies.SEALED} AND ", "")}')


def transaction(raw, sealed: bool, owner_id: int, deployment: int) -> float:
    from access import scope

    started = time.perf_counter()
    with raw.transaction():
        if sealed:
            scope.apply_to_raw(raw, scope.owner_scope_of(owner_id))
        else:
            raw.execute(UNSEALED_SQL, [str(owner_id), "", ""])
        owners = set()
        for sql in READS:
            rows = raw.execute(sql, {"deployment": deployment}).fetchall()
            if sql.startswith("SELECT id, owner_id"):
                owners |= {row[1] for row in rows}
    elapsed = time.perf_counter() - started
    if owners != {owner_id}:
        raise AssertionError(f"trader {owner_id} saw deployments of {owners}")
    return elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--traders", type=int, default=TRADERS)
    args = parse_args(parser, argv, SMOKE)
    with BenchRun("scope_seal") as run:
        import psycopg

        pairs = seed(args.traders)
        rng = random.Random(16)
        samples: dict[str, list[float]] = {"sealed": [], "unsealed": []}
        with psycopg.connect(run.env["DATABASE_URL"], autocommit=True) as raw:
            for round_no in range(args.rounds + 1):  # round 0 warms up
                for label in rotated(list(samples), round_no):
                    install(sealed=label == "sealed")
                    for _ in range(args.calls):
                        owner_id, deployment = rng.choice(pairs)
                        elapsed = transaction(raw, label == "sealed", owner_id, deployment)
                        if round_no:
                            samples[label].append(elapsed)
            install(sealed=True)
        print(f"{len(pairs)} deployments of {args.traders} traders; one transaction = the scope + {len(READS)} reads")
        print_table(
            ["policies", "p50 ms", "p95 ms", "p99 ms", "mean ms"],
            [[label, *timing_cells(values)] for label, values in samples.items()],
        )
        from bench._harness import percentile

        for p in (50, 95):
            ratio = percentile(samples["sealed"], p) / percentile(samples["unsealed"], p)
            print(f"sealed/unsealed p{p}: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    run_script(main)

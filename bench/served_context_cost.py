"""What recording the served context costs the context request (issue 21: "what the agent saw at entry").

    .venv/bin/python bench/served_context_cost.py [--rounds 400] [--warmup 30] [--smoke]

`agentcontext.answers.context_answer` now ends with one upsert (ledger.services.served_context_record, in a
savepoint: SAVEPOINT, INSERT … ON CONFLICT DO UPDATE, RELEASE). In process, in the trader's scope, one transaction
a call as a request has, rounds interleave (order rotated every round):
- "with record": `context_answer` as it ships;
- "without": the same calls minus the record (materialize_if_behind, deployment_context, the prompt composed);
- "record alone": `record_served` of the answer.
One deployment with --trades closed trades (posted as ticks through the tick service, materialized), an open
position, a manual section off. Prints p50/p95 per variant and the ratio with/without.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._harness import BenchRun, parse_args, percentile, print_table, rotated, run_script, timing_cells

SMOKE = {"rounds": 5, "warmup": 1, "trades": 5}
T0 = dt.datetime(2026, 6, 4, 0, 0, tzinfo=dt.UTC)


def seed(trades: int):
    from django.contrib.auth import get_user_model

    from access import scope
    from ledger import services
    from ledger.models import Deployment, Skill, SkillVersion

    user = get_user_model().objects.create_user("served")
    skill = Skill.objects.create(owner=user, name="Breakout")
    version = SkillVersion.objects.create(
        owner=user, skill=skill, version=1, strategy_text="Buy breakouts above the range.\n" * 20,
        avoid_rules="Never hold more than two positions.", manual_enabled=False,
    )  # fmt: skip
    deployment = Deployment.objects.create(owner=user, skill_version=version, mode="paper")
    btc = {"symbol": "BTC", "side": "long", "size": 0.01, "mark_price": 65200}
    with scope.owner_scope(user):
        for n in range(2 * trades + 1):  # open, close, … and open once more: an open position at the end
            positions = [btc] if n % 2 == 0 else []
            action = {"kind": "propose_order" if positions else "close_position", "symbol": "BTC", "reason": "r"}
            payload = {"equity_usd": 10_000, "positions": positions, "proposed_action": action}
            services.tick_ingest(
                owner=user, deployment_id=deployment.pk, tick_at=T0 + dt.timedelta(minutes=n), payload=payload
            )
        services.materialize_pending(deployment_id=deployment.pk)
    return user, deployment.pk


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--trades", type=int, default=500)
    args = parse_args(parser, argv, SMOKE)
    with BenchRun("served_context") as run:
        del run
        from access import scope
        from agentcontext.answers import context_answer, record_served
        from agentcontext.prompt import compose_system_prompt
        from agentcontext.selectors import deployment_context
        from ledger import services
        from ledger.models import Deployment, ServedContext

        user, deployment_id = seed(args.trades)

        def without() -> None:
            deployment = Deployment.objects.select_related("skill_version").get(pk=deployment_id)
            services.materialize_if_behind(deployment)
            context = deployment_context(deployment=deployment)
            compose_system_prompt(context.segments)

        def with_record() -> None:
            context_answer(deployment=Deployment.objects.select_related("skill_version").get(pk=deployment_id))

        with scope.owner_scope(user):
            answer = context_answer(deployment=Deployment.objects.get(pk=deployment_id))

        def record_alone() -> None:
            record_served(deployment=Deployment.objects.get(pk=deployment_id), answer=answer)

        calls = {"with record": with_record, "without": without, "record alone": record_alone}
        samples: dict[str, list[float]] = {label: [] for label in calls}
        for round_no in range(args.warmup + args.rounds):
            for label in rotated(list(calls), round_no):
                started = time.perf_counter()
                with scope.owner_scope(user):  # one transaction, as a request
                    calls[label]()
                if round_no >= args.warmup:
                    samples[label].append(time.perf_counter() - started)
        with scope.owner_scope(user):
            rows = ServedContext.objects.filter(deployment_id=deployment_id).count()
        print(f"{args.trades} closed trades, one open; {args.rounds} rounds after {args.warmup} warm-up; rows: {rows}")
        print(f"memory block {len(answer['text'])} chars, system prompt {len(answer['system_prompt']['text'])} chars")
        print_table(
            ["variant", "p50 ms", "p95 ms", "p99 ms", "mean ms"],
            [[label, *timing_cells(values)] for label, values in samples.items()],
        )
        for p in (50, 95):
            ratio = percentile(samples["with record"], p) / percentile(samples["without"], p)
            print(f"with/without p{p}: {ratio:.3f}")
    return 0


if __name__ == "__main__":
    run_script(main)

"""A complete runner on the Python client: replays monthly stock closes through a moving-average agent.

    pip install ./clients/python            # memory_client (generated) and memory_runner (the tick loop)
    python examples/runner/run.py --base-url http://127.0.0.1:8000 --token <account token>

Each month of vega_datasets' stocks.csv (see README.md) becomes one tick per decision (or one `hold` tick):
the runner reads the deployment's context before the agent decides (printing it every `--print-every`
ticks), searches recall for the playbook's advice when the agent acts, posts the tick with the positions
after the fill, and appends a journal entry for every trade. At the end it prints the trade journal, the
journal entries and the lessons reflection distilled from the closed trades (the service's worker runs
reflection every `--reflect-every` closed trades: the statistical engine when no Anthropic key is set).

Paused: while the trader has paused the deployment (the context's `deployment_status` is "stopped") the runner
opens nothing: an entry the agent wants becomes a `hold` tick. Exits still happen, and every tick is still
posted, so the ledger keeps following the account.

Tokens: `--token` posts the ticks and reads the context: a runner token (`rt_…`, with `--deployment-id`) or
an account token. Recall, the journal and the lessons need an account token (`--account-token`, or `--token`
when it is one); with a runner token alone those steps are skipped and say so. With an account token and no
`--deployment-id` the runner creates its own skill and paper deployment.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any, TypeVar

from sma_agent import DATA, Decision, Month, SmaCrossoverAgent, load_prices

try:
    from memory_client.api.deployments import create_deployment
    from memory_client.api.lessons import get_deployment_lessons
    from memory_client.api.recall import append_journal, index_document, list_journal, search_recall
    from memory_client.api.skills import create_skill
    from memory_client.models import (
        ContextOutput,
        DeploymentCreateInputRequest,
        DeploymentLessonsOutput,
        DeploymentOutput,
        DocumentInputRequest,
        JournalInputRequest,
        JournalOutput,
        PaginatedJournalOutputList,
        SearchInputRequest,
        SearchOutput,
        SkillCreateInputRequest,
        SkillOutput,
        TradeOutput,
    )
    from memory_client.types import Response
    from memory_runner import Runner, new_idempotency_key, paused
except ImportError as missing:  # pragma: no cover - the message is the point
    sys.exit(f"{missing}: install the Python client first: pip install ./clients/python")

T = TypeVar("T")
HERE = Path(__file__).resolve().parent
PLAYBOOK = HERE / "TRADING_PLAYBOOK.md"
PLAYBOOK_PATH = "playbooks/sma-crossover.md"
RUNNER_TOKEN_PREFIX = "rt_"  # noqa: S105 (a prefix, not a secret)
NEEDS_ACCOUNT = "skipped: a runner token reaches ticks, fills, context and trades only (give --account-token)"
PAUSED_HOLD = "deployment paused by the trader: no new positions"
TICK_HOUR_UTC = 21  # the month's close: one tick at 21:00 UTC, the next decision a minute later


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    symbols = tuple(s.strip().upper() for s in args.symbols.split(",") if s.strip())
    months = load_prices(args.prices, symbols)[: args.months or None]
    if not months:
        sys.exit(f"no prices for {', '.join(symbols)} in {args.prices}")
    run_id = args.run_id or f"sma-example-{uuid.uuid4().hex[:8]}"
    account_token = args.account_token or (None if args.token.startswith(RUNNER_TOKEN_PREFIX) else args.token)
    account = Runner(args.base_url, token=account_token, deployment_id=0) if account_token else None

    deployment_id = args.deployment_id
    if deployment_id is None:
        if account is None:
            sys.exit("a runner token is bound to one deployment: give its --deployment-id")
        deployment_id = create_own_deployment(account, run_id=run_id, reflect_every=args.reflect_every)
    runner = Runner(args.base_url, token=args.token, deployment_id=deployment_id)
    if account is not None:
        account.deployment_id = deployment_id
        index_playbook(account, deployment_id)
    print(f"run {run_id}: deployment {deployment_id}, {len(months)} months of {', '.join(symbols)} from {args.prices}")

    agent = SmaCrossoverAgent(fast=args.fast, slow=args.slow)
    replay(runner, account, agent, months, run_id=run_id, print_every=args.print_every)
    report(runner, account, wait_s=args.lessons_wait, run_id=run_id)
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    env = os.environ.get
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-url", default=env("MEMORY_BASE_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--token", default=env("MEMORY_TOKEN"), help="runner or account token (MEMORY_TOKEN)")
    parser.add_argument("--account-token", default=env("MEMORY_ACCOUNT_TOKEN"), help="for recall, journal, lessons")
    deployment = env("MEMORY_DEPLOYMENT_ID")
    parser.add_argument("--deployment-id", type=int, default=int(deployment) if deployment else None)
    parser.add_argument("--symbols", default="AAPL,AMZN,IBM,MSFT", help="of AAPL, AMZN, GOOG, IBM, MSFT")
    parser.add_argument("--months", type=int, default=0, help="replay only the first N months (0: all 123)")
    parser.add_argument("--fast", type=int, default=3, help="fast moving average, months")
    parser.add_argument("--slow", type=int, default=6, help="slow moving average, months")
    parser.add_argument("--print-every", type=int, default=24, help="print the context every N ticks")
    parser.add_argument("--reflect-every", type=int, default=5, help="a new skill's reflection cadence (trades)")
    parser.add_argument("--lessons-wait", type=float, default=60, help="seconds to wait for the lessons at the end")
    parser.add_argument("--prices", type=Path, default=DATA, help="a stocks.csv (symbol,date,price)")
    parser.add_argument("--run-id", default=None, help="this run's id in the journal (default: random)")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("--token (or MEMORY_TOKEN) is required: a runner token or an account token")
    return args


# -- set-up (account token) ----------------------------------------------------------------------------


def create_own_deployment(account: Runner, *, run_id: str, reflect_every: int) -> int:
    strategy = (
        "Long-only monthly momentum: buy a stock when its 3-month average close crosses above its 6-month "
        "average, sell when it crosses back below, stop out 15% below entry. Equal dollar tickets."
    )
    skill_body = SkillCreateInputRequest(
        name=f"SMA crossover ({run_id})",
        strategy_text=strategy,
        avoid_rules="Never average down a loser.\nNo more than one entry per symbol at a time.",
        reflection_every_n_trades=reflect_every,
    )
    key = new_idempotency_key()
    skill = parsed(
        account.call(lambda: create_skill.sync_detailed(client=account.client, body=skill_body, idempotency_key=key)),
        SkillOutput,
    )
    deployment_body = DeploymentCreateInputRequest(skill_id=skill.id, mode="paper")
    key = new_idempotency_key()
    created = parsed(
        account.call(
            lambda: create_deployment.sync_detailed(client=account.client, body=deployment_body, idempotency_key=key)
        ),
        DeploymentOutput,
    )
    print(f"created skill {skill.id} ({skill_body.name}) and paper deployment {created.id}")
    return created.id


def index_playbook(account: Runner, deployment_id: int) -> None:
    """The playbook, scoped to the deployment, for recall to find (the same text again is a no-op)."""
    body = DocumentInputRequest(path=PLAYBOOK_PATH, content=PLAYBOOK.read_text(encoding="utf-8"))
    body.deployment_id = deployment_id
    key = new_idempotency_key()
    account.call(lambda: index_document.sync_detailed(client=account.client, body=body, idempotency_key=key))


# -- the replay ----------------------------------------------------------------------------------------


def replay(
    runner: Runner,
    account: Runner | None,
    agent: SmaCrossoverAgent,
    months: list[Month],
    *,
    run_id: str,
    print_every: int,
) -> None:
    ticks = 0
    skipped_said = False
    for month in months:
        decisions: list[Decision | None] = list(agent.decide(month)) or [None]  # None: a hold tick
        for minute, decision in enumerate(decisions):
            tick_at = dt.datetime.combine(month.date, dt.time(TICK_HOUR_UTC, minute), tzinfo=dt.UTC)
            context = runner.get_context()  # what the agent reads before it decides (its memory block)
            ticks += 1
            if print_every and ticks % print_every == 0:
                print_context(ticks, tick_at, context)
            if decision is not None and decision.action == "open" and paused(context):
                print(f"tick {tick_at:%Y-%m-%d %H:%M}Z: {decision.symbol} not opened ({PAUSED_HOLD})")
                runner.post_tick(tick_body(agent, month, tick_at, None, hold_reason=PAUSED_HOLD))
                continue  # the tick still goes in: the ledger follows the account while paused
            advice = ""
            if decision is not None:
                if account is not None:
                    advice = recall_advice(account, decision)
                elif not skipped_said:
                    print(f"recall and journal {NEEDS_ACCOUNT}")
                    skipped_said = True
                held = agent.positions.get(decision.symbol)
                agent.apply(decision, month.date)
            outcome = runner.post_tick(tick_body(agent, month, tick_at, decision))
            if outcome.status != "stored":
                print(f"tick {tick_at:%Y-%m-%d %H:%M}Z {outcome.status}: {outcome.detail}")
            if decision is not None and account is not None:
                entry = journal_line(decision, month.date, held, advice)
                journal(account, content=entry, run_id=run_id, snapshot_id=outcome.snapshot_id)
    print(f"replayed {len(months)} months in {ticks} ticks; final equity ${agent.equity_usd(months[-1].closes):,.2f}")


def tick_body(
    agent: SmaCrossoverAgent,
    month: Month,
    tick_at: dt.datetime,
    decision: Decision | None,
    *,
    hold_reason: str = "no crossover this month",
) -> dict:
    """The positions after this tick's fill, every other symbol's mark, and what the agent proposed."""
    positions = [
        {"symbol": p.symbol, "side": "long", "size": p.size, "mark_price": month.closes[p.symbol]}
        for p in agent.open_positions()
    ]
    held = {p["symbol"] for p in positions}
    marks = {symbol: price for symbol, price in month.closes.items() if symbol not in held}
    if decision is None:
        proposed = {"kind": "hold", "symbol": None, "reason": hold_reason}
    else:
        kind = "propose_order" if decision.action == "open" else "close_position"
        proposed = {"kind": kind, "symbol": decision.symbol, "reason": decision.reason}
    return {
        "tick_at": tick_at,
        "equity_usd": agent.equity_usd(month.closes),
        "positions": positions,
        "marks": marks,
        "proposed_action": proposed,
        "engine": {"kind": "executed"},
    }


def recall_advice(account: Runner, decision: Decision) -> str:
    """The playbook's best passage for this decision, as a citation line (empty when nothing matched)."""
    query = f"{'entry buy' if decision.action == 'open' else 'exit sell'} {decision.reason}"
    body = SearchInputRequest(query=query, k=2, deployment_id=account.deployment_id)
    key = new_idempotency_key()
    found = parsed(
        account.call(lambda: search_recall.sync_detailed(client=account.client, body=body, idempotency_key=key)),
        SearchOutput,
    )
    if not found.results:
        return ""
    best = found.results[0]
    snippet = " ".join(best.snippet.split())[:100]
    line = f"{best.path}:{best.start_line}-{best.end_line} ({best.score:.2f}) {snippet}"
    print(f"recall [{decision.symbol} {decision.action}]: {line}")
    return line


def journal_line(decision: Decision, date: dt.date, held, advice: str) -> str:
    if decision.action == "open":
        text = f"Opened {decision.symbol} long at ${decision.price:,.2f} on {date:%Y-%m}: {decision.reason}."
    else:
        pnl = (decision.price - held.entry_price) * held.size
        change = decision.price / held.entry_price - 1
        months_held = (date.year - held.entry_date.year) * 12 + date.month - held.entry_date.month
        text = (
            f"Closed {decision.symbol} at ${decision.price:,.2f} on {date:%Y-%m} after {months_held} months: "
            f"{decision.reason}; {'+' if pnl >= 0 else '-'}${abs(pnl):,.2f} ({change:+.1%})."
        )
    return f"{text}\nPlaybook: {advice}" if advice else text


def journal(account: Runner, *, content: str, run_id: str, snapshot_id: str | None) -> None:
    body = JournalInputRequest(deployment_id=account.deployment_id, content=content, run_id=run_id)
    body.kind = "journal"
    if snapshot_id is not None:
        body.snapshot_id = uuid.UUID(snapshot_id)
    key = new_idempotency_key()
    parsed(
        account.call(lambda: append_journal.sync_detailed(client=account.client, body=body, idempotency_key=key)),
        JournalOutput,
    )


def print_context(ticks: int, tick_at: dt.datetime, context: ContextOutput) -> None:
    print(f"\n== context before tick {ticks} ({tick_at:%Y-%m-%d %H:%M} UTC) ==")
    print(context.text or "(empty: nothing to remember yet)")
    lessons = context.system_prompt.segments.lessons if context.system_prompt else None
    if isinstance(lessons, str) and lessons:
        print("-- lessons in the system prompt --")
        print(lessons)
    print()


# -- the end of the run ----------------------------------------------------------------------------------


def report(runner: Runner, account: Runner | None, *, wait_s: float, run_id: str) -> None:
    trades = runner.list_trades(limit=200)
    print("\n== Trade journal ==")
    for trade in sorted(trades, key=lambda t: t.entry_tick_at):
        print(trade_line(trade))
    closed = [t for t in trades if t.exit_tick_at]
    realized = sum(float(t.realized_pnl_usd) for t in closed if isinstance(t.realized_pnl_usd, str))
    wins = sum(1 for t in closed if isinstance(t.realized_pnl_usd, str) and float(t.realized_pnl_usd) > 0)
    print(f"{len(trades)} trades, {len(closed)} closed, {wins} won; realized PnL ${realized:,.2f}")

    print("\n== Journal entries ==")
    if account is None:
        print(NEEDS_ACCOUNT)
    else:
        entries = parsed(
            account.call(
                lambda: list_journal.sync_detailed(
                    client=account.client, deployment_id=account.deployment_id, limit=500
                )
            ),
            PaginatedJournalOutputList,
        )
        mine = [entry for entry in entries.results if entry.run_id == run_id]
        for entry in reversed(mine[:10]):  # the latest ten, oldest first
            print(f"- {entry.created_at:%Y-%m-%d %H:%M:%S}Z {entry.content.splitlines()[0]}")
        print(f"{len(mine)} journal entries this run (in {mine[0].path if mine else 'no file'})")

    print("\n== Lessons ==")
    if account is None:
        print(NEEDS_ACCOUNT)
        return
    lessons = wait_for_lessons(account, wait_s)
    if lessons is None:
        print(f"no lessons after {wait_s:.0f} s: reflection runs in the service's worker (`make run` starts one)")
        return
    print(textwrap.indent(lessons.active.lessons_text, "  "))
    print(
        f"(distilled from {lessons.active.trades_considered} closed trades by {lessons.active.model_used}; "
        f"{len(lessons.history)} revisions)"
    )


def trade_line(trade: TradeOutput) -> str:
    entry = f"{trade.entry_tick_at:%Y-%m} {trade.symbol:<5} {trade.side} @ {float(trade.entry_price):>8,.2f}"
    if not trade.exit_tick_at or not isinstance(trade.exit_price, str):
        return f"{entry}  open, marked {float(trade.last_mark_price):,.2f}"
    pnl = float(trade.realized_pnl_usd) if isinstance(trade.realized_pnl_usd, str) else 0.0
    exit_at = trade.exit_tick_at if isinstance(trade.exit_tick_at, dt.datetime) else None
    when = f"{exit_at:%Y-%m}" if exit_at else "?"
    return f"{entry} -> {when} @ {float(trade.exit_price):>8,.2f}  PnL {pnl:>+11,.2f}  ({trade.exit_reason})"


def wait_for_lessons(account: Runner, wait_s: float) -> DeploymentLessonsOutput | None:
    """The deployment's lessons once reflection has written the active note (polled; None after `wait_s`)."""
    deadline = time.monotonic() + wait_s
    while True:
        lessons = parsed(
            account.call(lambda: get_deployment_lessons.sync_detailed(account.deployment_id, client=account.client)),
            DeploymentLessonsOutput,
        )
        if lessons.active is not None:
            return lessons
        if time.monotonic() >= deadline:
            return None
        time.sleep(1)


def parsed(response: Response[Any], expected: type[T]) -> T:
    """The answer's body as the schema documents it for a 2xx (`Runner.call` raised on anything else)."""
    if not isinstance(response.parsed, expected):
        raise TypeError(f"{response.status_code}: expected {expected.__name__}, got {type(response.parsed).__name__}")
    return response.parsed


if __name__ == "__main__":
    sys.exit(main())

"""Drive a deployment through the real tick API with a synthetic market and a scripted agent.

    manage.py simulate DEPLOYMENT [--ticks 300] [--seed 7] [--end 2026-06-04T12:00:00Z] [--reflect]

A seeded random walk moves BTC and ETH every 5 minutes; a mean-reversion "agent" proposes entries
below the 20-bar mean and exits above it, and a toy risk engine rejects a third position
(R3_POSITION_CAP) and bursts of orders (R6_RATE_LIMIT). Every tick goes through
POST /api/v1/deployments/{id}/ticks/ exactly as a runner's would, so trades, the risk-state slot
and the context fill up as they would live. Deterministic for a given seed and end time.

--reflect lets reflection keep up tick by tick: each tick is materialized as soon as it is stored and
`ledger.signals.keep_up` asks reflection to run now when the skill version's cadence says so (its
clock is the tick's time), so the trades of the following ticks carry the new lessons hash, as they
would live with a worker that keeps up. Without it, ticks are materialized afterwards (by the
worker, or a read's catch-up) and reflection runs then: every trade of the run carries the lessons
active before it. With the statistical engine (no ANTHROPIC_API_KEY) the notes are deterministic too.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from django.core.management.base import CommandError
from django.test import Client

from ledger import services
from ledger.models import Deployment
from ledger.signals import keep_up
from memorysite.commands import MaintenanceCommand

STEP = dt.timedelta(minutes=5)
BARS = 100
SMA = 20
MAX_POSITIONS = 2
MAX_ORDERS_PER_HOUR = 3
START_PRICES = {"BTC": 65_000.0, "ETH": 3_400.0}
NOTIONAL_USD = 250.0


@dataclass
class Market:
    rng: random.Random
    closes: dict[str, list[float]] = field(default_factory=lambda: {s: [p] for s, p in START_PRICES.items()})

    def step(self) -> None:
        for series in self.closes.values():
            shock = self.rng.gauss(0, 0.004) + (0.0015 if self.rng.random() < 0.05 else 0.0)
            series.append(round(series[-1] * (1 + shock), 2))
            del series[:-BARS]

    def mark(self, symbol: str) -> float:
        return self.closes[symbol][-1]

    def mean(self, symbol: str) -> float:
        window = self.closes[symbol][-SMA:]
        return sum(window) / len(window)

    def bars(self, symbol: str, now: dt.datetime) -> list[dict]:
        series = self.closes[symbol]
        return [
            {
                "t": (now - STEP * (len(series) - 1 - i)).isoformat(),
                "o": c,
                "h": round(c * 1.001, 2),
                "l": round(c * 0.999, 2),
                "c": c,
                "v": 10 + i % 7,
            }
            for i, c in enumerate(series)
        ]


@dataclass
class Agent:
    """Buys dips below the mean, sells rips above it; the engine decides what executes."""

    positions: dict[str, dict] = field(default_factory=dict)
    executed_at: list[dt.datetime] = field(default_factory=list)

    def decide(self, market: Market, now: dt.datetime) -> tuple[dict | None, dict | None]:
        for symbol in sorted(self.positions):
            if market.mark(symbol) > market.mean(symbol) * 1.002:
                return {"kind": "close_position", "symbol": symbol, "reason": "back above the 20-bar mean"}, symbol
        for symbol in sorted(START_PRICES):
            if symbol not in self.positions and market.mark(symbol) < market.mean(symbol) * 0.997:
                action = {"kind": "propose_order", "symbol": symbol, "reason": "dip below the 20-bar mean"}
                return action, symbol
        return {"kind": "hold", "reason": "no setup"}, None

    def engine(self, action: dict, now: dt.datetime) -> dict:
        if action["kind"] == "hold":
            return {"kind": "skipped"}
        recent = [t for t in self.executed_at if now - t < dt.timedelta(hours=1)]
        if len(recent) >= MAX_ORDERS_PER_HOUR:
            return {"kind": "rejected", "rule": "R6_RATE_LIMIT"}
        if action["kind"] == "propose_order" and len(self.positions) >= MAX_POSITIONS:
            return {"kind": "rejected", "rule": "R3_POSITION_CAP"}
        return {"kind": "executed"}

    def apply(self, action: dict, engine: dict, market: Market, now: dt.datetime) -> None:
        if engine["kind"] != "executed":
            return
        self.executed_at.append(now)
        symbol = action["symbol"]
        if action["kind"] == "propose_order":
            self.positions[symbol] = {"size": round(NOTIONAL_USD / market.mark(symbol), 6)}
        else:
            self.positions.pop(symbol, None)


def tick_bodies(*, ticks: int, seed: int, end_at: dt.datetime) -> Iterator[tuple[dt.datetime, dict]]:
    """The run's ticks, (tick_at, the runner's tick body without tick_at), oldest first; a pure function
    of its arguments (a SimLedger fed them gives what the API gives)."""
    market, agent = Market(random.Random(seed)), Agent()  # noqa: S311 (a synthetic market, not secrets)
    for _ in range(BARS):
        market.step()
    for index in range(ticks):
        now = end_at - STEP * (ticks - 1 - index)
        market.step()
        action, symbol = agent.decide(market, now)
        engine = agent.engine(action, now)
        agent.apply(action, engine, market, now)
        yield (
            now,
            {
                "equity_usd": 10_000,
                "positions": [
                    {"symbol": s, "side": "long", "size": p["size"], "mark_price": market.mark(s)}
                    for s, p in sorted(agent.positions.items())
                ],
                "marks": {s: market.mark(s) for s in START_PRICES},
                "proposed_action": action,
                "engine": engine,
                "bars": {symbol: market.bars(symbol, now)} if symbol else {},
            },
        )


class Command(MaintenanceCommand):
    help = "Drive a deployment through the real tick API with a synthetic market and a scripted agent."

    def add_arguments(self, parser):
        parser.add_argument("deployment", type=int)
        parser.add_argument("--ticks", type=int, default=300)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--end", help="UTC time of the last tick (ISO-8601); default: now, to the minute")
        parser.add_argument(
            "--reflect",
            action="store_true",
            help="let reflection keep up tick by tick (per the skill version's cadence), so later trades carry"
            " the lessons it wrote",
        )

    def handle(self, *args, deployment, ticks, seed, end, reflect=False, **options):
        target = Deployment.objects.filter(pk=deployment).select_related("owner").first()
        if target is None:
            raise CommandError(f"no deployment with id {deployment}")
        if ticks < 1:
            raise CommandError("--ticks must be at least 1")
        end_at = dt.datetime.fromisoformat(end.replace("Z", "+00:00")) if end else dt.datetime.now(dt.UTC)
        if end_at.tzinfo is None:
            raise CommandError("--end must include a timezone offset, e.g. 2026-06-04T12:00:00Z")
        end_at = end_at.astimezone(dt.UTC).replace(second=0, microsecond=0)
        if target.latest_tick_at is not None and target.latest_tick_at >= end_at - STEP * (ticks - 1):
            raise CommandError(f"deployment {deployment} already has ticks up to {target.latest_tick_at.isoformat()}")
        # The ticks go through the API as a runner's would, with a runner token revoked when done.
        token, key = services.runner_token_create(deployment=target, name="manage.py simulate")
        client = Client(HTTP_AUTHORIZATION=f"Token {key}", HTTP_HOST="localhost")
        url = f"/api/v1/deployments/{deployment}/ticks/"
        for now, payload in tick_bodies(ticks=ticks, seed=seed, end_at=end_at):
            body = {"tick_at": now.isoformat(), **payload}
            response = client.post(url, body, content_type="application/json")
            while response.status_code == 429:  # the API's per-token throttle: wait as a runner would
                time.sleep(int(response["Retry-After"]))
                response = client.post(url, body, content_type="application/json")
            if response.status_code not in (200, 201):
                raise CommandError(f"tick {now.isoformat()}: {response.status_code} {response.content[:300]!r}")
            if reflect:  # materialized now, and reflection (a listener) runs before the next tick when due
                services.materialize_pending(deployment_id=deployment)
                keep_up.send(sender=Deployment, deployment_id=deployment, through=now)
        services.runner_token_revoke(token=token, now=dt.datetime.now(dt.UTC))
        self.stdout.write(f"deployment {deployment}: posted {ticks} ticks ending {end_at.isoformat()}")

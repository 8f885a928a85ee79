/**
 * A short tick loop against a running service (the test suite runs it against its live server):
 * MEMORY_BASE_URL, MEMORY_TOKEN (a runner token) and MEMORY_DEPLOYMENT_ID from the environment, and
 * MEMORY_FIRST_TICK_AT (ISO 8601; default 2026-06-04T10:00:00Z), later than the deployment's latest tick.
 * Opens and closes a position, posts one tick twice and one out of order, reads the context after each
 * tick, and prints what happened as one JSON line. A paused deployment (the context's `deployment_status`
 * "stopped") still gets its ticks, since the ledger must follow the venue; a real runner opens nothing then.
 */
import { isPaused, Runner, type TickOutcome } from "./runner.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const runner = new Runner({
  baseUrl: env("MEMORY_BASE_URL"),
  token: env("MEMORY_TOKEN"),
  deploymentId: Number(env("MEMORY_DEPLOYMENT_ID")),
});

const start = Date.parse(process.env.MEMORY_FIRST_TICK_AT ?? "2026-06-04T10:00:00Z");
const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
const outcomes: TickOutcome[] = [];
const contexts: string[] = [];
const statuses: string[] = [];

const ticks = [
  {
    tick_at: at(0),
    equity_usd: 10000,
    positions: [{ symbol: "BTC", side: "long" as const, size: 0.05, mark_price: 67250.5 }],
    proposed_action: { kind: "propose_order" as const, symbol: "BTC", reason: "breakout (typescript)" },
    engine: { kind: "executed" as const },
  },
  {
    tick_at: at(5),
    equity_usd: 10052.3,
    positions: [],
    marks: { BTC: 68296.5 },
    proposed_action: { kind: "close_position" as const, symbol: "BTC", reason: "take profit (typescript)" },
    engine: { kind: "executed" as const },
  },
];
for (const tick of ticks) {
  outcomes.push(await runner.postTick(tick));
  const context = await runner.getContext();
  contexts.push(context.text);
  statuses.push(isPaused(context) ? "paused" : context.deployment_status);
}
outcomes.push(await runner.postTick(ticks[1]!)); // the same tick again: a duplicate
outcomes.push(await runner.postTick({ ...ticks[0]!, tick_at: at(-5) })); // before the latest: older
const trades = await runner.listTrades({ status: "closed" });

console.log(
  JSON.stringify({
    outcomes: outcomes.map((o) => o.status),
    snapshotIds: outcomes.map((o) => o.snapshotId),
    lastContext: contexts.at(-1),
    statuses,
    closedTrades: trades.map((t) => ({ symbol: t.symbol, side: t.side, exit_reason: t.exit_reason })),
    retries: runner.retries,
  }),
);

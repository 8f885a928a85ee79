/**
 * The tick loop on top of the generated types: what every runner needs and the typed calls leave to you.
 *
 * - Every POST carries an `Idempotency-Key`, one per logical call and the same on each retry, so a retry
 *   after a lost answer is replayed by the service instead of running twice.
 * - 5xx answers, 429s and network errors are retried with exponential backoff (capped, with jitter); a
 *   429's `Retry-After` is honoured as given.
 * - `postTick` tells apart the tick answers a runner must handle: 201 stored, 200 already stored
 *   (`duplicate`), 409 older than the deployment's latest tick (`older`): none of them is an error.
 * - Any other 4xx throws `ApiError` with the service's `detail` and per-field `errors`.
 *
 * Paused deployments: while the trader has paused the deployment, the context's `deployment_status` is
 * `"stopped"` (`isPaused(context)`) and its system prompt tells the agent not to open new positions or add to
 * open ones. Keep posting ticks while paused (fills, stops and exits at the venue must still reach the ledger);
 * just do not open.
 */
import createClient from "openapi-fetch";

import type { components, paths } from "./schema.js";

type Schemas = components["schemas"];
export type TickInput = Schemas["TickInputRequest"];
export type ErrorBody = Schemas["ErrorBody"];

const RETRYABLE = new Set([429, 500, 502, 503, 504]);
/** The context's `deployment_status` while the trader has paused the deployment. */
export const PAUSED = "stopped";

/** The trader has paused the deployment: keep posting ticks (the ledger follows the venue), open nothing. */
export function isPaused(context: Schemas["ContextOutput"]): boolean {
  return context.deployment_status === PAUSED;
}
const IDEMPOTENCY_IN_PROGRESS = "Idempotency-Key: a request with this key is still in progress";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: Record<string, string[]> = {},
  ) {
    super(`${status}: ${detail}`);
    this.name = "ApiError";
  }
}

/** `stored`: a new tick (201); `duplicate`: that tick_at was stored before (200); `older`: refused (409). */
export interface TickOutcome {
  status: "stored" | "duplicate" | "older";
  snapshotId: string | null;
  detail: string;
}

export interface RunnerOptions {
  baseUrl: string;
  /** A runner token (`rt_…`) of this deployment, or an account token. */
  token: string;
  deploymentId: number;
  maxAttempts?: number;
  /** The first retry's wait in seconds; doubled each time, up to maxBackoffS. */
  backoffS?: number;
  maxBackoffS?: number;
  sleep?: (seconds: number) => Promise<void>;
  fetch?: typeof fetch;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class Runner {
  readonly client;
  /** What was retried: the status (or the network error's name) and the wait in seconds. */
  readonly retries: Array<[number | string, number]> = [];
  private readonly deploymentId: number;
  private readonly maxAttempts: number;
  private readonly backoffS: number;
  private readonly maxBackoffS: number;
  private readonly sleep: (seconds: number) => Promise<void>;

  constructor(options: RunnerOptions) {
    this.client = createClient<paths>({
      baseUrl: options.baseUrl,
      headers: { Authorization: `Token ${options.token}` },
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.deploymentId = options.deploymentId;
    this.maxAttempts = options.maxAttempts ?? 5;
    this.backoffS = options.backoffS ?? 0.5;
    this.maxBackoffS = options.maxBackoffS ?? 30;
    this.sleep = options.sleep ?? ((seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  }

  private get path() {
    return { deployment_id: this.deploymentId };
  }

  /** Post one tick (the schema's `post_tick`). */
  async postTick(tick: TickInput): Promise<TickOutcome> {
    const key = newIdempotencyKey();
    const answer = await this.call(
      () =>
        this.client.POST("/api/v1/deployments/{deployment_id}/ticks/", {
          params: { path: this.path, header: { "Idempotency-Key": key } },
          body: tick,
        }),
      [200, 201, 409],
    );
    if (answer.response.status === 409) {
      const body = answer.error as ErrorBody;
      if (!body.errors?.tick_at) throw new ApiError(409, body.detail, body.errors ?? {});
      return { status: "older", snapshotId: null, detail: body.detail };
    }
    const accepted = answer.data as Schemas["TickAccepted"];
    return { status: accepted.duplicate ? "duplicate" : "stored", snapshotId: accepted.snapshot_id, detail: "" };
  }

  /** Add a fill's fees to the open trade in `symbol`. */
  async postFill(fill: Schemas["FillInputRequest"]): Promise<Schemas["TradeOutput"]> {
    const key = newIdempotencyKey();
    const answer = await this.call(() =>
      this.client.POST("/api/v1/deployments/{deployment_id}/fills/", {
        params: { path: this.path, header: { "Idempotency-Key": key } },
        body: fill,
      }),
    );
    return answer.data as Schemas["TradeOutput"];
  }

  /** The memory block (`text`), the system prompt and the deployment's status (see `isPaused`). */
  async getContext(): Promise<Schemas["ContextOutput"]> {
    const answer = await this.call(() =>
      this.client.GET("/api/v1/deployments/{deployment_id}/context/", { params: { path: this.path } }),
    );
    return answer.data as Schemas["ContextOutput"];
  }

  /** The deployment's trades, newest entry first. */
  async listTrades(query: { status?: "open" | "closed"; limit?: number } = {}): Promise<Schemas["TradeOutput"][]> {
    const answer = await this.call(() =>
      this.client.GET("/api/v1/deployments/{deployment_id}/trades/", { params: { path: this.path, query } }),
    );
    return answer.data as Schemas["TradeOutput"][];
  }

  private async call<T>(send: () => Promise<Answer<T>>, ok: number[] = [200, 201]): Promise<Answer<T>> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.maxAttempts;
      let answer: Answer<T>;
      try {
        answer = await send();
      } catch (error) {
        if (last) throw error;
        await this.wait(error instanceof Error ? error.name : "network error", this.backoff(attempt));
        continue;
      }
      const status = answer.response.status;
      if (ok.includes(status)) return answer;
      const body = answer.error as Partial<ErrorBody> | undefined;
      const detail = typeof body?.detail === "string" ? body.detail : answer.response.statusText;
      const retryable = RETRYABLE.has(status) || (status === 409 && detail.startsWith(IDEMPOTENCY_IN_PROGRESS));
      if (!retryable || last) throw new ApiError(status, detail, body?.errors ?? {});
      const retryAfter = parseRetryAfter(answer.response.headers.get("Retry-After"));
      await this.wait(status, retryAfter ?? this.backoff(attempt));
    }
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.maxBackoffS, this.backoffS * 2 ** (attempt - 1));
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  private async wait(why: number | string, seconds: number): Promise<void> {
    this.retries.push([why, seconds]);
    await this.sleep(seconds);
  }
}

export function newIdempotencyKey(): string {
  return `runner-${crypto.randomUUID()}`;
}

/** Seconds from a Retry-After header: a number of seconds or an HTTP date (null: absent or unreadable). */
export function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const when = Date.parse(value);
  return Number.isNaN(when) ? null : Math.max(0, (when - Date.now()) / 1000);
}

/**
 * The TypeScript client of the trading-agent memory service.
 *
 * `schema.d.ts` is generated from the service's OpenAPI schema by openapi-typescript (`make clients`; never
 * edit it by hand); `createMemoryClient` makes typed calls through openapi-fetch; `Runner` is the tick loop.
 */
import createClient from "openapi-fetch";

import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type Schemas = components["schemas"];
export { ApiError, isPaused, PAUSED, Runner, type RunnerOptions, type TickOutcome } from "./runner.js";

/** A typed client: `client.POST("/api/v1/deployments/{deployment_id}/ticks/", { params, body })`. */
export function createMemoryClient(baseUrl: string, token: string, fetchImpl?: typeof fetch) {
  return createClient<paths>({
    baseUrl,
    headers: { Authorization: `Token ${token}` },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}

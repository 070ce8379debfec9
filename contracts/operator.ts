import { z } from 'zod';

/**
 * What the operator view shows besides the running turns (`GET /api/turns`): the cluster's recent history as
 * the workers and gateways measured it, and the turns that failed lately. Every figure comes from a
 * process that counted it (the metrics of docs/observability.md); gateways only gather the
 * processes' periodic telemetry snapshots and keep a short history of them in memory, so the history
 * starts when the answering gateway started and is at most `window_s` long.
 */

const epochMs = z.number().int().describe('Milliseconds since epoch.');
const count = z.number().nonnegative();

/** Latency percentiles over one interval, in ms; null when nothing was measured in it. */
const percentilesSchema = z.object({ p50: z.number().nonnegative(), p90: z.number().nonnegative(), p99: z.number().nonnegative() }).nullable();

/** One interval of the history (its end is `at`). */
const operatorPointSchema = z.object({
  at: epochMs,
  /** Turns that finished in the interval, scaled to a minute. */
  turns_per_minute: count,
  /** Turns that finished in the interval, by outcome (done, error, aborted). */
  turns_finished: z.record(z.string(), count),
  turns_started: count,
  /** From a turn's start to its first stored output, from the workers' histogram over the interval (bucket-interpolated). */
  first_delta_ms: percentilesSchema,
  /** Model steps the providers failed in the interval, by class (rate_limited, overloaded, transient, auth, context_overflow, permanent). */
  provider_errors: z.record(z.string(), count),
  /** Step retries the turns scheduled in the interval, by kind. */
  retries: z.record(z.string(), count),
  /** Open client connections at the end of the interval, summed over the gateways, by protocol (sse, chat_stream, websocket, edn). */
  connections: z.record(z.string(), count),
});
export type OperatorPoint = z.infer<typeof operatorPointSchema>;

/** A turn that ended with an error, as the worker that ran it reported it. */
const operatorFailureSchema = z.object({
  at: epochMs,
  session_id: z.string(),
  turn_id: z.string().nullable(),
  /** The job id (`session:<id>:turn:<n>`) when the turn is known. */
  job_id: z.string().nullable(),
  /** The error code clients saw (LLM_API_ERROR, UNAVAILABLE, …). */
  code: z.string(),
  /** The classified reason: a provider failure class, or `infrastructure`. */
  kind: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.number().int().nullable(),
  message: z.string(),
});
export type OperatorFailure = z.infer<typeof operatorFailureSchema>;

/** A process that sent telemetry lately. */
const operatorInstanceSchema = z.object({
  service: z.enum(['gateway', 'worker']),
  instance: z.string(),
  last_seen: epochMs,
});

/**
 * `GET /api/operator?since=<ms>`: only the points after `since` (the `at` of the last point the caller
 * has), so a page polling every few seconds fetches one or two points instead of the whole hour.
 */
export const operatorOverviewQuerySchema = z.object({
  since: z.coerce.number().int().nonnegative().optional().describe("Only the history's points with `at` after this (ms since epoch); failures and instances are always whole."),
});

/** `GET /api/operator`: the operator view's history, failures and instances. */
export const operatorOverviewSchema = z.object({
  generated_at: epochMs,
  interval_s: z.number().positive(),
  window_s: z.number().positive(),
  /** Oldest first; at most window_s / interval_s points. */
  series: z.array(operatorPointSchema),
  /** Newest first, at most 50; with tokens configured, only the caller's sessions. */
  failures: z.array(operatorFailureSchema),
  instances: z.array(operatorInstanceSchema),
  /** The Temporal Web UI's base address (STRAND_TEMPORAL_UI_URL), or null when none is configured. */
  temporal_ui: z.string().nullable(),
});
export type OperatorOverview = z.infer<typeof operatorOverviewSchema>;

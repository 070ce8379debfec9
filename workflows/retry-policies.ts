import type { RetryPolicy } from '@temporalio/common';
import { NON_RETRYABLE_STORE_FAILURES } from '../contracts/failures';

/**
 * Store writes and event publishing are idempotent (deterministic entry ids and message ids), so a
 * store or NATS hiccup is retried; a failure that retrying cannot fix (unknown session, malformed
 * request) is not.
 */
export const storeRetry: RetryPolicy = {
  initialInterval: '200 ms',
  backoffCoefficient: 2,
  maximumInterval: '5 seconds',
  maximumAttempts: 10,
  nonRetryableErrorTypes: [...NON_RETRYABLE_STORE_FAILURES],
};

/** Provider steps fail fast: the turn workflow classifies the failure and decides (retry-decision.ts). */
export const noRetry: RetryPolicy = { maximumAttempts: 1 };

/**
 * Heartbeat timeout of model steps and tools: the backstop for a dead or hung worker when no other
 * worker's crash watch takes its activities over (services/worker/crash-watch/ does within a second or
 * two, whatever this says). Heartbeats leave every 0.5 s, but on a saturated machine one can reach
 * Temporal seconds late: with every await of a tool heartbeated, a live worker's tool still went 4.7 s
 * without a recorded heartbeat at load 35 (bench/README.md, the jobs bench), against 5 s before. A
 * timeout on a live worker retries a shell call as "interrupted", so this is three times that gap.
 */
export const WORKER_ACTIVITY_HEARTBEAT_TIMEOUT = '15 seconds';

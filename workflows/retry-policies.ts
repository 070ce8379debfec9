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
 * Heartbeat timeout of model steps and tools: the backstop for a dead worker when no other worker's crash
 * watch takes its activities over (services/worker/crash-watch/). Heartbeats reach Temporal every 0.5 s,
 * so this is ten of them: a busy event loop never fails a healthy step or tool.
 */
export const WORKER_ACTIVITY_HEARTBEAT_TIMEOUT = '5 seconds';

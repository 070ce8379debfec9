import type { ProviderFailureKind } from '../../contracts/failures';
import type { StepFailureKind } from './step-failure';

/**
 * What the turn does after a model step failed. Pure, so every rule is unit-tested:
 * - rate_limited, overloaded, transient (incl. a stalled or crashed stream): retry with capped
 *   exponential backoff and jitter-free delays (workflows must be deterministic), honouring the
 *   provider's retry-after; a requested wait beyond `maxRetryAfterMs` fails the turn with a clear
 *   message instead of hanging; attempts are capped; auto-retry off ends the turn with the error;
 * - context_overflow: compact, then retry once (the caller tracks the once);
 * - auth, permanent: end the turn;
 * - infrastructure (NATS, the store or a worker gone): retried at once, then with a short backoff, on a
 *   budget of its own that auto-retry does not switch off (it is about the model, and nothing here is);
 * - a wait the provider key's shared backoff imposed (`sharedBackoff`: nothing was sent, another
 *   session was refused): exactly the window's remaining time, on a budget of its own
 *   ({@link SHARED_BACKOFF_MAX_WAITS}), so a turn that only waited its turn under a sustained limit
 *   keeps all its attempts for real failures.
 */
export interface RetryOptions {
  autoRetry: boolean;
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Longest provider-requested wait we honour. */
  maxRetryAfterMs: number;
}

/** Infrastructure retries: the first at once (a worker died: another takes the step now), then backing off. */
const INFRA_RETRY = { maxRetries: 60, baseDelayMs: 500, maxDelayMs: 10_000 } as const;

/** Shared-backoff waits a turn takes per step before giving up (at up to 60 s each: about an hour). */
export const SHARED_BACKOFF_MAX_WAITS = 60;

export const DEFAULT_RETRY_OPTIONS: Omit<RetryOptions, 'autoRetry'> = {
  maxRetries: 5,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

export type RetryDecision =
  | { action: 'retry'; delayMs: number }
  | { action: 'compact' }
  | { action: 'fail'; reason: string };

const RETRYABLE: ReadonlySet<ProviderFailureKind> = new Set(['rate_limited', 'overloaded', 'transient']);

/**
 * @param failedAttempt the 1-based attempt that just failed
 */
export function decideRetry(
  failure: { kind: StepFailureKind; retryAfterMs?: number; sharedBackoff?: boolean },
  failedAttempt: number,
  opts: RetryOptions,
): RetryDecision {
  if (failure.kind === 'infrastructure') {
    if (failedAttempt > INFRA_RETRY.maxRetries) return { action: 'fail', reason: `strand's infrastructure stayed unavailable over ${failedAttempt} attempts` };
    if (failedAttempt <= 1) return { action: 'retry', delayMs: 0 };
    return { action: 'retry', delayMs: Math.min(INFRA_RETRY.maxDelayMs, INFRA_RETRY.baseDelayMs * 2 ** (failedAttempt - 2)) };
  }
  if (failure.kind === 'context_overflow') return { action: 'compact' };
  if (!RETRYABLE.has(failure.kind)) return { action: 'fail', reason: `${failure.kind} errors are not retried` };
  if (!opts.autoRetry) return { action: 'fail', reason: 'auto-retry is off for this session' };
  if (failure.sharedBackoff) return sharedBackoffWait(failure.retryAfterMs ?? opts.baseDelayMs, failedAttempt, opts);
  if (failedAttempt > opts.maxRetries) return { action: 'fail', reason: `gave up after ${failedAttempt} attempts` };
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > opts.maxRetryAfterMs) return waitTooLong(failure.retryAfterMs, opts);
  const backoff = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (failedAttempt - 1));
  const delayMs = failure.retryAfterMs !== undefined ? Math.max(failure.retryAfterMs, Math.min(backoff, opts.baseDelayMs)) : backoff;
  return { action: 'retry', delayMs };
}

/** @param wait the number of this wait (1-based), counted apart from the step's attempts */
function sharedBackoffWait(waitMs: number, wait: number, opts: RetryOptions): RetryDecision {
  if (wait > SHARED_BACKOFF_MAX_WAITS) return { action: 'fail', reason: `the provider key stayed rate limited over ${wait - 1} shared waits` };
  if (waitMs > opts.maxRetryAfterMs) return waitTooLong(waitMs, opts);
  return { action: 'retry', delayMs: Math.max(0, Math.round(waitMs)) };
}

function waitTooLong(waitMs: number, opts: RetryOptions): RetryDecision {
  return {
    action: 'fail',
    reason: `the provider asked to wait ${Math.ceil(waitMs / 1000)} s, more than the ${Math.round(opts.maxRetryAfterMs / 1000)} s this session waits`,
  };
}

/** The budget a failure is counted against, as `retry.scheduled` announces it (max_attempts). */
export function maxAttemptsOf(failure: { kind: StepFailureKind; sharedBackoff?: boolean }): number {
  if (failure.kind === 'infrastructure') return INFRA_RETRY.maxRetries + 1;
  if (failure.sharedBackoff) return SHARED_BACKOFF_MAX_WAITS;
  return DEFAULT_RETRY_OPTIONS.maxRetries + 1;
}

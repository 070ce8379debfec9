import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { StoreError, StoreErrorCode } from '../../contracts/session-store/errors';
import { OutboxUnavailableError } from '../events/jetstream-outbox';
import { isNatsUnavailable } from '../events/nats-faults';

/**
 * An unreachable piece of strand's own infrastructure: the store not answering (`session/storage`),
 * NATS gone (connection lost, no JetStream responder) or the event outbox giving up. These are waited
 * out inside an activity where that keeps work already paid for (a streamed answer), and otherwise
 * leave as `infra.unavailable`, which the turn retries and never blames on the model.
 */
export function isInfraFault(err: unknown): boolean {
  if (err instanceof OutboxUnavailableError) return true;
  if (err instanceof StoreError) return err.code === StoreErrorCode.STORAGE;
  if (err instanceof ApplicationFailure) return err.type === FailureType.STORE_UNAVAILABLE || err.type === FailureType.INFRA_UNAVAILABLE;
  return isNatsUnavailable(err);
}

/** The failure an activity leaves with for an infrastructure fault (retryable; the turn decides). */
export function infraFailure(err: unknown): ApplicationFailure {
  if (err instanceof ApplicationFailure && err.type === FailureType.INFRA_UNAVAILABLE) return err;
  const message = err instanceof Error ? err.message : String(err);
  return ApplicationFailure.create({ message, type: FailureType.INFRA_UNAVAILABLE, nonRetryable: false, cause: err instanceof Error ? err : undefined });
}

const DELAYS_MS = [200, 500, 1_000, 2_000];

/**
 * Runs `call`, and while it fails with an infrastructure fault runs it again (backing off to 2 s) for
 * up to `maxMs` — for calls whose retry must not throw away what the activity already produced (the
 * answer a model step streamed, the outcome a tool reached). Calls must be idempotent (strand's store
 * writes and event publishes are: deterministic ids). `onWait` hears each wait (for logs).
 */
export async function rideOut<T>(
  call: () => Promise<T>,
  opts: { maxMs?: number; signal?: AbortSignal; onWait?: (err: unknown, attempt: number) => void; now?: () => number } = {},
): Promise<T> {
  const now = opts.now ?? Date.now;
  const deadline = now() + (opts.maxMs ?? 5 * 60_000);
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!isInfraFault(err) || now() >= deadline || opts.signal?.aborted) throw err;
      opts.onWait?.(err, attempt);
      await new Promise((r) => setTimeout(r, DELAYS_MS[Math.min(attempt - 1, DELAYS_MS.length - 1)]));
    }
  }
}

import type { SharedBackoff } from './shared-backoff-kv';
import { backoffKey, type BackoffIdentity } from './shared-backoff';
import { ProviderError, type ModelProvider, type ProviderChunk, type ProviderRequest } from './types';

/**
 * Puts a real adapter behind its key's shared backoff (shared-backoff.ts):
 * - before the request: while the key's window is open nothing is sent; the step fails as a 429 with
 *   retry-after would (`rate_limited`/`overloaded`, `retryAfterMs` = the window's remaining time),
 *   marked `sharedBackoff` so the turn waits it out durably without spending its retry attempts;
 * - after a refusal (429, 529, 503 overloaded): the key's window is opened or extended, and the
 *   refused step waits the shared window too (never less than the provider asked).
 * The adapter itself is unchanged; the limiter is a wrapper so the scripted provider and unit tests of
 * the adapters stay free of it.
 */
export function withSharedBackoff(inner: ModelProvider, backoff: SharedBackoff, identity: BackoffIdentity, now: () => number = Date.now): ModelProvider {
  const key = backoffKey(identity);
  const id = inner.id;
  return {
    id,
    ...(inner.canContinue ? { canContinue: (entry) => inner.canContinue!(entry) } : {}),
    async *stream(request: ProviderRequest): AsyncIterable<ProviderChunk> {
      const wait = await backoff.admit(key, request.signal);
      if (wait) {
        const waitMs = Math.max(0, wait.until - now());
        const what = wait.entry.status !== undefined ? `HTTP ${wait.entry.status}` : wait.entry.kind.replace('_', ' ');
        throw new ProviderError(
          wait.entry.kind,
          `${id}: shared backoff: a request with this key got ${what}; every session on the key waits ${Math.ceil(waitMs / 1000)} s before sending again`,
          { provider: id, retryAfterMs: waitMs, sharedBackoff: true },
        );
      }
      const sentAt = now();
      try {
        yield* inner.stream(request);
      } catch (err) {
        if (!(err instanceof ProviderError) || request.signal.aborted) throw err;
        if (err.kind !== 'rate_limited' && err.kind !== 'overloaded') throw err;
        const until = await backoff.recordHit(key, {
          kind: err.kind,
          ...(err.status !== undefined ? { status: err.status } : {}),
          ...(err.retryAfterMs !== undefined ? { retryAfterMs: err.retryAfterMs } : {}),
          sentAt,
        });
        const sharedMs = until === undefined ? undefined : until - now();
        if (sharedMs === undefined || sharedMs <= (err.retryAfterMs ?? 0)) throw err;
        // Worded apart from a wait ("shared backoff: …"): this request was sent and refused.
        throw new ProviderError(err.kind, `${err.message} (every session on this key now waits ${Math.ceil(sharedMs / 1000)} s)`, {
          ...(err.provider ? { provider: err.provider } : {}),
          ...(err.status !== undefined ? { status: err.status } : {}),
          retryAfterMs: sharedMs,
          cause: err.cause ?? err,
        });
      }
    },
  };
}

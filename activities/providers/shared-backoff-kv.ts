import type { KV, NatsConnection } from 'nats';
import { natsReplicas } from '../../contracts/nats-replicas';
import {
  DEFAULT_BACKOFF_POLICY,
  admission,
  backoffEntrySchema,
  entryAfterHit,
  type BackoffEntry,
  type BackoffHit,
  type BackoffPolicy,
} from './shared-backoff';

/**
 * The shared backoff on a JetStream key-value bucket: one entry per provider key (shared-backoff.ts),
 * written with compare-and-set on the entry's revision, so concurrent writers on any worker converge on
 * the latest end and never shorten a window. It is politeness, not correctness: NATS unreachable, slow
 * or contended, the limiter steps aside (logged once per outage) and requests go as they would without it.
 */
export const PROVIDER_BACKOFF_BUCKET = 'strand_provider_backoff';
/** Entries end by themselves: far beyond any window and its recovery, and a stale one is ignored anyway. */
const BUCKET_TTL_MS = 60 * 60 * 1000;

/** A request must wait (durably) until `until`: the key's window is open. */
interface SharedWait {
  until: number;
  entry: BackoffEntry;
}

export interface SharedBackoff {
  /**
   * Before a request on `key`: resolves undefined when it may go (after waiting for its slot while the
   * key recovers, up to a few seconds), or the window it must wait out. Rejects only with an abort.
   */
  admit(key: string, signal: AbortSignal): Promise<SharedWait | undefined>;
  /** After the provider refused a request on `key`: opens or extends the window; its end, when known. */
  recordHit(key: string, hit: BackoffHit): Promise<number | undefined>;
}

export interface KvSharedBackoffOptions {
  log?: (level: 'warn' | 'info', message: string) => void;
  now?: () => number;
  policy?: BackoffPolicy;
  /** The longest a KV operation may take before the limiter steps aside. */
  timeoutMs?: number;
  /** After a failed KV operation the limiter is skipped this long (no timeout paid on every step). */
  cooldownMs?: number;
  /** Longest wait for a recovery slot inside the step; a later slot is waited out durably. */
  maxSlotWaitMs?: number;
}

/** Compare-and-set attempts before giving up on a contended entry (and letting the request go). */
const MAX_CAS_ROUNDS = 8;
/** A window this close to its end is waited out inside the step. */
const SHORT_WAIT_MS = 1_000;

export function createKvSharedBackoff(nc: NatsConnection, options: KvSharedBackoffOptions = {}): SharedBackoff {
  const now = options.now ?? Date.now;
  const policy = options.policy ?? DEFAULT_BACKOFF_POLICY;
  const timeoutMs = options.timeoutMs ?? 1_000;
  const cooldownMs = options.cooldownMs ?? 10_000;
  const maxSlotWaitMs = options.maxSlotWaitMs ?? 20_000;
  const log = options.log ?? (() => undefined);
  let bucket: Promise<KV> | undefined;
  let skipUntil = 0;
  let down = false;

  const timed = <T>(what: string, p: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${timeoutMs} ms`)), timeoutMs);
    });
    return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
  };
  const kv = (): Promise<KV> => {
    bucket ??= timed('opening the backoff bucket', nc.jetstream({ timeout: timeoutMs }).views.kv(PROVIDER_BACKOFF_BUCKET, { history: 1, ttl: BUCKET_TTL_MS, replicas: natsReplicas() }));
    return bucket;
  };

  /** Runs `fn`, or steps aside: any failure but an abort means "no limiter" for a while. */
  async function guarded<T>(fn: () => Promise<T>, fallback: T, signal?: AbortSignal): Promise<T> {
    if (now() < skipUntil) return fallback;
    try {
      const out = await fn();
      if (down) log('info', 'the shared provider backoff is back (NATS answers again)');
      down = false;
      return out;
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      if (!down) log('warn', `the shared provider backoff is skipped while NATS does not answer: ${(err as Error).message}`);
      down = true;
      bucket = undefined;
      skipUntil = now() + cooldownMs;
      return fallback;
    }
  }

  async function read(key: string): Promise<{ entry: BackoffEntry | undefined; revision: number }> {
    const got = await timed('reading the backoff', (await kv()).get(key));
    if (!got) return { entry: undefined, revision: 0 };
    if (got.operation !== 'PUT' || got.length === 0) return { entry: undefined, revision: got.revision };
    // An entry another version wrote in a shape we do not know: treated as absent, overwritten on the next hit.
    const parsed = backoffEntrySchema.safeParse(safeJson(got.string()));
    return { entry: parsed.success ? parsed.data : undefined, revision: got.revision };
  }

  /** Compare-and-set: false when another writer got there first (read again and decide again). */
  async function write(key: string, entry: BackoffEntry, revision: number): Promise<boolean> {
    const store = await kv();
    try {
      const value = JSON.stringify(entry);
      await timed('writing the backoff', revision === 0 ? store.create(key, value) : store.update(key, value, revision));
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  return {
    admit(key, signal) {
      return guarded(async () => {
        for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
          const { entry, revision } = await read(key);
          const decision = admission(entry, now(), policy);
          if (decision.action === 'go') return undefined;
          if (decision.action === 'wait') {
            // Nearly over (or this worker's clock runs a little behind the timer that woke the turn):
            // waited here, not with another round trip through the workflow.
            if (decision.until - now() <= SHORT_WAIT_MS) {
              await sleep(decision.until - now(), signal);
              continue;
            }
            return { until: decision.until, entry: decision.entry };
          }
          if (decision.slot - now() > maxSlotWaitMs) return { until: decision.slot, entry: decision.entry };
          if (!(await write(key, decision.next, revision))) continue;
          await sleep(decision.slot - now(), signal);
          // The request before ours may have been refused meanwhile: then the window is open again.
          const after = (await read(key)).entry;
          if (after && now() < after.until) return { until: after.until, entry: after };
          return undefined;
        }
        return undefined; // contended beyond reason: politeness gives way
      }, undefined, signal);
    },
    recordHit(key, hit) {
      return guarded(async () => {
        for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
          const { entry, revision } = await read(key);
          const next = entryAfterHit(entry, hit, key, now(), policy);
          if (!next) return entry?.until;
          if (await write(key, next, revision)) return next.until;
        }
        return undefined;
      }, undefined);
    },
  };
}

/** JetStream's "wrong last sequence" (10071): the entry changed since it was read, or already exists. */
function isConflict(err: unknown): boolean {
  const e = err as { api_error?: { err_code?: number }; message?: string };
  return e?.api_error?.err_code === 10071 || /wrong last sequence|key exists/i.test(e?.message ?? '');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** STRAND_PROVIDER_BACKOFF: `off` disables the shared backoff (each session then backs off alone). */
export function sharedBackoffEnabled(env: Record<string, string | undefined>): boolean {
  const value = env.STRAND_PROVIDER_BACKOFF?.trim().toLowerCase();
  if (!value || value === 'on') return true;
  if (value === 'off') return false;
  throw new Error(`STRAND_PROVIDER_BACKOFF must be on or off (got "${env.STRAND_PROVIDER_BACKOFF}")`);
}

import { createHash } from 'node:crypto';
import { z } from 'zod';

/**
 * One backoff per provider key: the rules, pure (the NATS KV store is shared-backoff-kv.ts, the hook
 * around the adapters with-shared-backoff.ts). Every worker computes the same answer from the same
 * entry, so the sessions that use one key agree on one window without talking to each other.
 *
 * An entry lives through three phases:
 * 1. the window (`now < until`): nobody sends; a step waits durably (a Temporal timer) until `until`;
 * 2. recovery (`until ≤ now < recoveryEnd`): requests are let through one at a time, `paceMs` apart, on
 *    slots handed out in order (`admit_at`). Without it every waiting session would wake at `until`
 *    together and all but the provider's remaining allowance would be refused again — the herd the
 *    shared window exists to avoid. A refused request reopens the window before the next slot comes;
 * 3. stale (`now ≥ recoveryEnd`): as if absent; the next hit starts a new episode (hits = 1).
 */

export const backoffEntrySchema = z.object({
  /** The window's end (epoch ms): no request on the key before it. */
  until: z.number(),
  /** When the current window was opened: a refusal of a request sent before it belongs to the same burst. */
  opened_at: z.number(),
  /** Consecutive hits of this episode: requests refused although they were sent after a window. */
  hits: z.number().int().positive(),
  kind: z.enum(['rate_limited', 'overloaded']),
  /** The HTTP status of the refusal (429, 529, 503). */
  status: z.number().int().optional(),
  /** While recovering: the next free slot (epoch ms). */
  admit_at: z.number().optional(),
});
export type BackoffEntry = z.infer<typeof backoffEntrySchema>;

export interface BackoffPolicy {
  /** The first window when the provider names no wait; doubles with each consecutive hit. */
  baseMs: number;
  /** The longest window we choose ourselves (a provider's retry-after may ask for more). */
  capMs: number;
  /** The gap between requests while recovering. */
  paceMs: number;
  /** Recovery lasts as long as the window did, within these bounds. */
  minRecoveryMs: number;
  maxRecoveryMs: number;
}

export const DEFAULT_BACKOFF_POLICY: BackoffPolicy = {
  baseMs: 2_000,
  // The turn waits at most 60 s for a provider (retry-decision.ts): our own windows stay within it.
  capMs: 60_000,
  paceMs: 500,
  minRecoveryMs: 2_000,
  maxRecoveryMs: 15_000,
};

/** Who the limit belongs to: the provider, where it is reached, and with which key. */
export interface BackoffIdentity {
  provider: string;
  baseURL?: string;
  apiKey: string;
}

/** The first 16 hex digits of the key's SHA-256: names the key in the shared bucket without revealing it. */
export function keyFingerprint(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/**
 * The entry's KV key, `<provider>.<base URL, base64url>.<key fingerprint>`: KV keys allow only
 * `[-/_=.a-zA-Z0-9]`, and base64url keeps the URL distinct and readable back when debugging.
 */
export function backoffKey(id: BackoffIdentity): string {
  const provider = id.provider.replace(/[^-_a-zA-Z0-9]/g, '_') || '_';
  const base = id.baseURL?.trim().replace(/\/+$/, '');
  const url = base ? Buffer.from(base).toString('base64url') : 'default';
  return `${provider}.${url}.${keyFingerprint(id.apiKey)}`;
}

export function recoveryEnd(entry: BackoffEntry, policy: BackoffPolicy = DEFAULT_BACKOFF_POLICY): number {
  const length = Math.min(policy.maxRecoveryMs, Math.max(policy.minRecoveryMs, entry.until - entry.opened_at));
  return entry.until + length;
}

/**
 * The window we choose when the provider names none: exponential in the episode's hits, capped, and
 * jittered by the key (not by the session): every writer computes the same end, and keys that hit
 * their limits together do not come back together.
 */
export function backoffMs(hits: number, key: string, policy: BackoffPolicy = DEFAULT_BACKOFF_POLICY): number {
  const raw = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(hits - 1, 30));
  const unit = createHash('sha256').update(`${key}\u0000${hits}`).digest().readUInt32BE(0) / 2 ** 32;
  return Math.round(raw * (0.8 + 0.2 * unit));
}

/** A refusal the provider sent (429 rate_limited, 529/503 overloaded). */
export interface BackoffHit {
  kind: BackoffEntry['kind'];
  status?: number;
  /** The provider's retry-after, when it sent one. */
  retryAfterMs?: number;
  /** When the refused request was sent. */
  sentAt: number;
}

/**
 * The entry after a hit, or undefined when the entry already says it all (its window reaches as far
 * and the hit belongs to its burst): writers then skip the write. The end only ever moves later.
 */
export function entryAfterHit(prev: BackoffEntry | undefined, hit: BackoffHit, key: string, now: number, policy: BackoffPolicy = DEFAULT_BACKOFF_POLICY): BackoffEntry | undefined {
  const live = prev !== undefined && now < recoveryEnd(prev, policy) ? prev : undefined;
  // Sent before the current window opened: one of the burst that opened it, not a new hit.
  const sameBurst = live !== undefined && hit.sentAt < live.opened_at;
  const hits = live ? (sameBurst ? live.hits : live.hits + 1) : 1;
  const proposed = now + (hit.retryAfterMs ?? backoffMs(hits, key, policy));
  if (live && sameBurst && live.until >= proposed) return undefined;
  const until = Math.max(live?.until ?? 0, proposed);
  return {
    until,
    opened_at: live && sameBurst ? live.opened_at : now,
    hits,
    kind: hit.kind,
    ...(hit.status !== undefined ? { status: hit.status } : {}),
    // Slots handed out before this window are void: recovery starts over at its end.
  };
}

/** What a request on the key does now. */
export type Admission =
  /** Send. */
  | { action: 'go' }
  /** The window is open: wait (durably) until it ends. */
  | { action: 'wait'; until: number; entry: BackoffEntry }
  /** Recovering: take `slot` (write `next`, which moves the free slot on), then send at `slot`. */
  | { action: 'reserve'; slot: number; next: BackoffEntry; entry: BackoffEntry };

export function admission(entry: BackoffEntry | undefined, now: number, policy: BackoffPolicy = DEFAULT_BACKOFF_POLICY): Admission {
  if (!entry || now >= recoveryEnd(entry, policy)) return { action: 'go' };
  if (now < entry.until) return { action: 'wait', until: entry.until, entry };
  const slot = Math.max(now, entry.admit_at ?? entry.until);
  return { action: 'reserve', slot, next: { ...entry, admit_at: slot + policy.paceMs }, entry };
}

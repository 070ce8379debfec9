import type { MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { principalOf } from './auth-middleware';
import { errorResponse } from './errors';

/**
 * A token bucket per principal (per client address with auth off): `perSecond` requests refill per
 * second up to `burst`. A caller over the limit gets 429 RATE_LIMITED with the seconds to wait in
 * Retry-After; other callers are not affected. Idle buckets are dropped so memory stays bounded.
 */
export function rateLimit(opts: { perSecond: number; burst: number; now?: () => number }): MiddlewareHandler {
  const now = opts.now ?? Date.now;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let sweepAt = now();
  return async (c, next) => {
    const t = now();
    if (t - sweepAt > 60_000) {
      for (const [k, b] of buckets) if (t - b.at > 60_000) buckets.delete(k);
      sweepAt = t;
    }
    const key = principalOf(c) ?? `addr:${addressOf(c)}`;
    const b = buckets.get(key) ?? { tokens: opts.burst, at: t };
    b.tokens = Math.min(opts.burst, b.tokens + ((t - b.at) / 1000) * opts.perSecond);
    b.at = t;
    buckets.set(key, b);
    if (b.tokens < 1) {
      const wait = Math.ceil((1 - b.tokens) / opts.perSecond);
      c.header('Retry-After', String(Math.max(1, wait)));
      return errorResponse(c, new StrandError(ErrorCode.RATE_LIMITED, `too many requests: at most ${opts.perSecond}/s (bursts of ${opts.burst})`));
    }
    b.tokens -= 1;
    return next();
  };
}

function addressOf(c: Parameters<MiddlewareHandler>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** STRAND_RATE_LIMIT=`<per second>[/<burst>]` (default 50/100). */
export function rateLimitFromEnv(env: NodeJS.ProcessEnv = process.env): { perSecond: number; burst: number } {
  const m = /^(\d+(?:\.\d+)?)(?:\/(\d+))?$/.exec(env.STRAND_RATE_LIMIT?.trim() ?? '');
  if (!m) return { perSecond: 50, burst: 100 };
  const perSecond = Number(m[1]);
  return { perSecond, burst: m[2] ? Number(m[2]) : Math.max(1, Math.round(perSecond * 2)) };
}

/**
 * Token and cost arithmetic shared by every place that adds usage up: the store's sums
 * (sessions/session-stats.ts) and the running totals a turn stream keeps from `usage` events, so a
 * footer built from either says the same thing.
 */

/** Token and cost totals (the canonical `usage` fields). */
export interface UsageTotals {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  cost_usd: number;
}

/** Usage as stored or published: any field may be missing (or null in stored messages), counting as zero. */
export type UsageLike = { [K in keyof UsageTotals]?: number | null };

export const zeroUsage = (): UsageTotals => ({ input: 0, output: 0, cache_read: 0, cache_write: 0, cost_usd: 0 });

/** `a + b`, field by field; missing fields of `b` count as zero (stored messages may omit some). */
export function addUsage(a: UsageTotals, b: UsageLike): UsageTotals {
  return {
    input: a.input + (b.input ?? 0),
    output: a.output + (b.output ?? 0),
    cache_read: a.cache_read + (b.cache_read ?? 0),
    cache_write: a.cache_write + (b.cache_write ?? 0),
    cost_usd: a.cost_usd + (b.cost_usd ?? 0),
  };
}

/** What one step's context took: every token it read or wrote, cached or not. */
export function contextTokens(u: UsageLike): number {
  return (u.input ?? 0) + (u.output ?? 0) + (u.cache_read ?? 0) + (u.cache_write ?? 0);
}

/** The share of the model's window a context of `tokens` takes, to three places (0 without a window). */
export function contextShare(tokens: number, window: number): number {
  return window ? Math.round((tokens / window) * 1000) / 1000 : 0;
}

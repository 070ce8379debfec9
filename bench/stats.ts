/** Small statistics helpers for benchmarks: percentiles over samples, median over runs. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export const median = (xs: number[]) => percentile(xs, 50);

/** Milliseconds with three decimals, for JSON output. */
export const ms = (x: number) => Math.round(x * 1000) / 1000;

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

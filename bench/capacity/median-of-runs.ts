import { median } from '../stats';

type Tree = number | { [key: string]: Tree };

/**
 * The median of each figure over runs, for results shaped as nested objects of numbers. A key
 * missing from some runs (an event type that showed up only once) counts as 0 in those runs.
 */
export function medianOfRuns(runs: Tree[]): Tree {
  if (runs.every((r) => typeof r === 'number')) return +median(runs as number[]).toFixed(2);
  const keys = [...new Set(runs.flatMap((r) => (typeof r === 'number' ? [] : Object.keys(r))))].sort();
  const out: Record<string, Tree> = {};
  for (const k of keys) {
    const values = runs.map((r) => (typeof r === 'number' ? 0 : (r[k] ?? 0)));
    const shaped = values.some((v) => typeof v !== 'number') ? values.map((v) => (typeof v === 'number' ? {} : v)) : values;
    out[k] = medianOfRuns(shaped);
  }
  return out;
}

import type { MetricFamily } from '../../../contracts/telemetry-snapshot';

/**
 * The arithmetic of the operator view's history over telemetry snapshots (contracts/telemetry-snapshot.ts),
 * done as Prometheus does it: counters and histograms are totals since their process started, so an
 * interval's figure is the difference between two snapshots, and a total that went down means the
 * process restarted (the reset rule: the new total is the interval's figure).
 */

interface Sample {
  /** The sample's own name (`…_bucket`, `…_sum`, `…_count` for a histogram). */
  name: string;
  /** The family it belongs to. */
  family: string;
  labels: Record<string, string>;
  value: number;
  /** Counters and histograms add up over time; gauges do not. */
  cumulative: boolean;
}

/** Samples by `name{label="v",…}` (labels sorted). */
export type SampleMap = Map<string, Sample>;

const keyOf = (name: string, labels: Record<string, string>): string =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',')}}`;

/** The series a sample belongs to: its family and its labels but `le` (one histogram series is all its buckets, sum and count). */
const seriesOf = (s: Sample): string => keyOf(s.family, Object.fromEntries(Object.entries(s.labels).filter(([k]) => k !== 'le')));

export function flatten(families: MetricFamily[]): SampleMap {
  const out: SampleMap = new Map();
  for (const f of families) {
    for (const s of f.samples) out.set(keyOf(s.name, s.labels), { name: s.name, family: f.name, labels: s.labels, value: s.value, cumulative: f.type === 'counter' || f.type === 'histogram' });
  }
  return out;
}

/**
 * What the cumulative samples of `next` added since `prev`. A series with any value lower than
 * before was reset (its process restarted): its new values are the delta. `restarted` resets every
 * series (the sender says it started anew). A series `prev` lacks counts from zero. Gauges are left out.
 */
export function cumulativeDeltas(prev: SampleMap, next: SampleMap, restarted = false): SampleMap {
  const reset = new Set<string>();
  for (const [key, s] of next) {
    if (!s.cumulative) continue;
    const before = prev.get(key);
    if (restarted || (before !== undefined && s.value < before.value)) reset.add(seriesOf(s));
  }
  const out: SampleMap = new Map();
  for (const [key, s] of next) {
    if (!s.cumulative) continue;
    const before = reset.has(seriesOf(s)) ? 0 : (prev.get(key)?.value ?? 0);
    out.set(key, { ...s, value: s.value - before });
  }
  return out;
}

/** The sum of the samples named `name` (over every map), by the value of `label` (samples without it under `''`). */
export function sumBy(maps: Iterable<SampleMap>, name: string, label: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const map of maps) {
    for (const s of map.values()) {
      if (s.name !== name) continue;
      const k = s.labels[label] ?? '';
      out[k] = (out[k] ?? 0) + s.value;
    }
  }
  return out;
}

export function sumOf(maps: Iterable<SampleMap>, name: string): number {
  return Object.values(sumBy(maps, name, '')).reduce((a, b) => a + b, 0);
}

/** A histogram's cumulative buckets, by upper bound (`+Inf` as Infinity), summed over every map. */
export function bucketsOf(maps: Iterable<SampleMap>, family: string): Array<{ le: number; count: number }> {
  const byLe = sumBy(maps, `${family}_bucket`, 'le');
  return Object.entries(byLe)
    .map(([le, count]) => ({ le: le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), count }))
    .filter((b) => !Number.isNaN(b.le))
    .sort((a, b) => a.le - b.le);
}

/**
 * The q-quantile of cumulative `buckets`, interpolated linearly inside the bucket it falls in (as
 * Prometheus' histogram_quantile: the first bucket starts at 0, a quantile in the +Inf bucket is the
 * highest finite bound). Undefined when the histogram holds no observation.
 */
export function histogramQuantile(q: number, buckets: Array<{ le: number; count: number }>): number | undefined {
  const total = buckets.at(-1)?.count ?? 0;
  if (total <= 0) return undefined;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const b of buckets) {
    if (b.count >= rank && b.count > lowerCount) {
      if (b.le === Number.POSITIVE_INFINITY) return lowerBound;
      return lowerBound + (b.le - lowerBound) * ((rank - lowerCount) / (b.count - lowerCount));
    }
    lowerBound = b.le === Number.POSITIVE_INFINITY ? lowerBound : b.le;
    lowerCount = b.count;
  }
  return lowerBound;
}

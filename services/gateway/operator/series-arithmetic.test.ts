import type { MetricFamily } from '../../../contracts/telemetry-snapshot';
import { bucketsOf, cumulativeDeltas, flatten, histogramQuantile, sumBy } from './series-arithmetic';

const counter = (name: string, values: Array<[Record<string, string>, number]>): MetricFamily => ({
  name,
  type: 'counter',
  samples: values.map(([labels, value]) => ({ name, labels, value })),
});

/** A histogram family from cumulative bucket counts (the last bound is +Inf). */
const histogram = (name: string, bounds: number[], cumulative: number[], sum: number): MetricFamily => ({
  name,
  type: 'histogram',
  samples: [
    ...bounds.map((le, n) => ({ name: `${name}_bucket`, labels: { le: String(le) }, value: cumulative[n]! })),
    { name: `${name}_bucket`, labels: { le: '+Inf' }, value: cumulative.at(-1)! },
    { name: `${name}_sum`, labels: {}, value: sum },
    { name: `${name}_count`, labels: {}, value: cumulative.at(-1)! },
  ],
});

describe('cumulativeDeltas', () => {
  test('an interval is the difference of two totals, per label set; a label set new in the second counts from zero', () => {
    const before = flatten([counter('t', [[{ outcome: 'done' }, 4]])]);
    const after = flatten([counter('t', [[{ outcome: 'done' }, 7], [{ outcome: 'error' }, 2]])]);
    expect(sumBy([cumulativeDeltas(before, after)], 't', 'outcome')).toEqual({ done: 3, error: 2 });
  });

  test('a total that went down is a restarted process: the new total is the delta (Prometheus reset rule)', () => {
    const before = flatten([counter('t', [[{ outcome: 'done' }, 40], [{ outcome: 'error' }, 1]])]);
    const after = flatten([counter('t', [[{ outcome: 'done' }, 3], [{ outcome: 'error' }, 2]])]);
    expect(sumBy([cumulativeDeltas(before, after)], 't', 'outcome')).toEqual({ done: 3, error: 1 });
  });

  test('a histogram resets as one series: its count went down, so every bucket is taken whole', () => {
    const before = flatten([histogram('h', [1, 5], [3, 9], 20)]);
    const after = flatten([histogram('h', [1, 5], [0, 2], 4)]);
    expect(bucketsOf([cumulativeDeltas(before, after)], 'h')).toEqual([
      { le: 1, count: 0 },
      { le: 5, count: 2 },
      { le: Number.POSITIVE_INFINITY, count: 2 },
    ]);
  });

  test('a sender that says it restarted resets every series even where totals grew', () => {
    const before = flatten([counter('t', [[{}, 2]])]);
    const after = flatten([counter('t', [[{}, 5]])]);
    expect(sumBy([cumulativeDeltas(before, after, true)], 't', 'x')).toEqual({ '': 5 });
  });

  test('gauges are no deltas', () => {
    const gauge: MetricFamily = { name: 'g', type: 'gauge', samples: [{ name: 'g', labels: { protocol: 'sse' }, value: 2 }] };
    expect([...cumulativeDeltas(new Map(), flatten([gauge])).values()]).toEqual([]);
  });
});

describe('histogramQuantile', () => {
  const b = (pairs: Array<[number, number]>) => pairs.map(([le, count]) => ({ le, count }));

  test('interpolates linearly inside the bucket the rank falls in, the first bucket starting at 0', () => {
    // 10 observations: 4 in (0, 0.1], 4 in (0.1, 0.5], 2 in (0.5, 1].
    const buckets = b([[0.1, 4], [0.5, 8], [1, 10], [Number.POSITIVE_INFINITY, 10]]);
    expect(histogramQuantile(0.5, buckets)).toBeCloseTo(0.1 + 0.4 * (1 / 4)); // rank 5: 1 of 4 into the second bucket
    expect(histogramQuantile(0.9, buckets)).toBeCloseTo(0.5 + 0.5 * (1 / 2)); // rank 9: half of the third bucket
    expect(histogramQuantile(0.2, buckets)).toBeCloseTo(0.05); // rank 2: half of the first
  });

  test('empty buckets are skipped; a rank in the +Inf bucket is the highest finite bound', () => {
    expect(histogramQuantile(0.5, b([[0.1, 0], [0.5, 0], [1, 2], [Number.POSITIVE_INFINITY, 2]]))).toBeCloseTo(0.75);
    expect(histogramQuantile(0.99, b([[0.1, 1], [1, 1], [Number.POSITIVE_INFINITY, 5]]))).toBe(1);
  });

  test('no observation: undefined', () => {
    expect(histogramQuantile(0.5, b([[0.1, 0], [Number.POSITIVE_INFINITY, 0]]))).toBeUndefined();
    expect(histogramQuantile(0.5, [])).toBeUndefined();
  });
});

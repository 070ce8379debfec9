import type { MetricFamily, TelemetryFailure, TelemetrySnapshot } from '../../../contracts/telemetry-snapshot';
import { operatorOverviewSchema } from '../../../contracts/operator';
import { OperatorAggregator } from './operator-aggregator';

const INTERVAL = 5_000;
const T0 = 1_700_000_000_000;

interface WorkerFigures {
  started?: number;
  finished?: Record<string, number>;
  /** Cumulative first-delta bucket counts for bounds 0.1, 0.5, 1, +Inf. */
  firstDelta?: [number, number, number, number];
  providerErrors?: Record<string, number>;
  retries?: Record<string, number>;
}

function workerMetrics(f: WorkerFigures): MetricFamily[] {
  const fd = f.firstDelta ?? [0, 0, 0, 0];
  const labelled = (name: string, label: string, values: Record<string, number> = {}): MetricFamily => ({
    name,
    type: 'counter',
    samples: Object.entries(values).map(([v, value]) => ({ name, labels: { [label]: v, ...(name === 'strand_provider_errors_total' ? { provider: 'scripted' } : {}) }, value })),
  });
  return [
    { name: 'strand_turns_started_total', type: 'counter', samples: [{ name: 'strand_turns_started_total', labels: {}, value: f.started ?? 0 }] },
    labelled('strand_turns_finished_total', 'outcome', f.finished),
    {
      name: 'strand_turn_first_delta_seconds',
      type: 'histogram',
      samples: [
        ...(['0.1', '0.5', '1', '+Inf'] as const).map((le, n) => ({ name: 'strand_turn_first_delta_seconds_bucket', labels: { le }, value: fd[n]! })),
        { name: 'strand_turn_first_delta_seconds_count', labels: {}, value: fd[3] },
      ],
    },
    labelled('strand_provider_errors_total', 'class', f.providerErrors),
    labelled('strand_retries_total', 'kind', f.retries),
  ];
}

function snapshot(service: 'worker' | 'gateway', instance: string, at: number, startedAt: number, metrics: MetricFamily[], failures: TelemetryFailure[] = []): TelemetrySnapshot {
  return { v: 1, service, instance, at, started_at: startedAt, interval_ms: INTERVAL, metrics, failures };
}

const connections = (open: Record<string, number>): MetricFamily[] => [
  { name: 'strand_gateway_connections', type: 'gauge', samples: Object.entries(open).map(([protocol, value]) => ({ name: 'strand_gateway_connections', labels: { protocol }, value })) },
];

const failure = (session: string, at: number, extra: Partial<TelemetryFailure> = {}): TelemetryFailure => ({
  at,
  session_id: session,
  turn_id: 't1',
  code: 'LLM_API_ERROR',
  kind: 'rate_limited',
  provider: 'scripted',
  status: 429,
  message: 'slow down',
  ...extra,
});

describe('OperatorAggregator', () => {
  test('a point sums what every instance counted in the interval: turns by outcome, per minute, provider errors, retries; connections are the gateways’ current ones', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    // Two workers that ran before this gateway started: their first snapshots are baselines only.
    agg.ingest(snapshot('worker', 'w1', T0 + 1, T0 - 60_000, workerMetrics({ started: 10, finished: { done: 9 } })), T0 + 1);
    agg.ingest(snapshot('worker', 'w2', T0 + 2, T0 - 60_000, workerMetrics({ started: 5, finished: { done: 5 } })), T0 + 2);
    agg.ingest(snapshot('gateway', 'g1', T0 + 3, T0 - 60_000, connections({ sse: 1, websocket: 0 })), T0 + 3);
    const first = agg.tick(T0 + INTERVAL);
    expect(first).toMatchObject({ turns_started: 0, turns_finished: { done: 0 }, turns_per_minute: 0, first_delta_ms: null, connections: { sse: 1, websocket: 0 } });

    agg.ingest(snapshot('worker', 'w1', T0 + 6_000, T0 - 60_000, workerMetrics({ started: 13, finished: { done: 11, error: 1 }, providerErrors: { rate_limited: 1 }, retries: { rate_limited: 2 } })), T0 + 6_000);
    agg.ingest(snapshot('worker', 'w2', T0 + 6_000, T0 - 60_000, workerMetrics({ started: 6, finished: { done: 6 } })), T0 + 6_000);
    agg.ingest(snapshot('gateway', 'g1', T0 + 6_000, T0 - 60_000, connections({ sse: 3, websocket: 1 })), T0 + 6_000);
    const second = agg.tick(T0 + 2 * INTERVAL);
    expect(second).toEqual({
      at: T0 + 2 * INTERVAL,
      turns_started: 4,
      turns_finished: { done: 3, error: 1 },
      turns_per_minute: 48, // 4 turns in 5 s
      first_delta_ms: null,
      provider_errors: { rate_limited: 1 },
      retries: { rate_limited: 2 },
      connections: { sse: 3, websocket: 1 },
    });
    // Nothing new: the next point counts nothing.
    expect(agg.tick(T0 + 3 * INTERVAL)).toMatchObject({ turns_started: 0, turns_finished: { done: 0, error: 0 } });
  });

  test('first-delta percentiles come from the interval’s own observations, interpolated in their buckets', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    agg.ingest(snapshot('worker', 'w1', T0, T0 - 60_000, workerMetrics({ firstDelta: [50, 50, 50, 50] })), T0);
    expect(agg.tick(T0 + INTERVAL).first_delta_ms).toBeNull();
    // Four new observations in (0.1, 0.5]: the 50 older fast ones must not pull the percentiles down.
    agg.ingest(snapshot('worker', 'w1', T0 + 6_000, T0 - 60_000, workerMetrics({ firstDelta: [50, 54, 54, 54] })), T0 + 6_000);
    expect(agg.tick(T0 + 2 * INTERVAL).first_delta_ms).toEqual({ p50: 300, p90: 460, p99: 496 });
  });

  test('a worker that restarted (a new process start, lower totals) counts its new totals; one that started after the gateway counts from zero', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    agg.ingest(snapshot('worker', 'w1', T0, T0 - 60_000, workerMetrics({ finished: { done: 100 } })), T0);
    expect(agg.tick(T0 + INTERVAL).turns_finished).toEqual({ done: 0 });
    agg.ingest(snapshot('worker', 'w1', T0 + 6_000, T0 + 5_500, workerMetrics({ finished: { done: 2 } })), T0 + 6_000);
    agg.ingest(snapshot('worker', 'w-new', T0 + 6_000, T0 + 5_000, workerMetrics({ finished: { done: 1, aborted: 1 } })), T0 + 6_000);
    expect(agg.tick(T0 + 2 * INTERVAL).turns_finished).toEqual({ done: 3, aborted: 1 });
  });

  test('a process whose first snapshot comes right after its start counts from zero, even when its clock is behind the gateway’s', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    // Its clock is a minute behind: by the timestamps it started before the gateway, but 1 s before this snapshot.
    agg.ingest(snapshot('worker', 'w-skewed', T0 - 59_000, T0 - 60_000, workerMetrics({ finished: { done: 1 } })), T0 + 1_000);
    // Running for an hour by its own clock: a baseline only.
    agg.ingest(snapshot('worker', 'w-old', T0 - 1_000, T0 - 3_600_000, workerMetrics({ finished: { done: 7 } })), T0 + 1_000);
    expect(agg.tick(T0 + INTERVAL).turns_finished).toEqual({ done: 1 });
  });

  test('an instance silent for three intervals leaves the instances and the connections; it comes back when it sends again', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    agg.ingest(snapshot('gateway', 'g1', T0, T0, connections({ sse: 2 })), T0);
    agg.ingest(snapshot('worker', 'w1', T0, T0, workerMetrics({})), T0);
    agg.ingest(snapshot('worker', 'w2', T0 + 10_000, T0, workerMetrics({})), T0 + 10_000);
    expect(agg.overview(T0 + 15_000).instances.map((i) => i.instance)).toEqual(['g1', 'w1', 'w2']);
    expect(agg.overview(T0 + 15_001).instances.map((i) => `${i.service}/${i.instance}`)).toEqual(['worker/w2']);
    expect(agg.tick(T0 + 15_001).connections).toEqual({});
    agg.ingest(snapshot('gateway', 'g1', T0 + 16_000, T0, connections({ sse: 1 })), T0 + 16_000);
    expect(agg.overview(T0 + 16_000).instances.map((i) => i.instance)).toEqual(['g1', 'w2']);
    expect(agg.tick(T0 + 20_000).connections).toEqual({ sse: 1 });
  });

  test('failures: merged from every worker, the same one once, newest first, kept after the worker restarted, 50 answered at most', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0 });
    const a = failure('s-a', T0 + 1, { event_id: 't1:e1' });
    const b = failure('s-b', T0 + 2, { kind: 'infrastructure', code: 'UNAVAILABLE', provider: null, status: null, turn_id: 't3' });
    agg.ingest(snapshot('worker', 'w1', T0 + 5, T0, [], [b, a]), T0 + 5);
    agg.ingest(snapshot('worker', 'w1', T0 + 10, T0, [], [b, a]), T0 + 10); // sent again in the next snapshot
    agg.ingest(snapshot('worker', 'w2', T0 + 10, T0, [], [{ ...a, at: T0 + 9 }]), T0 + 10); // a retried attempt stored it again elsewhere
    agg.ingest(snapshot('worker', 'w1', T0 + 20, T0 + 15, [], []), T0 + 20); // restarted: its ring is empty
    const { failures } = agg.overview(T0 + 20);
    expect(failures.map((f) => [f.session_id, f.job_id, f.kind])).toEqual([
      ['s-b', 'session:s-b:turn:3', 'infrastructure'],
      ['s-a', 'session:s-a:turn:1', 'rate_limited'],
    ]);

    const many = Array.from({ length: 80 }, (_, n) => failure(`s-${n}`, T0 + 100 + n));
    agg.ingest(snapshot('worker', 'w3', T0 + 200, T0, [], many), T0 + 200);
    const all = agg.overview(T0 + 200).failures;
    expect(all[0]!.session_id).toBe('s-79');
    expect(all.slice(0, 50).at(-1)!.session_id).toBe('s-30');
  });

  test('the history keeps an hour of points, oldest first, and the overview fits the contract', () => {
    const agg = new OperatorAggregator({ intervalMs: INTERVAL, startedAt: T0, windowMs: 60_000 });
    for (let n = 1; n <= 20; n++) agg.tick(T0 + n * INTERVAL);
    const overview = agg.overview(T0 + 20 * INTERVAL);
    expect(overview.series.map((p) => (p.at - T0) / INTERVAL)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(operatorOverviewSchema.safeParse({ ...overview, temporal_ui: null }).success).toBe(true);
    expect([overview.interval_s, overview.window_s]).toEqual([5, 60]);
  });
});

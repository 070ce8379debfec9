import type { OperatorFailure, OperatorOverview, OperatorPoint } from '../../../contracts/operator';
import type { TelemetryFailure, TelemetryService, TelemetrySnapshot } from '../../../contracts/telemetry-snapshot';
import { turnNumberOf, turnWorkflowId } from '../../../contracts/workflow-ids';
import { bucketsOf, cumulativeDeltas, flatten, histogramQuantile, sumBy, sumOf, type SampleMap } from './series-arithmetic';

/** How long the history reaches back. */
const OPERATOR_WINDOW_MS = 3_600_000;
/** An instance silent for this many intervals has stopped (or cannot reach NATS): it leaves `instances`. */
const SILENT_INTERVALS = 3;
/** Failures answered at most (contracts/operator.ts). */
export const FAILURES_ANSWERED = 50;
/** Failures kept: more than answered, so that with tokens each principal still sees its newest ones. */
const FAILURES_KEPT = 200;

interface InstanceState {
  service: TelemetryService;
  instance: string;
  /** When its last snapshot arrived (this gateway's clock: senders' clocks may differ). */
  lastSeen: number;
  latest: TelemetrySnapshot;
  /** Its cumulative samples at the last tick, and the process start they count from; unset before its first tick. */
  baseline?: { samples: SampleMap; startedAt: number };
}

/**
 * The operator view's history, failures and instances, gathered from the telemetry snapshots of every
 * gateway and worker (contracts/telemetry-snapshot.ts). An in-memory cache, not a fact this gateway
 * owns: the figures belong to the processes that counted them, nothing here is stored, a restarted
 * gateway starts with an empty history, and two gateways hold the same history only from the moment
 * both listened (docs/observability.md, "The operator view's data").
 */
export class OperatorAggregator {
  private readonly instances = new Map<string, InstanceState>();
  private readonly series: OperatorPoint[] = [];
  private readonly failures = new Map<string, TelemetryFailure>();
  private lastTick: number | undefined;
  private readonly intervalMs: number;
  private readonly windowMs: number;
  private readonly startedAt: number;

  constructor(opts: { intervalMs: number; windowMs?: number; startedAt: number }) {
    this.intervalMs = opts.intervalMs;
    this.windowMs = opts.windowMs ?? OPERATOR_WINDOW_MS;
    this.startedAt = opts.startedAt;
  }

  /** Takes a snapshot in: the instance's latest state, and its failures merged into the list. */
  ingest(snapshot: TelemetrySnapshot, receivedAt: number): void {
    const key = `${snapshot.service}/${snapshot.instance}`;
    const known = this.instances.get(key);
    this.instances.set(key, { ...(known ?? {}), service: snapshot.service, instance: snapshot.instance, lastSeen: receivedAt, latest: snapshot });
    for (const f of snapshot.failures) {
      // Reported again in every snapshot while it is in the worker's ring, and by another worker when a
      // retried attempt published it there: one failure is one entry. Kept after its worker is gone.
      const id = `${f.session_id}\u0000${f.event_id ?? `${f.turn_id}\u0000${f.code}\u0000${f.at}`}`;
      if (!this.failures.has(id)) this.failures.set(id, f);
    }
    if (this.failures.size > FAILURES_KEPT) {
      const keep = [...this.failures.entries()].sort(([, a], [, b]) => b.at - a.at).slice(0, FAILURES_KEPT);
      this.failures.clear();
      for (const [id, f] of keep) this.failures.set(id, f);
    }
  }

  /** Closes the interval ending `now`: one point from what every instance counted since the last tick. */
  tick(now: number): OperatorPoint {
    const elapsedMs = this.lastTick === undefined ? this.intervalMs : Math.max(1, now - this.lastTick);
    this.lastTick = now;
    const deltas: SampleMap[] = [];
    const gauges: SampleMap[] = [];
    for (const [key, state] of this.instances) {
      const samples = flatten(state.latest.metrics);
      const baseline = state.baseline ?? { samples: this.isFresh(state.latest) ? new Map() : samples, startedAt: state.latest.started_at };
      deltas.push(cumulativeDeltas(baseline.samples, samples, baseline.startedAt !== state.latest.started_at));
      state.baseline = { samples, startedAt: state.latest.started_at };
      if (!this.isSilent(state, now)) gauges.push(samples);
      // Forgotten once older than the history: a process back after that starts a fresh baseline.
      if (now - state.lastSeen > this.windowMs) this.instances.delete(key);
    }
    const buckets = bucketsOf(deltas, 'strand_turn_first_delta_seconds');
    const ms = (q: number) => Math.round((histogramQuantile(q, buckets) ?? 0) * 1000);
    const turnsFinished = sumBy(deltas, 'strand_turns_finished_total', 'outcome');
    const finished = Object.values(turnsFinished).reduce((a, b) => a + b, 0);
    const point: OperatorPoint = {
      at: now,
      turns_per_minute: Math.round(((finished * 60_000) / elapsedMs) * 100) / 100,
      turns_finished: turnsFinished,
      turns_started: sumOf(deltas, 'strand_turns_started_total'),
      first_delta_ms: (buckets.at(-1)?.count ?? 0) > 0 ? { p50: ms(0.5), p90: ms(0.9), p99: ms(0.99) } : null,
      provider_errors: sumBy(deltas, 'strand_provider_errors_total', 'class'),
      retries: sumBy(deltas, 'strand_retries_total', 'kind'),
      connections: sumBy(gauges, 'strand_gateway_connections', 'protocol'),
    };
    this.series.push(point);
    while (this.series.length > 0 && this.series[0]!.at <= now - this.windowMs) this.series.shift();
    return point;
  }

  /** The history, the failures (newest first, every one: the route picks the caller's) and the instances heard lately. */
  overview(now: number): Omit<OperatorOverview, 'temporal_ui'> {
    return {
      generated_at: now,
      interval_s: this.intervalMs / 1000,
      window_s: this.windowMs / 1000,
      series: [...this.series],
      failures: [...this.failures.values()].sort((a, b) => b.at - a.at).map(operatorFailure),
      instances: [...this.instances.values()]
        .filter((s) => !this.isSilent(s, now))
        .map((s) => ({ service: s.service, instance: s.instance, last_seen: s.lastSeen }))
        .sort((a, b) => a.service.localeCompare(b.service) || a.instance.localeCompare(b.instance)),
    };
  }

  /**
   * Whether everything an instance's first snapshot counts belongs to this history: a process that
   * started after this gateway did, or whose first snapshot came within two intervals of its start
   * (by its own clock, so a clock that differs from the gateway's cannot hide a new worker's first
   * turns). A process that was running before has counted things this history did not see: its first
   * snapshot is only a baseline.
   */
  private isFresh(snapshot: TelemetrySnapshot): boolean {
    return snapshot.started_at >= this.startedAt || snapshot.at - snapshot.started_at <= 2 * snapshot.interval_ms;
  }

  private isSilent(state: InstanceState, now: number): boolean {
    return now - state.lastSeen > SILENT_INTERVALS * this.intervalMs;
  }
}

function operatorFailure(f: TelemetryFailure): OperatorFailure {
  const turn = f.turn_id !== null ? turnNumberOf(f.turn_id) : undefined;
  return {
    at: f.at,
    session_id: f.session_id,
    turn_id: f.turn_id,
    job_id: turn !== undefined ? turnWorkflowId(f.session_id, turn) : null,
    code: f.code,
    kind: f.kind,
    provider: f.provider,
    status: f.status,
    message: f.message,
  };
}

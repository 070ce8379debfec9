import { z } from 'zod';

/**
 * What every gateway and worker publishes on core NATS every STRAND_TELEMETRY_INTERVAL_MS (5 s by
 * default): the few of its metrics the operator view draws, and, from workers, the turns that failed
 * lately. Core NATS, not JetStream: a snapshot is worth something only until the next one, so nothing
 * stores it; a gateway that was not listening simply has a shorter history (docs/observability.md,
 * "The operator view's data").
 */

const TELEMETRY_SUBJECT_PREFIX = 'strand.telemetry';
/** What a gateway subscribes to: every service's every instance. */
export const TELEMETRY_SUBJECT_ALL = `${TELEMETRY_SUBJECT_PREFIX}.>`;

const telemetryServiceSchema = z.enum(['gateway', 'worker']);
export type TelemetryService = z.infer<typeof telemetryServiceSchema>;

/** `strand.telemetry.<service>.<instance>`; characters a subject token cannot hold become `-`. */
export function telemetrySubject(service: TelemetryService, instance: string): string {
  return `${TELEMETRY_SUBJECT_PREFIX}.${service}.${instance.replace(/[.*>\s]/g, '-')}`;
}

/** The metrics a snapshot carries (docs/observability.md has their meaning). */
export const WORKER_SNAPSHOT_METRICS = [
  'strand_turns_started_total',
  'strand_turns_finished_total',
  'strand_turn_first_delta_seconds',
  'strand_provider_errors_total',
  'strand_retries_total',
] as const;
export const GATEWAY_SNAPSHOT_METRICS = ['strand_gateway_connections'] as const;

/** One sample as Prometheus text would show it: a histogram's are `<name>_bucket` (with `le`), `_sum` and `_count`. */
const metricSampleSchema = z.object({
  name: z.string(),
  labels: z.record(z.string(), z.string()),
  value: z.number(),
});

export const metricFamilySchema = z.object({
  name: z.string(),
  type: z.enum(['counter', 'gauge', 'histogram', 'summary']),
  samples: z.array(metricSampleSchema),
});
export type MetricFamily = z.infer<typeof metricFamilySchema>;

/** A turn that ended with an `error` event, as the worker that published the event saw it. */
const telemetryFailureSchema = z.object({
  at: z.number().int(),
  session_id: z.string(),
  turn_id: z.string().nullable(),
  code: z.string(),
  kind: z.string().nullable(),
  provider: z.string().nullable(),
  status: z.number().int().nullable(),
  message: z.string(),
  /** The event's id (the same on every attempt that publishes it): the same failure reported twice is one. */
  event_id: z.string().optional(),
});
export type TelemetryFailure = z.infer<typeof telemetryFailureSchema>;

export const telemetrySnapshotSchema = z.object({
  v: z.literal(1),
  service: telemetryServiceSchema,
  instance: z.string().min(1),
  /** When it was taken (the sender's clock). */
  at: z.number().int(),
  /**
   * When the sender started publishing, before it did any work its counters count (a worker starts
   * its publisher before it polls Temporal): a new value means a new process, whose totals start at 0.
   */
  started_at: z.number().int(),
  interval_ms: z.number().int().positive(),
  /** Counters and histograms are totals since `started_at`; gauges are the current value. */
  metrics: z.array(metricFamilySchema),
  /** Workers: the newest failures, at most 50, newest first. */
  failures: z.array(telemetryFailureSchema).default([]),
});
export type TelemetrySnapshot = z.infer<typeof telemetrySnapshotSchema>;

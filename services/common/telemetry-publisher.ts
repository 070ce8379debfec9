import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { NatsConnection } from 'nats';
import {
  metricFamilySchema,
  telemetrySubject,
  type MetricFamily,
  type TelemetryFailure,
  type TelemetryService,
  type TelemetrySnapshot,
} from '../../contracts/telemetry-snapshot';
import type { MetricsRegistry } from './metrics';
import { everyAlignedInterval } from './telemetry-clock';

/** A process's telemetry id: host and pid for people reading it, random bytes so a reused pid is never mistaken. */
export function processInstanceId(): string {
  const host = os.hostname().toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(0, 40);
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * The families `names` of `registry`, as samples. Asked one by one (not the whole registry): the
 * gateway's registry also has gauges that ask Temporal when collected, which a snapshot does not need.
 */
export async function registryFamilies(registry: MetricsRegistry, names: readonly string[]): Promise<MetricFamily[]> {
  const families: MetricFamily[] = [];
  for (const name of names) {
    const metric = registry.getSingleMetric(name);
    if (!metric) continue;
    const got = await metric.get();
    families.push({
      name: got.name,
      // prom-client types it as a numeric enum, but its values are the exposition's names ('counter', …).
      type: metricFamilySchema.shape.type.parse(String(got.type)),
      samples: got.values.map((v) => ({
        name: (v as { metricName?: string }).metricName ?? got.name,
        labels: Object.fromEntries(Object.entries(v.labels).map(([k, l]) => [k, String(l)])),
        value: v.value,
      })),
    });
  }
  return families;
}

export interface TelemetryPublisher {
  /** Takes and publishes one snapshot now (the timer does this every interval). */
  publishNow(): Promise<void>;
  stop(): void;
}

/**
 * Publishes a snapshot of this process on core NATS every `intervalMs` (contracts/telemetry-snapshot.ts).
 * Telemetry must never hold up or fail the process it describes: a snapshot that cannot be taken or
 * sent (NATS down or closed) is skipped, and said once, at debug.
 */
export function startTelemetryPublisher(opts: {
  nc: NatsConnection;
  service: TelemetryService;
  instance: string;
  intervalMs: number;
  collect: () => Promise<{ metrics: MetricFamily[]; failures?: TelemetryFailure[] }>;
  debug: (message: string) => void;
  now?: () => number;
}): TelemetryPublisher {
  const now = opts.now ?? Date.now;
  const startedAt = now();
  const subject = telemetrySubject(opts.service, opts.instance);
  let complained = false;
  let busy = false;

  async function publishNow(): Promise<void> {
    // A collect still running (a slow event loop) is not stacked up behind.
    if (busy || opts.nc.isClosed()) return;
    busy = true;
    try {
      const { metrics, failures = [] } = await opts.collect();
      const snapshot: TelemetrySnapshot = { v: 1, service: opts.service, instance: opts.instance, at: now(), started_at: startedAt, interval_ms: opts.intervalMs, metrics, failures };
      opts.nc.publish(subject, JSON.stringify(snapshot));
      complained = false;
    } catch (err) {
      if (!complained) opts.debug(`telemetry snapshot not sent (sent again next interval): ${(err as Error).message}`);
      complained = true;
    } finally {
      busy = false;
    }
  }

  // At the start of each interval (telemetry-clock.ts): gateways close their points in its middle.
  const stop = everyAlignedInterval(opts.intervalMs, 0, () => void publishNow());
  return { publishNow, stop };
}

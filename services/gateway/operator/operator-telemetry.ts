import type { NatsConnection, Subscription } from 'nats';
import { GATEWAY_SNAPSHOT_METRICS, TELEMETRY_SUBJECT_ALL, telemetrySnapshotSchema } from '../../../contracts/telemetry-snapshot';
import type { MetricsRegistry } from '../../common/metrics';
import { everyAlignedInterval } from '../../common/telemetry-clock';
import { processInstanceId, registryFamilies, startTelemetryPublisher } from '../../common/telemetry-publisher';
import { OperatorAggregator } from './operator-aggregator';

export interface OperatorTelemetry {
  readonly aggregator: OperatorAggregator;
  readonly instance: string;
  close(): void;
}

/**
 * A gateway's part of the operator view's data (docs/observability.md): it publishes its own snapshot
 * (its connections) like every process, listens to everyone's on core NATS, and closes one point of
 * history every interval. Nothing here waits on NATS: while it is down the gateway hears nothing, its
 * instances fall silent and its points count nothing, and it catches up from the next snapshots.
 */
export function startOperatorTelemetry(opts: {
  nc: NatsConnection;
  registry: MetricsRegistry;
  intervalMs: number;
  log: { debug(message: string): void; warn(obj: object, message: string): void };
  now?: () => number;
}): OperatorTelemetry {
  const now = opts.now ?? Date.now;
  const instance = processInstanceId();
  const aggregator = new OperatorAggregator({ intervalMs: opts.intervalMs, startedAt: now() });
  let warned = false;
  const subscription: Subscription = opts.nc.subscribe(TELEMETRY_SUBJECT_ALL, {
    callback: (err, msg) => {
      if (err) return;
      let parsed;
      try {
        parsed = telemetrySnapshotSchema.safeParse(msg.json());
      } catch {
        parsed = undefined;
      }
      if (parsed?.success) aggregator.ingest(parsed.data, now());
      else if (!warned) {
        // Once: a process of another version may send something else every interval.
        warned = true;
        opts.log.warn({ subject: msg.subject }, 'ignoring a telemetry snapshot this gateway cannot read');
      }
    },
  });
  const publisher = startTelemetryPublisher({
    nc: opts.nc,
    service: 'gateway',
    instance,
    intervalMs: opts.intervalMs,
    collect: async () => ({ metrics: await registryFamilies(opts.registry, GATEWAY_SNAPSHOT_METRICS) }),
    debug: (m) => opts.log.debug(m),
    now,
  });
  void publisher.publishNow();
  // Half an interval after every process published (telemetry-clock.ts): one snapshot of each per point.
  const stopTicking = everyAlignedInterval(opts.intervalMs, opts.intervalMs / 2, () => aggregator.tick(now()));
  return {
    aggregator,
    instance,
    close() {
      stopTicking();
      publisher.stop();
      subscription.unsubscribe();
    },
  };
}

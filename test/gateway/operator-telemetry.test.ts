import type { NatsConnection } from 'nats';
import { WORKER_SNAPSHOT_METRICS } from '../../contracts/telemetry-snapshot';
import { createMetricsRegistry } from '../../services/common/metrics';
import { createGatewayMetrics } from '../../services/common/metrics-gateway';
import { connectNats } from '../../services/common/nats';
import { registryFamilies, startTelemetryPublisher, type TelemetryPublisher } from '../../services/common/telemetry-publisher';
import { startOperatorTelemetry, type OperatorTelemetry } from '../../services/gateway/operator/operator-telemetry';
import { RecentFailures } from '../../services/worker/recent-failures';
import { createWorkerMetrics } from '../../services/worker/worker-metrics';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * The telemetry snapshots over a real nats-server: a worker's publisher and a gateway's listener meet
 * on core NATS, the gateway's overview counts what the worker counted; NATS killed, publishing neither
 * throws nor waits, and the figures counted meanwhile arrive once NATS is back; something unreadable on
 * the subject is ignored (docs/observability.md, "The operator view's data").
 */
const INTERVAL = 200;
let nats: TestNats;
let gatewayNc: NatsConnection;
let workerNc: NatsConnection;
let gateway: OperatorTelemetry;
let publisher: TelemetryPublisher;
const debug: string[] = [];
const warnings: string[] = [];
const workerRegistry = createMetricsRegistry('worker');
const metrics = createWorkerMetrics(workerRegistry);
const failures = new RecentFailures();

beforeAll(async () => {
  nats = await startTestNats();
  [gatewayNc, workerNc] = await Promise.all([connectNats(nats.url, 'test-gateway'), connectNats(nats.url, 'test-worker')]);
  const gatewayRegistry = createMetricsRegistry('gateway');
  createGatewayMetrics(gatewayRegistry, { connections: () => ({ sse: 2, websocket: 1 }), eventLag: async () => undefined, liveSessions: () => 0, runningTurns: async () => undefined });
  gateway = startOperatorTelemetry({ nc: gatewayNc, registry: gatewayRegistry, intervalMs: INTERVAL, log: { debug: () => undefined, warn: (_o, m) => warnings.push(m) } });
  publisher = startTelemetryPublisher({
    nc: workerNc,
    service: 'worker',
    instance: 'worker-under-test',
    intervalMs: INTERVAL,
    collect: async () => ({ metrics: await registryFamilies(workerRegistry, WORKER_SNAPSHOT_METRICS), failures: failures.list() }),
    debug: (m) => debug.push(m),
  });
}, 30_000);

afterAll(async () => {
  publisher?.stop();
  gateway?.close();
  await Promise.all([gatewayNc?.close(), workerNc?.close()]);
  await nats?.stop();
});

const doneCounted = () => gateway.aggregator.overview(Date.now()).series.reduce((n, p) => n + (p.turns_finished.done ?? 0), 0);

async function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('what a worker counts reaches the gateway’s overview with its failures; the gateway lists itself and its connections', async () => {
  metrics.turnsFinished.inc({ outcome: 'done' }, 2);
  failures.observe('s-1', { id: 't1:e', turn_id: 't1', event: { type: 'error', code: 'UNAVAILABLE', kind: 'infrastructure', message: 'the store did not answer', turn_id: 't1' } }, Date.now());
  await until('the two turns and the failure', () => doneCounted() === 2 && gateway.aggregator.overview(Date.now()).failures.length === 1);
  const o = gateway.aggregator.overview(Date.now());
  expect(o.instances.map((i) => [i.service, i.instance === gateway.instance || i.instance])).toEqual([
    ['gateway', true],
    ['worker', 'worker-under-test'],
  ]);
  expect(o.failures).toEqual([expect.objectContaining({ session_id: 's-1', job_id: 'session:s-1:turn:1', code: 'UNAVAILABLE', kind: 'infrastructure' })]);
  expect(o.series.at(-1)!.connections).toEqual({ sse: 2, websocket: 1 });
});

test('NATS down: publishing returns at once and the process goes on; what was counted meanwhile arrives once NATS is back, once', async () => {
  await nats.kill();
  const started = Date.now();
  await publisher.publishNow();
  metrics.turnsFinished.inc({ outcome: 'done' });
  await publisher.publishNow();
  expect(Date.now() - started).toBeLessThan(1_000);
  await nats.start();
  await until('the turn counted during the outage', () => doneCounted() >= 3, 20_000);
  await new Promise((r) => setTimeout(r, 3 * INTERVAL));
  expect(doneCounted()).toBe(3);
  expect(gateway.aggregator.overview(Date.now()).instances.map((i) => i.service)).toEqual(['gateway', 'worker']);
}, 40_000);

test('a closed connection: snapshots are skipped without an error', async () => {
  const nc = await connectNats(nats.url, 'test-closed');
  const closedDebug: string[] = [];
  const closed = startTelemetryPublisher({ nc, service: 'worker', instance: 'closed', intervalMs: 60_000, collect: async () => ({ metrics: [] }), debug: (m) => closedDebug.push(m) });
  await nc.close();
  await expect(closed.publishNow()).resolves.toBeUndefined();
  closed.stop();
  expect(closedDebug).toEqual([]);
});

test('something unreadable on a telemetry subject is ignored, said once', async () => {
  workerNc.publish('strand.telemetry.worker.bogus', 'not json');
  workerNc.publish('strand.telemetry.worker.bogus', JSON.stringify({ v: 2 }));
  await workerNc.flush();
  await until('the warning', () => warnings.length > 0);
  await new Promise((r) => setTimeout(r, 2 * INTERVAL));
  expect(warnings).toEqual(['ignoring a telemetry snapshot this gateway cannot read']);
  expect(gateway.aggregator.overview(Date.now()).instances.map((i) => i.instance)).not.toContain('bogus');
});

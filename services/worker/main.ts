import fs from 'node:fs';
import { DefaultLogger, NativeConnection, Runtime, type LogLevel } from '@temporalio/worker';
import { taskQueueFromEnv } from '../../contracts/task-queues';
import { portFromEnv, runtimeEnv } from '../common/env';
import { createLogger } from '../common/logger';
import { createMetricsRegistry, metricsText } from '../common/metrics';
import { startMetricsServer } from '../common/metrics-server';
import { telemetryIntervalMs } from '../common/telemetry-config';
import { registryFamilies, startTelemetryPublisher } from '../common/telemetry-publisher';
import { WORKER_SNAPSHOT_METRICS } from '../../contracts/telemetry-snapshot';
import { startTracing } from '../common/tracing';
import { connect } from 'nats';
import { JetStreamOutbox } from '../../activities/events/jetstream-outbox';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { connectNats, NATS_LIVENESS, NATS_NO_ASYNC_TRACES, natsServers } from '../common/nats';
import { onShutdown } from '../common/shutdown';
import { createStrandWorker } from './create-worker';
import { workerHostFromEnv } from './host-queue';
import { createSdkLogFunction } from './sdk-log';
import { shutdownTimesFromEnv } from './shutdown-times';
import { coreMetrics } from './core-metrics';
import { createCrashWatch } from './crash-watch';
import { RecentFailures } from './recent-failures';
import { createWorkerMetrics } from './worker-metrics';
import { loadWorkflowBundle, workerInterceptorModules } from './workflow-bundle';
import { providerEndpoints } from '../../activities/providers/endpoints';
import { loadConfiguredSdks } from '../../activities/providers/sdk-modules';

/** How long the events outbox waits for the events stream's info on a new connection (see its onConnect). */
const ENSURE_STREAM_TIMEOUT_MS = 1_000;

/** Connects to Temporal, retrying while the server is still starting. */
async function connectTemporal(address: string, log: (m: string) => void): Promise<NativeConnection> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await NativeConnection.connect({ address });
    } catch (err) {
      if (attempt === 1 || attempt % 10 === 0) log(`waiting for Temporal at ${address}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

async function main(): Promise<void> {
  const env = runtimeEnv();
  const log = createLogger('worker', env.logLevel);
  const sdkLevels: Record<string, LogLevel> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };
  // Metrics always (docs/observability.md); traces only when an OTLP endpoint is configured.
  const tracing = startTracing('worker');
  const registry = createMetricsRegistry('worker');
  const metrics = createWorkerMetrics(registry);
  const failures = new RecentFailures();
  const core = await coreMetrics();
  Runtime.install({ logger: new DefaultLogger(sdkLevels[env.logLevel] ?? 'INFO', createSdkLogFunction()), telemetryOptions: core.telemetry });
  const metricsServer = await startMetricsServer('127.0.0.1', portFromEnv('STRAND_WORKER_METRICS_PORT', 0), () => metricsText(registry, core.scrape));
  const taskQueue = taskQueueFromEnv();
  const host = workerHostFromEnv();
  const shutdown = shutdownTimesFromEnv();
  const delay = Number(process.env.STRAND_SCRIPTED_DELTA_DELAY_MS ?? '25');
  const [bundle, nc, connection] = await Promise.all([
    loadWorkflowBundle((m) => log.warn(m), workerInterceptorModules(tracing.enabled)),
    connectNats(env.natsUrl, 'strand-worker', NATS_NO_ASYNC_TRACES),
    connectTemporal(env.temporalAddress, (m) => log.info(m)),
  ]);
  // Events go out through an outbox on a connection of their own, which rides out NATS restarts
  // without losing or reordering an event (jetstream-outbox.ts).
  const events = new JetStreamOutbox({
    connect: () => connect({ servers: natsServers(env.natsUrl), name: 'strand-worker-events', reconnect: false, timeout: 2_000, ...NATS_LIVENESS, ...NATS_NO_ASYNC_TRACES }),
    // A short timeout: on a cluster the stream's info goes unanswered while its leader is elected,
    // and at nats.js's 5 s a new connection tried twice held every event ~10 s after a leader's death
    // (chaos:cluster leader-kill); tried again every second it sends them as soon as a leader answers.
    onConnect: async (c) => ensureAgentEventsStream(await c.jetstreamManager({ timeout: ENSURE_STREAM_TIMEOUT_MS })),
    log: (level, message) => log[level](message),
  });
  // A dead worker's turns go on elsewhere within a second or two (crash-watch/crash-watcher.ts).
  const crashWatch = await createCrashWatch({ nc, temporalAddress: env.temporalAddress, namespace: env.temporalNamespace, log: (level, message) => log[level](message) });
  const worker = await createStrandWorker({
    registry: crashWatch.registry,
    connection,
    namespace: env.temporalNamespace,
    taskQueue,
    host,
    nc,
    events,
    bundle,
    scriptedDeltaDelayMs: Number.isFinite(delay) && delay >= 0 ? delay : 25,
    shutdown,
    telemetry: { metrics, tracing, failures },
  });
  // The operator view's data (docs/observability.md): a snapshot on core NATS every interval, named
  // like the crash watch names this worker.
  const telemetry = startTelemetryPublisher({
    nc,
    service: 'worker',
    instance: crashWatch.registry.workerId,
    intervalMs: telemetryIntervalMs(),
    collect: async () => ({ metrics: await registryFamilies(registry, WORKER_SNAPSHOT_METRICS), failures: failures.list() }),
    debug: (m) => log.debug(m),
  });
  // Containers' health checks look for this file: present while the worker polls Temporal.
  const readyFile = process.env.STRAND_READY_FILE?.trim();
  let stopping = false;
  onShutdown(async () => {
    if (readyFile) fs.rmSync(readyFile, { force: true });
    // The SDK's runtime may already have begun shutting the worker down on the same signal.
    stopping = true;
    if (worker.getState() === 'RUNNING') worker.shutdown();
    // Past the force time the SDK gives up on a stuck drain (run() rejects): the rest still closes.
    await running.catch((err: unknown) => log.warn(`the worker did not drain in time: ${err instanceof Error ? err.message : String(err)}`));
    telemetry.stop();
    await crashWatch.close();
    await events.close();
    await nc.drain();
    await connection.close();
    await metricsServer.close();
    await tracing.shutdown();
  }, (m) => log.info(m), shutdown.forceMs + 1_000);
  const running = worker.run();
  await crashWatch.watcher.start();
  void telemetry.publishNow(); // gateways list this worker at once, not an interval later
  // Printed whatever the log level: `strand up` and the tests wait for this line.
  if (readyFile) fs.writeFileSync(readyFile, `${process.pid}\n`);
  console.log(`[worker] ready task_queue=${taskQueue} host=${host} temporal=${env.temporalAddress} nats=${env.natsUrl} metrics=http://127.0.0.1:${metricsServer.port}/metrics${tracing.enabled ? ' tracing=on' : ''}`);
  // The LLM SDKs are not loaded before ready (activities/providers/sdk-modules.ts); those a step here
  // may use are loaded now, so the first step with a real model does not wait for them.
  setImmediate(() => loadConfiguredSdks(providerEndpoints(process.env)));
  // A run that ends while stopping is the shutdown's to finish and report (onShutdown exits).
  await running.catch((err: unknown) => {
    if (!stopping) throw err;
  });
}

main().catch((err: unknown) => {
  console.error(`[worker] fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

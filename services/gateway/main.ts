import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { runtimeEnv } from '../common/env';
import { createLogger } from '../common/logger';
import { startTracing } from '../common/tracing';
import { telemetryIntervalMs, temporalUiUrl } from '../common/telemetry-config';
import { connectNats } from '../common/nats';
import { onShutdown } from '../common/shutdown';
import { createGatewayAuth, loadTokens } from './auth/tokens';
import { ednConfigFromEnv } from './edn/edn-config';
import { ednSessionHandlerFactory } from './edn/session/index';
import { startEdnTcpServer } from './edn/tcp-server';
import { gatewayConfig, isLoopback } from './config';
import { createHttpApp } from './http/app';
import { gatewayTelemetry } from './http/metrics-sources';
import { rateLimitFromEnv } from './http/rate-limit';
import { answerClientErrors, httpServerOptions, unreadBodyLimits } from './http/server-limits';
import { drainUnreadBody } from './http/unread-body';
import { ConnectionLimiter } from './limits/connection-limiter';
import { startOperatorTelemetry } from './operator/operator-telemetry';
import { SessionOwners } from './operator/session-owners';
import { openSessionRuntime } from './session-runtime';
import { Transcripts, transcriptsDir } from './transcripts/transcripts';
import { attachRpcServer } from './ws/rpc-server';
import { processTasks } from './ws/task-registry';

async function main(): Promise<void> {
  const env = runtimeEnv();
  const config = gatewayConfig();
  const ednConfig = ednConfigFromEnv();
  const log = createLogger('gateway', env.logLevel);
  // Before any Temporal client exists: its interceptors send spans to this provider (docs/observability.md).
  const tracing = startTracing('gateway');
  log.info(config.defaultModelNotice);
  const auth = createGatewayAuth(loadTokens());
  // Without tokens anyone who can reach the port drives an agent that runs commands: loopback only.
  if (!auth.enabled && !isLoopback(config.host)) {
    throw new Error(`STRAND_GATEWAY_HOST=${config.host} is not a loopback address and no tokens are configured: set STRAND_TOKENS or STRAND_TOKENS_FILE, or bind 127.0.0.1`);
  }
  log.info(auth.enabled ? 'bearer tokens required on every transport' : 'no tokens configured: auth is off, loopback only');

  // The gateway waits for NATS however long it takes (start order does not matter); `strand rpc-edn` builds the same runtime.
  const nc = await connectNats(env.natsUrl, 'strand-gateway');
  const runtime = await openSessionRuntime(nc, { env, config, log });
  const { store, temporal, sessions, turns, jobs } = runtime;
  const sseConnections = new ConnectionLimiter(config.limits.maxSseConnections);
  const wsConnections = new ConnectionLimiter(config.limits.maxWsConnections);
  const started: { edn?: Awaited<ReturnType<typeof startEdnTcpServer>> } = {};
  const telemetry = gatewayTelemetry({ runtime, sse: sseConnections, websocket: wsConnections, edn: () => started.edn, tracing });
  // The operator view's data: this gateway's snapshot out, everyone's in (docs/observability.md).
  const operator = startOperatorTelemetry({ nc, registry: telemetry.registry, intervalMs: telemetryIntervalMs(), log: { debug: (m) => log.debug(m), warn: (o, m) => log.warn(o, m) } });
  const app = createHttpApp({
    store,
    nc,
    temporal,
    sessions,
    turns,
    jobs,
    keepaliveMs: 15_000,
    maxBodyBytes: config.maxBodyBytes,
    log,
    auth,
    transcripts: new Transcripts({ store, sessions, dir: transcriptsDir() }),
    rateLimit: rateLimitFromEnv(),
    sseConnections,
    maxSendBufferBytes: config.limits.maxSendBufferBytes,
    slowConsumerMs: config.limits.slowConsumerMs,
    ...(config.publicUrl !== undefined ? { publicUrl: config.publicUrl } : {}),
    telemetry,
    operator: { aggregator: operator.aggregator, owners: new SessionOwners(store), temporalUi: temporalUiUrl() },
  });
  // Listening before the HTTP server starts: once /healthz answers (the stack's readiness), EDN is up too.
  const edn = (started.edn = await startEdnTcpServer(config.host, ednConfig.port, { factory: ednSessionHandlerFactory({ sessions, jobs, log }), auth, log, config: ednConfig, cwd: process.cwd() }));
  const server = serve({ fetch: drainUnreadBody(app.fetch, unreadBodyLimits(config.maxBodyBytes, config.limits)), hostname: config.host, port: config.port, serverOptions: httpServerOptions(config.limits) }, (info) => {
    const url = `http://${config.host}:${info.port}`;
    console.log(`[gateway] ready url=${url} docs=${config.publicUrl ?? url}/api/docs edn=${config.host}:${edn.port} default_model=${config.defaultModel}`);
  });
  answerClientErrors(server as Server);
  const rpc = attachRpcServer(server, {
    sessions,
    turns,
    log,
    auth,
    tasks: processTasks,
    limits: {
      connections: wsConnections,
      maxSendBufferBytes: config.limits.maxSendBufferBytes,
      slowConsumerMs: config.limits.slowConsumerMs,
      maxFrameBytes: config.limits.maxWsFrameBytes,
      pingIntervalMs: config.limits.wsPingIntervalMs,
    },
  });
  onShutdown(async () => {
    operator.close();
    rpc.close();
    await edn.close();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Open SSE streams would hold close() forever: end them.
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    });
    await runtime.close();
    await tracing.shutdown();
  }, (m) => log.info(m));
}

main().catch((err: unknown) => {
  console.error(`[gateway] fatal: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});

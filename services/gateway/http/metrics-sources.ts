import { agentPhaseSchema } from '../../../contracts/agent-phase';
import { createMetricsRegistry, metricsText, type MetricsRegistry } from '../../common/metrics';
import { createGatewayMetrics } from '../../common/metrics-gateway';
import type { Tracing } from '../../common/tracing';
import type { EdnTcpServer } from '../edn/tcp-server';
import type { ConnectionLimiter } from '../limits/connection-limiter';
import type { SessionRuntime } from '../session-runtime';
import { listRunningJobs } from '../temporal/jobs';
import type { HttpTelemetry } from './metrics-route';

/** How long a scrape waits for Temporal's list of running turns before leaving them out. */
const RUNNING_TURNS_TIMEOUT_MS = 2_000;

/**
 * The gateway's telemetry over what it already runs: its connection limiters and EDN server (counts),
 * its live event read (lag), Temporal's visibility (running turns by phase). `edn` is asked for at
 * scrape time because the EDN server starts after the HTTP app is built.
 */
export function gatewayTelemetry(deps: {
  runtime: Pick<SessionRuntime, 'reader' | 'temporal'>;
  sse: ConnectionLimiter;
  websocket: ConnectionLimiter;
  edn: () => EdnTcpServer | undefined;
  tracing: Tracing;
}): HttpTelemetry & { registry: MetricsRegistry } {
  const registry = createMetricsRegistry('gateway');
  const { reader, temporal } = deps.runtime;
  const metrics = createGatewayMetrics(registry, {
    connections: () => ({
      sse: deps.sse.activeOf('sse'),
      chat_stream: deps.sse.activeOf('chat_stream'),
      websocket: deps.websocket.active,
      edn: deps.edn()?.connections ?? 0,
    }),
    eventLag: () => reader.liveLag(),
    liveSessions: () => reader.liveSessions,
    async runningTurns() {
      const client = temporal.current;
      if (!client) return undefined;
      const jobs = await temporal.withDeadline(RUNNING_TURNS_TIMEOUT_MS, () => listRunningJobs(client));
      // Every phase a running turn can be in, 0 when none is: a dashboard sees no gaps.
      const byPhase: Record<string, number> = Object.fromEntries(agentPhaseSchema.options.filter((p) => p !== 'idle').map((p) => [p, 0]));
      for (const job of jobs) byPhase[job.phase] = (byPhase[job.phase] ?? 0) + 1;
      return byPhase;
    },
  });
  return {
    metrics,
    registry, // the telemetry snapshots read it too (services/gateway/operator/)
    render: () => metricsText(registry),
    ...(deps.tracing.enabled ? { tracer: deps.tracing.tracer } : {}),
  };
}

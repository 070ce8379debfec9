import { Counter, Gauge, Histogram } from 'prom-client';
import { LATENCY_BUCKETS, type MetricsRegistry } from './metrics';

/** Where the gateway's gauges are read from when Prometheus scrapes (docs/observability.md). */
export interface GatewayGaugeSources {
  /** Open connections by protocol: sse, chat_stream, websocket, edn. */
  connections(): Record<string, number>;
  /** Events stored but not yet read by the live event read; undefined before any client watched. */
  eventLag(): Promise<number | undefined>;
  /** Sessions the live read has a feed for. */
  liveSessions(): number;
  /** Running turns by phase (Temporal visibility, the whole cluster's); undefined while Temporal does not answer. */
  runningTurns(): Promise<Record<string, number> | undefined>;
}

export interface GatewayMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  requestDuration: Histogram<'method' | 'route'>;
}

/**
 * The gateway's metrics. Counters of its own requests; gauges read at scrape time from what already
 * keeps count (the connection limiters, the EDN server, the live event read), so nothing on a client's
 * path pays for them; and running turns by phase (waiting_approval is the turns waiting for a person),
 * the same on every gateway since they read Temporal's view of the cluster.
 */
export function createGatewayMetrics(registers: MetricsRegistry, sources: GatewayGaugeSources): GatewayMetrics {
  const r = { registers: [registers] };
  new Gauge({
    ...r,
    name: 'strand_gateway_connections',
    help: 'Open client connections by protocol (sse and chat_stream are event streams; websocket and edn carry any number of session streams)',
    labelNames: ['protocol'],
    collect() {
      for (const [protocol, open] of Object.entries(sources.connections())) this.set({ protocol }, open);
    },
  });
  new Gauge({
    ...r,
    name: 'strand_gateway_event_lag',
    help: "Agent events stored in JetStream that the gateway's live read has not read yet (absent before a client watched)",
    async collect() {
      const lag = await sources.eventLag().catch(() => undefined);
      this.reset();
      if (lag !== undefined) this.set(lag);
    },
  });
  new Gauge({
    ...r,
    name: 'strand_gateway_live_sessions',
    help: 'Sessions whose live events this gateway reads for its clients',
    collect() {
      this.set(sources.liveSessions());
    },
  });
  new Gauge({
    ...r,
    name: 'strand_turns_running',
    help: 'Running turns by phase, across the cluster (Temporal visibility; every gateway reports the same)',
    labelNames: ['phase'],
    async collect() {
      const byPhase = await sources.runningTurns().catch(() => undefined);
      this.reset();
      for (const [phase, n] of Object.entries(byPhase ?? {})) this.set({ phase }, n);
    },
  });
  return {
    requests: new Counter({ ...r, name: 'strand_http_requests_total', help: 'HTTP requests answered, by method, route template and status', labelNames: ['method', 'route', 'status'] }),
    requestDuration: new Histogram({ ...r, name: 'strand_http_request_duration_seconds', help: 'Until the response head (an event stream: until it opened), by method and route template', labelNames: ['method', 'route'], buckets: LATENCY_BUCKETS }),
  };
}

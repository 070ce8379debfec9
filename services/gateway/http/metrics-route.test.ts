import pino from 'pino';
import { Writable } from 'node:stream';
import { createMetricsRegistry, metricsText } from '../../common/metrics';
import { createGatewayMetrics } from '../../common/metrics-gateway';
import { logContextFields } from '../../common/tracing-log-context';
import { createGatewayAuth } from '../auth/tokens';
import { telemetryRoutes } from './metrics-route';
import { openApiApp } from './openapi/route-kit';

/** The telemetry routes in front of one API route, as app.ts mounts them, with a logger like the gateway's. */
function gateway(tokens: Record<string, string>) {
  const registry = createMetricsRegistry('gateway');
  const metrics = createGatewayMetrics(registry, {
    connections: () => ({ sse: 2, chat_stream: 0, websocket: 1, edn: 0 }),
    eventLag: async () => 3,
    liveSessions: () => 1,
    runningTurns: async () => undefined,
  });
  const lines: Array<Record<string, unknown>> = [];
  const log = pino(
    { base: null, timestamp: false, mixin: logContextFields },
    new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    }),
  );
  const app = openApiApp();
  app.route('/', telemetryRoutes({ metrics, render: () => metricsText(registry) }, createGatewayAuth(new Map(Object.entries(tokens))), { perSecond: 100, burst: 100 }));
  app.get('/api/sessions/:id/things', (c) => {
    log.info('handling');
    return c.json({ ok: true });
  });
  return { app, lines };
}

test('/metrics needs a token when tokens are configured, like every API route', async () => {
  const { app } = gateway({ secret: 'alice' });
  expect((await app.request('/metrics')).status).toBe(401);
  expect((await app.request('/metrics', { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
  const ok = await app.request('/metrics', { headers: { Authorization: 'Bearer secret' } });
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await ok.text();
  expect(text).toContain('strand_gateway_connections{protocol="sse",service="gateway"} 2');
  expect(text).toContain('strand_gateway_event_lag{service="gateway"} 3');
  // Phases Temporal did not answer for are left out, not reported as 0.
  expect(text).not.toMatch(/^strand_turns_running\{/m);
});

test('a request is counted by its route template, answers its id, and its log lines carry that id and the session', async () => {
  const { app, lines } = gateway({});
  const sent = await app.request('/api/sessions/s%2F1/things', { headers: { 'X-Request-Id': 'client-chosen.42' } });
  expect(sent.headers.get('x-request-id')).toBe('client-chosen.42');
  const made = await app.request('/api/sessions/s2/things', { headers: { 'X-Request-Id': 'not ok: spaces' } });
  const madeId = made.headers.get('x-request-id');
  expect(madeId).toMatch(/^[0-9a-f-]{36}$/);
  expect(lines).toEqual([
    { level: 30, request_id: 'client-chosen.42', session: 's/1', msg: 'handling' },
    { level: 30, request_id: madeId, session: 's2', msg: 'handling' },
  ]);
  await app.request('/no/such/route');
  const text = await (await app.request('/metrics')).text();
  expect(text).toContain('strand_http_requests_total{method="GET",route="/api/sessions/:id/things",status="200",service="gateway"} 2');
  expect(text).toContain('strand_http_requests_total{method="GET",route="unmatched",status="404",service="gateway"} 1');
  // /metrics itself is not counted: scrapes would drown the API's figures.
  expect(text).not.toContain('route="/metrics"');
});

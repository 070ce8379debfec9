import { randomUUID } from 'node:crypto';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { SpanKind, context, propagation, type Span, type TextMapGetter, type Tracer } from '@opentelemetry/api';
import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { GatewayMetrics } from '../../common/metrics-gateway';
import { withLogFields } from '../../common/tracing-log-context';
import type { GatewayAuth } from '../auth/tokens';
import { authMiddleware } from './auth-middleware';
import { openApiApp } from './openapi/route-kit';
import { rateLimit } from './rate-limit';

/** What the HTTP app measures and serves for observability (docs/observability.md). */
export interface HttpTelemetry {
  metrics: GatewayMetrics;
  /** The gateway's metrics as Prometheus text. */
  render(): Promise<{ contentType: string; body: string }>;
  /** Present while tracing is on: every request gets a server span. */
  tracer?: Tracer;
}

/**
 * Request ids, spans and request metrics for every route of the app (the middleware applies to the
 * routes mounted after it), and `GET /metrics`, which needs a token when tokens are configured. The
 * metrics are Prometheus's format, not the JSON API's: the route is not in the API document
 * (docs/observability.md describes it), so the document is the same whether telemetry is mounted.
 */
export function telemetryRoutes(telemetry: HttpTelemetry, auth: GatewayAuth, limits: { perSecond: number; burst: number }): OpenAPIHono {
  const app = openApiApp();
  app.use('*', requestTelemetry(telemetry));
  app.use('/metrics', authMiddleware(auth));
  app.use('/metrics', rateLimit(limits));
  app.get('/metrics', async (c) => {
    const { contentType, body } = await telemetry.render();
    c.header('Cache-Control', 'no-store');
    return c.body(body, 200, { 'Content-Type': contentType });
  });
  return app;
}

/** An id a client sent that is safe to echo and log; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SESSION_PATH = /^\/api\/sessions\/([^/]+)/;

const headerGetter: TextMapGetter<Headers> = {
  get: (carrier, key) => carrier.get(key) ?? undefined,
  keys: (carrier) => [...carrier.keys()],
};

/**
 * Every request gets an id (the client's `X-Request-Id` when it sent a usable one), answered in
 * `X-Request-Id` and carried, with the session the path names, by every log line written while the
 * request is handled; is counted and timed by its route template (never the raw path: ids would grow
 * the series without bound); and, with tracing on, runs in a server span that continues a client's
 * `traceparent`, so the Temporal calls it makes (and the workflow behind them) join its trace.
 */
function requestTelemetry(telemetry: HttpTelemetry): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path === '/metrics') return next();
    const sent = c.req.header('X-Request-Id');
    const requestId = sent && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
    c.header('X-Request-Id', requestId);
    const session = sessionOf(c.req.path);
    const started = performance.now();
    const handle = async (span?: Span) => {
      try {
        await next();
      } finally {
        const route = routeOf(c);
        const status = c.res.status;
        telemetry.metrics.requests.inc({ method: c.req.method, route, status: String(status) });
        telemetry.metrics.requestDuration.observe({ method: c.req.method, route }, (performance.now() - started) / 1000);
        if (span) {
          span.updateName(`${c.req.method} ${route}`);
          span.setAttributes({ 'http.request.method': c.req.method, 'http.route': route, 'http.response.status_code': status, 'strand.request_id': requestId });
          if (session) span.setAttribute('strand.session_id', session);
          span.end();
        }
      }
    };
    const fields = { request_id: requestId, ...(session ? { session } : {}) };
    return withLogFields(fields, () => {
      const tracer = telemetry.tracer;
      if (!tracer) return handle();
      const parent = propagation.extract(context.active(), c.req.raw.headers, headerGetter);
      return tracer.startActiveSpan(c.req.method, { kind: SpanKind.SERVER }, parent, handle);
    });
  };
}

/** The session a path names, if any (a malformed escape is not one). */
function sessionOf(path: string): string | undefined {
  const raw = SESSION_PATH.exec(path)?.[1];
  try {
    return raw === undefined ? undefined : decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The route template that answered (`/api/sessions/:id/prompt`), or `unmatched`. */
function routeOf(c: Context): string {
  const path = routePath(c, -1);
  return !path || path.endsWith('*') ? 'unmatched' : path;
}

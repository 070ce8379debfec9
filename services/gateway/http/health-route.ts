import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM } from '../../../contracts/agent-event-stream';
import { healthyReplySchema, unhealthyReplySchema } from '../../../contracts/http-replies';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { TemporalLink } from '../temporal/temporal-link';
import { jsonReply, openApiApp, PUBLIC } from './openapi/route-kit';

export interface HealthDeps {
  temporal: TemporalLink;
  nc: NatsConnection;
  store: StoreClient;
}

const CHECK_TIMEOUT_MS = 1_500;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS).unref()),
  ]);
}

const health = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'health',
  summary: 'Whether Temporal, NATS and the session store answer',
  tags: ['service'],
  ...PUBLIC,
  responses: {
    200: jsonReply(healthyReplySchema, 'Everything answers.'),
    503: jsonReply(unhealthyReplySchema, 'Something does not answer (named in `missing`).'),
  },
});

const live = createRoute({
  method: 'get',
  path: '/livez',
  operationId: 'live',
  summary: 'Whether this gateway process serves HTTP (nothing it depends on is asked)',
  tags: ['service'],
  ...PUBLIC,
  responses: {
    200: jsonReply(healthyReplySchema, 'This gateway answers.'),
  },
});

/**
 * `GET /livez`: 200 `{ok:true}` while this gateway serves HTTP, whatever its dependencies do.
 * `GET /healthz`: 200 `{ok:true}` once Temporal, NATS (with the agent-events stream) and the session
 * store all answer; otherwise 503 with what is missing, so `strand up` and load balancers can wait.
 */
export function healthRoute(deps: HealthDeps): OpenAPIHono {
  const app = openApiApp();
  // For a load balancer choosing between gateways: what sets one gateway apart from another is only
  // whether it serves. /healthz asks Temporal, NATS and the store, which every gateway shares, so it
  // fails on all of them at once during a NATS leader change and would leave the balancer none.
  app.openapi(live, (c) => c.json({ ok: true as const }, 200));
  app.openapi(health, async (c) => {
    const checks: Record<string, () => Promise<unknown>> = {
      temporal: () => deps.temporal.ping(CHECK_TIMEOUT_MS),
      nats: async () => {
        if (deps.nc.isClosed()) throw new Error('NATS connection is closed');
        await (await deps.nc.jetstreamManager()).streams.info(AGENT_EVENTS_STREAM);
      },
      store: () => deps.store.configStatus({}),
    };
    const missing: Record<string, string> = {};
    await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await withTimeout(check(), name);
        } catch (err) {
          missing[name] = (err as Error).message;
        }
      }),
    );
    if (Object.keys(missing).length === 0) return c.json({ ok: true as const }, 200);
    return c.json({ ok: false as const, missing }, 503);
  });
  return app;
}

import { Hono } from 'hono';
import type { NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM } from '../../../contracts/agent-event-stream';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { TemporalLink } from '../temporal/temporal-link';

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

/**
 * `GET /healthz`: 200 `{ok:true}` once Temporal, NATS (with the agent-events stream) and the session
 * store all answer; otherwise 503 with what is missing, so `strand up` and load balancers can wait.
 */
export function healthRoute(deps: HealthDeps): Hono {
  const app = new Hono();
  app.get('/healthz', async (c) => {
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
    if (Object.keys(missing).length === 0) return c.json({ ok: true });
    return c.json({ ok: false, missing }, 503);
  });
  return app;
}

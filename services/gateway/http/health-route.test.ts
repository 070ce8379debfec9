import type { NatsConnection } from 'nats';
import type { StoreClient } from '../../../contracts/session-store/client';
import type { TemporalLink } from '../temporal/temporal-link';
import { healthRoute } from './health-route';

/** Dependencies that all fail, as during a NATS leader change: nothing answers, the connection is down. */
function failingDeps() {
  const asked: string[] = [];
  const fail = (what: string) => () => {
    asked.push(what);
    return Promise.reject(new Error(`${what} is down`));
  };
  const temporal = { ping: fail('temporal') } as unknown as TemporalLink;
  const nc = { isClosed: () => true, jetstreamManager: fail('nats') } as unknown as NatsConnection;
  const store = { configStatus: fail('store') } as unknown as StoreClient;
  return { deps: { temporal, nc, store }, asked };
}

describe('the gateway health routes', () => {
  it('GET /livez answers 200 while every dependency fails, and asks none of them', async () => {
    const { deps, asked } = failingDeps();
    const res = await healthRoute(deps).request('/livez');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(asked).toEqual([]);
  });

  it('GET /healthz still answers 503 naming each dependency that failed', async () => {
    const { deps } = failingDeps();
    const res = await healthRoute(deps).request('/healthz');
    expect(res.status).toBe(503);
    const body = (await res.json()) as { ok: boolean; missing: Record<string, string> };
    expect(body.ok).toBe(false);
    expect(Object.keys(body.missing).sort()).toEqual(['nats', 'store', 'temporal']);
  });
});

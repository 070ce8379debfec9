import { Hono } from 'hono';
import { rateLimit, rateLimitFromEnv } from './rate-limit';

function app(now: () => number) {
  const a = new Hono();
  a.use('*', async (c, next) => {
    c.set('principal' as never, c.req.header('x-who') as never);
    return next();
  });
  a.use('*', rateLimit({ perSecond: 2, burst: 3, now }));
  a.get('/x', (c) => c.json({ ok: true }));
  return a;
}

describe('rate limit', () => {
  test('a principal over its burst gets 429 with Retry-After; another principal is unaffected; tokens refill', async () => {
    let t = 0;
    const a = app(() => t);
    const call = (who: string) => a.request('/x', { headers: { 'x-who': who } });
    for (let i = 0; i < 3; i++) expect((await call('alice')).status).toBe(200);
    const limited = await call('alice');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('Retry-After')).toBe('1');
    expect(((await limited.json()) as any).error.code).toBe('RATE_LIMITED');
    expect((await call('bob')).status).toBe(200);
    t += 500;
    expect((await call('alice')).status).toBe(200);
    expect((await call('alice')).status).toBe(429);
  });

  test('STRAND_RATE_LIMIT reads per-second and burst', () => {
    expect(rateLimitFromEnv({})).toEqual({ perSecond: 50, burst: 100 });
    expect(rateLimitFromEnv({ STRAND_RATE_LIMIT: '5/7' })).toEqual({ perSecond: 5, burst: 7 });
    expect(rateLimitFromEnv({ STRAND_RATE_LIMIT: '10' })).toEqual({ perSecond: 10, burst: 20 });
  });
});

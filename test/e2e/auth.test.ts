import { spawnSync } from 'node:child_process';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Authentication and tenancy over HTTP: with tokens configured every route needs one; a principal
 * never sees, lists or touches another's session, and a foreign id answers exactly like an unknown one.
 */
let stack: TestStack;
let base: string;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_TOKENS: 'tok-alice:alice,tok-bob:bob' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

async function as(token: string | undefined, method: string, route: string, body?: unknown) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json().catch(() => undefined)) as any, headers: res.headers };
}

test('no token or a wrong one answers 401 on every route; the health check stays open', async () => {
  for (const token of [undefined, 'wrong']) {
    const res = await as(token, 'GET', '/api/sessions');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await as(token, 'POST', '/api/sessions', { project_path: '/tmp/x' })).status).toBe(401);
    expect((await as(token, 'GET', '/api/jobs')).status).toBe(401);
  }
  expect((await http(base, 'GET', '/healthz')).status).toBe(200);
});

test("another principal's session is invisible: not listed, and every route answers exactly as for an unknown id", async () => {
  const created = await as('tok-alice', 'POST', '/api/sessions', { project_path: '/tmp/alice' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await as('tok-alice', 'GET', `/api/sessions/${sid}`)).status).toBe(200);
  expect((await as('tok-alice', 'GET', '/api/sessions')).body.sessions.map((s: any) => s.session_id)).toContain(sid);
  expect((await as('tok-bob', 'GET', '/api/sessions')).body.sessions.map((s: any) => s.session_id)).not.toContain(sid);
  const routes: Array<[string, string, unknown?]> = [
    ['GET', `/api/sessions/${sid}`],
    ['GET', `/api/sessions/${sid}/messages`],
    ['GET', `/api/sessions/${sid}/events?after=0`],
    ['POST', `/api/sessions/${sid}/prompt`, { text: 'hi' }],
    ['POST', `/api/sessions/${sid}/interrupt`],
    ['POST', `/api/sessions/${sid}/fork`, { entry_id: 'x' }],
    ['POST', `/api/sessions/${sid}/thinking`, { level: 'low' }],
    ['GET', `/api/sessions/${sid}/approvals`],
    ['DELETE', `/api/sessions/${sid}`],
  ];
  for (const [method, route, body] of routes) {
    const foreign = await as('tok-bob', method, route, body);
    const unknown = await as('tok-bob', method, route.replace(sid, 'no-such-session'), body);
    expect([route, foreign.status]).toEqual([route, 404]);
    expect(foreign.body.error.code).toBe('SESSION_NOT_FOUND');
    expect(foreign.body.error.message.replace(sid, 'ID')).toBe(unknown.body.error.message.replace('no-such-session', 'ID'));
  }
  // Still there for its owner.
  expect((await as('tok-alice', 'GET', `/api/sessions/${sid}`)).status).toBe(200);
}, 60_000);

test('without tokens the gateway refuses to bind anything but loopback, and says why', () => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'services/gateway/main.ts'], {
    encoding: 'utf8',
    env: { ...process.env, STRAND_GATEWAY_HOST: '0.0.0.0', STRAND_TOKENS: '', STRAND_TOKENS_FILE: '', STRAND_NATS_URL: 'nats://127.0.0.1:1' },
    timeout: 30_000,
  });
  expect(res.status).toBe(1);
  expect(res.stderr).toMatch(/0\.0\.0\.0 is not a loopback address and no tokens are configured/);
});

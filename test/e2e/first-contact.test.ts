import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startStack, type Stack } from '../../infra/stack/stack';
import { openSse, readUntil } from '../harness/sse-client';
import { http as call } from '../harness/stack-fixture';

/**
 * What a newcomer meets right after `npm start` (issue 22): the stack as `strand up` starts it (with
 * its warm-up) on free ports; the first prompt sent the moment it says ready is accepted and its turn
 * runs to the end, in order; an unknown route answers 404 NOT_FOUND; the API document names the
 * address the client used, not a fixed port.
 */
let stack: Stack;
let dataDir: string;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-e2e-first-'));
  stack = await startStack(
    { dataDir, host: '127.0.0.1', ports: { temporal: 0, temporalUi: 0, nats: 0, gateway: 0 }, ui: false, serviceEnv: { STRAND_LOG_LEVEL: 'warn' }, instances: { worker: 2 } },
    (name, line) => lines.push(`[${name}] ${line}`),
    { warmUp: true },
  );
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

test('the first prompt after ready is accepted and its turn runs to the end, in order; the warm-up left no session behind', async () => {
  const base = stack.urls.gateway;
  // The stack said what it did before it resolved, and nothing it did was skipped.
  expect(lines.filter((l) => l.startsWith('[strand] '))).toEqual([expect.stringMatching(/^\[strand\] warmed up with 4 throwaway turns in \d+ ms$/)]);
  const listed = await call(base, 'GET', '/api/sessions');
  expect(listed.body.sessions.filter((s: { status: string }) => s.status !== 'closed')).toEqual([]);

  const created = await call(base, 'POST', '/api/sessions', { project_path: dataDir, model: 'scripted/echo' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  const accepted = await call(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'hello, first prompt' });
  expect([accepted.status, accepted.body]).toEqual([202, { status: 'accepted', agent_state: 'thinking', turn_id: 't1', queued: false }]);
  const turn = await readUntil(events, (e) => e.event === 'agent.state' && JSON.parse(e.data).state === 'idle');
  events.close();
  const types = turn.map((e) => e.event).filter((t, i, all) => t !== 'message.delta' || all[i - 1] !== 'message.delta');
  expect(types).toEqual(['agent.state', 'message.delta', 'message.done', 'usage', 'turn.finished', 'agent.state']);
  expect(JSON.parse(turn.find((e) => e.event === 'turn.finished')!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'done' });
  expect(JSON.parse(turn.find((e) => e.event === 'message.done')!.data)).toMatchObject({ content: 'You said: hello, first prompt' });
});

test('an unknown route answers 404 NOT_FOUND with the usual error body', async () => {
  const base = stack.urls.gateway;
  for (const [method, route] of [['GET', '/api/nope'], ['POST', '/api/sessions/x/nope'], ['GET', '/nothing-here']] as const) {
    const res = await call(base, method, route, method === 'POST' ? {} : undefined);
    expect([res.status, res.body]).toEqual([404, { error: { code: 'NOT_FOUND', message: `no route ${method} ${route}`, details: {} } }]);
  }
});

/** GET /api/openapi.json with the Host header a client on another name would send. */
function documentVia(host: string): Promise<{ servers: { url: string }[] }> {
  const { port } = new URL(stack.urls.gateway);
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/api/openapi.json', headers: { Host: host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve(JSON.parse(body) as { servers: { url: string }[] }));
    });
    req.on('error', reject);
  });
}

test('the API document names the address the client used (the port is a random one here, not 9420)', async () => {
  const base = stack.urls.gateway;
  const { port } = new URL(base);
  expect(port).not.toBe('9420');
  const res = await call(base, 'GET', '/api/openapi.json');
  expect(res.body.servers).toEqual([{ url: base }]);
  expect((await documentVia(`localhost:${port}`)).servers).toEqual([{ url: `http://localhost:${port}` }]);
});

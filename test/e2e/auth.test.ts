import { spawnSync } from 'node:child_process';
import { WebSocket } from 'ws';
import { decodeTaskId, encodeTaskId, newRequestKey, newSessionId } from '../../services/gateway/ws/task-ids';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId, type RpcTestClient } from '../harness/ws-rpc-client';

/**
 * Authentication and tenancy over HTTP and WebSocket: with tokens configured every route and the
 * upgrade need one; a principal never sees, lists or touches another's session, job or task, and a
 * foreign id answers exactly like an unknown one.
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

async function as(token: string | undefined, method: string, route: string, body?: unknown, authorization = token ? `Bearer ${token}` : undefined) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(authorization ? { Authorization: authorization } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
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

/** Every session route, with a valid body where it takes one. */
const sessionRoutes = (sid: string): Array<[string, string, unknown?]> => [
  ['GET', `/api/sessions/${sid}`],
  ['GET', `/api/sessions/${sid}/messages`],
  ['GET', `/api/sessions/${sid}/events?after=0`],
  ['GET', `/api/sessions/${sid}/fork-points`],
  ['GET', `/api/sessions/${sid}/last-assistant-text`],
  ['GET', `/api/sessions/${sid}/stats`],
  ['GET', `/api/sessions/${sid}/transcript?format=markdown`],
  ['GET', `/api/sessions/${sid}/approvals`],
  ['POST', `/api/sessions/${sid}/prompt`, { text: 'hi' }],
  ['POST', `/api/sessions/${sid}/steer`, { text: 'hi' }],
  ['POST', `/api/sessions/${sid}/interrupt`],
  ['POST', `/api/sessions/${sid}/abort-retry`],
  ['POST', `/api/sessions/${sid}/resume`],
  ['POST', `/api/sessions/${sid}/fork`, { entry_id: 'x' }],
  ['POST', `/api/sessions/${sid}/approve`, { tool_call_id: 'call_x' }],
  ['POST', `/api/sessions/${sid}/reject`, { tool_call_id: 'call_x' }],
  ['POST', `/api/sessions/${sid}/model`, { provider: 'scripted', model_id: 'echo' }],
  ['POST', `/api/sessions/${sid}/thinking`, { level: 'low' }],
  ['POST', `/api/sessions/${sid}/compact`, {}],
  ['PATCH', `/api/sessions/${sid}/settings`, { name: 'x' }],
  ['DELETE', `/api/sessions/${sid}`],
];

test('no token, a wrong token or another scheme answers 401 on every HTTP route', async () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/api/sessions'],
    ['POST', '/api/sessions', { project_path: '/tmp/x' }],
    ...sessionRoutes('any-session'),
    ['GET', '/api/jobs'],
    ['POST', '/api/jobs', { version: 1, task: { prompt: 'x', project_path: '/tmp/x', model: 'scripted/echo' } }],
    ['GET', '/api/jobs/any-job'],
    ['GET', '/api/jobs/any-job/report'],
    ['POST', '/api/jobs/any-job/cancel'],
    ['POST', '/api/jobs/any-job/escalations/call_x', { decision: 'allow' }],
    ['GET', '/api/turns'],
    ['GET', '/api/turns/any-turn'],
    ['POST', '/api/turns/any-turn/cancel'],
    ['GET', '/api/transcripts?project=/tmp/x'],
    ['GET', '/v1/status'],
    ['POST', '/v1/chat/stream', { message: 'hi', history: [], model: '' }],
  ];
  const callers: Array<[string | undefined, string | undefined]> = [
    [undefined, undefined],
    ['wrong', undefined],
    [undefined, 'Basic dG9rLWFsaWNlOg=='],
    [undefined, 'tok-alice'],
  ];
  for (const [method, route, body] of routes) {
    for (const [token, authorization] of callers) {
      const res = await as(token, method, route, body, authorization ?? (token ? `Bearer ${token}` : undefined));
      expect([method, route, authorization ?? token, res.status]).toEqual([method, route, authorization ?? token, 401]);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
  }
  // Open without a token: the health check and the API's own description.
  expect((await http(base, 'GET', '/healthz')).status).toBe(200);
  for (const route of ['/api/openapi.json', '/api/docs']) expect((await as(undefined, 'GET', route)).status).not.toBe(401);
}, 60_000);

test("another principal's session is invisible: not listed, and every route answers exactly as for an unknown id", async () => {
  const created = await as('tok-alice', 'POST', '/api/sessions', { project_path: '/tmp/alice' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await as('tok-alice', 'GET', `/api/sessions/${sid}`)).status).toBe(200);
  expect((await as('tok-alice', 'GET', '/api/sessions')).body.sessions.map((s: any) => s.session_id)).toContain(sid);
  expect((await as('tok-bob', 'GET', '/api/sessions')).body.sessions.map((s: any) => s.session_id)).not.toContain(sid);
  const routes = sessionRoutes(sid);
  for (const [method, route, body] of routes) {
    const foreign = await as('tok-bob', method, route, body);
    const unknown = await as('tok-bob', method, route.replace(sid, 'no-such-session'), body);
    expect([route, foreign.status]).toEqual([route, 404]);
    expect(foreign.body.error.code).toBe('SESSION_NOT_FOUND');
    expect(foreign.body.error.message.replace(sid, 'ID')).toBe(unknown.body.error.message.replace('no-such-session', 'ID'));
  }
  // Still there for its owner, untouched.
  const after = await as('tok-alice', 'GET', `/api/sessions/${sid}`);
  expect(after.status).toBe(200);
  expect(after.body.message_count).toBe(0);
}, 60_000);

test("another principal's running turn is not listed, not shown and not cancelled: it answers as an unknown turn", async () => {
  const sid = (await as('tok-alice', 'POST', '/api/sessions', { project_path: '/tmp/alice', model: 'scripted/slow' })).body.session_id as string;
  expect((await as('tok-alice', 'POST', `/api/sessions/${sid}/prompt`, { text: 'take your time' })).status).toBe(202);
  let job: any;
  for (let i = 0; i < 100 && !job; i++) {
    job = (await as('tok-alice', 'GET', '/api/turns')).body.turns.find((j: any) => j.session_id === sid);
    if (!job) await new Promise((r) => setTimeout(r, 100));
  }
  expect(job).toBeDefined();
  expect((await as('tok-bob', 'GET', '/api/turns')).body.turns.map((j: any) => j.session_id)).not.toContain(sid);
  for (const [method, suffix] of [['GET', ''], ['POST', '/cancel']] as const) {
    const foreign = await as('tok-bob', method, `/api/turns/${job.job_id}${suffix}`);
    const unknown = await as('tok-bob', method, `/api/turns/no-such-turn${suffix}`);
    expect([suffix, foreign.status, foreign.body.error.code]).toEqual([suffix, 404, 'TURN_NOT_FOUND']);
    expect(foreign.body.error.message.replace(job.job_id, 'ID')).toBe(unknown.body.error.message.replace('no-such-turn', 'ID'));
  }
  // Bob's cancel did nothing: the turn still runs for Alice until she stops it.
  expect((await as('tok-alice', 'GET', `/api/turns/${job.job_id}`)).status).toBe(200);
  expect((await as('tok-alice', 'POST', `/api/sessions/${sid}/interrupt`)).body.status).toBe('interrupted');
}, 60_000);

test('WebSocket: the upgrade needs the bearer subprotocol (401 without it or with a wrong token) and echoes the right one', async () => {
  const url = `${base.replace(/^http/, 'ws')}/v1/rpc`;
  const upgrade = (protocols: string[]) =>
    new Promise<{ status?: number; protocol?: string }>((resolve) => {
      const ws = new WebSocket(url, protocols);
      ws.once('open', () => {
        resolve({ protocol: ws.protocol });
        ws.close();
      });
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
      ws.once('error', () => undefined);
    });
  expect(await upgrade([])).toEqual({ status: 401 });
  expect(await upgrade(['json'])).toEqual({ status: 401 });
  expect(await upgrade(['bearer.wrong'])).toEqual({ status: 401 });
  expect(await upgrade(['bearer.tok-alicex'])).toEqual({ status: 401 });
  expect(await upgrade(['bearer.tok-alice'])).toEqual({ protocol: 'bearer.tok-alice' });
  expect(await upgrade(['json', 'bearer.tok-bob'])).toEqual({ protocol: 'bearer.tok-bob' });
});

describe('WebSocket tenancy', () => {
  let alice: RpcTestClient;
  let bob: RpcTestClient;
  let taskId: string;
  const unknownTask = encodeTaskId(newSessionId(), newRequestKey());

  beforeAll(async () => {
    const url = `${base.replace(/^http/, 'ws')}/v1/rpc`;
    alice = await connectRpc(url, { protocols: ['bearer.tok-alice'] });
    bob = await connectRpc(url, { protocols: ['bearer.tok-bob'] });
    const start = rpcId();
    alice.send(chatStart(start, 'hello from alice'));
    expect((await alice.terminal(start)).type).toBe('chat.done');
    taskId = alice.of(start).find((f) => f.type === 'chat.accepted')!.taskId as string;
  }, 60_000);

  afterAll(() => {
    alice?.close();
    bob?.close();
  });

  /** Bob's answer to a request about a task, without its request id. */
  async function bobAsks(type: string, task: string) {
    const id = rpcId();
    bob.send({ id, type, payload: { taskId: task } });
    const { id: _id, ...rest } = await bob.waitFor((f) => f.id === id && ['task.status.result', 'chat.error', 'chat.done', 'error'].includes(f.type));
    return rest;
  }

  test("re-attaching to another principal's task answers exactly as for an unknown task", async () => {
    const attached = await bobAsks('chat.attach', taskId);
    const unknown = await bobAsks('chat.attach', unknownTask);
    expect(attached).toMatchObject({ type: 'chat.error', errorCode: 'SESSION_NOT_FOUND' });
    const hide = (frame: Record<string, unknown>, task: string) => JSON.stringify(frame).replaceAll(decodeTaskId(task)!.sessionId, 'ID');
    expect(hide(attached, taskId)).toBe(hide(unknown, unknownTask));
  });

  /** A principal's chat naming `sessionId` over the WebSocket: its frames (ids hidden), its stored session, that session's messages as the principal reads them. */
  async function chatIn(client: RpcTestClient, token: string, sessionId: string, message: string) {
    const id = rpcId();
    client.send(chatStart(id, message, { sessionId }));
    await client.terminal(id);
    const frames = client.of(id);
    const stored = decodeTaskId(frames.find((f) => f.type === 'chat.accepted')!.taskId as string)!.sessionId;
    const messages = (await as(token, 'GET', `/api/sessions/${stored}/messages`)).body.messages.map((m: any) => `${m.message.role}:${m.message.content[0].text}`);
    // `seq` is the event's place in the stream all sessions share: only its steps within the chat matter here.
    const first = frames.find((f) => typeof f.seq === 'number')?.seq as number | undefined;
    const shown = frames.map(({ id: _id, taskId: _task, ...rest }) => (typeof rest.seq === 'number' ? { ...rest, seq: rest.seq - first! } : rest));
    return { stored, messages, shown };
  }

  test("a chat naming another principal's session id runs in a session of his own, exactly as for an unknown id; hers is untouched", async () => {
    const sid = decodeTaskId(taskId)!.sessionId;
    const before = (await as('tok-alice', 'GET', `/api/sessions/${sid}/messages`)).body.messages;
    expect(before.length).toBeGreaterThan(0);
    const foreign = await chatIn(bob, 'tok-bob', sid, 'let me in');
    const unknown = await chatIn(bob, 'tok-bob', newSessionId(), 'let me in');
    // Nothing in Bob's answer tells Alice's id from one nobody has.
    expect(foreign.shown).toEqual(unknown.shown);
    expect(foreign.shown.at(-1)).toMatchObject({ type: 'chat.done', reply: { output: 'You said: let me in' } });
    expect(foreign.messages).toEqual(['user:let me in', 'assistant:You said: let me in']);
    expect(foreign.stored).not.toBe(sid);
    // Her conversation is as it was, and still invisible to him.
    expect((await as('tok-alice', 'GET', `/api/sessions/${sid}/messages`)).body.messages).toEqual(before);
    expect((await as('tok-bob', 'GET', `/api/sessions/${sid}`)).status).toBe(404);
    // Naming it again, he finds his own session; she finds hers.
    expect((await chatIn(bob, 'tok-bob', sid, 'again')).messages).toEqual(['user:let me in', 'assistant:You said: let me in', 'user:again', 'assistant:You said: again']);
    expect((await chatIn(alice, 'tok-alice', sid, 'still mine')).messages).toEqual([...before.map((m: any) => `${m.message.role}:${m.message.content[0].text}`), 'user:still mine', 'assistant:You said: still mine']);
  }, 60_000);

  test('a client-chosen session id is scoped per principal: the same name gives each principal a session of its own, found again by name', async () => {
    const name = `sess_${Math.random().toString(36).slice(2, 12)}`;
    const hers = await chatIn(alice, 'tok-alice', name, 'alice here');
    const his = await chatIn(bob, 'tok-bob', name, 'bob here');
    expect(his.stored).not.toBe(hers.stored);
    expect(hers.messages).toEqual(['user:alice here', 'assistant:You said: alice here']);
    expect(his.messages).toEqual(['user:bob here', 'assistant:You said: bob here']);
    expect((await as('tok-bob', 'GET', `/api/sessions/${hers.stored}`)).status).toBe(404);
    expect((await chatIn(alice, 'tok-alice', name, 'me again')).stored).toBe(hers.stored);
    // The id the REST API shows names the same session.
    expect((await chatIn(alice, 'tok-alice', hers.stored, 'by id')).stored).toBe(hers.stored);
  }, 60_000);

  test("POST /v1/chat/stream: another principal's session id answers as an unknown one, in a session of the caller's own", async () => {
    const name = `sess_${Math.random().toString(36).slice(2, 12)}`;
    const stream = async (token: string, sessionId: string, message: string) => {
      const res = await fetch(`${base}/v1/chat/stream`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ message, history: [], model: 'scripted/echo', sessionId }),
      });
      const frames = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: ')).map((f) => JSON.parse(f.slice(6)));
      const stored = decodeTaskId(res.headers.get('x-task-id')!)!.sessionId;
      const messages = (await as(token, 'GET', `/api/sessions/${stored}/messages`)).body.messages.map((m: any) => m.message.content[0].text);
      return { status: res.status, frames, stored, messages };
    };
    const hers = await stream('tok-alice', name, 'alice over sse');
    expect(hers.frames.at(-1)).toMatchObject({ type: 'done' });
    const foreign = await stream('tok-bob', name, 'bob over sse');
    const unknown = await stream('tok-bob', `sess_${Math.random().toString(36).slice(2, 12)}`, 'bob over sse');
    expect({ ...foreign, stored: 'ID' }).toEqual({ ...unknown, stored: 'ID' });
    expect(foreign.frames.at(-1)).toMatchObject({ type: 'done', reply: { output: 'You said: bob over sse' } });
    expect(foreign.stored).not.toBe(hers.stored);
    expect((await as('tok-alice', 'GET', `/api/sessions/${hers.stored}/messages`)).body.messages.map((m: any) => m.message.content[0].text)).toEqual(['alice over sse', 'You said: alice over sse']);
    expect((await stream('tok-alice', name, 'alice again')).stored).toBe(hers.stored);
  }, 60_000);

  // The process-wide task registry answers only the principal that started a task (it answered
  // anyone before: a foreign session reads as "not found" and the registry filled in).
  test("task.status of another principal's task answers as for an unknown task (null)", async () => {
    expect(await bobAsks('task.status', unknownTask)).toEqual({ type: 'task.status.result', task: null });
    expect(await bobAsks('task.status', taskId)).toEqual({ type: 'task.status.result', task: null });
  });
});

test('without tokens the gateway refuses to bind anything but loopback, and says why', () => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'services/gateway/main.ts'], {
    encoding: 'utf8',
    env: { ...process.env, STRAND_GATEWAY_HOST: '0.0.0.0', STRAND_TOKENS: '', STRAND_TOKENS_FILE: '', STRAND_NATS_URL: 'nats://127.0.0.1:1' },
    timeout: 30_000,
  });
  expect(res.status).toBe(1);
  expect(res.stderr).toMatch(/0\.0\.0\.0 is not a loopback address and no tokens are configured/);
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect, headers } from 'nats';
import { agentEventSubject, EVENT_TYPE_HEADER } from '../../contracts/agent-event-stream';
import { statusPayloadSchema, taskIdSchema, wsEventSchema, chatStreamTerminalSchema } from '../../contracts/ws-rpc';
import { decodeTaskId } from '../../services/gateway/ws/task-ids';
import { openSse, readUntil } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId, streamedText, TERMINAL, type Frame, type RpcTestClient } from '../harness/ws-rpc-client';

/**
 * The WebSocket JSON RPC protocol (docs/websocket.md) against the real stack: every request type and
 * server frame validated by the protocol's schemas, per-request order with exactly one terminal, the
 * per-connection queue (25 waiting, positions re-sent, aborts), protocol errors, sessions named by
 * the client and seeded from its history, tools, the checklist under the client's name, the SSE
 * variant, and watching over HTTP.
 */
let stack: TestStack;
let base: string;
let wsUrl: string;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-ws-scripts-'));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-ws-project-'));
const clients: RpcTestClient[] = [];

beforeAll(async () => {
  const script = (name: string, steps: unknown[]) => fs.writeFileSync(path.join(scripts, `${name}.json`), JSON.stringify({ steps }));
  script('ws-stall', [[{ type: 'text', text: 'Working on it' }, { type: 'stall' }]]);
  for (const f of ['alpha', 'beta']) {
    script(`ws-read-${f}`, [[{ type: 'text', text: `Reading ${f}.` }, { type: 'tool_call', name: 'read_file', args: { path: `${f}.txt` } }], [{ type: 'text', text: 'First line: {{tool_result_first_line}}' }]]);
    fs.writeFileSync(path.join(workspace, `${f}.txt`), `${f} secret ${f.toUpperCase()}\n`);
  }
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
  base = stack.urls.gateway;
  wsUrl = `${base.replace(/^http/, 'ws')}/v1/rpc`;
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

// Every frame any test received passed the protocol's server-frame schema.
afterEach(() => {
  for (const c of clients) expect(c.invalid).toEqual([]);
});

async function client(): Promise<RpcTestClient> {
  const c = await connectRpc(wsUrl);
  clients.push(c);
  return c;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events = (frames: Frame[]) => frames.filter((f) => f.type === 'chat.event').map((f) => f.event);
const freshSession = () => `sess_${Math.random().toString(36).slice(2, 12)}`;

/** The request's frames are: accepted, queued*, [started, event*], one terminal — nothing after it. */
function expectOrdered(frames: Frame[]): void {
  const types = frames.map((f) => f.type);
  expect(types[0]).toBe('chat.accepted');
  // A chat aborted while it waited never starts.
  const started = types.includes('chat.started') ? types.indexOf('chat.started') : types.length - 1;
  expect(types.slice(1, started).every((t) => t === 'chat.queued')).toBe(true);
  expect(types.slice(started + 1, -1).every((t) => t === 'chat.event')).toBe(true);
  expect(TERMINAL.has(types[types.length - 1]!)).toBe(true);
  expect(types.filter((t) => TERMINAL.has(t))).toHaveLength(1);
}

test('GET /v1/status and status.get answer the strict status payload', async () => {
  const res = await http(base, 'GET', '/v1/status');
  expect(res.status).toBe(200);
  const status = statusPayloadSchema.parse(res.body);
  expect(res.body.protocol_version).toBe('1');
  expect(status).toMatchObject({ ok: true, providers: [], model: 'scripted/echo', service: 'strand' });
  expect(status.provider_auth).toContain('scripted');
  const c = await client();
  const id = rpcId();
  c.send({ id, type: 'status.get' });
  const frame = await c.waitFor((f) => f.id === id);
  expect(frame.type).toBe('status.result');
  expect(statusPayloadSchema.parse(frame.status).protocol_version).toBe('1');
  expect(c.invalid).toEqual([]);
});

test('chat.start: accepted, started, events, then exactly one chat.done with the answer', async () => {
  const c = await client();
  const id = rpcId();
  c.send(chatStart(id, 'hello ordering world', { workspace }));
  const done = await c.terminal(id);
  await sleep(300);
  const frames = c.of(id);
  expectOrdered(frames);
  expect(done.type).toBe('chat.done');
  expect(done.reply).toMatchObject({ output: 'You said: hello ordering world', outputStreamed: true, model: 'scripted/echo', toolCalls: [], modelCalls: 1 });
  expect(done.reply.usage.totalTokens).toBe(done.reply.usage.inputTokens + done.reply.usage.outputTokens);
  expect(streamedText(frames)).toBe('You said: hello ordering world');
  const seqs = frames.filter((f) => f.seq !== undefined).map((f) => f.seq as number);
  expect(seqs.length).toBeGreaterThan(3);
  expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
  expect(c.invalid).toEqual([]);

  const statusId = rpcId();
  c.send({ id: statusId, type: 'task.status', payload: { taskId: frames[0]!.taskId } });
  const task = (await c.waitFor((f) => f.id === statusId)).task;
  expect(task).toMatchObject({ id: frames[0]!.taskId, state: 'completed' });
  expect(Date.parse(task.updatedAt)).toBeGreaterThanOrEqual(Date.parse(task.createdAt));
});

test('a session named by the client is created in its workspace, seeded from its history once, then reused', async () => {
  const c = await client();
  const sid = freshSession();
  const history = [
    { id: 'msg_a1', role: 'user', content: 'my name is Ada', kind: 'text', timestamp: new Date().toISOString() },
    { id: 'msg_a2', role: 'assistant', content: 'Hello Ada', kind: 'text', timestamp: new Date().toISOString() },
    { id: 'msg_a3', role: 'assistant', content: 'thinking…', kind: 'status', timestamp: new Date().toISOString() },
    { id: 'msg_a4', role: 'user', content: 'what is my name', kind: 'text', timestamp: new Date().toISOString() },
  ];
  const first = rpcId();
  c.send(chatStart(first, 'what is my name', { sessionId: sid, history, workspace }));
  expect((await c.terminal(first)).type).toBe('chat.done');
  // Auth is off here: the client's name is the stored id (with tokens it is scoped per principal: auth.test.ts).
  expect(decodeTaskId(c.of(first).find((f) => f.type === 'chat.accepted')!.taskId)?.sessionId).toBe(sid);
  const second = rpcId();
  c.send(chatStart(second, 'again', { sessionId: sid, history: [{ id: 'msg_x', role: 'user', content: 'ignored', timestamp: new Date().toISOString() }], workspace: '/elsewhere' }));
  expect((await c.terminal(second)).reply.output).toBe('You said: again');

  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  const texts = stored.map((m: any) => `${m.message.role}:${m.message.content[0].text}`);
  expect(texts).toEqual(['user:my name is Ada', 'assistant:Hello Ada', 'user:what is my name', 'assistant:You said: what is my name', 'user:again', 'assistant:You said: again']);
  expect((await http(base, 'GET', `/api/sessions/${sid}`)).body.project_path).toBe(workspace);
});

test('a bare model id whose provider is not configured runs on the session model, and says so', async () => {
  const c = await client();
  const id = rpcId();
  c.send(chatStart(id, 'which model', { model: 'gpt-5-mini', workspace }));
  const done = await c.terminal(id);
  expect(done.reply.model).toBe('scripted/echo');
  const notice: any = events(c.of(id)).find((e) => e.type === 'notice');
  expect(notice.message).toContain('gpt-5-mini');
  expect(notice.message).toContain('running on scripted/echo');
});

test('tool events name announced calls, and two tasks running at once never see each other’s arguments', async () => {
  const [a, b] = [await client(), await client()];
  const [ida, idb] = [rpcId(), rpcId()];
  a.send(chatStart(ida, 'read alpha', { model: 'scripted/ws-read-alpha', workspace }));
  b.send(chatStart(idb, 'read beta', { model: 'scripted/ws-read-beta', workspace }));
  const [da, db] = await Promise.all([a.terminal(ida), b.terminal(idb)]);
  for (const [frames, done, mine, other] of [
    [a.of(ida), da, 'alpha', 'beta'],
    [b.of(idb), db, 'beta', 'alpha'],
  ] as const) {
    expectOrdered(frames);
    const evs = events(frames);
    const calls = evs.filter((e) => e.type === 'tool-call');
    expect(calls.map((e) => [e.toolName, e.args])).toEqual([['read_file', { path: `${mine}.txt` }]]);
    const announced = new Set(calls.map((e) => e.toolCallId));
    for (const e of evs.filter((x) => x.type === 'tool-output' || x.type === 'tool-result')) expect(announced.has(e.toolCallId)).toBe(true);
    expect(evs.filter((e) => e.type === 'tool-result')).toHaveLength(1);
    expect(JSON.stringify(frames)).not.toContain(other);
    expect(done.reply).toMatchObject({ toolCalls: ['read_file'], modelCalls: 2 });
    expect(done.reply.output).toMatch(new RegExp(`^First line: .*${mine} secret ${mine.toUpperCase()}$`));
  }
});

test('the checklist goes out as a `tasklist` event, the name the reference client parses', async () => {
  const c = await client();
  const sid = freshSession();
  const id = rpcId();
  c.send(chatStart(id, 'stall while the checklist changes', { sessionId: sid, model: 'scripted/ws-stall', workspace }));
  await c.waitFor((f) => f.id === id && f.type === 'chat.event' && f.event.type === 'text-delta');
  // No tool of strand's emits a checklist yet, so the canonical event goes into the running turn's
  // stream the way the worker's publisher sends every event.
  const turnId = (await http(base, 'GET', `/api/sessions/${sid}`)).body.active_turn;
  expect(turnId).toEqual(expect.any(String));
  const nc = await connect({ servers: stack.urls.nats });
  try {
    const h = headers();
    h.set(EVENT_TYPE_HEADER, 'checklist');
    const event = { type: 'checklist', items: [{ id: 'c1', text: 'Read the notes', status: 'done' }, { id: 'c2', text: 'Answer', status: 'in_progress' }] };
    await nc.jetstream().publish(agentEventSubject(sid), JSON.stringify({ v: 1, session_id: sid, turn_id: turnId, ts: Date.now(), event }), { headers: h });
  } finally {
    await nc.close();
  }
  const listed = await c.waitFor((f) => f.id === id && f.type === 'chat.event' && /list/.test(f.event.type));
  expect(listed.event).toEqual({
    type: 'tasklist',
    groupId: turnId,
    groupTitle: 'Checklist',
    items: [
      { id: 'c1', label: 'Read the notes', status: 'done', order: 0 },
      { id: 'c2', label: 'Answer', status: 'in_progress', order: 1 },
    ],
  });
  const abort = rpcId();
  c.send({ id: abort, type: 'chat.abort', payload: { requestId: id } });
  expect(await c.terminal(id)).toMatchObject({ type: 'chat.error', errorCode: 'ABORTED' });
});

test('the queue: 25 wait, the 26th is refused, positions are re-sent on abort and dequeue, an aborted run ends aborted', async () => {
  const c = await client();
  const running = rpcId();
  c.send(chatStart(running, 'stall please', { model: 'scripted/ws-stall', workspace }));
  await c.waitFor((f) => f.id === running && f.type === 'chat.event' && f.event.type === 'text-delta');
  const queued = Array.from({ length: 25 }, () => rpcId());
  queued.forEach((id, i) => c.send(chatStart(id, `queued number ${i + 1}`, { workspace })));
  const full = rpcId();
  c.send(chatStart(full, 'one too many', { workspace }));
  expect((await c.waitFor((f) => f.id === full)).error).toMatch(/queue is full/);
  expect(c.of(full)).toHaveLength(1);
  await c.waitFor((f) => f.id === queued[24] && f.type === 'chat.queued' && f.position === 25);

  // A duplicate of a live id is refused; an unknown id aborts nothing.
  c.send(chatStart(queued[4]!, 'duplicate'));
  await c.waitFor((f) => f.id === queued[4] && f.type === 'error');
  const unknown = rpcId();
  c.send({ id: unknown, type: 'chat.abort', payload: { requestId: 'rpc_nosuchrequest' } });
  expect(await c.waitFor((f) => f.id === unknown)).toMatchObject({ type: 'chat.abort.result', requestId: 'rpc_nosuchrequest', aborted: false });

  // Abort a waiting one: it ends, the rest move up.
  let mark = c.frames.length;
  const abortQueued = rpcId();
  c.send({ id: abortQueued, type: 'chat.abort', payload: { requestId: queued[2] } });
  expect(await c.waitFor((f) => f.id === abortQueued)).toMatchObject({ type: 'chat.abort.result', requestId: queued[2], aborted: true });
  expect(await c.terminal(queued[2]!)).toMatchObject({ type: 'chat.error', errorCode: 'ABORTED' });
  await c.waitFor((f) => f.id === queued[24] && f.type === 'chat.queued' && f.position === 24, 10_000, mark);
  const after = c.frames.slice(mark).filter((f) => f.type === 'chat.queued');
  expect(after.map((f) => [f.id, f.position])).toEqual(queued.filter((_, i) => i !== 2).map((id, i) => [id, i + 1]));

  // Abort the running one: no event of it follows, it ends aborted, the first waiting one starts.
  mark = c.frames.length;
  const abortRunning = rpcId();
  c.send({ id: abortRunning, type: 'chat.abort', payload: { requestId: running } });
  expect(await c.waitFor((f) => f.id === abortRunning)).toMatchObject({ aborted: true });
  const abortAt = c.frames.findIndex((f) => f.id === abortRunning);
  expect(await c.terminal(running)).toMatchObject({ type: 'chat.error', errorCode: 'ABORTED' });
  expect(c.frames.slice(abortAt).filter((f) => f.id === running).map((f) => f.type)).toEqual(['chat.error']);
  await c.waitFor((f) => f.id === queued[0] && f.type === 'chat.started', 30_000, mark);
  await c.waitFor((f) => f.id === queued[24] && f.type === 'chat.queued' && f.position === 23, 10_000, mark);

  // Then every waiting chat runs in turn, one at a time, and ends exactly once.
  await c.terminal(queued[24]!, 120_000);
  await sleep(300);
  const order = c.frames.filter((f) => queued.includes(f.id) && ['chat.started', 'chat.done', 'chat.error'].includes(f.type) && f.id !== queued[2]);
  for (let i = 0; i < order.length; i += 2) {
    expect(order[i]!.type).toBe('chat.started');
    expect(order[i + 1]).toMatchObject({ id: order[i]!.id, type: 'chat.done' });
  }
  for (const [i, id] of queued.entries()) {
    if (i === 4) continue; // its duplicate drew an extra `error` frame
    if (i !== 2) expect(c.of(id).filter((f) => f.type === 'chat.done').map((f) => f.reply.output)).toEqual([`You said: queued number ${i + 1}`]);
    expectOrdered(c.of(id));
  }
  expect(c.invalid).toEqual([]);
  const statusId = rpcId();
  c.send({ id: statusId, type: 'task.status', payload: { taskId: c.of(running)[0]!.taskId } });
  expect((await c.waitFor((f) => f.id === statusId)).task.state).toBe('cancelled');
}, 180_000);

test('protocol errors: unreadable frames answer rpc_unknown, invalid ones answer their own id', async () => {
  const c = await client();
  c.sendRaw('{not json');
  expect(await c.waitFor((f) => f.type === 'error')).toMatchObject({ id: 'rpc_unknown' });
  c.send({ id: 'RPC_Upper', type: 'status.get' });
  await c.waitFor((f) => f.type === 'error' && f.id === 'rpc_unknown', 5_000, 1);
  const bad = rpcId();
  c.send({ id: bad, type: 'no.such.method' });
  expect((await c.waitFor((f) => f.id === bad)).type).toBe('error');
  const strict = rpcId();
  c.send(chatStart(strict, 'hi', { surprise: true }));
  expect((await c.waitFor((f) => f.id === strict)).error).toMatch(/surprise|unrecognized/i);
  const unknownTask = rpcId();
  c.send({ id: unknownTask, type: 'task.status', payload: { taskId: 'task_abc' } });
  expect(await c.waitFor((f) => f.id === unknownTask)).toMatchObject({ type: 'task.status.result', task: null });
  const attach = rpcId();
  c.send({ id: attach, type: 'chat.attach', payload: { taskId: 'task_abc' } });
  expect(await c.waitFor((f) => f.id === attach)).toMatchObject({ type: 'chat.error', errorCode: 'TASK_NOT_FOUND' });
  expect(c.invalid).toEqual([]);
});

test('POST /v1/chat/stream: the same chat as one SSE response; a bad body is 400', async () => {
  const res = await fetch(`${base}/v1/chat/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'over sse', history: [], model: 'scripted/echo', workspace }) });
  expect(res.status).toBe(200);
  expect(taskIdSchema.safeParse(res.headers.get('X-Task-Id')).success).toBe(true);
  const frames = (await res.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const last = frames.pop();
  expect(chatStreamTerminalSchema.parse(last)).toMatchObject({ type: 'done', reply: { output: 'You said: over sse' } });
  for (const f of frames) expect(wsEventSchema.safeParse(f).success).toBe(true);
  expect(frames.filter((f) => f.type === 'text-delta').map((f) => f.text).join('')).toBe('You said: over sse');
  for (const body of ['{}', '{"message":"x","history":[],"model":"m","extra":1}', 'not json']) {
    const bad = await http(base, 'POST', '/v1/chat/stream', body);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_REQUEST');
  }
});

test('cross-transport: a chat started over WebSocket is watched over HTTP SSE', async () => {
  const c = await client();
  const sid = freshSession();
  const first = rpcId();
  c.send(chatStart(first, 'create it', { sessionId: sid, workspace }));
  await c.terminal(first);
  const sse = await openSse(`${base}/api/sessions/${sid}/events`);
  const second = rpcId();
  c.send(chatStart(second, 'watch me over sse', { sessionId: sid }));
  const seen = await readUntil(sse, (e) => e.event === 'turn.finished');
  sse.close();
  expect(seen.filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content).join('')).toBe('You said: watch me over sse');
  expect(JSON.parse(seen[seen.length - 1]!.data)).toMatchObject({ turn_id: 't2', outcome: 'done' });
  expect((await c.terminal(second)).reply.output).toBe('You said: watch me over sse');
});

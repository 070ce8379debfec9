import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId, streamedText, type Frame, type RpcTestClient } from '../harness/ws-rpc-client';

/**
 * WebSocket RPC tasks are turns, so they outlive sockets, gateways and workers: a dropped socket
 * leaves the turn running, `chat.attach` after a gateway restart delivers exactly the rest of the
 * answer, and `task.status` answers from durable state after a worker restart (the stream itself
 * survives the worker's death without repeating a word).
 */
let stack: TestStack;
let wsUrl: string;
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-ws-durable-'));
const clients: RpcTestClient[] = [];

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '40' });
  wsUrl = `${stack.urls.gateway.replace(/^http/, 'ws')}/v1/rpc`;
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await stack?.teardown();
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

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
const deltas = (c: RpcTestClient, id: string, n: number) => c.waitFor((f) => f.id === id && f.type === 'chat.event' && f.event.type === 'text-delta' && c.of(id).filter((x) => x.type === 'chat.event' && x.event.type === 'text-delta').length >= n, 30_000);
const lastSeq = (frames: Frame[]) => Math.max(...frames.filter((f) => f.seq !== undefined).map((f) => f.seq as number));

async function taskState(taskId: string): Promise<string | undefined> {
  const c = await client();
  const id = rpcId();
  c.send({ id, type: 'task.status', payload: { taskId } });
  const frame = await c.waitFor((f) => f.id === id);
  c.close();
  return frame.task?.state;
}

test('the gateway killed mid-stream: after a restart, chat.attach delivers the rest of the answer exactly once', async () => {
  const c = await client();
  const id = rpcId();
  const text = words(250, 'gw');
  c.send(chatStart(id, text, { workspace }));
  await deltas(c, id, 8);
  await stack.process('gateway').kill();
  await c.closed;
  const before = c.of(id);
  const seenText = streamedText(before);
  const taskId = before[0]!.taskId as string;
  await stack.restart('gateway');

  const c2 = await client();
  const attach = rpcId();
  c2.send({ id: attach, type: 'chat.attach', payload: { taskId, afterSeq: lastSeq(before) } });
  const done = await c2.terminal(attach, 60_000);
  expect(done.type).toBe('chat.done');
  const frames = c2.of(attach);
  expect(frames.map((f) => f.type).filter((t) => t !== 'chat.event')).toEqual(['chat.accepted', 'chat.started', 'chat.done']);
  expect(frames.filter((f) => f.seq !== undefined).every((f) => f.seq > lastSeq(before))).toBe(true);
  expect(seenText + streamedText(frames)).toBe(`You said: ${text}`);
  expect(done.reply).toMatchObject({ output: `You said: ${text}`, outputStreamed: true, model: 'scripted/echo' });
  expect(c2.invalid).toEqual([]);
  expect(await taskState(taskId)).toBe('completed');
}, 120_000);

test('a dropped socket leaves the turn running; attaching without a cursor replays it all, deltas included', async () => {
  const c = await client();
  const id = rpcId();
  const text = words(120, 'drop');
  c.send(chatStart(id, text, { workspace }));
  await deltas(c, id, 3);
  const taskId = c.of(id)[0]!.taskId as string;
  c.terminate();
  expect(await taskState(taskId)).toBe('running');

  const c2 = await client();
  const attach = rpcId();
  c2.send({ id: attach, type: 'chat.attach', payload: { taskId } });
  const done = await c2.terminal(attach, 60_000);
  expect(done.reply.output).toBe(`You said: ${text}`);
  expect(streamedText(c2.of(attach))).toBe(`You said: ${text}`);
  expect(await taskState(taskId)).toBe('completed');
}, 120_000);

test('the worker killed mid-stream: the socket still gets every word once, and task.status answers across the restart', async () => {
  const c = await client();
  const id = rpcId();
  const text = words(100, 'wk');
  c.send(chatStart(id, text, { workspace }));
  await deltas(c, id, 8);
  const taskId = c.of(id)[0]!.taskId as string;
  await stack.process('worker').kill();
  expect(await taskState(taskId)).toBe('running');
  await stack.restart('worker');
  expect(['running', 'completed']).toContain(await taskState(taskId));

  const done = await c.terminal(id, 90_000);
  expect(done.type).toBe('chat.done');
  expect(streamedText(c.of(id))).toBe(`You said: ${text}`);
  // The retry is announced; the retried step repeated its text, so there is no correction notice.
  const notices = c.of(id).filter((f) => f.type === 'chat.event' && f.event.type === 'notice').map((f) => f.event.message as string);
  expect(notices.length).toBeGreaterThan(0);
  // Said in a person's words (contracts/user-texts.ts): no activity name, no worker id.
  expect(notices.every((m) => /^The model call was interrupted.*; retrying \(attempt \d+/.test(m))).toBe(true);
  expect(notices.some((m) => /streamModelStep|died|vm-|worker-\w/.test(m))).toBe(false);
  expect(await taskState(taskId)).toBe('completed');
}, 150_000);

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EdnMap } from '../../services/gateway/edn/edn-value';
import { openSse, readUntil, type SseConnection } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId, streamedText } from '../harness/ws-rpc-client';
import { dataOf, EdnTestClient, topicOf, type Frame } from './edn-session-client';

/**
 * One session, two protocols: a turn prompted over HTTP is watched over EDN (the client's focus
 * session gets every event of it, stamped with its id, with no request id of its own), and a turn
 * prompted over EDN is watched over SSE; the tool approval asked of an EDN client can be answered
 * over HTTP; a chat started over the WebSocket protocol is watched over EDN.
 */
jest.setTimeout(60_000);

const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-edn-cross-'));
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-edn-cross-scripts-'));
let stack: TestStack;
const clients: EdnTestClient[] = [];
const streams: SseConnection[] = [];

beforeAll(async () => {
  const steps = [[{ type: 'tool_call', name: 'write_file', args: { path: 'cross.txt', content: 'crossed' } }], [{ type: 'text', text: 'Written.' }]];
  fs.writeFileSync(path.join(scripts, 'cross-write.json'), JSON.stringify({ steps }));
  stack = await startTestStack({ STRAND_SCRIPTS_DIR: scripts, STRAND_SCRIPTED_DELTA_DELAY_MS: '5' });
}, 180_000);

afterAll(async () => {
  for (const c of clients) c.close();
  for (const s of streams) s.close();
  await stack?.teardown();
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(scripts, { recursive: true, force: true });
}, 60_000);

afterEach(() => {
  for (const c of clients) expect(c.violations).toEqual([]);
});

async function ednOn(sessionId: string): Promise<EdnTestClient> {
  const c = await EdnTestClient.tcp(stack.urls.edn);
  clients.push(c);
  await c.request('handshake', { 'client-info': { name: 'test', version: '0', 'protocol-version': '1.0', features: [] } }, 60_000);
  await c.request('subscribe', { topics: ['session/updated', 'assistant/delta', 'assistant/message', 'tool/start', 'tool/result', 'ui/dialog-requested', 'error'] });
  await c.request('switch_session', { 'session-id': sessionId });
  return c;
}

async function newSession(): Promise<string> {
  const created = await http(stack.urls.gateway, 'POST', '/api/sessions', { project_path: workspace });
  expect(created.status).toBe(201);
  return created.body.session_id;
}

const turnEvents = (c: EdnTestClient, from: number) => c.frames.slice(from).filter((f: Frame) => ['assistant/delta', 'assistant/message'].includes(topicOf(f) ?? ''));

test('prompt over HTTP, watch over EDN', async () => {
  const sid = await newSession();
  const c = await ednOn(sid);
  const from = c.frames.length;
  const accepted = await http(stack.urls.gateway, 'POST', `/api/sessions/${sid}/prompt`, { text: 'from http' });
  expect(accepted.status).toBe(202);
  const message = await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, from);
  await c.waitFor((f) => topicOf(f) === 'session/updated' && dataOf(f)['is-streaming'] === false, 30_000, c.index(message));
  const streaming = c.frames.slice(from).find((f) => topicOf(f) === 'session/updated' && dataOf(f)['is-streaming'] === true);
  expect(streaming).toBeDefined();
  expect(c.index(streaming!)).toBeLessThan(c.index(message));
  const events = turnEvents(c, from);
  expect(events.filter((f) => topicOf(f) === 'assistant/delta').map((f) => dataOf(f).text).join('')).toBe('You said: from http');
  expect(dataOf(message).text).toBe('You said: from http');
  // Not caused by anything this client asked: no request id; the session named on every event.
  expect(events.every((f) => f.id === undefined && dataOf(f)['session-id'] === sid)).toBe(true);
});

test('prompt over EDN, watch over SSE', async () => {
  const sid = await newSession();
  const c = await ednOn(sid);
  const sse = await openSse(`${stack.urls.gateway}/api/sessions/${sid}/events`);
  streams.push(sse);
  expect(sse.status).toBe(200);
  expect(await c.request('prompt', { message: 'from edn' })).toEqual({ accepted: true });
  const seen = await readUntil(sse, (e) => e.event === 'message.done');
  const deltas = seen.filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content as string);
  expect(deltas.join('')).toBe('You said: from edn');
  expect(JSON.parse(seen[seen.length - 1]!.data)).toMatchObject({ content: 'You said: from edn', stop_reason: 'end' });
  // The EDN client saw the same turn.
  const message = await c.waitFor((f) => topicOf(f) === 'assistant/message');
  expect(dataOf(message).text).toBe('You said: from edn');
});

test('an approval asked of an EDN client, answered over HTTP: the turn goes on and the EDN client sees it', async () => {
  const sid = await newSession();
  const c = await ednOn(sid);
  await c.request('set_model', { provider: 'scripted', 'model-id': 'cross-write' });
  const from = c.frames.length;
  await c.request('prompt', { message: 'write across' });
  const dialog = dataOf(await c.waitFor((f) => topicOf(f) === 'ui/dialog-requested', 30_000, from)) as EdnMap;
  const approved = await http(stack.urls.gateway, 'POST', `/api/sessions/${sid}/approve`, { tool_call_id: dialog['dialog-id'] });
  expect(approved.status).toBeLessThan(300);
  const result = await c.waitFor((f) => topicOf(f) === 'tool/result', 30_000, from);
  expect(dataOf(result)['is-error']).toBe(false);
  expect(dataOf(await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, from)).text).toBe('Written.');
  expect(fs.readFileSync(path.join(workspace, 'cross.txt'), 'utf8')).toBe('crossed');
  // Answered elsewhere: the EDN client's answer now finds no dialog.
  expect((await c.failure('resolve_dialog', { 'dialog-id': dialog['dialog-id']!, result: true }))['error-code']).toBe('request/no-active-dialog');
});

test('a chat started over WebSocket (acolyte protocol) is watched over EDN', async () => {
  const sid = await newSession();
  const c = await ednOn(sid);
  const from = c.frames.length;
  const ws = await connectRpc(`${stack.urls.gateway.replace(/^http/, 'ws')}/v1/rpc`);
  try {
    const id = rpcId();
    ws.send(chatStart(id, 'from websocket', { sessionId: sid, workspace }));
    const done = await ws.terminal(id, 30_000);
    expect(done.type).toBe('chat.done');
    expect(streamedText(ws.of(id))).toBe('You said: from websocket');
    const message = await c.waitFor((f) => topicOf(f) === 'assistant/message', 30_000, from);
    const events = turnEvents(c, from);
    expect(events.filter((f) => topicOf(f) === 'assistant/delta').map((f) => dataOf(f).text).join('')).toBe('You said: from websocket');
    expect(dataOf(message).text).toBe('You said: from websocket');
    expect(events.every((f) => dataOf(f)['session-id'] === sid)).toBe(true);
  } finally {
    ws.close();
  }
});

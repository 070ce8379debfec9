import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type net from 'node:net';
import { WebSocket } from 'ws';
import { openSse, readUntil, type SseConnection, type SseEvent } from '../harness/sse-client';
import { connectRaw, parseResponse, rawExchange, readToEnd, sseFrames } from '../harness/raw-http';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';
import { chatStart, connectRpc, rpcId, type Frame, type RpcTestClient } from '../harness/ws-rpc-client';

/**
 * The gateway's limits against the real stack: connections per transport (503 past the maximum,
 * every kind of disconnect frees its slot), slow consumers on SSE, WebSocket and the chat stream (a
 * client that stops reading is cut within a bounded number of bytes while a normal client on the same
 * session gets everything, and the cut client resumes from its cursor without gap or duplicate), and
 * request timeouts for clients that trickle their request and stall.
 */
const MAX_SSE = 6;
const MAX_WS = 4;
const SEND_BUFFER = 256 * 1024;
/** Bytes the flood script's shell command prints: far more than socket buffers and the bound together. */
const FLOOD_BYTES = 16_000_000;

let stack: TestStack;
let base: string;
let wsUrl: string;
const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-limits-scripts-'));
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'strand-limits-project-'));
const cleanup: Array<() => void> = [];

beforeAll(async () => {
  const flood = {
    steps: [
      [{ type: 'tool_call', name: 'shell_exec', args: { command: `head -c ${FLOOD_BYTES} /dev/zero | tr '\\0' a`, timeout_s: 120 } }],
      [{ type: 'text', text: 'flood done' }],
    ],
  };
  fs.writeFileSync(path.join(scripts, 'flood.json'), JSON.stringify(flood));
  stack = await startTestStack({
    STRAND_SCRIPTS_DIR: scripts,
    STRAND_SCRIPTED_DELTA_DELAY_MS: '0',
    STRAND_MAX_SSE_CONNECTIONS: String(MAX_SSE),
    STRAND_MAX_WS_CONNECTIONS: String(MAX_WS),
    STRAND_MAX_SEND_BUFFER_BYTES: String(SEND_BUFFER),
    STRAND_SLOW_CONSUMER_MS: '3000',
    STRAND_REQUEST_TIMEOUT_MS: '3000',
    STRAND_HEADERS_TIMEOUT_MS: '2000',
    STRAND_RATE_LIMIT: '1000/2000',
    // Longer than the slow-consumer time: a client that stops reading is cut as a slow consumer first.
    STRAND_WS_PING_INTERVAL_MS: '4000',
  });
  base = stack.urls.gateway;
  wsUrl = `${base.replace(/^http/, 'ws')}/v1/rpc`;
}, 180_000);

afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

afterAll(async () => {
  await stack?.teardown();
  fs.rmSync(scripts, { recursive: true, force: true });
  fs.rmSync(workspace, { recursive: true, force: true });
}, 60_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function floodSession(): Promise<string> {
  const created = await http(base, 'POST', '/api/sessions', { project_path: workspace, model: 'scripted/flood' });
  expect(created.status).toBe(201);
  const sid = created.body.session_id as string;
  expect((await http(base, 'PATCH', `/api/sessions/${sid}/settings`, { approval: { always_allow: ['shell_exec'] } })).status).toBe(200);
  return sid;
}

/** A raw request for a stream whose answer has started (status line and headers read; the socket then paused), or the refusal it got. */
async function rawStream(request: string): Promise<{ socket: net.Socket; head: string }> {
  const socket = await connectRaw(base);
  cleanup.push(() => socket.destroy());
  socket.write(request);
  const head = await new Promise<string>((resolve) => {
    let text = '';
    const onData = (c: Buffer) => {
      text += c.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      socket.pause();
      resolve(text);
    };
    socket.on('data', onData);
  });
  return { socket, head };
}

const rawEvents = (sid: string, query = '') => rawStream(`GET /api/sessions/${sid}/events${query} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n`);

/** Retries `attempt` until it succeeds: the gateway notices a client's disconnect asynchronously. */
async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}

async function waitForLog(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
  await eventually(async () => {
    if (!stack.output.some((l) => pattern.test(l))) throw new Error(`no gateway log line matching ${pattern}`);
  }, timeoutMs);
}

const floodText = (events: Array<{ event: string; data: string }>) =>
  events.filter((e) => e.event === 'tool.output').map((e) => JSON.parse(e.data).content as string).join('');

test(`past ${MAX_SSE} event streams a new one gets 503 UNAVAILABLE with Retry-After; every way a stream ends frees its slot`, async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: workspace })).body.session_id as string;
  // Refused and failed requests hold nothing.
  for (let i = 0; i < 2 * MAX_SSE; i++) expect((await http(base, 'GET', `/api/sessions/no-such-${i}/events`)).status).toBe(404);
  for (let i = 0; i < MAX_SSE; i++) expect((await http(base, 'GET', `/api/sessions/${sid}/events?after=x`)).status).toBe(400);
  for (let round = 0; round < 3; round++) {
    // Half fetch clients that abort, half raw sockets that are dropped.
    const fetched: SseConnection[] = [];
    const raw: net.Socket[] = [];
    await eventually(async () => {
      while (fetched.length < MAX_SSE / 2) {
        const conn = await openSse(`${base}/api/sessions/${sid}/events`);
        if (conn.status !== 200) {
          conn.close();
          throw new Error(`stream ${fetched.length} of round ${round}: ${conn.status}`);
        }
        fetched.push(conn);
      }
      while (raw.length < MAX_SSE / 2) {
        const r = await rawEvents(sid);
        if (!r.head.startsWith('HTTP/1.1 200')) {
          r.socket.destroy();
          throw new Error(`raw stream ${raw.length} of round ${round}: ${r.head.split('\r\n')[0]}`);
        }
        raw.push(r.socket);
      }
    });
    const refused = await http(base, 'GET', `/api/sessions/${sid}/events`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    expect(refused.body.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/too many event streams/) });
    for (const c of fetched) c.close();
    for (const s of raw) s.destroy();
  }
  // The last round's streams are gone too: all slots come back.
  await eventually(async () => {
    const conns = await Promise.all(Array.from({ length: MAX_SSE }, () => openSse(`${base}/api/sessions/${sid}/events`)));
    for (const c of conns) c.close();
    expect(conns.map((c) => c.status)).toEqual(Array(MAX_SSE).fill(200));
  });
}, 90_000);

test(`past ${MAX_WS} WebSockets an upgrade gets 503; closed, terminated and failed handshakes free their slots`, async () => {
  const refusal = () =>
    new Promise<{ status: number; retryAfter?: string }>((resolve, reject) => {
      const ws = new WebSocket(wsUrl);
      ws.once('open', () => {
        ws.close();
        reject(new Error('upgrade accepted past the limit'));
      });
      ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined }));
      ws.once('error', () => undefined);
    });
  /** All the sockets the limit allows, or none (those opened are dropped when one is refused). */
  const openAll = async () => {
    const opened: RpcTestClient[] = [];
    try {
      for (let i = 0; i < MAX_WS; i++) opened.push(await connectRpc(wsUrl));
    } catch (err) {
      for (const c of opened) c.terminate();
      throw err;
    }
    return opened;
  };
  // Handshakes that fail (no Sec-WebSocket-Key) are counted while they last, then released.
  for (let i = 0; i < 2 * MAX_WS; i++) {
    const { data } = await rawExchange(base, 'GET /v1/rpc HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n', 5_000);
    expect(parseResponse(data)?.status).toBe(400);
  }
  for (let round = 0; round < 3; round++) {
    const clients = await eventually(openAll);
    expect(await refusal()).toEqual({ status: 503, retryAfter: '2' });
    // The sockets work; then half close cleanly, half drop their TCP connection.
    const id = rpcId();
    clients[0]!.send({ id, type: 'status.get' });
    expect((await clients[0]!.waitFor((f) => f.id === id)).type).toBe('status.result');
    clients.forEach((c, i) => (i % 2 === 0 ? c.close() : c.terminate()));
  }
  for (const c of await eventually(openAll)) c.close();
}, 90_000);

test('an SSE client that stops reading is cut within a bounded number of bytes; a normal client gets everything; the cut client resumes from its Last-Event-ID', async () => {
  const sid = await floodSession();
  const normal = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
  cleanup.push(() => normal.close());
  const slow = await rawEvents(sid, '?after=0');
  expect(slow.head).toMatch(/^HTTP\/1\.1 200/);
  const slowHead = slow.head.slice(0, slow.head.indexOf('\r\n\r\n') + 4);
  const slowStart = Buffer.from(slow.head.slice(slowHead.length), 'latin1');
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'flood' })).status).toBe(202);

  const all = await readUntil(normal, (e) => e.event === 'turn.finished', 60_000);
  expect(JSON.parse(all[all.length - 1]!.data).outcome).toBe('done');
  expect(floodText(all)).toHaveLength(FLOOD_BYTES);
  await waitForLog(/SSE client cut: slow consumer/);

  // What the slow client got before the gateway closed its connection: a prefix, far from all of it.
  const rest = await readToEnd(slow.socket, 15_000);
  expect(rest.closed).toBe(true);
  const received = Buffer.concat([Buffer.from(slowHead, 'latin1'), slowStart, rest.data]);
  const totalBytes = all.reduce((n, e) => n + e.data.length, 0);
  expect(received.length).toBeLessThan(totalBytes / 2);
  const got = sseFrames(parseResponse(received)!.body).filter((f) => f.event !== 'error');
  expect(got.length).toBeGreaterThan(0);
  const strip = (events: Array<{ id?: string; event: string; data: string }>) => events.map((e) => ({ id: e.id, event: e.event, data: e.data }));
  expect(strip(got)).toEqual(strip(all.slice(0, got.length)));

  // Reconnecting with the last id it has gives exactly the rest.
  const resumed = await openSse(`${base}/api/sessions/${sid}/events`, { lastEventId: got[got.length - 1]!.id });
  cleanup.push(() => resumed.close());
  const remainder: SseEvent[] = await readUntil(resumed, (e) => e.event === 'turn.finished', 60_000);
  expect([...got, ...remainder].map((e) => e.id)).toEqual(all.map((e) => e.id));
  expect(floodText([...got, ...remainder])).toHaveLength(FLOOD_BYTES);
}, 120_000);

test('a WebSocket client that stops reading is closed as a slow consumer; it re-attaches with afterSeq and gets the rest', async () => {
  const sid = await floodSession();
  const watcher = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
  cleanup.push(() => watcher.close());
  const frames: Frame[] = [];
  const ws = new WebSocket(wsUrl);
  cleanup.push(() => ws.terminate());
  ws.on('message', (d) => frames.push(JSON.parse(String(d))));
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const id = rpcId();
  ws.send(JSON.stringify(chatStart(id, 'flood', { sessionId: sid, model: 'scripted/flood' })));
  await eventually(async () => {
    if (!frames.some((f) => f.type === 'chat.started')) throw new Error('not started');
  });
  ws.pause(); // from here on the client reads nothing

  const all = await readUntil(watcher, (e) => e.event === 'turn.finished', 60_000);
  expect(floodText(all)).toHaveLength(FLOOD_BYTES);
  await waitForLog(/WebSocket client cut: slow consumer/, 60_000);
  ws.resume();
  // The close frame waits behind the unsent data: a client that did not read in time sees the connection drop.
  expect([1013, 1006]).toContain(await closed);
  const seen = frames.filter((f) => f.type === 'chat.event');
  const shellText = (fs: Frame[]) => fs.filter((f) => f.type === 'chat.event' && f.event.type === 'tool-output' && f.event.content.kind === 'shell-output').map((f) => f.event.content.text as string).join('');
  const before = shellText(seen);
  expect(before.length).toBeLessThan(FLOOD_BYTES / 2);
  expect(frames.some((f) => f.type === 'chat.done')).toBe(false);

  const taskId = frames.find((f) => f.type === 'chat.accepted')!.taskId as string;
  const lastSeq = Math.max(...seen.map((f) => f.seq as number));
  const again = await connectRpc(wsUrl);
  cleanup.push(() => again.close());
  const attachId = rpcId();
  again.send({ id: attachId, type: 'chat.attach', payload: { taskId, afterSeq: lastSeq } });
  const terminal = await again.terminal(attachId, 60_000);
  expect(terminal.type).toBe('chat.done');
  const after = again.of(attachId).filter((f) => f.type === 'chat.event');
  expect(after.every((f) => (f.seq as number) > lastSeq)).toBe(true);
  expect(before + shellText(after)).toBe('a'.repeat(FLOOD_BYTES));
}, 120_000);

test('requests that trickle in and stall are answered 408 and closed; malformed ones 400; the gateway keeps serving', async () => {
  const t0 = Date.now();
  const stalled = await rawExchange(base, 'POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"project_', 20_000);
  expect(stalled.closed).toBe(true);
  expect(parseResponse(stalled.data)).toMatchObject({ status: 408 });
  expect(JSON.parse(parseResponse(stalled.data)!.body).error.code).toBe('INVALID_REQUEST');
  // Headers sent a byte at a time, never finished.
  const socket = await connectRaw(base);
  const done = readToEnd(socket, 20_000);
  const head = 'GET /api/sessions HTTP/1.1\r\nHost: x\r\nX-Slow: ';
  for (const ch of head) {
    if (socket.destroyed) break;
    socket.write(ch);
    await sleep(20);
  }
  const trickled = await done;
  expect(trickled.closed).toBe(true);
  expect(parseResponse(trickled.data)?.status).toBe(408);
  expect(Date.now() - t0).toBeLessThan(30_000);
  const garbage = await rawExchange(base, Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x01, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]));
  expect(garbage.closed).toBe(true);
  expect(parseResponse(garbage.data)?.status).toBe(400);
  expect((await http(base, 'GET', '/healthz')).status).toBe(200);
}, 60_000);

test('a client that drops its request body mid-upload is not logged as a gateway error; the gateway keeps serving', async () => {
  const before = stack.output.length;
  for (const framing of ['Transfer-Encoding: chunked\r\n\r\n40\r\n{"project_path":"/tmp/cut', 'Content-Length: 100000\r\n\r\n{"project_path":"/tmp/cut']) {
    for (const route of ['/api/sessions', '/v1/chat/stream']) {
      const socket = await connectRaw(base);
      socket.write(`POST ${route} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}`);
      await sleep(200);
      socket.destroy();
    }
  }
  // Each drop is handled within milliseconds; a gateway error about it would be logged by now.
  await sleep(1_000);
  expect((await http(base, 'GET', '/healthz')).status).toBe(200);
  expect(stack.output.slice(before).filter((l) => /unhandled error|"level":50/.test(l))).toEqual([]);
}, 30_000);

test('POST /v1/chat/stream counts against the event-stream cap; a chat stream that is not read is cut (it just ends, what it got in order), a normal client on the session gets everything, the turn finishes, chat.attach tells the rest, the gateway keeps serving', async () => {
  const sid = await floodSession();
  // Every slot taken by REST event streams: a chat stream is refused like one more of them.
  const held = await Promise.all(Array.from({ length: MAX_SSE }, () => openSse(`${base}/api/sessions/${sid}/events`)));
  cleanup.push(() => held.forEach((c) => c.close()));
  expect(held.map((c) => c.status)).toEqual(Array(MAX_SSE).fill(200));
  const refused = await http(base, 'POST', '/v1/chat/stream', { message: 'hi', history: [], model: 'scripted/echo', workspace });
  expect([refused.status, refused.headers.get('retry-after')]).toEqual([503, '2']);
  expect(refused.body.error).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/too many event streams/) });
  for (const c of held) c.close();

  // A normal client on the same session, and a client that sends the chat and never reads: the 16 MB
  // of tool output is not buffered for the latter.
  const watcher = await eventually(async () => {
    const conn = await openSse(`${base}/api/sessions/${sid}/events?after=0`);
    if (conn.status !== 200) conn.close();
    expect(conn.status).toBe(200);
    return conn;
  });
  cleanup.push(() => watcher.close());
  const body = JSON.stringify({ message: 'flood', history: [], model: 'scripted/flood', sessionId: sid, workspace });
  const slow = await eventually(async () => {
    const r = await rawStream(`POST /v1/chat/stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    if (!r.head.startsWith('HTTP/1.1 200')) r.socket.destroy();
    expect(r.head).toMatch(/^HTTP\/1\.1 200/);
    return r;
  });

  const all = await readUntil(watcher, (e) => e.event === 'turn.finished', 60_000);
  expect(JSON.parse(all.at(-1)!.data).outcome).toBe('done');
  expect(floodText(all)).toHaveLength(FLOOD_BYTES);
  await waitForLog(/chat stream cut: slow consumer/, 60_000);

  // What the slow client got before its stream ended: the frames in order, far from all of them, and
  // no terminal frame (a cut chat stream has no last words: docs/websocket.md, "Limits").
  const rest = await readToEnd(slow.socket, 15_000);
  expect(rest.closed).toBe(true);
  const response = parseResponse(Buffer.concat([Buffer.from(slow.head, 'latin1'), rest.data]))!;
  const taskId = response.headers['x-task-id'];
  expect(taskId).toBeTruthy();
  const got = sseFrames(response.body).map((f) => JSON.parse(f.data) as Record<string, any>);
  expect(got[0]).toEqual({ type: 'status', state: { kind: 'accepted' } });
  expect(got.filter((f) => f.type === 'done' || f.type === 'error')).toEqual([]);
  const shellText = (events: Array<Record<string, any>>) => events.filter((e) => e.type === 'tool-output' && e.content.kind === 'shell-output').map((e) => e.content.text as string).join('');
  const cutText = shellText(got);
  expect(cutText.length).toBeGreaterThan(0);
  expect(cutText.length).toBeLessThan(FLOOD_BYTES / 2);

  // The turn went on without its client: chat.attach over the WebSocket gives the whole chat, whose
  // beginning is exactly what the cut client got.
  const attach = await connectRpc(wsUrl);
  cleanup.push(() => attach.close());
  const attachId = rpcId();
  attach.send({ id: attachId, type: 'chat.attach', payload: { taskId } });
  expect((await attach.terminal(attachId, 60_000)).type).toBe('chat.done');
  const whole = attach.of(attachId).filter((f) => f.type === 'chat.event').map((f) => f.event as Record<string, any>);
  expect(shellText(whole)).toBe('a'.repeat(FLOOD_BYTES));
  const notStatus = (events: Array<Record<string, any>>) => events.filter((e) => e.type !== 'status');
  const cutEvents = notStatus(got);
  expect(cutEvents).toEqual(notStatus(whole).slice(0, cutEvents.length));

  // The gateway keeps serving chat streams, and the slot the cut one held is free again.
  const echoed = await fetch(`${base}/v1/chat/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message: 'still there?', history: [], model: 'scripted/echo', workspace }) });
  expect(echoed.status).toBe(200);
  const echoFrames = sseFrames(await echoed.text()).map((f) => JSON.parse(f.data) as Record<string, any>);
  expect(echoFrames.at(-1)).toMatchObject({ type: 'done' });
  expect(echoFrames.filter((f) => f.type === 'text-delta').map((f) => f.text).join('')).toBe('You said: still there?');
  await eventually(async () => {
    const again = await Promise.all(Array.from({ length: MAX_SSE - 1 }, () => openSse(`${base}/api/sessions/${sid}/events`)));
    for (const c of again) c.close();
    expect(again.map((c) => c.status)).toEqual(Array(MAX_SSE - 1).fill(200));
  });
}, 180_000);

test('a WebSocket peer that stops answering pings is dropped; one that answers stays', async () => {
  const open = (autoPong: boolean) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { autoPong });
      cleanup.push(() => ws.terminate());
      ws.once('open', () => resolve(ws));
      ws.once('error', reject);
    });
  const silent = await open(false);
  const healthy = await open(true);
  const closed = new Promise<number>((resolve) => silent.once('close', (code) => resolve(code)));
  const startedAt = Date.now();
  // Pinged every 4 s: no pong by the next ping means dead (terminated: 1006 on this side).
  expect(await closed).toBe(1006);
  expect(Date.now() - startedAt).toBeLessThan(12_000);
  await waitForLog(/no pong to the last ping/);
  expect(healthy.readyState).toBe(WebSocket.OPEN);
  const answered = new Promise<string>((resolve) => healthy.once('message', (d) => resolve(String(d))));
  const id = rpcId();
  healthy.send(JSON.stringify({ id, type: 'status.get' }));
  expect(JSON.parse(await answered)).toMatchObject({ id, type: 'status.result' });
  healthy.close();
}, 30_000);

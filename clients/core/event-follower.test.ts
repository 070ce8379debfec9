import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FATAL_STATUSES } from './api-client';
import { followEvents, reconnectDelayMs, type FollowState } from './event-follower';

/**
 * The clients' one follower against a real HTTP server speaking SSE: every event type reaches the
 * client (notice and subagent too), a dropped stream is resumed with Last-Event-ID and nothing is
 * handed over twice, and a 404 stops it as fatal.
 */
const frame = (id: number, data: object) => `id: ${id}\nevent: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;

async function serve(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/api/sessions/s1/events`, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

test('every event type, in order and once, across a dropped stream resumed from its cursor', async () => {
  const lastIds: Array<string | undefined> = [];
  const server = await serve((req, res) => {
    lastIds.push(req.headers['last-event-id'] as string | undefined);
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    if (lastIds.length === 1) {
      res.write(': keepalive\n\n');
      res.write(frame(1, { type: 'agent.state', state: 'thinking' }));
      res.write(frame(2, { type: 'notice', level: 'warning', message: 'AGENTS.md was cut to its size cap' }));
      res.end(frame(3, { type: 'subagent', tool_call_id: 'c1', session_id: 's1-sub', event: 'message.delta', data: { content: 'hi' } }));
    } else {
      // A server that replays one event too many: the follower drops it.
      res.write(frame(3, { type: 'subagent', tool_call_id: 'c1', session_id: 's1-sub', event: 'message.delta', data: { content: 'hi' } }));
      res.write(`data: {"type":"error","code":"SLOW_CONSUMER"}\n\n`);
      res.write(frame(4, { type: 'turn.finished', turn_id: 't1', outcome: 'done' }));
    }
  });
  const got: Array<[number, string]> = [];
  const states: FollowState['kind'][] = [];
  const followed = followEvents({ url: server.url, headers: (extra) => extra, onEvent: (seq, data) => got.push([seq, data.type]), onState: (s) => states.push(s.kind) });
  try {
    for (let i = 0; i < 100 && got.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(got).toEqual([
      [1, 'agent.state'],
      [2, 'notice'],
      [3, 'subagent'],
      [4, 'turn.finished'],
    ]);
    expect(lastIds).toEqual([undefined, '3']);
    expect(states.slice(0, 4)).toEqual(['connecting', 'live', 'reconnecting', 'live']);
    expect(followed.cursor()).toBe(4);
  } finally {
    followed.close();
    await server.close();
  }
});

test('a session that is not there stops the follower as fatal, without retrying', async () => {
  let requests = 0;
  const server = await serve((_req, res) => {
    requests++;
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{"error":{"code":"SESSION_NOT_FOUND","message":"no session s1"}}');
  });
  try {
    const fatal = await new Promise<[number, string]>((resolve) => followEvents({ url: server.url, headers: (extra) => extra, onEvent: () => undefined, onFatal: (status, message) => resolve([status, message]) }));
    expect(fatal[0]).toBe(404);
    expect(fatal[1]).toContain('SESSION_NOT_FOUND');
    await new Promise((r) => setTimeout(r, 600));
    expect(requests).toBe(1);
  } finally {
    await server.close();
  }
});

test("the statuses it stops on are the API client's fatal ones; any other failure is retried", async () => {
  const requests: number[] = [];
  let answer = 0;
  const server = await serve((_req, res) => {
    requests.push(answer);
    res.writeHead(answer, { 'Content-Type': 'application/json' });
    res.end(`{"error":{"code":"HTTP_${answer}","message":"answered ${answer}"}}`);
  });
  try {
    expect([...FATAL_STATUSES].sort()).toEqual([400, 401, 403, 404]);
    for (const status of FATAL_STATUSES) {
      answer = status;
      const fatal = await new Promise<number>((resolve) => followEvents({ url: server.url, headers: (extra) => extra, onEvent: () => undefined, onFatal: (s) => resolve(s) }));
      expect(fatal).toBe(status);
    }
    expect(requests).toEqual([...FATAL_STATUSES]);
    // A 503 (the gateway's NATS is down) is not fatal: the follower tries again after its backoff.
    answer = 503;
    const fatal: number[] = [];
    const states: FollowState[] = [];
    const followed = followEvents({ url: server.url, headers: (extra) => extra, onEvent: () => undefined, onFatal: (s) => fatal.push(s), onState: (s) => states.push(s) });
    for (let i = 0; i < 200 && requests.length < FATAL_STATUSES.size + 2; i++) await new Promise((r) => setTimeout(r, 20));
    followed.close();
    expect(requests.slice(FATAL_STATUSES.size)).toEqual([503, 503]);
    expect(fatal).toEqual([]);
    expect(states[1]).toEqual({ kind: 'reconnecting', reason: 'answered 503', attempt: 1 });
  } finally {
    await server.close();
  }
});

test('a reconnection comes almost at once, stays short through a restart, then backs off; each wait jittered', () => {
  const low = (n: number) => reconnectDelayMs(n, () => 0);
  const high = (n: number) => reconnectDelayMs(n, () => 0.999_999);
  expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 20].map(low)).toEqual([75, 188, 188, 188, 375, 750, 1_500, 3_000, 3_000, 3_000]);
  expect([1, 2, 5, 8].map(high)).toEqual([125, 312, 625, 5_000]);
  // The short waits add up to about what a supervised gateway's restart takes (0.5 s backoff and a start).
  const shortPhase = [1, 2, 3, 4].map((n) => reconnectDelayMs(n, () => 0.5)).reduce((a, b) => a + b, 0);
  expect(shortPhase).toBe(850);
});

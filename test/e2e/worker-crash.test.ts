import { openSse, type SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * Kill -9 the worker in the middle of a streamed answer: the turn still finishes on the restarted
 * worker, the store holds exactly one user and one assistant message, and the SSE client sees
 * `stream.reset` and then the complete answer (what it must drop and what it must keep).
 */
let stack: TestStack;
let base: string;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '50' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

async function readUntil(conn: Awaited<ReturnType<typeof openSse>>, stop: (e: SseEvent) => boolean, timeoutMs = 60_000): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (;;) {
    const e = await conn.next(timeoutMs);
    if (!e) throw new Error(`stream ended early after ${JSON.stringify(seen.map((x) => x.event))}`);
    seen.push(e);
    if (stop(e)) return seen;
  }
}

test('a worker killed mid-stream: the turn finishes once, and the client can rebuild the exact answer', async () => {
  const created = await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-crash' });
  const sid = created.body.session_id as string;
  const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
  const events = await openSse(`${base}/api/sessions/${sid}/events`);
  await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text });
  let deltas = 0;
  const before = await readUntil(events, (e) => e.event === 'message.delta' && ++deltas === 8);
  await stack.process('worker').kill();
  await stack.restart('worker');
  const after = await readUntil(events, (e) => e.event === 'turn.finished', 90_000);
  events.close();
  const all = [...before, ...after];

  const resetAt = all.findIndex((e) => e.event === 'stream.reset');
  expect(resetAt).toBeGreaterThan(0);
  expect(JSON.parse(all[resetAt]!.data)).toEqual({ type: 'stream.reset', turn_id: 't1', step: 0 });
  // What a client keeps: the deltas after the last reset of the step, which spell the whole answer.
  const kept = all.slice(resetAt + 1).filter((e) => e.event === 'message.delta').map((e) => JSON.parse(e.data).content).join('');
  expect(kept).toBe(`You said: ${text}`);
  expect(JSON.parse(after[after.length - 1]!.data)).toEqual({ type: 'turn.finished', turn_id: 't1', outcome: 'done' });
  expect(all.filter((e) => e.event === 'message.done')).toHaveLength(1);

  const messages = await http(base, 'GET', `/api/sessions/${sid}/messages`);
  expect(messages.body.messages.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
  expect(messages.body.messages[1].message.content).toEqual([{ type: 'text', text: `You said: ${text}` }]);
}, 150_000);

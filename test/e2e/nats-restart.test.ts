import { ClientText } from '../../bench/chaos/client-text';
import { followSse } from '../harness/resuming-sse-client';
import type { SseEvent } from '../harness/sse-client';
import { http, startTestStack, type TestStack } from '../harness/stack-fixture';

/**
 * nats-server killed (-9) in the middle of a streamed answer and started again seconds later (longer
 * than a publish waits for its ack): the turn finishes once with the whole answer, stored once, and a
 * client that resumes with its cursor shows exactly that answer, every event id seen once; the next
 * prompt is accepted. (`npm run chaos` does the same with 30 s outages, many times.)
 */
let stack: TestStack;
let base: string;

beforeAll(async () => {
  stack = await startTestStack({ STRAND_SCRIPTED_DELTA_DELAY_MS: '40' });
  base = stack.urls.gateway;
}, 180_000);

afterAll(async () => {
  await stack?.teardown();
}, 60_000);

test('NATS down for 8 s mid-answer: the turn finishes once, nothing lost or doubled, the client shows the stored text', async () => {
  const sid = (await http(base, 'POST', '/api/sessions', { project_path: '/tmp/strand-e2e-nats' })).body.session_id as string;
  const text = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
  let deltas = 0;
  let outage: Promise<void> | undefined;
  const events: SseEvent[] = [];
  const client = new ClientText();
  let finishedTurn!: () => void;
  const turnFinished = new Promise<void>((r) => (finishedTurn = r));
  const sse = followSse(`${base}/api/sessions/${sid}/events`, (e) => {
    events.push(e);
    client.apply(e.event, JSON.parse(e.data));
    if (e.event === 'message.delta' && ++deltas === 20) {
      outage = (async () => {
        await stack.process('nats').kill();
        await new Promise((r) => setTimeout(r, 8_000));
        await stack.restart('nats');
      })();
    }
    if (e.event === 'turn.finished') finishedTurn();
  }, { after: '0' });
  await sse.connected;
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text })).status).toBe(202);
  await turnFinished;
  await outage;

  const finished = events.filter((e) => e.event === 'turn.finished').map((e) => JSON.parse(e.data));
  expect(finished).toEqual([{ type: 'turn.finished', turn_id: 't1', outcome: 'done' }]);
  expect(events.filter((e) => e.event === 'error')).toEqual([]);
  const ids = events.map((e) => e.id).filter(Boolean);
  expect(new Set(ids).size).toBe(ids.length);

  const stored = (await http(base, 'GET', `/api/sessions/${sid}/messages`)).body.messages;
  expect(stored.map((m: any) => m.entry_id)).toEqual(['t1:user', 't1:s0:assistant']);
  expect(stored[1].message.content).toEqual([{ type: 'text', text: `You said: ${text}` }]);
  expect(client.texts('t1').join('')).toBe(`You said: ${text}`);

  // The session takes the next prompt, which finishes too.
  const before = events.length;
  expect((await http(base, 'POST', `/api/sessions/${sid}/prompt`, { text: 'again' })).status).toBe(202);
  for (let i = 0; i < 600 && !events.slice(before).some((e) => e.event === 'turn.finished'); i++) await new Promise((r) => setTimeout(r, 100));
  sse.close();
  expect(events.slice(before).filter((e) => e.event === 'turn.finished').map((e) => JSON.parse(e.data))).toEqual([{ type: 'turn.finished', turn_id: 't2', outcome: 'done' }]);
}, 240_000);

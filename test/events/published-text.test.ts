import { connect, type NatsConnection } from 'nats';
import { ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { JetStreamOutbox } from '../../activities/events/jetstream-outbox';
import { createJetStreamPublishedText } from '../../activities/events/jetstream-published-text';
import type { OutgoingEvent } from '../../activities/events/publisher';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * Reading back what a model step's earlier attempts published, from a real nats-server: the outbox
 * publishes (message ids and all) as the worker does, the reader folds the session's events from the
 * step's start up to its last event.
 */
let nats: TestNats;
let nc: NatsConnection;
let box: JetStreamOutbox;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
  await ensureAgentEventsStream(await nc.jetstreamManager());
  box = new JetStreamOutbox({ connect: () => connect({ servers: nats.url, reconnect: false }), onConnect: async (c) => ensureAgentEventsStream(await c.jetstreamManager()) });
}, 30_000);

afterAll(async () => {
  await box?.close();
  await nc?.close();
  await nats?.stop();
});

const delta = (attempt: number, chunk: number, text: string, step = 0): OutgoingEvent => ({
  id: `t1:s${step}:a${attempt}:c${chunk}`,
  turn_id: 't1',
  attempt,
  event: { type: 'assistant.delta', turn_id: 't1', step, text },
});
const query = (session_id: string, since: number) => ({ session_id, turn_id: 't1', step: 0, attempt: 3, since });

test("an attempt's deltas and its continuation's, in order; other sessions and steps are not mixed in", async () => {
  const since = Date.now();
  await box.publish('pt-a', [delta(1, 1, 'Hello ')]);
  await box.publish('pt-b', [delta(1, 1, 'not mine')]);
  await box.publish('pt-a', [delta(1, 2, 'wor'), delta(1, 1, 'next step', 1)]);
  await box.publish('pt-a', [delta(2, 1, 'ld')]);
  const reader = createJetStreamPublishedText(nc);
  expect(await reader.read(query('pt-a', since))).toEqual({ text: 'Hello world', thinking: false, gapless: true });
  expect(await reader.read(query('pt-b', since))).toEqual({ text: 'not mine', thinking: false, gapless: true });
  // A session with no events at all, and one read by the attempt that published: nothing to continue.
  expect(await reader.read(query('pt-none', since))).toEqual({ text: '', thinking: false, gapless: true });
  expect(await reader.read({ ...query('pt-a', since), attempt: 1 })).toEqual({ text: '', thinking: false, gapless: true });
}, 30_000);

test('the read starts at the step: what the session published before `since` (less the skew margin) is not read', async () => {
  await box.publish('pt-old', [delta(1, 1, 'before ')]);
  await new Promise((r) => setTimeout(r, 50));
  const since = Date.now();
  await box.publish('pt-old', [delta(1, 2, 'after')]);
  const exact = createJetStreamPublishedText(nc, { clockSkewMs: 0 });
  // The first chunk is left out: the fold reports the gap, so the step would reset rather than lose it.
  expect(await exact.read(query('pt-old', since))).toEqual({ text: 'after', thinking: false, gapless: false });
  expect(await createJetStreamPublishedText(nc).read(query('pt-old', since))).toEqual({ text: 'before after', thinking: false, gapless: true });
  // Nothing of the session since then: answered from the last event's time, without a consumer.
  expect(await exact.read(query('pt-old', Date.now() + 60_000))).toEqual({ text: '', thinking: false, gapless: true });
}, 30_000);

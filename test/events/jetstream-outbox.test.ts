import { connect, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, agentEventSubject, ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import { JetStreamOutbox, OutboxUnavailableError } from '../../activities/events/jetstream-outbox';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * The worker's event outbox against a real nats-server that is killed (-9) and started again while
 * events flow: every event is stored exactly once, in the order it was published.
 */
let nats: TestNats;
let reader: NatsConnection;

beforeAll(async () => {
  nats = await startTestNats();
  reader = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  await ensureAgentEventsStream(await reader.jetstreamManager());
}, 30_000);

afterAll(async () => {
  await reader?.close();
  await nats?.stop();
});

function outbox(extra: Partial<ConstructorParameters<typeof JetStreamOutbox>[0]> = {}): JetStreamOutbox {
  return new JetStreamOutbox({
    connect: () => connect({ servers: nats.url, reconnect: false, timeout: 1_000 }),
    onConnect: async (nc) => ensureAgentEventsStream(await nc.jetstreamManager()),
    ackTimeoutMs: 2_000,
    ...extra,
  });
}

/** The texts of every delta stored for a session, in stream order. */
async function storedTexts(sessionId: string): Promise<string[]> {
  const jsm = await reader.jetstreamManager();
  const consumer = await reader.jetstream().consumers.get(AGENT_EVENTS_STREAM, { filterSubjects: [agentEventSubject(sessionId)] });
  const info = await jsm.streams.info(AGENT_EVENTS_STREAM, { subjects_filter: agentEventSubject(sessionId) });
  const expected = info.state.subjects?.[agentEventSubject(sessionId)] ?? 0;
  const texts: string[] = [];
  while (texts.length < expected) {
    const batch = await consumer.fetch({ max_messages: 500, expires: 2_000 });
    for await (const m of batch) texts.push((m.json() as { event: { text: string } }).event.text);
  }
  return texts;
}

const delta = (i: number) => ({ id: `t1:s0:a1:c${i}`, turn_id: 't1', attempt: 1, event: { type: 'assistant.delta' as const, turn_id: 't1', step: 0, text: `d${i}` } });

test('a nats-server killed and restarted mid-stream: every event stored once, in order', async () => {
  const box = outbox();
  const sid = 'outbox-restart';
  const acks: Promise<unknown>[] = [];
  let restarted: Promise<void> | undefined;
  for (let i = 0; i < 400; i++) {
    acks.push(box.publish(sid, [delta(i)]));
    // Down for longer than any publish waits for its ack (nats.js: 5 s), while events keep coming.
    if (i === 150) {
      await nats.kill();
      restarted = new Promise((r) => setTimeout(r, 7_000)).then(() => nats.start());
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  await restarted;
  await Promise.all(acks);
  expect(box.resent).toBeGreaterThan(0);
  expect(await storedTexts(sid)).toEqual(Array.from({ length: 400 }, (_, i) => `d${i}`));
  await box.close();
}, 60_000);

test('publishing again what was stored (a retried activity) stores nothing twice', async () => {
  const box = outbox();
  const sid = 'outbox-retry';
  const events = Array.from({ length: 20 }, (_, i) => delta(i));
  const first = await box.publish(sid, events);
  const again = await box.publish(sid, events);
  expect(again.first_seq).toBe(first.first_seq);
  expect(await storedTexts(sid)).toHaveLength(20);
  await box.close();
}, 30_000);

test('a message JetStream refuses for good fails alone; the events around it are stored', async () => {
  const box = outbox();
  const sid = 'outbox-refused';
  const huge = { id: 'huge', event: { type: 'assistant.delta' as const, turn_id: 't1', step: 0, text: 'x'.repeat(2 * 1024 * 1024) } };
  const results = await Promise.allSettled([box.publish(sid, [delta(0)]), box.publish(sid, [huge]), box.publish(sid, [delta(1)])]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(await storedTexts(sid)).toEqual(['d0', 'd1']);
  await box.close();
}, 30_000);

test('NATS gone for longer than the outbox waits: the publish fails as unavailable, not as anything else', async () => {
  const box = outbox({ giveUpAfterMs: 1_500 });
  await nats.kill();
  try {
    await expect(box.publish('outbox-gone', [delta(0)])).rejects.toBeInstanceOf(OutboxUnavailableError);
  } finally {
    await nats.start();
    await box.close();
  }
}, 30_000);

test('a connection whose set-up fails (the stream unanswered during an election) is closed, and the events go out on the next', async () => {
  const opened: NatsConnection[] = [];
  let refusals = 2;
  const box = outbox({
    connect: async () => {
      const nc = await connect({ servers: nats.url, reconnect: false, timeout: 1_000 });
      opened.push(nc);
      return nc;
    },
    onConnect: async (nc) => {
      if (refusals-- > 0) throw new Error('TIMEOUT');
      await ensureAgentEventsStream(await nc.jetstreamManager());
    },
  });
  const sid = 'outbox-setup-fails';
  await box.publish(sid, [delta(0), delta(1)]);
  expect(await storedTexts(sid)).toEqual(['d0', 'd1']);
  expect(opened).toHaveLength(3);
  expect(opened.map((nc) => nc.isClosed())).toEqual([true, true, false]);
  await box.close();
}, 30_000);

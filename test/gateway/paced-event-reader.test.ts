import { connect, headers, type NatsConnection } from 'nats';
import { AGENT_EVENTS_STREAM, EVENT_TYPE_HEADER, agentEventSubject, ensureAgentEventsStream } from '../../contracts/agent-event-stream';
import type { EventSubscription } from '../../services/gateway/events/agent-event-reader';
import { PacedEventReader } from '../../services/gateway/events/paced-event-reader';
import { startTestNats, type TestNats } from '../harness/nats-server';

/**
 * The gateway's event reader against a real nats-server with JetStream: live events of every session
 * come through one read of the stream, handed to the feeds of the sessions that are watched.
 */
let nats: TestNats;
let nc: NatsConnection;
let reader: PacedEventReader;

beforeAll(async () => {
  nats = await startTestNats();
  nc = await connect({ servers: nats.url });
  await ensureAgentEventsStream(await nc.jetstreamManager());
  reader = new PacedEventReader(nc);
}, 30_000);

afterAll(async () => {
  reader.close();
  await nc.drain();
  await nats.stop();
});

/** Publishes `count` deltas of session `sid` (texts `<sid>:<i>`); resolves to their sequences. */
async function publish(sid: string, count: number, from = 0): Promise<number[]> {
  const js = nc.jetstream();
  const seqs: number[] = [];
  for (let i = from; i < from + count; i++) {
    const h = headers();
    h.set(EVENT_TYPE_HEADER, 'assistant.delta');
    const body = { v: 1, session_id: sid, ts: Date.now(), event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: `${sid}:${i}` } };
    seqs.push((await js.publish(agentEventSubject(sid), JSON.stringify(body), { headers: h })).seq);
  }
  return seqs;
}

/** Takes `count` events' texts from a subscription (then stops it). */
async function take(sub: EventSubscription, count: number): Promise<string[]> {
  const texts: string[] = [];
  if (count > 0)
    for await (const e of sub) {
      texts.push((e.envelope.event as { text: string }).text);
      if (texts.length === count) break;
    }
  sub.stop();
  return texts;
}

const texts = (sid: string, from: number, count: number) => Array.from({ length: count }, (_, i) => `${sid}:${from + i}`);

test('live readers of many sessions get their own session’s events, in order, through one consumer', async () => {
  const sids = Array.from({ length: 20 }, (_, i) => `live-${i}`);
  const subs = await Promise.all(sids.map((sid) => reader.open(sid)));
  const got = subs.map((sub) => take(sub, 10));
  // Interleaved: every session's events among the others'.
  for (let i = 0; i < 10; i++) for (const sid of sids) await publish(sid, 1, i);
  for (const [i, sid] of sids.entries()) expect(await got[i]).toEqual(texts(sid, 0, 10));
  // However many sessions are watched, the gateway has one consumer on the stream for live events.
  const info = await (await nc.jetstreamManager()).streams.info(AGENT_EVENTS_STREAM);
  expect(info.state.consumer_count).toBe(1);
}, 30_000);

test('a reader with a cursor in the past replays, then goes on live, without gap or repeat', async () => {
  const seqs = await publish('replay', 30);
  const sub = await reader.open('replay', seqs[9]);
  const got = take(sub, 20 + 10);
  await publish('replay', 10, 30);
  expect(await got).toEqual(texts('replay', 10, 30));
}, 30_000);

test('readers opened while the session streams each get every event after their cursor exactly once', async () => {
  const first = await publish('racing', 1);
  const opened: Array<Promise<string[]>> = [];
  const publishing = (async () => {
    for (let i = 1; i < 200; i++) {
      const [seq] = await publish('racing', 1, i);
      // Every 20 events a reader opens at the event just published, while more keep coming.
      if (i % 20 === 0) opened.push(reader.open('racing', seq).then((sub) => take(sub, 199 - i)));
    }
  })();
  const fromStart = take(await reader.open('racing', first[0]), 199);
  await publishing;
  expect(await fromStart).toEqual(texts('racing', 1, 199));
  const results = await Promise.all(opened);
  results.forEach((got, k) => expect(got).toEqual(texts('racing', (k + 1) * 20 + 1, 199 - (k + 1) * 20)));
}, 60_000);

test('a read of all sessions that could not start is started afresh by the next open', async () => {
  const bare = await startTestNats();
  const conn = await connect({ servers: bare.url });
  const fresh = new PacedEventReader(conn);
  try {
    // No stream yet: the open fails, and must not leave the reader failing for good.
    await expect(fresh.open('later', 0)).rejects.toThrow();
    await ensureAgentEventsStream(await conn.jetstreamManager());
    const sub = await fresh.open('later', 0);
    const got = take(sub, 3);
    const js = conn.jetstream();
    for (let i = 0; i < 3; i++) {
      const h = headers();
      h.set(EVENT_TYPE_HEADER, 'assistant.delta');
      await js.publish(agentEventSubject('later'), JSON.stringify({ v: 1, session_id: 'later', ts: Date.now(), event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: `later:${i}` } }), { headers: h });
    }
    expect(await got).toEqual(texts('later', 0, 3));
  } finally {
    fresh.close();
    await conn.drain();
    await bare.stop();
  }
}, 30_000);

test('a stored message that is not an event is reported and skipped alike by a live feed and a replay', async () => {
  const reports: Array<{ reader: string; seq: number; reason: string }> = [];
  const report = (reader: string) => (seq: number, reason: string) => reports.push({ reader, seq, reason });
  const live = new PacedEventReader(nc, report('live'));
  // A reader of its own, so the replay reads the stream itself rather than joining the live feed.
  const replay = new PacedEventReader(nc, report('replay'));
  try {
    const [before] = await publish('bad', 1);
    const liveGot = take(await live.open('bad'), 2);
    const js = nc.jetstream();
    const notJson = (await js.publish(agentEventSubject('bad'), 'not {json')).seq;
    const notEnvelope = (await js.publish(agentEventSubject('bad'), JSON.stringify({ v: 1, session_id: 'bad', event: { type: 'no.such.event' } }))).seq;
    await publish('bad', 2, 1);
    expect(await liveGot).toEqual(texts('bad', 1, 2));
    expect(await take(await replay.open('bad', before), 2)).toEqual(texts('bad', 1, 2));
    const seen = (name: string) => reports.filter((r) => r.reader === name).map((r) => [r.seq, r.reason === 'not JSON']);
    const both = [
      [notJson, true],
      [notEnvelope, false],
    ];
    expect([seen('live'), seen('replay')]).toEqual([both, both]);
  } finally {
    live.close();
    replay.close();
  }
}, 30_000);

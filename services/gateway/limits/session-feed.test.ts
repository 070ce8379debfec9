import type { EventSubscription, SequencedEvent } from '../events/agent-event-reader';
import { feedSubscription, SessionFeed } from './session-feed';

/** A session's event log in memory; `read(after)` is a live read of it, like a JetStream consumer's. */
function fakeLog() {
  const events: SequencedEvent[] = [];
  const listeners = new Set<() => void>();
  let reads = 0;
  const publish = (count: number) => {
    for (let i = 0; i < count; i++) {
      // Sequences with gaps, as other sessions' events take numbers in the same stream.
      const seq = (events.at(-1)?.seq ?? 0) + 1 + (events.length % 3);
      events.push({ seq, envelope: { v: 1, session_id: 's', ts: 0, event: { type: 'assistant.delta', turn_id: 't', step: 0, text: `e${seq}` } } });
    }
    for (const l of listeners) l();
  };
  const read = async (after: number): Promise<EventSubscription> => {
    reads += 1;
    let stopped = false;
    let wake: (() => void) | undefined;
    const listener = () => wake?.();
    listeners.add(listener);
    return {
      stop: () => {
        stopped = true;
        listeners.delete(listener);
        wake?.();
      },
      async *[Symbol.asyncIterator]() {
        let last = after;
        while (!stopped) {
          const next = events.find((e) => e.seq > last);
          if (!next) {
            await new Promise<void>((resolve) => (wake = resolve));
            continue;
          }
          last = next.seq;
          yield next;
        }
      },
    };
  };
  return { events, publish, read, reads: () => reads };
}

/** Takes `count` events from a subscription. */
async function take(sub: EventSubscription, count: number): Promise<number[]> {
  const seqs: number[] = [];
  if (count === 0) return seqs;
  for await (const e of sub) {
    seqs.push(e.seq);
    if (seqs.length === count) break;
  }
  return seqs;
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test('readers at the live edge share the feed: every event once, in order, with no read of their own', async () => {
  const log = fakeLog();
  log.publish(5);
  const start = log.events.at(-1)!.seq;
  const feed = new SessionFeed(await log.read(start), start, () => undefined);
  const readers = Array.from({ length: 10 }, () => feedSubscription(feed, start, true, log.read));
  const got = readers.map((r) => take(r, 20));
  await tick();
  log.publish(20);
  const expected = log.events.slice(5).map((e) => e.seq);
  for (const seqs of await Promise.all(got)) expect(seqs).toEqual(expected);
  expect(log.reads()).toBe(1); // the feed's only
  feed.close();
});

test('a reader further back replays on its own, then joins the feed without gap or repeat', async () => {
  const log = fakeLog();
  log.publish(30);
  const feedStart = log.events[20]!.seq;
  const feed = new SessionFeed(await log.read(feedStart), feedStart, () => undefined);
  const reader = feedSubscription(feed, log.events[3]!.seq, false, log.read);
  const got = take(reader, 26 + 10);
  await tick();
  log.publish(10);
  expect(await got).toEqual(log.events.slice(4).map((e) => e.seq));
  feed.close();
});

test('a reader that falls too far behind is dropped by the feed and goes on by itself from where it was', async () => {
  const log = fakeLog();
  const feed = new SessionFeed(await log.read(0), 0, () => undefined);
  const slow = feedSubscription(feed, 0, true, log.read);
  const fast = feedSubscription(feed, 0, true, log.read);
  const iterator = slow[Symbol.asyncIterator]();
  const fastGot = take(fast, 1 + 2_000);
  const firstOfSlow = iterator.next();
  log.publish(1);
  const slowSeqs: number[] = [(await firstOfSlow).value!.seq];
  log.publish(2_000); // far past what a joined reader may have waiting, while the slow one takes nothing
  await tick();
  for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
    slowSeqs.push(r.value.seq);
    if (slowSeqs.length === 2_001) break;
  }
  const all = log.events.map((e) => e.seq);
  expect(await fastGot).toEqual(all);
  expect(slowSeqs).toEqual(all);
  expect(log.reads()).toBeGreaterThan(1); // the slow reader's own
  slow.stop();
  fast.stop();
  feed.close();
});

test('when the last reader stops, the feed closes after a while; a closed feed sends its readers to reads of their own', async () => {
  jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
  try {
    const log = fakeLog();
    let idle = 0;
    const feed = new SessionFeed(await log.read(0), 0, () => idle++);
    const a = feedSubscription(feed, 0, true, log.read);
    a.stop();
    expect(feed.live).toBe(true);
    jest.advanceTimersByTime(6_000);
    expect(feed.live).toBe(false);
    expect(idle).toBe(1);
    const b = feedSubscription(feed, 0, true, log.read);
    const got = take(b, 3);
    log.publish(3);
    jest.useRealTimers();
    expect(await got).toEqual(log.events.map((e) => e.seq));
  } finally {
    jest.useRealTimers();
  }
});

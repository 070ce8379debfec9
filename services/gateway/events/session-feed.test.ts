import { memoryEventLog as fakeLog } from '../../../test/harness/memory-event-log';
import type { EventSubscription } from '../events/agent-event-reader';
import { feedSubscription, SessionFeed } from './session-feed';

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

/**
 * A feed handed every event of `read` after `startAfter` the way the gateway's one live read hands them
 * (paced-event-reader.ts: `push` per event, `close` when the read ends), which stops `read` when it closes.
 */
function fedBy(read: EventSubscription, startAfter: number, onClose: () => void): SessionFeed {
  const feed = new SessionFeed(startAfter, () => {
    read.stop();
    onClose();
  });
  void (async () => {
    for await (const event of read) feed.push(event);
    feed.close();
  })();
  return feed;
}

test('readers at the live edge share the feed: every event once, in order, with no read of their own', async () => {
  const log = fakeLog();
  log.publish(5);
  const start = log.events.at(-1)!.seq;
  const feed = fedBy(await log.read(start), start, () => undefined);
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
  const feed = fedBy(await log.read(feedStart), feedStart, () => undefined);
  const reader = feedSubscription(feed, log.events[3]!.seq, false, log.read);
  const got = take(reader, 26 + 10);
  await tick();
  log.publish(10);
  expect(await got).toEqual(log.events.slice(4).map((e) => e.seq));
  feed.close();
});

test('a reader that falls too far behind is dropped by the feed and goes on by itself from where it was', async () => {
  const log = fakeLog();
  const feed = fedBy(await log.read(0), 0, () => undefined);
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
    const feed = fedBy(await log.read(0), 0, () => idle++);
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

describe('pushed delivery (deliver)', () => {
  test('a session’s readers are handed each event in the tick the feed reads it, all of them, in order', async () => {
    const log = fakeLog();
    const readers: EventSubscription[] = [];
    const got: number[][] = [];
    // How many readers lack an event when the feed asks its read for the next one: none, if the
    // feed handed it to every reader in the same tick (queued for them, they would all lack it).
    const lacking: number[] = [];
    const read = await log.read(0);
    const observed: EventSubscription = {
      stop: () => read.stop(),
      async *[Symbol.asyncIterator]() {
        for await (const e of read) {
          yield e;
          lacking.push(got.filter((g) => g.at(-1) !== e.seq).length);
        }
      },
    };
    const feed = fedBy(observed, 0, () => undefined);
    for (let i = 0; i < 50; i++) {
      const reader = feedSubscription(feed, 0, true, log.read);
      const mine: number[] = [];
      readers.push(reader);
      got.push(mine);
      void reader.deliver!((e) => void mine.push(e.seq));
    }
    await tick();
    log.publish(30);
    await tick();
    for (const g of got) expect(g).toEqual(log.events.map((e) => e.seq));
    expect(lacking).toEqual(Array(30).fill(0));
    expect(log.reads()).toBe(1);
    readers.forEach((r) => r.stop());
    feed.close();
  });

  test('a taker that waits holds back only its own reader, which then gets the rest in order', async () => {
    const log = fakeLog();
    const feed = fedBy(await log.read(0), 0, () => undefined);
    const slow = feedSubscription(feed, 0, true, log.read);
    const fast = feedSubscription(feed, 0, true, log.read);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slowGot: number[] = [];
    const fastGot: number[] = [];
    void slow.deliver!((e) => {
      slowGot.push(e.seq);
      if (slowGot.length === 1) return gate;
    });
    void fast.deliver!((e) => void fastGot.push(e.seq));
    await tick();
    log.publish(10);
    await tick();
    const all = log.events.map((e) => e.seq);
    expect(fastGot).toEqual(all);
    expect(slowGot).toEqual(all.slice(0, 1));
    release();
    await tick();
    expect(slowGot).toEqual(all);
    log.publish(5);
    await tick();
    expect(slowGot).toEqual(log.events.map((e) => e.seq));
    slow.stop();
    fast.stop();
    feed.close();
  });

  test('a pushed reader that falls too far behind goes on by itself from where it was, without gap or repeat', async () => {
    const log = fakeLog();
    const feed = fedBy(await log.read(0), 0, () => undefined);
    const slow = feedSubscription(feed, 0, true, log.read);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const got: number[] = [];
    void slow.deliver!((e) => {
      got.push(e.seq);
      if (got.length === 1) return gate;
    });
    await tick();
    log.publish(2_000);
    await tick();
    release();
    for (let i = 0; i < 100 && got.length < 2_000; i++) await tick();
    expect(got).toEqual(log.events.map((e) => e.seq));
    expect(log.reads()).toBe(2); // the feed's and the dropped reader's own
    slow.stop();
    feed.close();
  });

  test('a taker that answers false, at once or through its promise, ends the delivery and stops the subscription', async () => {
    const log = fakeLog();
    const feed = fedBy(await log.read(0), 0, () => undefined);
    const a = feedSubscription(feed, 0, true, log.read);
    const b = feedSubscription(feed, 0, true, log.read);
    const aGot: number[] = [];
    const bGot: number[] = [];
    const aDone = a.deliver!((e) => aGot.push(e.seq) < 3);
    const bDone = b.deliver!((e) => Promise.resolve(bGot.push(e.seq) < 2));
    await tick();
    log.publish(10);
    await Promise.all([aDone, bDone]);
    const all = log.events.map((e) => e.seq);
    expect(aGot).toEqual(all.slice(0, 3));
    expect(bGot).toEqual(all.slice(0, 2));
    // Both stopped: later events reach neither.
    log.publish(3);
    await tick();
    expect(aGot).toEqual(all.slice(0, 3));
    expect(bGot).toEqual(all.slice(0, 2));
    await expect(a.deliver!(() => undefined)).resolves.toBeUndefined();
    feed.close();
  });

  test('a taker that throws fails its own delivery only', async () => {
    const log = fakeLog();
    const feed = fedBy(await log.read(0), 0, () => undefined);
    const bad = feedSubscription(feed, 0, true, log.read);
    const good = feedSubscription(feed, 0, true, log.read);
    const goodGot: number[] = [];
    const failed = bad.deliver!(() => {
      throw new Error('the client went away');
    });
    void good.deliver!((e) => void goodGot.push(e.seq));
    await tick();
    log.publish(5);
    await expect(failed).rejects.toThrow('the client went away');
    await tick();
    expect(goodGot).toEqual(log.events.map((e) => e.seq));
    good.stop();
    feed.close();
  });

  test('iterating pulls through the same delivery: break stops the subscription', async () => {
    const log = fakeLog();
    const feed = fedBy(await log.read(0), 0, () => undefined);
    const reader = feedSubscription(feed, 0, true, log.read);
    const got = take(reader, 4);
    await tick();
    log.publish(10);
    expect(await got).toEqual(log.events.slice(0, 4).map((e) => e.seq));
    // Stopped by the break: a later delivery on it ends at once, having taken nothing.
    const after: number[] = [];
    await reader.deliver!((e) => void after.push(e.seq));
    expect(after).toEqual([]);
    feed.close();
  });
});

test('a replay whose own read cannot be opened yet (a NATS leader election) is tried again, and the reader gets every event', async () => {
  const log = fakeLog();
  log.publish(30);
  const feedStart = log.events[20]!.seq;
  const feed = fedBy(await log.read(feedStart), feedStart, () => undefined);
  let refusals = 2;
  const electing = async (after: number) => {
    if (refusals-- > 0) throw new Error('TIMEOUT');
    return log.read(after);
  };
  const reader = feedSubscription(feed, log.events[3]!.seq, false, electing);
  const got = take(reader, 26 + 10);
  await tick();
  log.publish(10);
  expect(await got).toEqual(log.events.slice(4).map((e) => e.seq));
  expect(refusals).toBe(-1);
  feed.close();
});

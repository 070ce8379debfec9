import type { HttpEventData } from '../../contracts/http-events';
import type { FeedHandlers } from './session-feed';
import { SessionFeed } from './session-feed';

/**
 * The order in which both clients open a session and read a moved conversation: the follower is the
 * feed's input (clients/core/event-follower.ts has its own tests against a real server), so here it is
 * driven by hand and every step the feed takes is logged, in order.
 */

const state = (n: number): HttpEventData => ({ type: 'agent.state', state: n % 2 ? 'thinking' : 'idle' }) as HttpEventData;

/** A stored read that stays open until released, so events can arrive while it runs. */
function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

function harness(opts: { onApply?: (data: HttpEventData, feed: SessionFeed) => void } = {}) {
  const log: string[] = [];
  const reads: Array<{ open(): void }> = [];
  let handlers!: FeedHandlers;
  let closed = false;
  const feed: SessionFeed = new SessionFeed({
    follow: (h) => {
      handlers = h;
      return { close: () => void (closed = true) };
    },
    readStored: async (first) => {
      log.push(`read ${first ? 'first' : 'again'}`);
      const g = gate();
      reads.push(g);
      await g.wait;
      log.push('read done');
    },
    apply: (data, waited) => {
      log.push(`apply ${(data as { state?: string }).state}${waited ? ' (waited)' : ''}`);
      opts.onApply?.(data, feed);
    },
    settled: (first) => void log.push(`settled ${first ? 'first' : 'again'}`),
    reconnected: () => void log.push('reconnected'),
    onState: (s) => void log.push(`state ${s.kind}`),
    onFatal: (status) => void log.push(`fatal ${status}`),
  });
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return { log, reads, feed, handlers: () => handlers, closed: () => closed, tick };
}

test('events wait for the stored conversation: before the stream is live and while it is read; then they come as they arrive', async () => {
  const h = harness();
  h.handlers().onState({ kind: 'connecting' });
  h.handlers().onEvent(1, state(1));
  expect(h.log).toEqual(['state connecting']);
  h.handlers().onState({ kind: 'live' });
  h.handlers().onEvent(2, state(2));
  await h.tick();
  expect(h.log).toEqual(['state connecting', 'state live', 'read first']);
  h.reads[0]!.open();
  await h.tick();
  h.handlers().onEvent(3, state(3));
  // A drop and a new connection: no new read, the client re-reads what events do not carry.
  h.handlers().onState({ kind: 'reconnecting', reason: 'the stream ended', attempt: 1 });
  h.handlers().onState({ kind: 'live' });
  expect(h.log).toEqual([
    'state connecting',
    'state live',
    'read first',
    'read done',
    'apply thinking (waited)',
    'apply idle (waited)',
    'settled first',
    'apply thinking',
    'state reconnecting',
    'state live',
    'reconnected',
  ]);
  expect(h.reads).toHaveLength(1);
});

test('a read asked for while one runs makes exactly one more after it, and events wait across both', async () => {
  const h = harness();
  h.handlers().onState({ kind: 'live' });
  h.reads[0]!.open();
  await h.tick();
  h.log.length = 0;
  const first = h.feed.reread();
  h.handlers().onEvent(1, state(1));
  const second = h.feed.reread();
  const third = h.feed.reread();
  expect(second).toBe(first);
  expect(third).toBe(first);
  await h.tick();
  h.reads[1]!.open();
  await h.tick();
  h.handlers().onEvent(2, state(2));
  h.reads[2]!.open();
  await first;
  expect(h.log).toEqual(['read again', 'read done', 'apply thinking (waited)', 'settled again', 'read again', 'read done', 'apply idle (waited)', 'settled again']);
  expect(h.reads).toHaveLength(3);
});

test('an event applied after a read that asks for another read (a revert moved the conversation) gets it', async () => {
  let asked = false;
  const h = harness({
    onApply: (data, feed) => {
      if ((data as { state?: string }).state === 'thinking' && !asked) {
        asked = true;
        void feed.reread();
      }
    },
  });
  h.handlers().onState({ kind: 'live' });
  h.handlers().onEvent(1, state(1));
  h.reads[0]!.open();
  await h.tick();
  await h.tick();
  expect(h.reads).toHaveLength(2);
  h.reads[1]!.open();
  await h.tick();
  expect(h.log).toEqual(['state live', 'read first', 'read done', 'apply thinking (waited)', 'settled first', 'read again', 'read done', 'settled again']);
});

test('closed: the follower is closed, a read under way applies nothing, nothing more is told', async () => {
  const h = harness();
  h.handlers().onState({ kind: 'live' });
  h.handlers().onEvent(1, state(1));
  h.feed.close();
  expect(h.closed()).toBe(true);
  h.reads[0]!.open();
  await h.tick();
  h.handlers().onEvent(2, state(2));
  h.handlers().onState({ kind: 'live' });
  h.handlers().onFatal(404, 'gone');
  expect(h.log).toEqual(['state live', 'read first', 'read done']);
});

test('a fatal stream is told with its status', () => {
  const h = harness();
  h.handlers().onFatal(404, 'no session s1');
  expect(h.log).toEqual(['fatal 404']);
});

test('a state the follower tells while it starts (connecting, at once) reaches the client', () => {
  const log: string[] = [];
  new SessionFeed({
    follow: (h) => {
      h.onState({ kind: 'connecting' });
      return { close: () => undefined };
    },
    readStored: () => Promise.resolve(),
    apply: () => undefined,
    settled: () => undefined,
    reconnected: () => undefined,
    onState: (s) => void log.push(s.kind),
  });
  expect(log).toEqual(['connecting']);
});

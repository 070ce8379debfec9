import type { AgentEvent } from '../../../../contracts/agent-events';
import type { EventSubscription, SequencedEvent } from '../../events/agent-event-reader';
import type { EdnMap } from '../edn-value';
import { FocusFeed, type FeedSink, type FooterUsage } from './feed';

/**
 * The feed never holds the stream behind the footer's store read: a read that hangs (a slow store or
 * Temporal query) leaves deltas flowing, the footer at a turn's end already counts the turn's usage,
 * and a fresh read that lands late never replaces a newer footer.
 */
const SESSION = 's1';

function pushSubscription() {
  const queue: SequencedEvent[] = [];
  let wake: (() => void) | undefined;
  let seq = 0;
  let stopped = false;
  const sub: EventSubscription = {
    stop: () => {
      stopped = true;
      wake?.();
    },
    async *[Symbol.asyncIterator]() {
      while (!stopped) {
        if (queue.length === 0) await new Promise<void>((r) => (wake = r));
        while (queue.length > 0) yield queue.shift()!;
      }
    },
  };
  const push = (event: AgentEvent) => {
    seq += 1;
    queue.push({ seq, envelope: { v: 1, id: `e${seq}`, session_id: SESSION, ts: Date.now(), event } as never });
    wake?.();
  };
  return { sub, push };
}

const state = (phase: 'idle' | 'thinking', turn: string | null): AgentEvent => ({
  type: 'session.state', phase, model: 'scripted/echo', thinking_level: 'off', queue_length: 0, turn_id: turn, streaming: phase !== 'idle', retry_attempt: 0,
});
const usage = (input: number, output: number): FooterUsage => ({
  projectPath: '/tmp/p',
  usage: { input, output, cache_read: 0, cache_write: 0, cost_usd: 0 },
  context: { share: 0, window: 1000 },
});
const tick = () => new Promise((r) => setTimeout(r, 20));

test('a footer read that never answers holds up nothing; the turn-end footer counts the turn', async () => {
  const emitted: Array<{ topic: string; data: EdnMap }> = [];
  const reads: Array<(u: FooterUsage) => void> = [];
  const sink: FeedSink = {
    emit: (topic, data) => emitted.push({ topic, data }),
    footerUsage: () => new Promise((resolve) => reads.push(resolve)),
    stillPending: async () => true,
    log: { warn: () => undefined, error: () => undefined } as never,
  };
  const { sub, push } = pushSubscription();
  const feed = new FocusFeed(SESSION, sub, sink);
  feed.start();
  reads[0]!(usage(10, 5)); // the priming read answers
  await tick();

  push(state('thinking', 't1'));
  push({ type: 'turn.started', turn_id: 't1', prompt: 'hi' });
  push({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'Hel' });
  push({ type: 'assistant.delta', turn_id: 't1', step: 0, text: 'lo' });
  push({ type: 'usage', input: 7, output: 2, cache_read: 0, cache_write: 0, cost_usd: 0 });
  push(state('idle', null));
  await tick();
  // No read answered after the priming one, yet everything went out in stream order.
  const topics = emitted.map((e) => e.topic);
  expect(topics).toEqual(['session/updated', 'footer/updated', 'assistant/delta', 'assistant/delta', 'session/updated', 'footer/updated']);
  expect(emitted.at(-1)!.data['usage-parts']).toEqual(expect.arrayContaining(['↑17', '↓7']));

  // The turn-end read lands: a footer with the store's figures follows.
  const pending = reads.length;
  expect(pending).toBeGreaterThan(1);
  reads.at(-1)!(usage(17, 7));
  await tick();
  expect(emitted.at(-1)!.topic).toBe('footer/updated');
  expect(emitted.at(-1)!.data['usage-parts']).toEqual(expect.arrayContaining(['↑17', '↓7']));

  // A read overtaken by a later state never sends its (older) figures.
  const readsBefore = reads.length;
  push({ ...state('idle', null), model: 'scripted/slow' } as AgentEvent);
  push({ ...state('idle', null), model: 'scripted/edit-file' } as AgentEvent);
  await tick();
  expect(reads.length).toBe(readsBefore + 2);
  const [older, newer] = reads.slice(-2);
  const before = emitted.length;
  older!(usage(1, 1));
  await tick();
  expect(emitted.length).toBe(before);
  newer!(usage(20, 9));
  await tick();
  expect(emitted.at(-1)!.data['usage-parts']).toEqual(expect.arrayContaining(['↑20', '↓9']));
  feed.stop();
});

test('approval dialogs are judged by stream order and the session, not by clocks: answered replays stay hidden, live ones show once listed', async () => {
  const emitted: Array<{ topic: string; data: EdnMap }> = [];
  const listed = new Set<string>();
  const sink: FeedSink = {
    emit: (topic, data) => emitted.push({ topic, data }),
    footerUsage: async () => usage(0, 0),
    stillPending: async (_session, callId) => listed.has(callId),
    log: { warn: () => undefined, error: () => undefined } as never,
  };
  const { sub, push } = pushSubscription();
  const feed = new FocusFeed(SESSION, sub, sink);
  feed.start();
  const ask = (id: string): AgentEvent => ({ type: 'approval.requested', tool_call_id: id, tool: 'write_file', params: { path: `${id}.txt` }, timeout_s: 60 });
  const waiting = { ...state('thinking', 't1'), phase: 'waiting_approval' } as AgentEvent;
  const dialogs = () => emitted.filter((e) => e.topic === 'ui/dialog-requested').map((e) => e.data['dialog-id']);

  // A replayed approval answered long ago: the session no longer lists it, at its request or at its waiting state.
  push(state('thinking', 't1'));
  push(ask('old'));
  push(waiting);
  push({ type: 'approval.resolved', tool_call_id: 'old', decision: 'approved' });
  await tick();
  expect(dialogs()).toEqual([]);

  // A live approval the session lists only after announcing it: shown right after the waiting state.
  push(ask('live'));
  await tick();
  expect(dialogs()).toEqual([]);
  listed.add('live');
  push(waiting);
  await tick();
  expect(dialogs()).toEqual(['live']);
  expect(emitted.at(-2)!.topic).toBe('session/updated');

  // One the session already lists: shown at once, in stream order.
  listed.add('now');
  push(ask('now'));
  push({ type: 'notice', level: 'info', message: 'after' });
  await tick();
  expect(emitted.slice(-2).map((e) => e.topic)).toEqual(['ui/dialog-requested', 'ui/notification']);
  expect(dialogs()).toEqual(['live', 'now']);
  feed.stop();
});

import type { AgentEventEnvelope } from '../../../contracts/agent-events';
import type { EventSubscription, SequencedEvent } from '../events/agent-event-reader';
import { ConnectionLimiter } from '../limits/connection-limiter';
import type { SessionService } from '../sessions/session-service';
import { eventsRoute } from './events-route';

/** A session whose event read yields `count` deltas of `size` characters, then waits until stopped. */
function fakeSessions(count: number, size: number) {
  const state = { stopped: 0, read: 0 };
  const delta = (seq: number): SequencedEvent => ({
    seq,
    envelope: { v: 1, session_id: 's1', ts: 0, event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: String(seq % 10).repeat(size) } } as AgentEventEnvelope,
  });
  const subscription = (): EventSubscription => {
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    return {
      stop: () => {
        state.stopped += 1;
        stop();
      },
      async *[Symbol.asyncIterator]() {
        for (let seq = 1; seq <= count; seq++) {
          state.read = seq;
          yield delta(seq);
        }
        await stopped;
      },
    };
  };
  const sessions = { events: async () => subscription() } as unknown as SessionService;
  return { sessions, state };
}

test('a client that does not read is cut: events stop being read, a last error frame without id, the slot is freed', async () => {
  const { sessions, state } = fakeSessions(1_000, 10_000);
  const limiter = new ConnectionLimiter(1);
  const app = eventsRoute({ sessions, keepaliveMs: 60_000, sseConnections: limiter, maxSendBufferBytes: 32_000, slowConsumerMs: 100 });
  const res = await app.request('/s1/events');
  expect(res.status).toBe(200);
  expect(limiter.active).toBe(1);
  // Nobody reads: the route stops reading events after a few, then gives up on the client.
  await new Promise((r) => setTimeout(r, 1_500));
  expect(state.read).toBeLessThan(10);
  expect(state.stopped).toBeGreaterThan(0);
  expect(limiter.active).toBe(0);
  const body = await res.text();
  const frames = body.trim().split('\n\n');
  const last = frames[frames.length - 1]!;
  expect(last).not.toMatch(/^id:/m);
  expect(last).toMatch(/^event: error$/m);
  expect(JSON.parse(/^data: (.*)$/m.exec(last)![1]!)).toMatchObject({ type: 'error', code: 'SLOW_CONSUMER', message: expect.stringMatching(/slow consumer.*Last-Event-ID/) });
  // What it did get is whole frames in order, each with its id.
  expect(frames.slice(0, -1).map((f) => /^id: (\d+)$/m.exec(f)?.[1])).toEqual(frames.slice(0, -1).map((_, i) => String(i + 1)));
});

test('a client that reads gets every event, however far over the bound the events are', async () => {
  const { sessions } = fakeSessions(200, 10_000);
  const app = eventsRoute({ sessions, keepaliveMs: 60_000, maxSendBufferBytes: 32_000, slowConsumerMs: 2_000 });
  const res = await app.request('/s1/events');
  const reader = res.body!.getReader();
  let text = '';
  const decoder = new TextDecoder();
  while (!text.slice(-30_000).includes('id: 200\n')) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  expect(text.match(/^id: \d+$/gm)).toHaveLength(200);
  expect(text).not.toMatch(/SLOW_CONSUMER/);
});

test('past the maximum of open streams a new one is refused with 503 UNAVAILABLE and Retry-After', async () => {
  const { sessions } = fakeSessions(0, 0);
  const limiter = new ConnectionLimiter(1);
  const app = eventsRoute({ sessions, keepaliveMs: 60_000, sseConnections: limiter });
  app.onError((err, c) => c.json({ code: (err as { code?: string }).code }, 503));
  const first = await app.request('/s1/events');
  expect(first.status).toBe(200);
  const second = await app.request('/s1/events');
  expect(second.status).toBe(503);
  expect(await second.json()).toEqual({ code: 'UNAVAILABLE' });
  await first.body!.cancel();
  await new Promise((r) => setTimeout(r, 50));
  expect(limiter.active).toBe(0);
});

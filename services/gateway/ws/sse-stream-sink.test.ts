import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ClientOutbox, type CutReason, type OutboxPolicy } from '../events/client-outbox';
import { sseStreamSink } from './sse-stream-sink';

const frame = (n: number) => `data: {"n":${n},"pad":"${'x'.repeat(40)}"}\n\n`;

/**
 * A real Hono SSE response whose producer writes through a ClientOutbox over the sink; the test is
 * its client and decides whether to read the body. `produce` returns what it wrote.
 */
function chatLike(policy: OutboxPolicy, produce: (out: ClientOutbox) => Promise<string[]>) {
  const cuts: CutReason[] = [];
  let written: Promise<string[]> = Promise.resolve([]);
  const app = new Hono();
  app.get('/', (c) =>
    streamSSE(c, async (stream) => {
      const out = new ClientOutbox(sseStreamSink(stream, undefined), policy, () => ': cut\n\n', (r) => cuts.push(r));
      written = produce(out);
      await written;
      out.close();
    }),
  );
  return { response: app.request('/'), cuts, written: () => written };
}

test('a client that does not read is cut as slow; it still gets, in order, what was written and the last words, then the end', async () => {
  const { response, cuts, written } = chatLike({ maxUnsentBytes: 200, slowConsumerMs: 50, graceMs: 10_000 }, async (out) => {
    const sent: string[] = [];
    // Until the unread frames fill the bound (a sink that measured nothing would never get there).
    for (let n = 0; !out.full && n < 1_000; n++) if (out.send(frame(n))) sent.push(frame(n));
    expect(out.full).toBe(true);
    expect(await out.ready()).toBe(false);
    expect(out.send(frame(-1))).toBe(false);
    return sent;
  });
  const res = await response;
  const sent = await written();
  expect(cuts).toEqual(['slow']);
  expect(await res.text()).toBe(sent.join('') + ': cut\n\n');
});

test('a client that reads gets every frame in order and is never cut, however far the producer runs ahead', async () => {
  const { response, cuts, written } = chatLike({ maxUnsentBytes: 200, slowConsumerMs: 10_000 }, async (out) => {
    const sent: string[] = [];
    for (let n = 0; n < 60; n++) {
      if (out.full) expect(await out.ready()).toBe(true);
      expect(out.send(frame(n))).toBe(true);
      sent.push(frame(n));
    }
    return sent;
  });
  const body = await (await response).text();
  expect(body).toBe((await written()).join(''));
  expect(cuts).toEqual([]);
});

import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { AgentEventEnvelope } from '../../../contracts/agent-events';
import { connectRaw, parseResponse, readToEnd, sseFrames } from '../../../test/harness/raw-http';
import type { EventSubscription, SequencedEvent } from '../events/agent-event-reader';
import { ConnectionLimiter } from '../limits/connection-limiter';
import type { SessionService } from '../sessions/session-service';
import { eventsRoute, type EventsDeps } from './events-route';

/**
 * A session whose event read yields `count` deltas of `size` characters, then ends (`end`) or waits
 * until stopped. `pushed`: the read pushes (`deliver`, as a reader joined to a session's feed does),
 * handing events over in one go for as long as the route takes them at once; otherwise it is iterated.
 */
function fakeSessions(count: number, size: number, end = false, pushed = false) {
  const state = { stopped: 0, read: 0 };
  const delta = (seq: number): SequencedEvent => ({
    seq,
    envelope: { v: 1, session_id: 's1', ts: 0, event: { type: 'assistant.delta', turn_id: 't1', step: 0, text: String(seq % 10).repeat(size) } } as AgentEventEnvelope,
  });
  const subscription = (): EventSubscription => {
    let stop: () => void = () => undefined;
    let isStopped = false;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const sub: EventSubscription = {
      stop: () => {
        state.stopped += 1;
        isStopped = true;
        stop();
      },
      async *[Symbol.asyncIterator]() {
        for (let seq = 1; seq <= count; seq++) {
          state.read = seq;
          yield delta(seq);
        }
        if (!end) await stopped;
      },
    };
    if (pushed)
      sub.deliver = async (take) => {
        try {
          for (let seq = 1; seq <= count && !isStopped; seq++) {
            state.read = seq;
            const answer = take(delta(seq));
            if (answer === false || (answer instanceof Promise && (await answer) === false)) return;
          }
          if (!end) await stopped;
        } finally {
          sub.stop();
        }
      };
    return sub;
  };
  const sessions = { open: async () => ({ events: async () => subscription() }) } as unknown as SessionService;
  return { sessions, state };
}

const servers: ServerType[] = [];
afterAll(() => servers.forEach((s) => s.close()));

/** The route on a real Node server (the route writes to Node's response itself). */
async function start(deps: Omit<EventsDeps, 'keepaliveMs'>): Promise<string> {
  const app = eventsRoute({ keepaliveMs: 60_000, ...deps });
  app.onError((err, c) => c.json({ code: (err as { code?: string }).code }, 503));
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const request = 'GET /s1/events HTTP/1.1\r\nHost: x\r\n\r\n';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each([
  ['iterated', false],
  ['pushed', true],
])('slow consumers, events %s', (_how, pushed) => {
  test('a client that does not read is cut: events stop being read, the connection is closed, the slot is freed', async () => {
    const { sessions, state } = fakeSessions(5_000, 10_000, false, pushed);
    const limiter = new ConnectionLimiter(1);
    const base = await start({ sessions, sseConnections: limiter, maxSendBufferBytes: 64_000, slowConsumerMs: 200 });
    const socket = await connectRaw(base);
    socket.write(request);
    socket.pause();
    for (let i = 0; i < 50 && limiter.active === 0; i++) await sleep(20);
    expect(limiter.active).toBe(1);
    // Socket buffers take a few MB; past them the route stops reading, waits, and cuts the client.
    for (let i = 0; i < 100 && limiter.active > 0; i++) await sleep(100);
    expect(limiter.active).toBe(0);
    expect(state.stopped).toBeGreaterThan(0);
    expect(state.read).toBeLessThan(5_000);
    const { data, closed } = await readToEnd(socket, 5_000);
    expect(closed).toBe(true);
    const frames = sseFrames(parseResponse(data)!.body);
    // Whole frames in order, each with its id; the client got far less than was there to send.
    expect(frames.map((f) => f.id)).toEqual(frames.map((_, i) => String(i + 1)));
    expect(frames.length).toBeLessThan(state.read);
  }, 20_000);

  test('a client that reads in bursts, pausing for less than the slow consumer time, gets every event and is never cut', async () => {
    const { sessions } = fakeSessions(1_500, 10_000, true, pushed);
    const base = await start({ sessions, maxSendBufferBytes: 32_000, slowConsumerMs: 2_000 });
    const socket = await connectRaw(base);
    const chunks: Buffer[] = [];
    const ended = new Promise<void>((resolve) => {
      socket.on('data', (c: Buffer) => {
        chunks.push(c);
        // The end of a chunked answer: the stream was finished by the route, not cut.
        if (c.subarray(-5).toString('latin1') === '0\r\n\r\n') resolve();
      });
    });
    socket.write(request);
    socket.pause();
    const drip = setInterval(() => (socket.isPaused() ? socket.resume() : socket.pause()), 300);
    await ended;
    clearInterval(drip);
    socket.destroy();
    const frames = sseFrames(parseResponse(Buffer.concat(chunks))!.body);
    expect(frames.filter((f) => f.event === 'message.delta')).toHaveLength(1_500);
    expect(frames.some((f) => f.event === 'error')).toBe(false);
  }, 30_000);

  test('a client that stalls but reads again within a second of the cut gets the error frame without an id', async () => {
    const { sessions } = fakeSessions(2_000, 10_000, false, pushed);
    const cuts: string[] = [];
    const log = { warn: (_o: unknown, msg: string) => cuts.push(msg), error: () => undefined } as unknown as EventsDeps['log'];
    const base = await start({ sessions, maxSendBufferBytes: 64_000, slowConsumerMs: 300, log });
    const socket = await connectRaw(base);
    socket.write(request);
    socket.pause();
    // Stalled until the route cuts it; the last frame then waits for it through the grace second.
    for (let i = 0; i < 250 && cuts.length === 0; i++) await sleep(20);
    expect(cuts).toEqual(['SSE client cut: slow consumer']);
    const { data, closed } = await readToEnd(socket, 5_000);
    expect(closed).toBe(true);
    const frames = sseFrames(parseResponse(data)!.body);
    const last = frames[frames.length - 1]!;
    expect(last.event).toBe('error');
    expect(last.id).toBeUndefined();
    expect(JSON.parse(last.data)).toMatchObject({ type: 'error', code: 'SLOW_CONSUMER', message: expect.stringMatching(/slow consumer.*Last-Event-ID/) });
  }, 15_000);
});

test('past the maximum of open streams a new one is refused with 503 UNAVAILABLE; a closed one frees its slot', async () => {
  const { sessions } = fakeSessions(0, 0);
  const limiter = new ConnectionLimiter(1);
  const base = await start({ sessions, sseConnections: limiter });
  const first = await connectRaw(base);
  first.write(request);
  for (let i = 0; i < 250 && limiter.active === 0; i++) await sleep(20);
  expect(limiter.active).toBe(1);
  const second = await fetch(`${base}/s1/events`);
  expect(second.status).toBe(503);
  expect(await second.json()).toEqual({ code: 'UNAVAILABLE' });
  first.destroy();
  for (let i = 0; i < 50 && limiter.active > 0; i++) await sleep(20);
  expect(limiter.active).toBe(0);
});

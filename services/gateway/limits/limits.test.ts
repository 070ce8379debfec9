import { BoundedWriter } from './bounded-writer';
import { ConnectionLimiter } from './connection-limiter';
import { gateSubscription, waitForRoom } from './send-gate';
import { DEFAULT_LIMITS, limitsFromEnv } from './limits-config';

/** A sink whose writes complete only when the test says the client read them. */
function heldSink() {
  const held: Array<{ text: string; done: () => void }> = [];
  return {
    held,
    write: (text: string) => new Promise<void>((done) => held.push({ text, done })),
    readOne: () => held.shift()?.done(),
  };
}

test('a writer counts unsent bytes; over its limit, room waits until the client has taken half', async () => {
  const sink = heldSink();
  const w = new BoundedWriter(sink, 10);
  w.write('aaaa');
  await expect(w.room(10)).resolves.toBe(true);
  w.write('bbbb');
  w.write('cccc');
  expect(w.buffered).toBe(12);
  // Over the limit and nobody reads: no room in time (a slow consumer).
  await expect(w.room(20)).resolves.toBe(false);
  const waiting = w.room(5_000);
  sink.readOne();
  await Promise.resolve();
  expect(w.buffered).toBe(8);
  let settled = false;
  void waiting.then(() => (settled = true));
  await new Promise((r) => setTimeout(r, 10));
  expect(settled).toBe(false); // 8 is under the limit but not yet at half of it
  sink.readOne();
  await expect(waiting).resolves.toBe(true);
  expect(w.buffered).toBe(4);
});

test('drained resolves when everything was taken, or false after its time', async () => {
  const sink = heldSink();
  const w = new BoundedWriter(sink, 100);
  await expect(w.drained(10)).resolves.toBe(true);
  w.write('abc');
  await expect(w.drained(20)).resolves.toBe(false);
  const later = w.drained(5_000);
  sink.readOne();
  await expect(later).resolves.toBe(true);
});

test('a failed write counts as taken (the client is gone), so the count cannot stick', async () => {
  const w = new BoundedWriter({ write: () => Promise.reject(new Error('gone')) }, 10);
  w.write('abcdefghijkl');
  await expect(w.drained(1_000)).resolves.toBe(true);
  expect(w.buffered).toBe(0);
});

test('waitForRoom: at once under the limit, after catching up to half, false when stuck or gone', async () => {
  let unsent = 5;
  let gone = false;
  await expect(waitForRoom(() => unsent, 10, 50, () => gone)).resolves.toBe(true);
  unsent = 12;
  await expect(waitForRoom(() => unsent, 10, 60, () => gone)).resolves.toBe(false);
  const waiting = waitForRoom(() => unsent, 10, 5_000, () => gone);
  setTimeout(() => (unsent = 5), 50);
  await expect(waiting).resolves.toBe(true);
  unsent = 12;
  const dropped = waitForRoom(() => unsent, 10, 5_000, () => gone);
  gone = true;
  await expect(dropped).resolves.toBe(false);
});

test('a gated subscription reads the next event only when the client is ready, and stops when it will not be', async () => {
  const events = [1, 2, 3, 4].map((seq) => ({ seq, envelope: {} as never }));
  let stopped = 0;
  const source = {
    stop: () => stopped++,
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
  };
  const answers = [true, false];
  const gated = gateSubscription(source, async () => answers.shift() ?? true);
  const seen: number[] = [];
  for await (const e of gated) seen.push(e.seq);
  expect(seen).toEqual([1, 2]);
  expect(stopped).toBeGreaterThan(0);
});

test('a connection limiter counts each release once and frees room for new connections', () => {
  const limiter = new ConnectionLimiter(2);
  const a = limiter.tryAcquire()!;
  const b = limiter.tryAcquire()!;
  expect(limiter.tryAcquire()).toBeUndefined();
  a();
  a();
  expect(limiter.active).toBe(1);
  expect(limiter.tryAcquire()).toBeDefined();
  expect(limiter.tryAcquire()).toBeUndefined();
  b();
  expect(limiter.active).toBe(1);
});

test('limits come from the environment with defaults; bad values name their variable', () => {
  expect(limitsFromEnv({})).toEqual(DEFAULT_LIMITS);
  expect(limitsFromEnv({ STRAND_MAX_SSE_CONNECTIONS: '3', STRAND_MAX_SEND_BUFFER_BYTES: '65536', STRAND_REQUEST_TIMEOUT_MS: '2000' })).toMatchObject({
    maxSseConnections: 3,
    maxSendBufferBytes: 65536,
    requestTimeoutMs: 2000,
    headersTimeoutMs: 2000,
  });
  expect(() => limitsFromEnv({ STRAND_MAX_WS_CONNECTIONS: 'many' })).toThrow(/STRAND_MAX_WS_CONNECTIONS=many/);
  expect(() => limitsFromEnv({ STRAND_MAX_WS_CONNECTIONS: '0' })).toThrow(/positive integer/);
});

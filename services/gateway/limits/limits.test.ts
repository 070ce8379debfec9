import { Writable } from 'node:stream';
import { ConnectionLimiter } from './connection-limiter';
import { gateSubscription, waitForRoom } from './send-gate';
import { WritablePacer } from './writable-pacer';
import { DEFAULT_LIMITS, limitsFromEnv } from './limits-config';

/** A stream that takes chunks only when the test reads them (highWaterMark 4 bytes, so `drain` is real). */
function heldStream() {
  const taken: string[] = [];
  let pending: Array<() => void> = [];
  const out = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _enc, done) {
      pending.push(() => {
        taken.push(chunk.toString());
        done();
      });
    },
  });
  const readAll = () => {
    // Each completed write lets the stream hand over the next one: keep going until nothing waits.
    const step = () => {
      const now = pending;
      pending = [];
      for (const p of now) p();
      if (pending.length > 0 || out.writableLength > 0) setImmediate(step);
    };
    step();
  };
  return { out, taken, readAll };
}

test('a pacer has room under its limit; over it, room waits until the stream has drained, or says no in time', async () => {
  const { out, readAll } = heldStream();
  const p = new WritablePacer(out, 10);
  p.write('aaaa');
  await expect(p.room(10)).resolves.toBe(true);
  p.write('bbbb');
  p.write('cccc');
  expect(p.buffered).toBe(12);
  await expect(p.room(30)).resolves.toBe(false); // nobody reads: a slow consumer
  const waiting = p.room(5_000);
  readAll();
  await expect(waiting).resolves.toBe(true);
  expect(p.buffered).toBe(0);
});

test('a pacer on a closed stream has no room and writes nothing', async () => {
  const { out } = heldStream();
  const p = new WritablePacer(out, 10);
  p.write('aaaaaaaaaaaa');
  const waiting = p.drained(5_000);
  out.destroy();
  await expect(waiting).resolves.toBe(false);
  expect(p.open).toBe(false);
  await expect(p.room(10)).resolves.toBe(false);
  expect(() => p.write('more')).not.toThrow();
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

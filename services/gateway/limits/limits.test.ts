import { ConnectionLimiter } from './connection-limiter';
import { gateSubscription } from './send-gate';
import { DEFAULT_LIMITS, limitsFromEnv } from './limits-config';

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

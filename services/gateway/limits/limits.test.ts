import { ConnectionLimiter } from './connection-limiter';
import { DEFAULT_LIMITS, limitsFromEnv } from './limits-config';

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

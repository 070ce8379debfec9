import { positiveIntFromEnv } from '../../common/env';
/**
 * The gateway's resource limits on its HTTP+SSE and WebSocket transports, from the environment. Each
 * bound keeps one client (or many) from taking memory, sockets or time that others need.
 */
export interface GatewayLimits {
  /** Concurrent SSE event streams (`GET /api/sessions/{id}/events`); past it, 503 UNAVAILABLE. */
  maxSseConnections: number;
  /** Concurrent WebSocket sockets on `/v1/rpc` (handshakes included); past it, the upgrade gets 503. */
  maxWsConnections: number;
  /**
   * Bytes one SSE stream or socket may have waiting to be sent. Past it the gateway reads no further
   * events for that client (they wait in JetStream) until it has taken half of them.
   */
  maxSendBufferBytes: number;
  /** How long a client over its send buffer bound has to get back to half of it before it is cut as a slow consumer. */
  slowConsumerMs: number;
  /** Largest WebSocket message a client may send; a bigger one closes the socket with 1009. */
  maxWsFrameBytes: number;
  /**
   * How often the gateway pings each WebSocket; a socket that has not answered the previous ping by
   * the next one is dead (a peer gone without a close, a half-open TCP connection) and is dropped.
   */
  wsPingIntervalMs: number;
  /** Time a client has to send a whole request (headers and body); then 408 and the connection is closed. */
  requestTimeoutMs: number;
  /** Time a client has to send a request's headers (slow-header attacks). */
  headersTimeoutMs: number;
  /**
   * After an answer given with `Connection: close` before the body was read (a body far over the
   * limit): how long the rest is read and dropped so the client can read the answer, and how many bytes.
   */
  lingeringCloseMs: number;
  lingeringCloseMaxBytes: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxSseConnections: 1024,
  maxWsConnections: 1024,
  maxSendBufferBytes: 4 * 1024 * 1024,
  slowConsumerMs: 10_000,
  maxWsFrameBytes: 16 * 1024 * 1024,
  wsPingIntervalMs: 30_000,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  lingeringCloseMs: 5_000,
  lingeringCloseMaxBytes: 256 * 1024 * 1024,
};

/**
 * STRAND_MAX_SSE_CONNECTIONS, STRAND_MAX_WS_CONNECTIONS, STRAND_MAX_SEND_BUFFER_BYTES,
 * STRAND_SLOW_CONSUMER_MS, STRAND_MAX_WS_FRAME_BYTES, STRAND_REQUEST_TIMEOUT_MS, STRAND_HEADERS_TIMEOUT_MS,
 * STRAND_LINGERING_CLOSE_MS and STRAND_LINGERING_CLOSE_MAX_BYTES. Node requires
 * the headers timeout not to exceed the request timeout, so it is clamped to it.
 */
export function limitsFromEnv(env: NodeJS.ProcessEnv = process.env): GatewayLimits {
  const requestTimeoutMs = positiveIntFromEnv(env, 'STRAND_REQUEST_TIMEOUT_MS', DEFAULT_LIMITS.requestTimeoutMs);
  return {
    maxSseConnections: positiveIntFromEnv(env, 'STRAND_MAX_SSE_CONNECTIONS', DEFAULT_LIMITS.maxSseConnections),
    maxWsConnections: positiveIntFromEnv(env, 'STRAND_MAX_WS_CONNECTIONS', DEFAULT_LIMITS.maxWsConnections),
    maxSendBufferBytes: positiveIntFromEnv(env, 'STRAND_MAX_SEND_BUFFER_BYTES', DEFAULT_LIMITS.maxSendBufferBytes),
    slowConsumerMs: positiveIntFromEnv(env, 'STRAND_SLOW_CONSUMER_MS', DEFAULT_LIMITS.slowConsumerMs),
    maxWsFrameBytes: positiveIntFromEnv(env, 'STRAND_MAX_WS_FRAME_BYTES', DEFAULT_LIMITS.maxWsFrameBytes),
    wsPingIntervalMs: positiveIntFromEnv(env, 'STRAND_WS_PING_INTERVAL_MS', DEFAULT_LIMITS.wsPingIntervalMs),
    requestTimeoutMs,
    headersTimeoutMs: Math.min(requestTimeoutMs, positiveIntFromEnv(env, 'STRAND_HEADERS_TIMEOUT_MS', DEFAULT_LIMITS.headersTimeoutMs)),
    lingeringCloseMs: positiveIntFromEnv(env, 'STRAND_LINGERING_CLOSE_MS', DEFAULT_LIMITS.lingeringCloseMs),
    lingeringCloseMaxBytes: positiveIntFromEnv(env, 'STRAND_LINGERING_CLOSE_MAX_BYTES', DEFAULT_LIMITS.lingeringCloseMaxBytes),
  };
}

import { portFromEnv, positiveIntFromEnv } from '../../common/env';

/** The EDN transports' settings (README "Emacs / EDN"); the same for stdio and TCP where they apply. */
export interface EdnConfig {
  /** TCP port of the gateway's EDN listener (STRAND_EDN_PORT, default 9421; 0 picks a free one). */
  port: number;
  /** Requests pending at once per connection (STRAND_EDN_MAX_PENDING, default 64). */
  maxPending: number;
  /** Longest inbound line in bytes (STRAND_EDN_MAX_FRAME_BYTES, default 4 MiB). */
  maxFrameBytes: number;
  /** Open TCP connections (STRAND_EDN_MAX_CONNECTIONS, default 256). */
  maxConnections: number;
  /** Unsent bytes one TCP socket may hold before it is cut as a slow consumer (STRAND_EDN_MAX_SEND_BUFFER_BYTES, default 8 MiB). */
  maxSendBufferBytes: number;
  /** Time a TCP client has to complete its handshake before the connection is closed (STRAND_EDN_HANDSHAKE_TIMEOUT_MS, default 30 s). */
  handshakeTimeoutMs: number;
}

const EDN_DEFAULT_PORT = 9421;

export const DEFAULT_EDN_CONFIG: EdnConfig = {
  port: EDN_DEFAULT_PORT,
  maxPending: 64,
  maxFrameBytes: 4 * 1024 * 1024,
  maxConnections: 256,
  maxSendBufferBytes: 8 * 1024 * 1024,
  handshakeTimeoutMs: 30_000,
};

export function ednConfigFromEnv(env: NodeJS.ProcessEnv = process.env): EdnConfig {
  const d = DEFAULT_EDN_CONFIG;
  return {
    port: portFromEnv('STRAND_EDN_PORT', d.port, env),
    maxPending: positiveIntFromEnv(env, 'STRAND_EDN_MAX_PENDING', d.maxPending),
    maxFrameBytes: positiveIntFromEnv(env, 'STRAND_EDN_MAX_FRAME_BYTES', d.maxFrameBytes),
    maxConnections: positiveIntFromEnv(env, 'STRAND_EDN_MAX_CONNECTIONS', d.maxConnections),
    maxSendBufferBytes: positiveIntFromEnv(env, 'STRAND_EDN_MAX_SEND_BUFFER_BYTES', d.maxSendBufferBytes),
    handshakeTimeoutMs: positiveIntFromEnv(env, 'STRAND_EDN_HANDSHAKE_TIMEOUT_MS', d.handshakeTimeoutMs),
  };
}

import { openSse, type SseConnection, type SseEvent } from './sse-client';

/** Why a connection of a {@link followSse} client ended, and when (performance.now()). */
interface SseDrop {
  at: number;
  reason: string;
}

export interface ResumingSse {
  /** Resolves once the first connection has answered 200. */
  readonly connected: Promise<void>;
  /** The id of the last event received: what the next connection sends as `Last-Event-ID`. */
  lastEventId(): string | undefined;
  /** Every connection that ended while the client was still following, in order. */
  readonly drops: SseDrop[];
  /** Connections opened after the first one, each resuming from the last id. */
  reconnects(): number;
  close(): void;
}

export interface FollowOptions {
  /** The cursor of the first connection (`'0'`: everything the session has); default: none (live). */
  after?: string;
  /**
   * Pause before reconnecting, as an EventSource's `retry` (default 250 ms); or the pause after
   * `failures` attempts in a row that got no live stream (from 1; back to 1 once a stream is live).
   */
  retryMs?: number | ((failures: number) => number);
  /**
   * A connection whose response headers have not come within this time is given up and retried: a
   * gateway can accept a connection and then wait on a server that is down (default 10 s).
   */
  connectTimeoutMs?: number;
  /** Sent with every connection (e.g. `authorization` for a gateway that has tokens). */
  headers?: Record<string, string>;
}

const FOREVER_MS = 24 * 3_600_000;

/**
 * An SSE client that behaves like a browser's EventSource: whenever its connection drops (the gateway
 * was killed, the stream ended, a non-200 answer) it reconnects after a pause with `Last-Event-ID`
 * set to the last id it received, so the server replays only what it missed. Each event is handed to
 * `onEvent` as it arrives; the client never filters or de-duplicates, so a caller sees exactly what
 * the server sent across all connections.
 */
export function followSse(url: string | string[], onEvent: (event: SseEvent) => void, options: FollowOptions = {}): ResumingSse {
  // Several URLs (the same stream on several gateways): each reconnection goes to the next one, as a
  // client that knows several gateways (or a balancer in front of them) does when one is gone.
  const urls = Array.isArray(url) ? url : [url];
  const retry = options.retryMs ?? 250;
  const pauseMs = typeof retry === 'number' ? () => retry : retry;
  let failures = 0;
  let next = 0;
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  let lastId = options.after;
  let closed = false;
  let opened = 0;
  let current: AbortController | undefined;
  const drops: SseDrop[] = [];
  let onConnected!: () => void;
  const connected = new Promise<void>((resolve) => (onConnected = resolve));

  const readAll = async (conn: SseConnection): Promise<string> => {
    for (;;) {
      const event = await conn.next(FOREVER_MS);
      if (!event) return 'the stream ended';
      if (event.id !== undefined) lastId = event.id;
      onEvent(event);
    }
  };

  void (async () => {
    while (!closed) {
      const attempt = new AbortController();
      current = attempt;
      const timer = setTimeout(() => attempt.abort(), connectTimeoutMs);
      let reason: string;
      try {
        const conn = await openSse(urls[next % urls.length]!, { lastEventId: lastId, signal: attempt.signal, ...(options.headers ? { headers: options.headers } : {}) });
        clearTimeout(timer);
        if (conn.status !== 200) {
          conn.close();
          reason = `answered ${conn.status}`;
        } else {
          opened++;
          failures = 0;
          onConnected();
          reason = await readAll(conn);
        }
      } catch (err) {
        clearTimeout(timer);
        reason = attempt.signal.aborted && !closed ? `no answer within ${connectTimeoutMs} ms` : (err as Error).message;
      }
      if (closed) break;
      drops.push({ at: performance.now(), reason });
      next++;
      await new Promise((r) => setTimeout(r, pauseMs(++failures)));
    }
  })();

  return {
    connected,
    drops,
    lastEventId: () => lastId,
    reconnects: () => Math.max(0, opened - 1),
    close() {
      closed = true;
      current?.abort();
    },
  };
}

import { httpEventDataSchema, type HttpEventData } from '../../contracts/http-events';
import type { GatewayClient } from './gateway-client';
import { SseParser } from './sse-parser';

/** Where a followed stream stands, for the status line. */
export type StreamStatus = { kind: 'connecting' } | { kind: 'live' } | { kind: 'reconnecting'; reason: string; attempt: number };

export interface EventStreamHandlers {
  /** One event of the session, in order, each once (its sequence number from the frame's id). */
  onEvent(seq: number, data: HttpEventData): void;
  /** Every change of the connection: a client shows it and re-reads what events do not carry. */
  onStatus?(status: StreamStatus): void;
  /** The stream cannot be followed at all (the session is unknown, the token refused): it stopped. */
  onFatal?(message: string): void;
}

export interface FollowedStream {
  /** The sequence number of the last event handed over: the cursor a reconnection resumes after. */
  cursor(): number | undefined;
  close(): void;
}

const BACKOFF_MS = [250, 500, 1_000, 2_000];
/** A gateway that accepts a connection but sends no headers (its NATS is down) is retried after this. */
const HEADERS_TIMEOUT_MS = 15_000;

/**
 * Follows `GET /api/sessions/{id}/events` for as long as it is not closed, as an EventSource would:
 * whenever the connection drops (the gateway restarted, the network went away, a slow-consumer cut)
 * it reconnects after a short backoff with `Last-Event-ID` set to the last sequence it delivered, so
 * the gateway replays exactly what was missed (docs/http.md). It also drops any event at or below
 * that cursor, so an event is never handed over twice whatever a server does. Without `after` the
 * first connection starts with the turn in progress, if any, then goes live.
 */
export function followEvents(client: GatewayClient, sessionId: string, handlers: EventStreamHandlers, after?: number): FollowedStream {
  let cursor = after;
  let closed = false;
  let current: AbortController | undefined;
  /** Failed connections in a row: the backoff grows with them and starts over once one is live. */
  let failures = 0;
  const status = (s: StreamStatus) => !closed && handlers.onStatus?.(s);

  const readOnce = async (signal: AbortSignal, headersTimer: NodeJS.Timeout): Promise<string> => {
    const url = `${client.address.url}/api/sessions/${encodeURIComponent(sessionId)}/events`;
    const res = await fetch(url, { headers: client.headers(cursor !== undefined ? { 'Last-Event-ID': String(cursor), Accept: 'text/event-stream' } : { Accept: 'text/event-stream' }), signal });
    clearTimeout(headersTimer);
    if (res.status !== 200 || !res.body) {
      const body = await res.text().catch(() => '');
      // A session that does not exist (or is someone else's) will not appear by retrying.
      if (res.status === 404 || res.status === 401 || res.status === 400) throw Object.assign(new Error(`the events of ${sessionId} answered ${res.status}: ${body.slice(0, 200)}`), { fatal: true });
      return `answered ${res.status}`;
    }
    failures = 0;
    status({ kind: 'live' });
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      for (const frame of parser.push(decoder.decode(chunk, { stream: true }))) {
        if (closed) return 'closed';
        deliver(frame.id, frame.data);
      }
    }
    return 'the stream ended';
  };

  const deliver = (id: string | undefined, raw: string) => {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      return;
    }
    const parsed = httpEventDataSchema.safeParse(json);
    // Frames without an id (a slow-consumer notice) are not events of the session: the drop that
    // follows is handled by reconnecting. Unknown event types are ignored (the contract is additive).
    if (id === undefined || !parsed.success) return;
    const seq = Number(id);
    if (!Number.isSafeInteger(seq) || (cursor !== undefined && seq <= cursor)) return;
    cursor = seq;
    handlers.onEvent(seq, parsed.data);
  };

  void (async () => {
    status({ kind: 'connecting' });
    while (!closed) {
      const controller = new AbortController();
      current = controller;
      const headersTimer = setTimeout(() => controller.abort(), HEADERS_TIMEOUT_MS);
      let reason: string;
      try {
        reason = await readOnce(controller.signal, headersTimer);
      } catch (err) {
        clearTimeout(headersTimer);
        if (closed) return;
        if ((err as { fatal?: boolean }).fatal) {
          handlers.onFatal?.((err as Error).message);
          return;
        }
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        reason = controller.signal.aborted ? 'no answer' : (cause ?? (err as Error).message);
      }
      if (closed) return;
      failures++;
      status({ kind: 'reconnecting', reason, attempt: failures });
      await new Promise((r) => setTimeout(r, BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)]));
    }
  })();

  return {
    cursor: () => cursor,
    close() {
      closed = true;
      current?.abort();
    },
  };
}

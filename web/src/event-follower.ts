import type { HttpEventData } from '../../contracts/http-events';
import { SseParser } from '../../services/chat/sse-parser';
import { authHeaders } from './api';

/** Where the followed stream stands, for the connection indicator. */
export type ConnectionState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'reconnecting'; reason: string; attempt: number };

export interface FollowHandlers {
  /** One event of the session, in order, each once. */
  onEvent(seq: number, data: HttpEventData): void;
  onState(state: ConnectionState): void;
  /** The stream cannot be followed (unknown session, token refused): it stopped. */
  onFatal(status: number, message: string): void;
}

const BACKOFF_MS = [250, 500, 1_000, 2_000, 4_000];
/** A gateway that takes the connection but sends no headers (its NATS is down) is left after this. */
const HEADERS_TIMEOUT_MS = 15_000;
/** The gateway sends a keepalive every 15 s: a stream silent for longer is dead (a dropped network). */
const SILENCE_MS = 40_000;

const EVENT_TYPES = new Set(['agent.state', 'message.delta', 'thinking.delta', 'message.done', 'tool.call', 'tool.output', 'tool.result', 'file.changed', 'retry', 'stream.reset', 'usage', 'error', 'turn.finished', 'compaction.started', 'compaction.finished', 'budget.exceeded', 'conversation.moved']);

/**
 * Follows `GET /api/sessions/{id}/events` with fetch (EventSource cannot send the Authorization
 * header): whenever the connection drops — the gateway restarted, the network went away, a
 * slow-consumer cut — it reconnects after a short backoff with `Last-Event-ID` set to the last
 * sequence it handed over, so the gateway replays exactly what was missed (docs/http.md), and it
 * drops any event at or below that cursor, so nothing is handed over twice. The first connection,
 * without a cursor, starts with the turn in progress, if any.
 */
export function followEvents(sessionId: string, handlers: FollowHandlers): { close(): void } {
  let cursor: number | undefined;
  let closed = false;
  let current: AbortController | undefined;
  let failures = 0;

  const deliver = (id: string | undefined, raw: string) => {
    if (id === undefined) return; // a frame without an id (SLOW_CONSUMER) is followed by the drop
    const seq = Number(id);
    if (!Number.isSafeInteger(seq) || (cursor !== undefined && seq <= cursor)) return;
    let data: HttpEventData;
    try {
      data = JSON.parse(raw) as HttpEventData;
    } catch {
      return;
    }
    if (!EVENT_TYPES.has(data.type)) return; // the contract is additive: unknown types are ignored
    cursor = seq;
    handlers.onEvent(seq, data);
  };

  const readOnce = async (controller: AbortController): Promise<string> => {
    let silence = setTimeout(() => controller.abort(), HEADERS_TIMEOUT_MS);
    const alive = () => {
      clearTimeout(silence);
      silence = setTimeout(() => controller.abort(), SILENCE_MS);
    };
    try {
      const headers = authHeaders({ Accept: 'text/event-stream', ...(cursor !== undefined ? { 'Last-Event-ID': String(cursor) } : {}) });
      const res = await fetch(`/api/sessions/${encodeURIComponent(sessionId)}/events`, { headers, signal: controller.signal, cache: 'no-store' });
      if (res.status !== 200 || !res.body) {
        const body = await res.text().catch(() => '');
        if ([400, 401, 403, 404].includes(res.status)) throw Object.assign(new Error(body.slice(0, 300)), { fatal: res.status });
        return `answered ${res.status}`;
      }
      failures = 0;
      handlers.onState({ kind: 'live' });
      alive();
      const parser = new SseParser();
      const decoder = new TextDecoder();
      const reader = res.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'the stream ended';
        alive();
        for (const frame of parser.push(decoder.decode(value, { stream: true }))) {
          if (closed) return 'closed';
          deliver(frame.id, frame.data);
        }
      }
    } finally {
      clearTimeout(silence);
    }
  };

  /** The wait before the next attempt; cut short when the browser says the network is back. */
  const backoff = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        window.removeEventListener('online', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      window.addEventListener('online', done);
    });

  void (async () => {
    handlers.onState({ kind: 'connecting' });
    while (!closed) {
      const controller = new AbortController();
      current = controller;
      let reason: string;
      try {
        reason = await readOnce(controller);
      } catch (err) {
        if (closed) return;
        const fatal = (err as { fatal?: number }).fatal;
        if (fatal) return handlers.onFatal(fatal, (err as Error).message);
        reason = controller.signal.aborted ? 'no answer' : 'the connection dropped';
      }
      if (closed) return;
      failures++;
      handlers.onState({ kind: 'reconnecting', reason, attempt: failures });
      await backoff(BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)]!);
    }
  })();

  return {
    close() {
      closed = true;
      current?.abort();
    },
  };
}

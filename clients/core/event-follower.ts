import { createParser } from 'eventsource-parser';
import type { HttpEventData } from '../../contracts/http-events';
import { FATAL_STATUSES } from './api-client';

/**
 * Following a session's events over HTTP+SSE, one way for every client of strand (the terminal chat
 * and the web page): one reconnect, backoff, fatal-status and silence policy. Zod-free (the page's
 * bundle carries no schema library): an event is handed over as the gateway sent it, every type of
 * the contract included; a consumer ignores the types it does not know (the contract is additive).
 * The SSE framing is eventsource-parser's, a maintained parser of the WHATWG rules. The statuses it
 * stops on are the API client's (api-client.ts FATAL_STATUSES).
 */

/** Where a followed stream stands, for a connection indicator or a status line. */
export type FollowState = { kind: 'connecting' } | { kind: 'live' } | { kind: 'reconnecting'; reason: string; attempt: number };

export interface FollowOptions {
  /** `…/api/sessions/{id}/events` of the gateway. */
  url: string;
  /** The request headers (the token), with `extra` merged in. */
  headers(extra: Record<string, string>): Record<string, string>;
  /** Resume after this sequence; without it the first connection starts with the turn in progress, if any. */
  after?: number;
  /** One event of the session, in order, each once (its sequence number from the frame's id). */
  onEvent(seq: number, data: HttpEventData): void;
  onState?(state: FollowState): void;
  /** The stream cannot be followed (the session is unknown or another's, the token refused): it stopped. */
  onFatal?(status: number, message: string): void;
  /** More of the request (a browser's `cache: 'no-store'`). */
  init?: RequestInit;
  /** Waits `ms` before the next attempt (a browser cuts it short when the network is back); a timer by default. */
  pause?(ms: number): Promise<void>;
}

export interface FollowedEvents {
  /** The sequence of the last event handed over: where a reconnection resumes. */
  cursor(): number | undefined;
  close(): void;
}

/**
 * Waits before reconnecting, growing with failures in a row and starting over once a connection is
 * live. The first retry is almost at once: a dropped stream usually means its gateway died, and
 * another gateway (behind a balancer) or the restarted one is ready within a second or two; the
 * next few stay short for as long as a supervised restart takes (0.5 s backoff plus a start), then
 * they grow. Each wait is jittered by ±25 %, so the clients of one dead gateway do not come back in
 * step; a refused connection costs a down gateway nothing.
 */
const BACKOFF_MS = [100, 250, 250, 250, 500, 1_000, 2_000, 4_000];

/** The wait before the reconnection that follows `failures` failed attempts in a row (from 1). */
export function reconnectDelayMs(failures: number, random: () => number = Math.random): number {
  const base = BACKOFF_MS[Math.min(Math.max(failures, 1) - 1, BACKOFF_MS.length - 1)]!;
  return Math.round(base * (0.75 + 0.5 * random()));
}
/** A gateway that takes the connection but sends no headers (its NATS is down) is left after this. */
const HEADERS_TIMEOUT_MS = 15_000;
/** The gateway sends a keepalive every 15 s: a stream silent for longer than this is dead (a dropped network). */
const SILENCE_MS = 40_000;

class Fatal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Follows the stream for as long as it is not closed, as an EventSource would: whenever the
 * connection drops (the gateway restarted, the network went away, a slow-consumer cut, silence past
 * SILENCE_MS) it reconnects after a backoff with `Last-Event-ID` set to the last sequence it handed
 * over, so the gateway replays exactly what was missed, and it drops any event at or below that
 * cursor, so an event is never handed over twice whatever a server does.
 */
export function followEvents(opts: FollowOptions): FollowedEvents {
  let cursor = opts.after;
  let closed = false;
  let current: AbortController | undefined;
  let failures = 0;
  const state = (s: FollowState) => !closed && opts.onState?.(s);

  const deliver = (id: string | undefined, raw: string) => {
    // A frame without an id (a slow-consumer notice) is not an event of the session: the drop follows.
    if (id === undefined) return;
    const seq = Number(id);
    if (!Number.isSafeInteger(seq) || (cursor !== undefined && seq <= cursor)) return;
    let data: unknown;
    try {
      data = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
    cursor = seq;
    opts.onEvent(seq, data as HttpEventData);
  };

  const readOnce = async (controller: AbortController): Promise<string> => {
    let timer = setTimeout(() => controller.abort(), HEADERS_TIMEOUT_MS);
    const alive = () => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), SILENCE_MS);
    };
    try {
      const res = await fetch(opts.url, { ...opts.init, headers: opts.headers({ Accept: 'text/event-stream', ...(cursor !== undefined ? { 'Last-Event-ID': String(cursor) } : {}) }), signal: controller.signal });
      if (res.status !== 200 || !res.body) {
        const text = await res.text().catch(() => '');
        if (FATAL_STATUSES.has(res.status)) throw new Fatal(res.status, `the events answered ${res.status}: ${text.slice(0, 200)}`);
        return `answered ${res.status}`;
      }
      alive();
      failures = 0;
      state({ kind: 'live' });
      const parser = createParser({ onEvent: (m) => !closed && deliver(m.id, m.data) });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done || closed) break;
        alive();
        parser.feed(decoder.decode(value, { stream: true }));
      }
      return closed ? 'closed' : 'the stream ended';
    } finally {
      clearTimeout(timer);
    }
  };

  void (async () => {
    state({ kind: 'connecting' });
    while (!closed) {
      const controller = new AbortController();
      current = controller;
      let reason: string;
      try {
        reason = await readOnce(controller);
      } catch (err) {
        if (closed) return;
        if (err instanceof Fatal) return void opts.onFatal?.(err.status, err.message);
        const cause = (err as { cause?: { code?: string } }).cause?.code;
        reason = controller.signal.aborted ? 'no answer' : (cause ?? (err as Error).message);
      }
      if (closed) return;
      failures++;
      state({ kind: 'reconnecting', reason, attempt: failures });
      const wait = reconnectDelayMs(failures);
      await (opts.pause ? opts.pause(wait) : new Promise((r) => setTimeout(r, wait)));
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

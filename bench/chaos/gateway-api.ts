import { openSse } from '../../test/harness/sse-client';
import type { FinishedSeen, StoredEntry } from './checks';

/** The bearer token header for a gateway that has tokens (the clustered compose stack's); none for the local stack. */
export function authHeaders(token: string | undefined): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** JSON over HTTP against the gateway, with a deadline: a trial must never hang on one request. */
export async function call<T = Record<string, unknown>>(base: string, method: string, route: string, body?: unknown, timeoutMs = 15_000, token?: string): Promise<{ status: number; body: T; retryAfterS?: number }> {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...authHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
  const extra = Number.isFinite(retryAfter) ? { retryAfterS: retryAfter } : {};
  try {
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as T, ...extra };
  } catch {
    return { status: res.status, body: { text } as T, ...extra };
  }
}

/**
 * How long a client keeps asking while the gateway answers 503 (the store or NATS mid-election): the
 * HTTP contract's 503 means "retry after Retry-After", and every strand client does.
 */
const UNAVAILABLE_BUDGET_MS = 30_000;

/**
 * `send` again, after the answer's Retry-After (2 s when it names none), while it answers 503 and the
 * budget lasts; the answer carries how many 503s came first. A prompt is safe to send again: its
 * request_id makes a repeat the same turn.
 */
export async function whileUnavailable<T extends { status: number; retryAfterS?: number }>(send: () => Promise<T>, budgetMs = UNAVAILABLE_BUDGET_MS): Promise<T & { unavailable: number }> {
  const end = Date.now() + budgetMs;
  for (let unavailable = 0; ; unavailable++) {
    const answer = await send();
    const waitMs = (answer.retryAfterS ?? 2) * 1000;
    if (answer.status !== 503 || Date.now() + waitMs > end) return { ...answer, unavailable };
    await new Promise((r) => setTimeout(r, waitMs));
  }
}

interface MessagesPage {
  messages?: { entry_id: string; message: { role: string; content?: { type: string; text?: string }[] } }[];
  next_cursor?: string;
}

/** The session's stored conversation, each entry's text blocks joined (tool calls and results have their own). */
export async function storedEntries(base: string, sessionId: string, token?: string): Promise<StoredEntry[] | { error: string }> {
  try {
    const res = await whileUnavailable(() => call<MessagesPage>(base, 'GET', `/api/sessions/${sessionId}/messages`, undefined, 15_000, token));
    if (res.status !== 200) return { error: `answered ${res.status}${res.unavailable ? ` (after ${res.unavailable} × 503)` : ''}: ${JSON.stringify(res.body).slice(0, 200)}` };
    if (res.body.next_cursor) return { error: 'more than one page of messages' };
    return (res.body.messages ?? []).map((m) => ({
      entry_id: m.entry_id,
      role: m.message.role,
      text: (m.message.content ?? []).map((c) => (c.type === 'text' ? c.text ?? '' : '')).join(''),
    }));
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/**
 * Every `turn.finished` of the session, read afresh from its first event (`Last-Event-ID: 0`): what
 * JetStream holds, whatever any client saw. Reads until `lastTurn` has ended, then a second more, so
 * that a doubled end would be seen too.
 */
export async function replayFinished(base: string, sessionId: string, lastTurn: string | undefined, timeoutMs = 20_000, token?: string): Promise<{ finished: FinishedSeen[] } | { error: string }> {
  const finished: FinishedSeen[] = [];
  const abort = new AbortController();
  // The read's deadline starts once the stream is open; each try to open it has its own.
  let deadline: NodeJS.Timeout | undefined;
  try {
    const conn = await whileUnavailable(async () => {
      // Until the answer's headers: a gateway that accepts and never answers must not hold the check.
      const opening = setTimeout(() => abort.abort(), 15_000);
      const c = await openSse(`${base}/api/sessions/${sessionId}/events`, { lastEventId: '0', signal: abort.signal, headers: authHeaders(token) }).finally(() => clearTimeout(opening));
      if (c.status !== 503) return c;
      c.close();
      const retryAfter = Number(c.headers.get('retry-after') ?? NaN);
      return Number.isFinite(retryAfter) ? { ...c, retryAfterS: retryAfter } : c;
    });
    if (conn.status !== 200) return { error: `answered ${conn.status}${conn.unavailable ? ` (after ${conn.unavailable} × 503)` : ''}` };
    deadline = setTimeout(() => abort.abort(), timeoutMs);
    const end = Date.now() + timeoutMs;
    let graceUntil = Infinity;
    for (;;) {
      const left = Math.min(graceUntil, end) - Date.now();
      if (left <= 0) break;
      const e = await conn.next(left).catch(() => undefined);
      if (!e) break;
      if (e.event !== 'turn.finished') continue;
      const data = JSON.parse(e.data) as { turn_id: string; outcome: string };
      finished.push({ turn: data.turn_id, outcome: data.outcome });
      if (data.turn_id === lastTurn) graceUntil = Date.now() + 1_000;
    }
    conn.close();
    return { finished };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    clearTimeout(deadline);
  }
}

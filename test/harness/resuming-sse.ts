import { openSse, type SseEvent } from './sse-client';

/**
 * Reads a session's SSE stream the way a careful client does: when the connection ends or fails (a
 * gateway restarted, NATS restarted under it), it reconnects with `Last-Event-ID` set to the last id it
 * saw, until `stop` matches. Returns every event received, across connections, and how often it
 * reconnected.
 */
export async function readResuming(
  url: string,
  stop: (e: SseEvent) => boolean,
  opts: { lastEventId?: string; deadlineMs?: number; onEvent?: (e: SseEvent) => void | Promise<void> } = {},
): Promise<{ events: SseEvent[]; reconnects: number }> {
  const events: SseEvent[] = [];
  let lastId = opts.lastEventId;
  let reconnects = -1;
  const deadline = Date.now() + (opts.deadlineMs ?? 120_000);
  while (Date.now() < deadline) {
    reconnects++;
    let conn;
    try {
      conn = await openSse(url, { ...(lastId ? { lastEventId: lastId } : {}), signal: AbortSignal.timeout(10_000) });
    } catch {
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    try {
      for (;;) {
        const e = await conn.next(Math.max(1, deadline - Date.now()));
        if (!e) break;
        events.push(e);
        if (e.id) lastId = e.id;
        await opts.onEvent?.(e);
        if (stop(e)) return { events, reconnects };
      }
    } catch {
      // A dropped connection: resume from the last id.
    } finally {
      conn.close();
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no matching event before the deadline; saw ${JSON.stringify(events.map((e) => e.event).slice(-20))}`);
}

/**
 * The answer text a client shows after applying the stream's rules: `message.delta` appends to the
 * step being streamed, `message.done` closes that step, `stream.reset` drops what the open step had
 * streamed so far (a retried step streams again).
 */
export function shownText(events: SseEvent[]): string {
  let done = '';
  let open = '';
  for (const e of events) {
    if (e.event === 'stream.reset') open = '';
    if (e.event === 'message.delta') open += (JSON.parse(e.data) as { content: string }).content;
    if (e.event === 'message.done') {
      done += open;
      open = '';
    }
  }
  return done + open;
}

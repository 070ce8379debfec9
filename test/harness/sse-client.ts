/** One server-sent event as a client sees it. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/** A live SSE connection read with fetch, frame by frame, as the EventSource spec parses them. */
export interface SseConnection {
  status: number;
  headers: Headers;
  /** Resolves with the next event, or undefined when the stream ended; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent | undefined>;
  /** Comments (`: keepalive`) seen so far. */
  comments: string[];
  close(): void;
}

/**
 * Opens `url` as an SSE stream. `lastEventId` is sent as the `Last-Event-ID` header, the way a
 * browser's EventSource resumes; aborting `signal` closes the connection, also before it is open.
 * Parsing follows the WHATWG rules: lines split on CR/LF, fields `id`, `event`, `data` (joined with
 * \n), comments start with `:`, a blank line dispatches.
 */
export async function openSse(url: string, opts: { lastEventId?: string; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<SseConnection> {
  const controller = new AbortController();
  // `signal` gives up on the connection (e.g. a gateway that accepts but never answers), like close().
  if (opts.signal?.aborted) controller.abort();
  opts.signal?.addEventListener('abort', () => controller.abort(), { once: true });
  const res = await fetch(url, {
    headers: { Accept: 'text/event-stream', ...(opts.lastEventId ? { 'Last-Event-ID': opts.lastEventId } : {}), ...opts.headers },
    signal: controller.signal,
  });
  const queue: SseEvent[] = [];
  const comments: string[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    let frame: { id?: string; event?: string; data: string[] } = { data: [] };
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(buffer[i] === '\r' && buffer[i + 1] === '\n' ? i + 2 : i + 1);
        if (line === '') {
          if (frame.data.length > 0) queue.push({ id: frame.id, event: frame.event ?? 'message', data: frame.data.join('\n') });
          frame = { data: [] };
          notify();
          continue;
        }
        if (line.startsWith(':')) {
          comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') frame.data.push(value);
      }
    }
  })()
    .catch((err: unknown) => {
      if (!controller.signal.aborted) failure = err;
    })
    .finally(() => {
      ended = true;
      notify();
    });

  return {
    status: res.status,
    headers: res.headers,
    comments,
    async next(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = queue.shift();
        if (event) return event;
        if (failure) throw failure;
        if (ended) return undefined;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no SSE event from ${url} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, left).unref();
        });
      }
    },
    close() {
      controller.abort();
    },
  };
}

/** Reads events until `stop` matches one (included), failing if the stream ends or stays silent for `timeoutMs`. */
export async function readUntil(conn: SseConnection, stop: (e: SseEvent) => boolean, timeoutMs = 30_000): Promise<SseEvent[]> {
  const seen: SseEvent[] = [];
  for (;;) {
    const e = await conn.next(timeoutMs);
    if (!e) throw new Error(`stream ended early after ${JSON.stringify(seen.map((x) => x.event))}`);
    seen.push(e);
    if (stop(e)) return seen;
  }
}

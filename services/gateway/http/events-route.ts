import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { eventsAfterSchema } from '../../../contracts/http-api';
import { httpEventDataSchema } from '../../../contracts/http-events';
import type { Logger } from '../../common/logger';
import { deliverEvents, type EventSubscription, type SequencedEvent } from '../events/agent-event-reader';
import { ClientOutbox, type OutboxSink } from '../events/client-outbox';
import { ConnectionLimiter } from '../limits/connection-limiter';
import { DEFAULT_LIMITS } from '../limits/limits-config';
import type { SessionService } from '../sessions/session-service';
import { toHttpEvent } from '../mapping/http-events';
import { principalOf } from './auth-middleware';
import { errors, openApiApp, readByHandler, SESSION_READ, sessionIdParams } from './openapi/route-kit';

export interface EventsDeps {
  sessions: SessionService;
  keepaliveMs: number;
  log?: Logger;
  /** Open event streams, against STRAND_MAX_SSE_CONNECTIONS (a default-sized one when not given). */
  sseConnections?: ConnectionLimiter;
  /** Bytes a stream may have unsent before the gateway stops reading events for it. */
  maxSendBufferBytes?: number;
  /** How long a client over that bound has to drain before it is cut as a slow consumer. */
  slowConsumerMs?: number;
}

/** How long a cut client gets to take the last frame before its connection is destroyed. */
const CUT_GRACE_MS = 1_000;

/** Where to resume: `Last-Event-ID` wins over `?after=`; neither means live events only. */
function resumeAfter(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header?.trim() || query?.trim();
  if (raw === undefined || raw === '') return undefined;
  const parsed = eventsAfterSchema.safeParse(raw);
  if (!parsed.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `Last-Event-ID/after must be a sequence number, got "${raw}"`);
  return parsed.data;
}

/** The Node response under a request served by @hono/node-server. */
export function nodeResponseOf(c: Context): ServerResponse | undefined {
  return (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
}

/** One frame as `writeSSE` spells it: one compact `data:` line (JSON has no raw newlines). */
const sseFrame = (id: number, event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\nid: ${id}\n\n`;

/** An event's SSE frame, and the same bytes framed as one HTTP/1.1 chunk (`<hex length>\r\n<frame>\r\n`). */
interface EncodedFrame {
  frame: Buffer;
  chunk: Buffer;
}

const CRLF = Buffer.from('\r\n', 'latin1');

/**
 * Each event's SSE frame, encoded once: the readers of a session share one feed that hands every one
 * of them the same event object, so a session watched by a hundred clients maps, serializes and
 * encodes each event once, not a hundred times (null: HTTP has no frame for it).
 */
const encodedFrames = new WeakMap<SequencedEvent, EncodedFrame | null>();
function encodedFrame(event: SequencedEvent): EncodedFrame | null {
  let encoded = encodedFrames.get(event);
  if (encoded === undefined) {
    const mapped = toHttpEvent(event.envelope);
    if (mapped) {
      const frame = Buffer.from(sseFrame(event.seq, mapped.event, mapped.data));
      encoded = { frame, chunk: Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`, 'latin1'), frame, CRLF]) };
    } else encoded = null;
    encodedFrames.set(event, encoded);
  }
  return encoded;
}

/**
 * Sends one encoded frame. On a chunked response (HTTP/1.1, what SSE gets) the pre-framed chunk goes
 * straight to the socket: one write and one system call per client at once, where `res.write` would
 * cork the socket, queue the length, the frame and two CRLFs, and send them on the next tick — for a
 * session with a hundred readers, most of the time between the first client's frame and the last's.
 * Writes through the response and straight ones share the socket's one ordered buffer.
 */
function sendFrame(res: ServerResponse, out: ClientOutbox, encoded: EncodedFrame): void {
  const socket = res.socket;
  if (res.chunkedEncoding && res.headersSent && socket && out.live) socket.write(encoded.chunk);
  else out.send(encoded.frame);
}

/** The response as an outbox's sink: its unsent bytes include the socket's, which frames are written to straight. */
function responseSink(res: ServerResponse): OutboxSink {
  return {
    write: (data) => void res.write(data),
    unsent: () => res.writableLength,
    open: () => !res.destroyed && !res.writableEnded,
    end: (last) => {
      const socket = res.socket;
      // Cut, not finished: once the last frame is out the connection is closed too.
      res.end(last, () => socket?.destroySoon());
    },
    destroy: () => res.destroy(),
  };
}

const sessionEvents = createRoute({
  method: 'get',
  path: '/{id}/events',
  operationId: 'sessionEvents',
  summary: "The session's event stream",
  description: `Server-sent events. Each frame is \`id: <seq>\`, \`event: <type>\` and one \`data:\` line of compact JSON
whose \`type\` equals the \`event:\` name; the schema below is the union of those \`data\` objects. \`seq\` is the
session's monotonic event sequence: reconnecting with \`Last-Event-ID\` (or \`?after=\`) first delivers every event
after it, then live ones, with no gap and no duplicate. Without a cursor the stream starts with the events of the
turn in progress, if any. A \`: keepalive\` comment goes out every 15 s. Past STRAND_MAX_SSE_CONNECTIONS open streams:
503 UNAVAILABLE.`,
  tags: ['events'],
  request: { params: sessionIdParams },
  parameters: [
    readByHandler('query', 'after', eventsAfterSchema, 'Resume after this sequence number.'),
    readByHandler('header', 'Last-Event-ID', eventsAfterSchema, 'Resume after this sequence (wins over `?after=`).'),
  ],
  responses: { 200: { description: 'The stream (frame `data` objects below).', content: { 'text/event-stream': { schema: httpEventDataSchema } } } },
  ...errors(ErrorCode.INVALID_REQUEST, ...SESSION_READ),
});

/**
 * `GET /api/sessions/{id}/events`: the session's events as SSE, one compact `data:` line per frame
 * with `id: <seq>`. The JetStream read is opened before the response starts, so an event published
 * right after the client sees the headers is not missed. Frames are written straight to Node's
 * response (each event is one `write`, no web-stream layers between the events and the socket).
 *
 * Limits: past STRAND_MAX_SSE_CONNECTIONS open streams a new one gets 503 UNAVAILABLE (Retry-After).
 * While more than the send buffer bound is unsent, the route reads no further events (the reader
 * pulls in small batches, so they wait in JetStream). A client that does not drain within the slow
 * consumer time is cut: it gets a last `event: error` frame (code SLOW_CONSUMER, no id, so its
 * Last-Event-ID still names the last event it has) if it takes it within a second, then the
 * connection is closed and its JetStream read stopped. It reconnects with Last-Event-ID for the rest.
 */
export function eventsRoute(deps: EventsDeps): OpenAPIHono {
  const connections = deps.sseConnections ?? new ConnectionLimiter(DEFAULT_LIMITS.maxSseConnections);
  const maxBuffered = deps.maxSendBufferBytes ?? DEFAULT_LIMITS.maxSendBufferBytes;
  const slowConsumerMs = deps.slowConsumerMs ?? DEFAULT_LIMITS.slowConsumerMs;

  /** Sends the subscription's events until the client leaves, the read ends, or the client is cut. */
  async function stream(res: ServerResponse, subscription: EventSubscription, sessionId: string): Promise<void> {
    const slowConsumer = `slow consumer: more than ${maxBuffered} bytes stayed unsent for ${slowConsumerMs} ms; reconnect with Last-Event-ID set to the last id received`;
    const out = new ClientOutbox(
      responseSink(res),
      { maxUnsentBytes: maxBuffered, slowConsumerMs, keepalive: { everyMs: deps.keepaliveMs, frame: ': keepalive\n\n' }, graceMs: CUT_GRACE_MS },
      // No id: the client's Last-Event-ID still names the last event it has.
      () => `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'SLOW_CONSUMER', message: slowConsumer })}\n\n`,
      () => deps.log?.warn({ session: sessionId, unsent_bytes: res.writableLength }, 'SSE client cut: slow consumer'),
    );
    res.once('close', () => subscription.stop());
    try {
      // Pushed: a session's readers are written in the tick its event arrives (session-feed.ts).
      await deliverEvents(subscription, (event) => {
        if (!out.live) return false;
        const encoded = encodedFrame(event);
        if (!encoded) return;
        sendFrame(res, out, encoded);
        // Over the bound, the next event is not taken until the client has caught up (or is cut).
        return out.full ? out.ready() : undefined;
      });
    } finally {
      out.close();
      subscription.stop();
    }
    if (!out.cut) res.end();
  }

  const app = openApiApp();
  app.openapi(sessionEvents, async (c) => {
    const res = nodeResponseOf(c);
    if (!res) throw new StrandError(ErrorCode.INTERNAL, 'event streams are served by the Node HTTP server only');
    const sessionId = c.req.valid('param').id;
    const after = resumeAfter(c.req.header('Last-Event-ID'), c.req.query('after'));
    const release = connections.tryAcquire('sse');
    if (!release) throw new StrandError(ErrorCode.UNAVAILABLE, `too many event streams open (at most ${connections.max}): try again later`);
    let subscription: EventSubscription;
    try {
      subscription = await (await deps.sessions.open(sessionId, principalOf(c))).events(after);
    } catch (err) {
      release();
      throw err;
    }
    if (res.closed || res.destroyed) {
      // The client left while the read was being opened.
      subscription.stop();
      release();
      return RESPONSE_ALREADY_SENT;
    }
    res.once('close', release);
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.flushHeaders();
    stream(res, subscription, sessionId).catch((err: unknown) => {
      deps.log?.error({ err, session: sessionId }, 'an event stream failed');
      res.destroy();
    });
    return RESPONSE_ALREADY_SENT;
  });
  return app;
}

import type { Socket } from 'node:net';
import { Hono, type Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { eventsAfterSchema } from '../../../contracts/http-api';
import type { Logger } from '../../common/logger';
import { BoundedWriter } from '../limits/bounded-writer';
import { ConnectionLimiter } from '../limits/connection-limiter';
import { DEFAULT_LIMITS } from '../limits/limits-config';
import type { SessionService } from '../sessions/session-service';
import { toHttpEvent } from '../mapping/http-events';
import { principalOf } from './auth-middleware';

export interface EventsDeps {
  sessions: SessionService;
  keepaliveMs: number;
  log?: Logger;
  /** Open event streams, against STRAND_MAX_SSE_CONNECTIONS (a default-sized one when not given). */
  sseConnections?: ConnectionLimiter;
  /** Bytes a stream may have unsent before the gateway stops reading events for it. */
  maxSendBufferBytes?: number;
  /** How long a client over that bound has to take half of it before it is cut as a slow consumer. */
  slowConsumerMs?: number;
}

/** How long a cut client gets to take the last frames before its connection is destroyed. */
const CUT_GRACE_MS = 1_000;

/** Where to resume: `Last-Event-ID` wins over `?after=`; neither means live events only. */
function resumeAfter(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header?.trim() || query?.trim();
  if (raw === undefined || raw === '') return undefined;
  const parsed = eventsAfterSchema.safeParse(raw);
  if (!parsed.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `Last-Event-ID/after must be a sequence number, got "${raw}"`);
  return parsed.data;
}

/** The Node response under a request served by @hono/node-server (absent in `app.request` tests). */
function nodeResponseOf(c: Context): { socket: Socket | null; writableFinished: boolean } | undefined {
  return (c.env as { outgoing?: { socket: Socket | null; writableFinished: boolean } } | undefined)?.outgoing;
}

/** One frame as `writeSSE` spells it: one compact `data:` line (JSON has no raw newlines). */
const sseFrame = (id: number, event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\nid: ${id}\n\n`;

/**
 * `GET /api/sessions/{id}/events`: the session's events as SSE, one compact `data:` line per frame
 * with `id: <seq>`. The JetStream consumer is created before the response starts, so an event
 * published right after the client sees the headers is not missed.
 *
 * Limits: past STRAND_MAX_SSE_CONNECTIONS open streams a new one gets 503 UNAVAILABLE (Retry-After).
 * Frames are written without waiting for each one; while more than the send buffer bound is unsent
 * the route reads no further events (the reader pulls in small batches, so they wait in JetStream).
 * A client that does not take half of it within the slow consumer time is cut: it gets a last
 * `event: error` frame (code SLOW_CONSUMER, no id, so its Last-Event-ID still names the last event it
 * has) if it takes it within a second, then the connection is closed and its JetStream consumer
 * deleted. It reconnects with Last-Event-ID and gets the rest.
 */
export function eventsRoute(deps: EventsDeps): Hono {
  const connections = deps.sseConnections ?? new ConnectionLimiter(DEFAULT_LIMITS.maxSseConnections);
  const maxBuffered = deps.maxSendBufferBytes ?? DEFAULT_LIMITS.maxSendBufferBytes;
  const slowConsumerMs = deps.slowConsumerMs ?? DEFAULT_LIMITS.slowConsumerMs;
  const app = new Hono();
  app.get('/:id/events', async (c) => {
    const sessionId = c.req.param('id');
    const after = resumeAfter(c.req.header('Last-Event-ID'), c.req.query('after'));
    const release = connections.tryAcquire();
    if (!release) throw new StrandError(ErrorCode.UNAVAILABLE, `too many event streams open (at most ${connections.max}): try again later`);
    let subscription: Awaited<ReturnType<SessionService['events']>>;
    try {
      subscription = await deps.sessions.events(sessionId, after, principalOf(c));
    } catch (err) {
      release();
      throw err;
    }
    c.header('Cache-Control', 'no-cache');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const writer = new BoundedWriter(stream, maxBuffered);
      let slow = false;
      const keepalive = setInterval(() => {
        // A client that is behind is sent events, not keepalives.
        if (writer.buffered === 0) writer.write(': keepalive\n\n');
      }, deps.keepaliveMs);
      stream.onAbort(() => subscription.stop());
      try {
        for await (const { seq, envelope } of subscription) {
          if (stream.aborted) break;
          const frame = toHttpEvent(envelope);
          if (!frame) continue;
          writer.write(sseFrame(seq, frame.event, frame.data));
          // Over the bound, the next event is not read until the client has caught up (or is cut).
          if (!(await writer.room(slowConsumerMs))) {
            slow = true;
            break;
          }
        }
        if (slow && !stream.aborted) {
          subscription.stop();
          deps.log?.warn({ session: sessionId, unsent_bytes: writer.buffered }, 'SSE client cut: slow consumer');
          const message = `slow consumer: more than ${maxBuffered} bytes stayed unsent for ${slowConsumerMs} ms; reconnect with Last-Event-ID set to the last id received`;
          writer.write(`event: error\ndata: ${JSON.stringify({ type: 'error', code: 'SLOW_CONSUMER', message })}\n\n`);
          const response = nodeResponseOf(c);
          const socket = response?.socket;
          // A client that does not read will not take the last frame either: its connection is destroyed.
          if (!(await writer.drained(CUT_GRACE_MS))) socket?.destroy();
          else setTimeout(() => response?.writableFinished === false && socket?.destroy(), CUT_GRACE_MS).unref();
        }
      } finally {
        clearInterval(keepalive);
        subscription.stop();
        release();
      }
    });
  });
  return app;
}

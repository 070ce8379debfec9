import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { eventsAfterSchema } from '../../../contracts/http-api';
import type { SessionService } from '../sessions/session-service';
import { toHttpEvent } from '../mapping/http-events';
import { principalOf } from './auth-middleware';

export interface EventsDeps {
  sessions: SessionService;
  keepaliveMs: number;
}

/** Where to resume: `Last-Event-ID` wins over `?after=`; neither means live events only. */
function resumeAfter(header: string | undefined, query: string | undefined): number | undefined {
  const raw = header?.trim() || query?.trim();
  if (raw === undefined || raw === '') return undefined;
  const parsed = eventsAfterSchema.safeParse(raw);
  if (!parsed.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `Last-Event-ID/after must be a sequence number, got "${raw}"`);
  return parsed.data;
}

/**
 * `GET /api/sessions/{id}/events`: the session's events as SSE, one compact `data:` line per frame
 * with `id: <seq>`. The JetStream consumer is created before the response starts, so an event
 * published right after the client sees the headers is not missed.
 */
export function eventsRoute(deps: EventsDeps): Hono {
  const app = new Hono();
  app.get('/:id/events', async (c) => {
    const sessionId = c.req.param('id');
    const after = resumeAfter(c.req.header('Last-Event-ID'), c.req.query('after'));
    const subscription = await deps.sessions.events(sessionId, after, principalOf(c));
    c.header('Cache-Control', 'no-cache');
    c.header('X-Accel-Buffering', 'no');
    return streamSSE(c, async (stream) => {
      const keepalive = setInterval(() => {
        stream.write(': keepalive\n\n').catch(() => subscription.stop());
      }, deps.keepaliveMs);
      stream.onAbort(() => subscription.stop());
      try {
        for await (const { seq, envelope } of subscription) {
          if (stream.aborted) break;
          const frame = toHttpEvent(envelope);
          if (!frame) continue;
          await stream.writeSSE({ id: String(seq), event: frame.event, data: JSON.stringify(frame.data) });
        }
      } finally {
        clearInterval(keepalive);
        subscription.stop();
      }
    });
  });
  return app;
}

import { Hono } from 'hono';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { TRANSCRIPT_FORMATS } from '../transcripts/render';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';

const formatSchema = z.enum(TRANSCRIPT_FORMATS).default('json');

/** `GET /api/sessions/{id}/transcript?format=json|markdown|org` and `GET /api/transcripts?project=`. */
export function transcriptsRoutes(deps: { transcripts: Transcripts }): Hono {
  const app = new Hono();
  app.get('/sessions/:id/transcript', async (c) => {
    const format = formatSchema.safeParse(c.req.query('format') || undefined);
    if (!format.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `unknown transcript format "${c.req.query('format')}" (json, markdown or org)`);
    const out = await deps.transcripts.render(c.req.param('id'), format.data, principalOf(c));
    c.header('Content-Type', out.contentType);
    return c.body(out.body);
  });
  app.get('/transcripts', async (c) => c.json(await deps.transcripts.list(c.req.query('project') || undefined, principalOf(c))));
  return app;
}

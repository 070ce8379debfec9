import { Hono } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { transcriptQuerySchema, transcriptsQuerySchema } from '../../../contracts/http-api';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';
import { toStrandError } from './errors';

/** `GET /api/sessions/{id}/transcript?format=json|markdown|org` and `GET /api/transcripts?project=`. */
export function transcriptsRoutes(deps: { transcripts: Transcripts }): Hono {
  const app = new Hono();
  app.get('/sessions/:id/transcript', async (c) => {
    // An empty `format=` means the default, as no format does.
    const query = transcriptQuerySchema.safeParse({ format: c.req.query('format') || undefined });
    if (!query.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `unknown transcript format "${c.req.query('format')}" (json, markdown or org)`);
    const out = await deps.transcripts.render(c.req.param('id'), query.data.format, principalOf(c));
    c.header('Content-Type', out.contentType);
    return c.body(out.body);
  });
  app.get('/transcripts', async (c) => {
    const query = transcriptsQuerySchema.safeParse({ project: c.req.query('project') || undefined });
    if (!query.success) throw toStrandError(query.error);
    return c.json(await deps.transcripts.list(query.data.project, principalOf(c)));
  });
  return app;
}

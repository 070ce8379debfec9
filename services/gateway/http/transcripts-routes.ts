import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E, ErrorCode, StrandError } from '../../../contracts/errors';
import { transcriptQuerySchema, transcriptsQuerySchema } from '../../../contracts/http-api';
import { transcriptDocumentSchema, transcriptListSchema } from '../../../contracts/http-replies';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';
import { errors, firstQueryValues, jsonReply, openApiApp, SESSION_READ, sessionIdParams } from './openapi/route-kit';

const tags = ['transcripts'];
const text = { schema: { type: 'string' as const } };

const transcript = createRoute({
  method: 'get',
  path: '/sessions/{id}/transcript',
  operationId: 'transcript',
  summary: 'The conversation as a document',
  description:
    'Tool calls readable, thinking folded; org files carry `#+TITLE`, `#+DATE`, `#+SESSION_ID`, `#+MODEL` headers. An unknown format: 400 INVALID_REQUEST. A conversation that cannot be rendered: 500 TRANSCRIPT_ERROR.',
  tags,
  middleware: firstQueryValues,
  request: { params: sessionIdParams, query: transcriptQuerySchema },
  responses: { 200: { description: 'In the asked format.', content: { 'application/json': { schema: transcriptDocumentSchema }, 'text/markdown': text, 'text/org': text } } },
  ...errors(E.INVALID_REQUEST, ...SESSION_READ, E.TRANSCRIPT_ERROR),
});

const transcripts = createRoute({
  method: 'get',
  path: '/transcripts',
  operationId: 'listTranscripts',
  summary: "A project's sessions with the files they changed",
  tags,
  middleware: firstQueryValues,
  request: { query: transcriptsQuerySchema },
  responses: { 200: jsonReply(transcriptListSchema, "The caller's sessions.") },
  ...errors(E.UNAVAILABLE),
});

/** `GET /api/sessions/{id}/transcript?format=json|markdown|org` and `GET /api/transcripts?project=`. */
export function transcriptsRoutes(deps: { transcripts: Transcripts }): OpenAPIHono {
  const app = openApiApp();
  app.openapi(
    transcript,
    async (c) => {
      // An empty `format=` means the default, as no format does.
      const out = await deps.transcripts.render(c.req.valid('param').id, c.req.valid('query').format || 'json', principalOf(c));
      c.header('Content-Type', out.contentType);
      return c.body(out.body);
    },
    (result, c) => {
      if (!result.success) throw new StrandError(ErrorCode.INVALID_REQUEST, `unknown transcript format "${c.req.query('format')}" (json, markdown or org)`);
      return undefined;
    },
  );
  // An empty `project=` means every project, as none does.
  app.openapi(transcripts, async (c) => c.json(await deps.transcripts.list(c.req.valid('query').project || undefined, principalOf(c)), 200));
  return app;
}

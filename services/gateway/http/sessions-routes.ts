import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { createSessionBodySchema, forkBodySchema, listSessionsQuerySchema, messagesQuerySchema } from '../../../contracts/http-api';
import * as R from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';
import { errors, firstQueryValues, jsonBody, jsonReply, openApiApp, readJsonBody, SESSION_READ, sessionIdParams, sessionReply } from './openapi/route-kit';

export interface SessionsDeps {
  sessions: SessionService;
  transcripts: Transcripts;
}

const params = sessionIdParams;
const tags = ['sessions'];

const create = createRoute({
  method: 'post',
  path: '/',
  operationId: 'createSession',
  summary: 'Create a session',
  description:
    "`project_path` is a directory the gateway's user must be able to read and enter: one it may not is 403 PERMISSION_DENIED (the message names the path and what is missing). A path that does not exist is accepted as before (the session's tools report it). A `model` is checked as `POST /api/sessions/{id}/model` checks it (400 UNKNOWN_MODEL, same message, nothing created). The session's workflow is started, so a `GET` right after agrees with `status`.",
  tags,
  middleware: readJsonBody,
  request: { body: jsonBody(createSessionBodySchema) },
  responses: { 201: jsonReply(R.sessionCreatedSchema, 'Created; owned by the caller.') },
  ...errors(E.PERMISSION_DENIED, E.UNKNOWN_MODEL, E.UNAVAILABLE),
});

const list = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listSessions',
  summary: "List the caller's sessions",
  tags,
  middleware: firstQueryValues,
  request: { query: listSessionsQuerySchema },
  responses: { 200: jsonReply(R.sessionListSchema, 'A page of sessions with their live state.') },
  ...errors(E.INVALID_REQUEST, E.UNAVAILABLE),
});

const describe = createRoute({
  method: 'get',
  path: '/{id}',
  operationId: 'getSession',
  summary: 'Describe a session',
  tags,
  ...sessionReply(R.sessionViewSchema, 'The session.'),
});

const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  operationId: 'deleteSession',
  summary: 'Delete a session',
  description:
    'A running turn is aborted first; with `config.save_transcript` the markdown transcript is written before the session goes. A transcript that cannot be saved (STRAND_TRANSCRIPTS_DIR not a writable directory, a render or write failure) is 500 TRANSCRIPT_ERROR and the session is kept (`details.deleted: false`): found before anything is touched when the directory is unusable, else after the running turn was stopped.',
  tags,
  ...sessionReply(R.sessionClosedSchema, 'Closed.', E.TRANSCRIPT_ERROR),
});

const resume = createRoute({
  method: 'post',
  path: '/{id}/resume',
  operationId: 'resumeSession',
  summary: 'Wake a dormant session',
  tags,
  ...sessionReply(R.sessionResumedSchema, "The session's workflow runs."),
});

const fork = createRoute({
  method: 'post',
  path: '/{id}/fork',
  operationId: 'forkSession',
  summary: 'Fork a session at an entry',
  description: 'A new session holding the conversation up to `entry_id`, with the same project and settings. An unknown entry: 400 INVALID_REQUEST.',
  tags,
  middleware: readJsonBody,
  request: { params, body: jsonBody(forkBodySchema) },
  responses: { 201: jsonReply(R.sessionForkedSchema, 'The new session.') },
  ...errors(...SESSION_READ),
});

const forkPoints = createRoute({
  method: 'get',
  path: '/{id}/fork-points',
  operationId: 'forkPoints',
  summary: 'Where a fork can start',
  description: 'strand extension: the user messages of the active branch, oldest first.',
  tags,
  ...sessionReply(R.forkPointsSchema, 'Fork points.'),
});

const lastAssistantText = createRoute({
  method: 'get',
  path: '/{id}/last-assistant-text',
  operationId: 'lastAssistantText',
  summary: "The last answer's text",
  tags,
  ...sessionReply(R.lastAssistantTextSchema, 'The newest assistant message of the active branch.'),
});

const stats = createRoute({
  method: 'get',
  path: '/{id}/stats',
  operationId: 'sessionStats',
  summary: 'Tokens, cost, messages, steps, turns, context use',
  tags,
  ...sessionReply(R.sessionStatsSchema, 'Sums over the active branch.'),
});

const messages = createRoute({
  method: 'get',
  path: '/{id}/messages',
  operationId: 'listMessages',
  summary: 'The stored conversation',
  tags,
  middleware: firstQueryValues,
  request: { params, query: messagesQuerySchema },
  responses: { 200: jsonReply(R.messagesPageSchema, "A page of the store's messages (active branch).") },
  ...errors(E.INVALID_REQUEST, ...SESSION_READ),
});

/** `/api/sessions…`: create, list, describe, fork, delete, and what a session holds — a thin mapping onto SessionService. */
export function sessionsRoutes(deps: SessionsDeps): OpenAPIHono {
  const app = openApiApp();
  const { sessions } = deps;

  app.openapi(create, async (c) => {
    const owner = principalOf(c);
    const { session_id, meta, status } = await sessions.create({ ...c.req.valid('json'), ...(owner ? { owner } : {}) });
    return c.json({ session_id, status, created_at: meta.created_at }, 201);
  });

  app.openapi(list, async (c) => c.json(await sessions.list(c.req.valid('query'), principalOf(c)), 200));
  app.openapi(describe, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).describe(), 200));

  // With `config.save_transcript` the transcript is written first, then the session goes. A transcript
  // directory that cannot take it is TRANSCRIPT_ERROR before anything happens; a transcript that then
  // cannot be written is TRANSCRIPT_ERROR after the running turn was stopped. Never deleted without it.
  app.openapi(remove, async (c) => {
    const session = await sessions.open(c.req.valid('param').id, principalOf(c));
    const save = await deps.transcripts.saverIfWanted(session);
    await session.abort();
    const transcript_path = save ? await save() : undefined;
    await session.delete();
    return c.json({ status: 'closed' as const, ...(transcript_path ? { transcript_path } : {}) }, 200);
  });

  app.openapi(resume, async (c) => c.json({ status: 'resumed' as const, ...(await (await sessions.open(c.req.valid('param').id, principalOf(c))).resume()) }, 200));
  app.openapi(fork, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).fork(c.req.valid('json').entry_id), 201));
  app.openapi(forkPoints, async (c) => c.json({ messages: await (await sessions.open(c.req.valid('param').id, principalOf(c))).forkPoints() }, 200));
  app.openapi(lastAssistantText, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).lastAssistantText(), 200));
  app.openapi(stats, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).stats(), 200));
  app.openapi(messages, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).messages(c.req.valid('query')), 200));

  return app;
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { createSessionBodySchema, forkBodySchema, listSessionsQuerySchema, messagesQuerySchema } from '../../../contracts/http-api';
import * as R from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';
import { errors, firstQueryValues, jsonBody, jsonReply, readJsonBody, routeTable, serveRoutes, SESSION_READ, sessionIdParams, sessionOf, sessionReply } from './openapi/route-kit';

export interface SessionsDeps {
  sessions: SessionService;
  transcripts: Transcripts;
}

const routes = routeTable(['sessions'], {
  create: {
    post: '/',
    id: 'createSession',
    summary: 'Create a session',
    description:
      "`project_path` is a directory the gateway's user must be able to read and enter: one it may not is 403 PERMISSION_DENIED (the message names the path and what is missing). A path that does not exist is accepted as before (the session's tools report it). A `model` is checked as `POST /api/sessions/{id}/model` checks it (400 UNKNOWN_MODEL, same message, nothing created). The session's workflow is started, so a `GET` right after agrees with `status`.",
    middleware: readJsonBody,
    request: { body: jsonBody(createSessionBodySchema) },
    responses: { 201: jsonReply(R.sessionCreatedSchema, 'Created; owned by the caller.') },
    ...errors(E.PERMISSION_DENIED, E.UNKNOWN_MODEL, E.UNAVAILABLE),
  },
  list: {
    get: '/',
    id: 'listSessions',
    summary: "List the caller's sessions",
    middleware: firstQueryValues,
    request: { query: listSessionsQuerySchema },
    responses: { 200: jsonReply(R.sessionListSchema, 'A page of sessions with their live state.') },
    ...errors(E.INVALID_REQUEST, E.UNAVAILABLE),
  },
  describe: { get: '/{id}', id: 'getSession', summary: 'Describe a session', ...sessionReply(R.sessionViewSchema, 'The session.') },
  remove: {
    delete: '/{id}',
    id: 'deleteSession',
    summary: 'Delete a session',
    description:
      'A running turn is aborted first; with `config.save_transcript` the markdown transcript is written before the session goes. A transcript that cannot be saved (STRAND_TRANSCRIPTS_DIR not a writable directory, a render or write failure) is 500 TRANSCRIPT_ERROR and the session is kept (`details.deleted: false`): found before anything is touched when the directory is unusable, else after the running turn was stopped.',
    ...sessionReply(R.sessionClosedSchema, 'Closed.', E.TRANSCRIPT_ERROR, E.JOB_SESSION),
  },
  resume: { post: '/{id}/resume', id: 'resumeSession', summary: 'Wake a dormant session', ...sessionReply(R.sessionResumedSchema, "The session's workflow runs.", E.JOB_SESSION) },
  fork: {
    post: '/{id}/fork',
    id: 'forkSession',
    summary: 'Fork a session at an entry',
    description: 'A new session holding the conversation up to `entry_id`, with the same project and settings. An unknown entry: 400 INVALID_REQUEST.',
    middleware: readJsonBody,
    request: { params: sessionIdParams, body: jsonBody(forkBodySchema) },
    responses: { 201: jsonReply(R.sessionForkedSchema, 'The new session.') },
    ...errors(...SESSION_READ),
  },
  forkPoints: {
    get: '/{id}/fork-points',
    id: 'forkPoints',
    summary: 'Where a fork can start',
    description: 'strand extension: the user messages of the active branch, oldest first.',
    ...sessionReply(R.forkPointsSchema, 'Fork points.'),
  },
  lastAssistantText: {
    get: '/{id}/last-assistant-text',
    id: 'lastAssistantText',
    summary: "The last answer's text",
    ...sessionReply(R.lastAssistantTextSchema, 'The newest assistant message of the active branch.'),
  },
  stats: { get: '/{id}/stats', id: 'sessionStats', summary: 'Tokens, cost, messages, steps, turns, context use', ...sessionReply(R.sessionStatsSchema, 'Sums over the active branch.') },
  messages: {
    get: '/{id}/messages',
    id: 'listMessages',
    summary: 'The stored conversation',
    middleware: firstQueryValues,
    request: { params: sessionIdParams, query: messagesQuerySchema },
    responses: { 200: jsonReply(R.messagesPageSchema, "A page of the store's messages (active branch).") },
    ...errors(E.INVALID_REQUEST, ...SESSION_READ),
  },
});

/** `/api/sessions…`: create, list, describe, fork, delete, and what a session holds — a thin mapping onto SessionService. */
export function sessionsRoutes(deps: SessionsDeps): OpenAPIHono {
  const { sessions } = deps;
  return serveRoutes(routes, {
    create: async (c) => {
      const owner = principalOf(c);
      const { session_id, meta, status } = await sessions.create({ ...c.req.valid('json'), ...(owner ? { owner } : {}) });
      return c.json({ session_id, status, created_at: meta.created_at }, 201);
    },
    list: async (c) => c.json(await sessions.list(c.req.valid('query'), principalOf(c)), 200),
    describe: async (c) => c.json(await (await sessionOf(sessions, c)).describe(), 200),
    // With `config.save_transcript` the transcript is written first, then the session goes. A transcript
    // directory that cannot take it is TRANSCRIPT_ERROR before anything happens; a transcript that then
    // cannot be written is TRANSCRIPT_ERROR after the running turn was stopped. Never deleted without it.
    remove: async (c) => {
      const session = await sessionOf(sessions, c);
      const save = await deps.transcripts.saverIfWanted(session);
      await session.abort();
      const transcript_path = save ? await save() : undefined;
      await session.delete();
      return c.json({ status: 'closed' as const, ...(transcript_path ? { transcript_path } : {}) }, 200);
    },
    resume: async (c) => c.json({ status: 'resumed' as const, ...(await (await sessionOf(sessions, c)).resume()) }, 200),
    fork: async (c) => c.json(await (await sessionOf(sessions, c)).fork(c.req.valid('json').entry_id), 201),
    forkPoints: async (c) => c.json({ messages: await (await sessionOf(sessions, c)).forkPoints() }, 200),
    lastAssistantText: async (c) => c.json(await (await sessionOf(sessions, c)).lastAssistantText(), 200),
    stats: async (c) => c.json(await (await sessionOf(sessions, c)).stats(), 200),
    messages: async (c) => c.json(await (await sessionOf(sessions, c)).messages(c.req.valid('query')), 200),
  });
}

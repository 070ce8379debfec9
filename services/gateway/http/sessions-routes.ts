import { Hono } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { createSessionBodySchema, listSessionsQuerySchema, messagesQuerySchema, promptBodySchema, promptQuerySchema, steerBodySchema, forkBodySchema } from '../../../contracts/http-api';
import type { SessionService } from '../sessions/session-service';
import type { Transcripts } from '../transcripts/transcripts';
import { principalOf } from './auth-middleware';
import { parseJsonBody, toStrandError } from './errors';

export interface SessionsDeps {
  sessions: SessionService;
  transcripts: Transcripts;
}

/** `/api/sessions…`: create, list, describe, prompt, messages — a thin mapping onto SessionService. */
export function sessionsRoutes(deps: SessionsDeps): Hono {
  const app = new Hono();
  const { sessions } = deps;

  app.post('/', async (c) => {
    const body = await parseJsonBody(c, createSessionBodySchema);
    const owner = principalOf(c);
    const { session_id, meta, status } = await sessions.create({ ...body, ...(owner ? { owner } : {}) });
    return c.json({ session_id, status, created_at: meta.created_at }, 201);
  });

  app.get('/', async (c) => {
    const q = listSessionsQuerySchema.safeParse(c.req.query());
    if (!q.success) throw toStrandError(q.error);
    return c.json(await sessions.list(q.data, principalOf(c)));
  });

  app.get('/:id', async (c) => c.json(await sessions.describe(c.req.param('id'), principalOf(c))));

  app.post('/:id/prompt', async (c) => {
    const body = await parseJsonBody(c, promptBodySchema);
    const query = promptQuerySchema.parse(c.req.query());
    const accepted = await sessions.prompt(
      c.req.param('id'),
      { text: body.text, behavior: query.queue === '1' ? 'queue' : 'reject', ...(body.request_id ? { request_id: body.request_id } : {}) },
      principalOf(c),
    );
    return c.json(
      {
        status: 'accepted',
        agent_state: accepted.agent_state,
        turn_id: accepted.turn_id,
        queued: accepted.queued,
        ...(accepted.queue_position !== undefined ? { queue_position: accepted.queue_position } : {}),
      },
      202,
    );
  });

  // Delivered to the running turn after its current tool batch; the next model step sees it.
  app.post('/:id/steer', async (c) => {
    const body = await parseJsonBody(c, steerBodySchema);
    const result = await sessions.steer(c.req.param('id'), body.text, principalOf(c), body.request_id);
    if (!result.delivered) throw new StrandError(ErrorCode.INVALID_REQUEST, 'no turn is running to steer: send a prompt instead');
    return c.json({ status: 'accepted', turn_id: result.turn_id }, 202);
  });

  // Answers once the turn has ended (its partial answer recorded as `aborted`), with the state after it.
  app.post('/:id/interrupt', async (c) => {
    const id = c.req.param('id');
    const result = await sessions.abort(id, principalOf(c));
    const view = await sessions.describe(id, principalOf(c));
    return c.json({ status: result.aborted ? 'interrupted' : 'not_running', turn_id: result.turn_id, agent_state: view.agent_state });
  });

  // With `config.save_transcript` the transcript is written first, then the session goes. A transcript
  // directory that cannot take it is TRANSCRIPT_ERROR before anything happens; a transcript that then
  // cannot be written is TRANSCRIPT_ERROR after the running turn was stopped. Never deleted without it.
  app.delete('/:id', async (c) => {
    const id = c.req.param('id');
    const principal = principalOf(c);
    const save = await deps.transcripts.saverIfWanted(id, principal);
    await sessions.abort(id, principal);
    const transcript_path = save ? await save() : undefined;
    await sessions.delete(id, principal);
    return c.json({ status: 'closed', ...(transcript_path ? { transcript_path } : {}) });
  });

  app.post('/:id/resume', async (c) => {
    const resumed = await sessions.resume(c.req.param('id'), principalOf(c));
    return c.json({ status: 'resumed', ...resumed });
  });

  app.post('/:id/fork', async (c) => {
    const body = await parseJsonBody(c, forkBodySchema);
    return c.json(await sessions.fork(c.req.param('id'), body.entry_id, principalOf(c)), 201);
  });

  // strand extension: stop waiting for a provider retry; the turn ends with that error.
  app.post('/:id/abort-retry', async (c) => c.json(await sessions.abortRetry(c.req.param('id'), principalOf(c))));

  // strand extensions: where a fork can start (user messages), and the last answer's text.
  app.get('/:id/fork-points', async (c) => c.json({ messages: await sessions.forkPoints(c.req.param('id'), principalOf(c)) }));
  app.get('/:id/last-assistant-text', async (c) => c.json(await sessions.lastAssistantText(c.req.param('id'), principalOf(c))));

  // strand extension: tokens, cost, message counts, steps, turns, context use.
  app.get('/:id/stats', async (c) => c.json(await sessions.stats(c.req.param('id'), principalOf(c))));

  app.get('/:id/messages', async (c) => {
    const q = messagesQuerySchema.safeParse(c.req.query());
    if (!q.success) throw toStrandError(q.error);
    return c.json(await sessions.messages(c.req.param('id'), q.data, principalOf(c)));
  });

  return app;
}

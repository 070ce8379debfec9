import type { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E, ErrorCode, StrandError } from '../../../contracts/errors';
import { promptBodySchema, promptQuerySchema, steerBodySchema } from '../../../contracts/http-api';
import * as R from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { errors, jsonBody, jsonReply, readJsonBody, routeTable, serveRoutes, SESSION_READ, sessionIdParams, sessionOf, sessionReply } from './openapi/route-kit';

const routes = routeTable(['agent'], {
  prompt: {
    post: '/{id}/prompt',
    id: 'prompt',
    summary: 'Start a turn',
    description:
      'While a turn runs the prompt is refused (409 SESSION_BUSY) unless `?queue=1`. The same `request_id` sent again answers 202 with the same `turn_id` and starts nothing. `images` (docs/images.md): a bad media type, base64 that does not decode to an image of that type, or one over the caps is 400 INVALID_REQUEST naming the image; a session whose model does not take images answers 400 IMAGES_NOT_SUPPORTED naming the model; in both cases no turn starts. A job\'s session (`job-<id>`) answers 409 JOB_SESSION naming the job: its turns are the job\'s.',
    middleware: readJsonBody,
    request: { params: sessionIdParams, query: promptQuerySchema, body: jsonBody(promptBodySchema) },
    responses: { 202: jsonReply(R.promptAcceptedReplySchema, 'Accepted (started, or queued).') },
    ...errors(...SESSION_READ, E.SESSION_BUSY, E.IMAGES_NOT_SUPPORTED, E.JOB_SESSION),
  },
  steer: {
    post: '/{id}/steer',
    id: 'steer',
    summary: 'Send a message to the running turn',
    description: "Delivered after the current tool batch; the next model step sees it. With no turn running: 400 INVALID_REQUEST. A job's session steers the job's running turn.",
    middleware: readJsonBody,
    request: { params: sessionIdParams, body: jsonBody(steerBodySchema) },
    responses: { 202: jsonReply(R.steerAcceptedSchema, 'Delivered to the running turn.') },
    ...errors(...SESSION_READ),
  },
  interrupt: {
    post: '/{id}/interrupt',
    id: 'interrupt',
    summary: 'Abort the running turn',
    description: 'Answers once the turn has ended; its partial answer is kept with stop reason `aborted`.',
    ...sessionReply(R.interruptReplySchema, 'The turn ended (or none was running).', E.JOB_SESSION),
  },
  abortRetry: {
    post: '/{id}/abort-retry',
    id: 'abortRetry',
    summary: 'Give up a scheduled provider retry',
    description: 'strand extension: the turn ends with the error it was retrying.',
    ...sessionReply(R.abortRetryReplySchema, 'Whether a retry was waiting.', E.JOB_SESSION),
  },
});

/** `/api/sessions/{id}/prompt|steer|interrupt|abort-retry`: a session's turns. */
export function agentRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  const { sessions } = deps;
  return serveRoutes(routes, {
    prompt: async (c) => {
      const body = c.req.valid('json');
      // No store read first on the common path (SessionService.prompt): the running session checks the caller.
      const accepted = await sessions.prompt(
        c.req.valid('param').id,
        principalOf(c),
        { text: body.text, behavior: c.req.valid('query').queue === '1' ? 'queue' : 'reject', ...(body.request_id ? { request_id: body.request_id } : {}), ...(body.budget ? { budget: body.budget } : {}) },
        body.images ?? [],
      );
      return c.json(
        {
          status: 'accepted' as const,
          agent_state: accepted.agent_state,
          turn_id: accepted.turn_id,
          queued: accepted.queued,
          ...(accepted.queue_position !== undefined ? { queue_position: accepted.queue_position } : {}),
        },
        202,
      );
    },
    // Delivered to the running turn after its current tool batch; the next model step sees it.
    steer: async (c) => {
      const body = c.req.valid('json');
      const result = await (await sessionOf(sessions, c)).steer(body.text, body.request_id);
      if (!result.delivered) throw new StrandError(ErrorCode.INVALID_REQUEST, 'no turn is running to steer: send a prompt instead (a job takes steering only while one of its turns runs)');
      return c.json({ status: 'accepted' as const, turn_id: result.turn_id }, 202);
    },
    // Answers once the turn has ended (its partial answer recorded as `aborted`), with the state after it.
    interrupt: async (c) => {
      const session = await sessionOf(sessions, c);
      const result = await session.abort();
      const view = await session.describe();
      return c.json({ status: result.aborted ? ('interrupted' as const) : ('not_running' as const), turn_id: result.turn_id, agent_state: view.agent_state }, 200);
    },
    // strand extension: stop waiting for a provider retry; the turn ends with that error.
    abortRetry: async (c) => c.json(await (await sessionOf(sessions, c)).abortRetry(), 200),
  });
}

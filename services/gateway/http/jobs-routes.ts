import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ErrorCode as E } from '../../../contracts/errors';
import { jobCancelledSchema, jobListSchema, jobSchema } from '../../../contracts/http-replies';
import type { RunningTurns } from '../sessions/running-turns';
import { principalOf } from './auth-middleware';
import { errors, jsonReply, openApiApp } from './openapi/route-kit';

const tags = ['jobs'];
const params = z.object({ id: z.string().describe("The job id, `session:<id>:turn:<n>`, URL-encoded. Another principal's job answers 404 JOB_NOT_FOUND.") });

const list = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listJobs',
  summary: "The caller's running turns",
  tags,
  responses: { 200: jsonReply(jobListSchema, 'Running turns across sessions, newest first.') },
  ...errors(E.UNAVAILABLE),
});

const one = createRoute({
  method: 'get',
  path: '/{id}',
  operationId: 'getJob',
  summary: 'One job',
  tags,
  request: { params },
  responses: { 200: jsonReply(jobSchema, 'The job, running or not.') },
  ...errors(E.JOB_NOT_FOUND, E.UNAVAILABLE),
});

const cancel = createRoute({
  method: 'post',
  path: '/{id}/cancel',
  operationId: 'cancelJob',
  summary: 'Cancel a job',
  description: 'The turn stops within a second, as an interrupt does.',
  tags,
  request: { params },
  responses: { 200: jsonReply(jobCancelledSchema, 'Cancelled, or not running.') },
  ...errors(E.JOB_NOT_FOUND, E.UNAVAILABLE),
});

/** `/api/jobs…`: turns running without (or with) a client, across sessions. */
export function jobsRoutes(deps: { turns: RunningTurns }): OpenAPIHono {
  const app = openApiApp();
  app.openapi(list, async (c) => c.json({ jobs: await deps.turns.list(principalOf(c)) }, 200));
  app.openapi(one, async (c) => c.json(await deps.turns.get(c.req.valid('param').id, principalOf(c)), 200));
  app.openapi(cancel, async (c) => c.json(await deps.turns.cancel(c.req.valid('param').id, principalOf(c)), 200));
  return app;
}

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ErrorCode as E } from '../../../contracts/errors';
import { turnCancelledSchema, turnListSchema, turnSchema } from '../../../contracts/http-replies';
import type { RunningTurns } from '../sessions/running-turns';
import { principalOf } from './auth-middleware';
import { errors, jsonReply, openApiApp } from './openapi/route-kit';

const tags = ['turns'];
const params = z.object({ id: z.string().describe("The turn's workflow id, `session:<id>:turn:<n>`, URL-encoded. Another principal's turn answers 404 TURN_NOT_FOUND.") });

const list = createRoute({
  method: 'get',
  path: '/',
  operationId: 'listTurns',
  summary: "The caller's running turns",
  tags,
  responses: { 200: jsonReply(turnListSchema, 'Running turns across sessions, newest first.') },
  ...errors(E.UNAVAILABLE),
});

const one = createRoute({
  method: 'get',
  path: '/{id}',
  operationId: 'getTurn',
  summary: 'One turn',
  tags,
  request: { params },
  responses: { 200: jsonReply(turnSchema, 'The turn, running or not.') },
  ...errors(E.TURN_NOT_FOUND, E.UNAVAILABLE),
});

const cancel = createRoute({
  method: 'post',
  path: '/{id}/cancel',
  operationId: 'cancelTurn',
  summary: 'Cancel a turn',
  description: 'The turn stops within a second, as an interrupt does.',
  tags,
  request: { params },
  responses: { 200: jsonReply(turnCancelledSchema, 'Cancelled, or not running.') },
  ...errors(E.TURN_NOT_FOUND, E.UNAVAILABLE),
});

/** `/api/turns…`: turns running without (or with) a client, across sessions (formerly `/api/jobs`, which now means unattended jobs). */
export function turnsRoutes(deps: { turns: RunningTurns }): OpenAPIHono {
  const app = openApiApp();
  app.openapi(list, async (c) => c.json({ turns: await deps.turns.list(principalOf(c)) }, 200));
  app.openapi(one, async (c) => c.json(await deps.turns.get(c.req.valid('param').id, principalOf(c)), 200));
  app.openapi(cancel, async (c) => c.json(await deps.turns.cancel(c.req.valid('param').id, principalOf(c)), 200));
  return app;
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { ErrorCode as E } from '../../../contracts/errors';
import { turnCancelledSchema, turnListSchema, turnSchema } from '../../../contracts/http-replies';
import type { RunningTurns } from '../sessions/running-turns';
import { principalOf } from './auth-middleware';
import { errors, jsonReply, routeTable, serveRoutes } from './openapi/route-kit';

const params = z.object({ id: z.string().describe("The turn's workflow id, `session:<id>:turn:<n>`, URL-encoded. Another principal's turn answers 404 TURN_NOT_FOUND.") });

const routes = routeTable(['turns'], {
  list: {
    get: '/',
    id: 'listTurns',
    summary: "The caller's running turns",
    responses: { 200: jsonReply(turnListSchema, 'Running turns across sessions, newest first.') },
    ...errors(E.UNAVAILABLE),
  },
  one: {
    get: '/{id}',
    id: 'getTurn',
    summary: 'One turn',
    request: { params },
    responses: { 200: jsonReply(turnSchema, 'The turn, running or not.') },
    ...errors(E.TURN_NOT_FOUND, E.UNAVAILABLE),
  },
  cancel: {
    post: '/{id}/cancel',
    id: 'cancelTurn',
    summary: 'Cancel a turn',
    description: 'The turn stops within a second, as an interrupt does.',
    request: { params },
    responses: { 200: jsonReply(turnCancelledSchema, 'Cancelled, or not running.') },
    ...errors(E.TURN_NOT_FOUND, E.UNAVAILABLE),
  },
});

/** `/api/turns…`: turns running without (or with) a client, across sessions (formerly `/api/jobs`, which now means unattended jobs). */
export function turnsRoutes(deps: { turns: RunningTurns }): OpenAPIHono {
  return serveRoutes(routes, {
    list: async (c) => c.json({ turns: await deps.turns.list(principalOf(c)) }, 200),
    one: async (c) => c.json(await deps.turns.get(c.req.valid('param').id, principalOf(c)), 200),
    cancel: async (c) => c.json(await deps.turns.cancel(c.req.valid('param').id, principalOf(c)), 200),
  });
}

import { Hono } from 'hono';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';

/** `/api/jobs…`: turns running without (or with) a client, across sessions. */
export function jobsRoutes(deps: { sessions: SessionService }): Hono {
  const app = new Hono();
  app.get('/', async (c) => c.json({ jobs: await deps.sessions.jobs(principalOf(c)) }));
  app.get('/:id', async (c) => c.json(await deps.sessions.job(c.req.param('id'), principalOf(c))));
  app.post('/:id/cancel', async (c) => c.json(await deps.sessions.cancelJob(c.req.param('id'), principalOf(c))));
  return app;
}

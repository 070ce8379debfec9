import { Hono } from 'hono';
import { compactBodySchema, modelBodySchema, settingsBodySchema, thinkingBodySchema } from '../../../contracts/http-api';
import { modelIdOf } from '../../../contracts/models';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { parseJsonBody } from './errors';

/**
 * `/api/sessions/{id}/model|thinking|settings`: each change is checked (model against the catalog
 * and configured providers, thinking level clamped to the model), persisted by the session and
 * published as `agent.state`; it applies from the next turn.
 */
export function settingsRoutes(deps: { sessions: SessionService }): Hono {
  const app = new Hono();
  const { sessions } = deps;

  app.post('/:id/model', async (c) => {
    const body = await parseJsonBody(c, modelBodySchema);
    const change = 'cycle' in body ? { cycle_model: true } : { model: modelIdOf(body.provider, body.model_id) };
    const s = await sessions.updateSettings(c.req.param('id'), change, principalOf(c));
    return c.json({ model: s.model, thinking_level: s.thinking_level, ...(s.notice ? { notice: s.notice } : {}) });
  });

  app.post('/:id/thinking', async (c) => {
    const body = await parseJsonBody(c, thinkingBodySchema);
    const s = await sessions.updateSettings(c.req.param('id'), 'cycle' in body ? { cycle_thinking: true } : { thinking_level: body.level }, principalOf(c));
    return c.json({ thinking_level: s.thinking_level, model: s.model });
  });

  // Answers once the summary is recorded (a model call: seconds, not milliseconds).
  app.post('/:id/compact', async (c) => {
    const body = await parseJsonBody(c, compactBodySchema);
    return c.json(await sessions.compact(c.req.param('id'), body.instructions, principalOf(c)));
  });

  app.patch('/:id/settings', async (c) => {
    const body = await parseJsonBody(c, settingsBodySchema);
    const { notice: _notice, ...settings } = await sessions.updateSettings(c.req.param('id'), body, principalOf(c));
    return c.json(settings);
  });

  return app;
}

import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { compactBodySchema, modelBodySchema, settingsBodySchema, thinkingBodySchema } from '../../../contracts/http-api';
import { compactedSchema, modelChangedSchema, settingsReplySchema, thinkingChangedSchema } from '../../../contracts/http-replies';
import { modelIdOf } from '../../../contracts/models';
import type { SessionService } from '../sessions/session-service';
import { principalOf } from './auth-middleware';
import { openApiApp, sessionChange, sessionReply } from './openapi/route-kit';

const tags = ['settings'];

const model = createRoute({
  method: 'post',
  path: '/{id}/model',
  operationId: 'setModel',
  summary: 'Change the model',
  description: 'Checked against the catalog and the configured providers; the thinking level is clamped to the new model. Applies from the next turn; announced as `agent.state`.',
  tags,
  ...sessionChange(modelBodySchema, modelChangedSchema, 'The new setting.', E.UNKNOWN_MODEL),
});

const thinking = createRoute({
  method: 'post',
  path: '/{id}/thinking',
  operationId: 'setThinkingLevel',
  summary: 'Change the thinking level',
  tags,
  ...sessionChange(thinkingBodySchema, thinkingChangedSchema, 'The level after clamping to the model.'),
});

const compact = createRoute({
  method: 'post',
  path: '/{id}/compact',
  operationId: 'compact',
  summary: 'Summarise the older conversation now',
  description: 'Answers once the summary is recorded (a model call). Only while idle.',
  tags,
  ...sessionChange(compactBodySchema, compactedSchema, 'The summary.', E.SESSION_BUSY, E.LLM_API_ERROR),
});

const readSettings = createRoute({
  method: 'get',
  path: '/{id}/settings',
  operationId: 'getSettings',
  summary: 'Every setting of the session',
  description: 'strand extension: model, thinking level, auto-retry, auto-compaction, approval policy, name — the shape `PATCH` answers. The running workflow\'s settings, else the stored ones it loads when it comes back.',
  tags,
  ...sessionReply(settingsReplySchema, 'Every setting.'),
});

const settings = createRoute({
  method: 'patch',
  path: '/{id}/settings',
  operationId: 'updateSettings',
  summary: 'Change the other settings',
  description: 'strand extension: auto-retry, auto-compaction, approval policy, name. Given fields replace, the rest stay.',
  tags,
  ...sessionChange(settingsBodySchema, settingsReplySchema, 'Every setting after the change.'),
});

/**
 * `/api/sessions/{id}/model|thinking|compact|settings` (and `GET …/settings` to read them): each change is checked (model against the
 * catalog and configured providers, thinking level clamped to the model), persisted by the session
 * and published as `agent.state`; it applies from the next turn.
 */
export function settingsRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  const app = openApiApp();
  const { sessions } = deps;

  app.openapi(model, async (c) => {
    const body = c.req.valid('json');
    const change = 'cycle' in body ? { cycle_model: true } : { model: modelIdOf(body.provider, body.model_id) };
    const s = await (await sessions.open(c.req.valid('param').id, principalOf(c))).updateSettings(change);
    return c.json({ model: s.model, thinking_level: s.thinking_level, ...(s.notice ? { notice: s.notice } : {}) }, 200);
  });

  app.openapi(thinking, async (c) => {
    const body = c.req.valid('json');
    const s = await (await sessions.open(c.req.valid('param').id, principalOf(c))).updateSettings('cycle' in body ? { cycle_thinking: true } : { thinking_level: body.level });
    return c.json({ thinking_level: s.thinking_level, model: s.model }, 200);
  });

  // Answers once the summary is recorded (a model call: seconds, not milliseconds).
  app.openapi(compact, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).compact(c.req.valid('json').instructions), 200));

  app.openapi(readSettings, async (c) => c.json(await (await sessions.open(c.req.valid('param').id, principalOf(c))).settings(), 200));

  app.openapi(settings, async (c) => {
    const { notice: _notice, ...rest } = await (await sessions.open(c.req.valid('param').id, principalOf(c))).updateSettings(c.req.valid('json'));
    return c.json(rest, 200);
  });

  return app;
}

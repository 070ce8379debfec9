import type { OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E } from '../../../contracts/errors';
import { compactBodySchema, modelBodySchema, settingsBodySchema, thinkingBodySchema } from '../../../contracts/http-api';
import { compactedSchema, modelChangedSchema, settingsReplySchema, thinkingChangedSchema } from '../../../contracts/http-replies';
import { modelIdOf } from '../../../contracts/models';
import type { SessionService } from '../sessions/session-service';
import { routeTable, serveRoutes, sessionChange, sessionOf, sessionReply } from './openapi/route-kit';

const routes = routeTable(['settings'], {
  model: {
    post: '/{id}/model',
    id: 'setModel',
    summary: 'Change the model',
    description: 'Checked against the catalog and the configured providers; the thinking level is clamped to the new model. Applies from the next turn; announced as `agent.state`.',
    ...sessionChange(modelBodySchema, modelChangedSchema, 'The new setting.', E.UNKNOWN_MODEL),
  },
  thinking: {
    post: '/{id}/thinking',
    id: 'setThinkingLevel',
    summary: 'Change the thinking level',
    ...sessionChange(thinkingBodySchema, thinkingChangedSchema, 'The level after clamping to the model.'),
  },
  compact: {
    post: '/{id}/compact',
    id: 'compact',
    summary: 'Summarise the older conversation now',
    description: 'Answers once the summary is recorded (a model call). Only while idle.',
    ...sessionChange(compactBodySchema, compactedSchema, 'The summary.', E.SESSION_BUSY, E.LLM_API_ERROR),
  },
  readSettings: {
    get: '/{id}/settings',
    id: 'getSettings',
    summary: 'Every setting of the session',
    description: 'strand extension: model, thinking level, auto-retry, auto-compaction, approval policy, name — the shape `PATCH` answers. The running workflow\'s settings, else the stored ones it loads when it comes back.',
    ...sessionReply(settingsReplySchema, 'Every setting.'),
  },
  settings: {
    patch: '/{id}/settings',
    id: 'updateSettings',
    summary: 'Change the other settings',
    description: 'strand extension: auto-retry, auto-compaction, approval policy, name. Given fields replace, the rest stay.',
    ...sessionChange(settingsBodySchema, settingsReplySchema, 'Every setting after the change.'),
  },
});

/**
 * `/api/sessions/{id}/model|thinking|compact|settings` (and `GET …/settings` to read them): each change is checked (model against the
 * catalog and configured providers, thinking level clamped to the model), persisted by the session
 * and published as `agent.state`; it applies from the next turn.
 */
export function settingsRoutes(deps: { sessions: SessionService }): OpenAPIHono {
  const { sessions } = deps;
  return serveRoutes(routes, {
    model: async (c) => {
      const body = c.req.valid('json');
      const change = 'cycle' in body ? { cycle_model: true } : { model: modelIdOf(body.provider, body.model_id) };
      const s = await (await sessionOf(sessions, c)).updateSettings(change);
      return c.json({ model: s.model, thinking_level: s.thinking_level, ...(s.notice ? { notice: s.notice } : {}) }, 200);
    },
    thinking: async (c) => {
      const body = c.req.valid('json');
      const s = await (await sessionOf(sessions, c)).updateSettings('cycle' in body ? { cycle_thinking: true } : { thinking_level: body.level });
      return c.json({ thinking_level: s.thinking_level, model: s.model }, 200);
    },
    // Answers once the summary is recorded (a model call: seconds, not milliseconds).
    compact: async (c) => c.json(await (await sessionOf(sessions, c)).compact(c.req.valid('json').instructions), 200),
    readSettings: async (c) => c.json(await (await sessionOf(sessions, c)).settings(), 200),
    settings: async (c) => {
      const { notice: _notice, ...rest } = await (await sessionOf(sessions, c)).updateSettings(c.req.valid('json'));
      return c.json(rest, 200);
    },
  });
}

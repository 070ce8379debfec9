import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { modelsReplySchema } from '../../../contracts/http-replies';
import type { SessionService } from '../sessions/session-service';
import { jsonReply, openApiApp } from './openapi/route-kit';

const models = createRoute({
  method: 'get',
  path: '/models',
  operationId: 'listModels',
  summary: 'The default model and the models this stack can run',
  description:
    'The catalog\'s models of the configured providers (a provider without a key is not listed; `scripted` always is), each with its display name, context window and whether it thinks. A provider whose base URL is a server of your own (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`) lists what that server\'s `GET /v1/models` answers (asked at most every 30 s); a server that does not answer leaves the default model only, and `notice` says why.',
  tags: ['service'],
  responses: { 200: jsonReply(modelsReplySchema, 'The default model and the runnable models, sorted by provider and id.') },
});

/** `GET /api/models`: what pickers (the chat's `/model`, the page) offer, and what `strand acp` takes as its default. */
export function modelsRoute(deps: { sessions: SessionService }): OpenAPIHono {
  const app = openApiApp();
  app.openapi(models, async (c) => c.json(await deps.sessions.runnable.list(), 200));
  return app;
}

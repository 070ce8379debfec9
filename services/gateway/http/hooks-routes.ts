import type { OpenAPIHono, RouteHandler } from '@hono/zod-openapi';
import type { NatsConnection } from 'nats';
import { z } from 'zod';
import { ErrorCode as E } from '../../../contracts/errors';
import { hookDefinitionBodySchema, hookDefinitionSchema, hookDeliveryRecordSchema, hookDeliveryReplySchema, hookNameSchema } from '../../../contracts/job-hook';
import { taskQueueFromEnv } from '../../../contracts/task-queues';
import type { Logger } from '../../common/logger';
import { HookService } from '../hooks/hook-service';
import { natsHookStore } from '../hooks/hook-store';
import type { TemporalLink } from '../temporal/temporal-link';
import { errors, jsonBody, jsonReply, openApiApp, PUBLIC, readByHandler, readJsonBody, routeTable, serveRoutes } from './openapi/route-kit';
import { rateLimit } from './rate-limit';

const params = z.object({ name: hookNameSchema.describe('The hook\'s name: 1-40 lowercase letters, digits and dashes.') });

export interface HooksDeps {
  nc: NatsConnection;
  temporal: TemporalLink;
  log: Logger;
  rateLimit: { perSecond: number; burst: number };
}

/** One service per app, built on first use: registering the routes (and the API document) calls nothing. */
const services = new WeakMap<HooksDeps, HookService>();
function serviceOf(deps: HooksDeps): HookService {
  let s = services.get(deps);
  if (!s) services.set(deps, (s = new HookService({ store: natsHookStore(deps.nc), temporal: deps.temporal, taskQueue: taskQueueFromEnv(), env: process.env, log: deps.log })));
  return s;
}

const routes = routeTable(['hooks'], {
  define: {
    put: '/{name}',
    id: 'defineHook',
    summary: 'Define (or replace) a hook',
    description: 'The template is a job spec whose string fields may hold `${placeholder}`s; `values` says where each is read in a delivery\'s body (a JSON pointer). `secret_env` names the gateway\'s environment variable holding the HMAC secret (it must be set on this gateway); the secret itself is never stored.',
    middleware: readJsonBody,
    request: { params, body: jsonBody(hookDefinitionBodySchema) },
    responses: { 200: jsonReply(z.object({ hook: hookDefinitionSchema }), 'The stored definition.') },
    ...errors(E.UNAVAILABLE),
  },
  list: {
    get: '/',
    id: 'listHooks',
    summary: 'Every hook defined',
    responses: { 200: jsonReply(z.object({ hooks: z.array(hookDefinitionSchema) }), 'The definitions, by name.') },
    ...errors(E.UNAVAILABLE),
  },
  show: {
    get: '/{name}',
    id: 'getHook',
    summary: 'One hook and its recent deliveries',
    request: { params },
    responses: { 200: jsonReply(z.object({ hook: hookDefinitionSchema, deliveries: z.array(hookDeliveryRecordSchema) }), 'The definition and its last 20 deliveries that were signed, newest first.') },
    ...errors(E.HOOK_NOT_FOUND, E.UNAVAILABLE),
  },
  remove: {
    delete: '/{name}',
    id: 'deleteHook',
    summary: 'Delete a hook',
    description: 'Its definition and delivery log go; jobs it started are not touched.',
    request: { params },
    responses: { 200: jsonReply(z.object({ deleted: z.literal(true) }), 'Deleted.') },
    ...errors(E.HOOK_NOT_FOUND, E.UNAVAILABLE),
  },
});

const delivery = routeTable(['hooks'], {
  deliver: {
    post: '/{name}',
    id: 'deliverHook',
    summary: 'A signed delivery: start the hook\'s job',
    description: `Authenticated by its signature, not a bearer token (a CI system or a forge posts it). The body is JSON, any shape:
the hook's \`values\` read it. \`X-Strand-Signature\` (or GitHub's \`X-Hub-Signature-256\`) is \`sha256=<hex HMAC-SHA256 of the raw
body under the hook's secret>\`; \`X-Strand-Delivery\` (or \`X-GitHub-Delivery\`, \`X-Gitea-Delivery\`) names the delivery. The
same delivery id twice starts one job: the second answer is 200 \`duplicate\` with the same job id. With a key, a delivery while
a job of its key runs is \`queued\`, \`ignored\` (no job) or cancels that job, as the hook's \`supersede\` says (docs/jobs.md).`,
    ...PUBLIC,
    request: { params },
    parameters: [
      readByHandler('header', 'X-Strand-Signature', z.string(), '`sha256=<hex>`: HMAC-SHA256 of the raw body under the hook\'s secret. GitHub\'s `X-Hub-Signature-256` is read when this is absent.'),
      readByHandler('header', 'X-Strand-Delivery', z.string(), 'The delivery\'s id (1-200 characters): deliveries are deduplicated by it. `X-GitHub-Delivery` or `X-Gitea-Delivery` are read when this is absent.'),
    ],
    responses: {
      202: jsonReply(hookDeliveryReplySchema, 'Recorded for the first time: `started`, `queued` or `ignored`.'),
      200: jsonReply(hookDeliveryReplySchema, 'A delivery id already answered: `duplicate`, with the job it started (null if none).'),
    },
    ...errors(E.INVALID_REQUEST, E.UNAUTHORIZED, E.HOOK_NOT_FOUND, E.HOOK_DELIVERY_REJECTED, E.RATE_LIMITED, E.PAYLOAD_TOO_LARGE, E.INTERNAL, E.UNAVAILABLE),
  },
});

/** `/api/hooks…` for token holders: define, list, show, delete. */
export function hooksRoutes(deps: HooksDeps): OpenAPIHono {
  return serveRoutes(routes, {
    define: async (c) => c.json({ hook: await serviceOf(deps).define(c.req.valid('param').name, c.req.valid('json')) }, 200),
    list: async (c) => c.json({ hooks: await serviceOf(deps).list() }, 200),
    show: async (c) => c.json(await serviceOf(deps).show(c.req.valid('param').name), 200),
    remove: async (c) => c.json(await serviceOf(deps).remove(c.req.valid('param').name), 200),
  });
}

/**
 * `POST /api/hooks/{name}`: mounted before the bearer-token check (app.ts), since its signature is
 * its authentication; rate limited by the sender's address here, as the token routes are by principal.
 */
export function hookDeliveryRoutes(deps: HooksDeps): OpenAPIHono {
  const app = openApiApp();
  const limit = rateLimit(deps.rateLimit);
  // Mounted ahead of the token routes of the same path: only the delivery's method is limited here.
  app.use('/:name', (c, next) => (c.req.method === 'POST' ? limit(c, next) : next()));
  const deliver: RouteHandler<typeof delivery.deliver> = async (c) => {
    const raw = new Uint8Array(await c.req.arrayBuffer());
    const { status, reply } = await serviceOf(deps).deliver(c.req.valid('param').name, raw, (h) => c.req.header(h));
    return c.json(reply, status);
  };
  return serveRoutes(delivery, { deliver }, app);
}

import type { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { Logger } from '../../common/logger';
import { errorResponse } from './errors';
import { httpErrorHandler } from './error-handler';
import { eventsRoute, type EventsDeps } from './events-route';
import { healthRoute, type HealthDeps } from './health-route';
import type { GatewayAuth } from '../auth/tokens';
import { approvalsRoutes } from './approvals-routes';
import { authMiddleware } from './auth-middleware';
import { rateLimit } from './rate-limit';
import { jobsRoutes } from './jobs-routes';
import { turnsRoutes } from './turns-routes';
import type { JobService } from '../jobs/job-service';
import { hookDeliveryRoutes, hooksRoutes } from './hooks-routes';
import { schedulesRoutes } from './schedules-routes';
import { operatorRoutes, type OperatorDeps } from './operator-routes';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi/build-document';
import { openapiRoutes } from './openapi/openapi-routes';
import { openApiApp } from './openapi/route-kit';
import { transcriptsRoutes } from './transcripts-routes';
import type { Transcripts } from '../transcripts/transcripts';
import { settingsRoutes } from './settings-routes';
import { checkpointRoutes } from './checkpoint-routes';
import { mcpRoutes } from './mcp-routes';
import { modelsRoute } from './models-route';
import { sessionsRoutes, type SessionsDeps } from './sessions-routes';
import { agentRoutes } from './agent-routes';
import { rpcHttpRoutes } from '../ws/http-routes';
import type { RunningTurns } from '../sessions/running-turns';
import { telemetryRoutes, type HttpTelemetry } from './metrics-route';
import { webRoutes } from './web-route';

export type HttpDeps = SessionsDeps &
  EventsDeps &
  HealthDeps & {
    log: Logger;
    maxBodyBytes: number;
    auth: GatewayAuth;
    transcripts: Transcripts;
    /** Running turns across sessions: `/api/turns`, and the count in `/v1/status`. */
    turns: RunningTurns;
    /** Unattended jobs: `/api/jobs` (docs/jobs.md). */
    jobs: JobService;
    rateLimit: { perSecond: number; burst: number };
    /** The gateway's address as clients know it behind a proxy (STRAND_GATEWAY_PUBLIC_URL); the API document names it. */
    publicUrl?: string;
    /** Request ids, metrics and spans, and GET /metrics (metrics-route.ts). */
    telemetry?: HttpTelemetry;
    /** The operator view's gathered telemetry (GET /api/operator); without it that route answers UNAVAILABLE. */
    operator?: OperatorDeps;
  };

/**
 * The REST + SSE app: one sub-app per resource, every body validated before its handler, one error
 * handler that maps known errors to the contract's codes and hides unknown ones (logged, never sent;
 * a client that went away mid-request is logged at debug only: error-handler.ts).
 */
export function createHttpApp(deps: HttpDeps): OpenAPIHono {
  const app = openApiApp();
  const built: { document?: OpenApiDocument } = {};
  // First, so that its middleware sees every request of the routes mounted after it.
  if (deps.telemetry) app.route('/', telemetryRoutes(deps.telemetry, deps.auth, deps.rateLimit));
  // The API document and its viewer: public and static, so mounted before auth and rate limiting.
  app.route('/', openapiRoutes({ ...(deps.publicUrl !== undefined ? { publicUrl: deps.publicUrl } : {}), document: () => built.document! }));
  app.route('/', webRoutes()); // the chat page (docs/web.md): public and static too
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: deps.maxBodyBytes,
      onError: (c) => errorResponse(c, new StrandError(ErrorCode.PAYLOAD_TOO_LARGE, `request body exceeds ${deps.maxBodyBytes} bytes`)),
    }),
  );
  app.route('/api/hooks', hookDeliveryRoutes(deps)); // a hook delivery's signature is its authentication: ahead of the token check
  app.use('/api/*', authMiddleware(deps.auth));
  app.use('/api/*', rateLimit(deps.rateLimit));
  app.route('/', healthRoute(deps));
  app.route('/', rpcHttpRoutes(deps)); // WebSocket RPC's HTTP side: /v1/status, /v1/chat/stream
  app.route('/api/sessions', eventsRoute(deps));
  app.route('/api/sessions', sessionsRoutes(deps));
  app.route('/api/sessions', agentRoutes(deps));
  app.route('/api/sessions', approvalsRoutes(deps));
  app.route('/api/sessions', settingsRoutes(deps));
  app.route('/api/sessions', checkpointRoutes(deps)); // file checkpoints: list, revert, redo (docs/undo.md)
  app.route('/api/sessions', mcpRoutes(deps));
  app.route('/api/jobs', jobsRoutes(deps)); // unattended jobs, and for one release the turn routes' old answers
  app.route('/api/turns', turnsRoutes(deps));
  app.route('/api/hooks', hooksRoutes(deps));
  app.route('/api/schedules', schedulesRoutes(deps)); // jobs on Temporal Schedules and their ledgers (docs/jobs.md)
  app.route('/api/operator', operatorRoutes(deps));
  app.route('/api', modelsRoute(deps));
  app.route('/api', transcriptsRoutes(deps));
  app.notFound((c) => errorResponse(c, new StrandError(ErrorCode.NOT_FOUND, `no route ${c.req.method} ${c.req.path}`)));
  app.onError(httpErrorHandler(deps.log));
  // Every route is mounted: the document is their definitions (a route it cannot describe stops the gateway here).
  built.document = buildOpenApiDocument(app);
  return app;
}

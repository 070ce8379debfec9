import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ErrorCode as E, StrandError } from '../../../contracts/errors';
import { operatorOverviewQuerySchema, operatorOverviewSchema, type OperatorOverview } from '../../../contracts/operator';
import { FAILURES_ANSWERED, type OperatorAggregator } from '../operator/operator-aggregator';
import type { SessionOwners } from '../operator/session-owners';
import { principalOf } from './auth-middleware';
import { errors, jsonReply, openApiApp } from './openapi/route-kit';

/** What `GET /api/operator` reads: this gateway's gathered telemetry (services/gateway/operator/). */
export interface OperatorDeps {
  aggregator: OperatorAggregator;
  owners: SessionOwners;
  /** STRAND_TEMPORAL_UI_URL, or null. */
  temporalUi: string | null;
}

const overview = createRoute({
  method: 'get',
  path: '/',
  operationId: 'getOperatorOverview',
  summary: "The operator view's history, recent failures and instances",
  description:
    "What the gateways and workers measured lately, one point per telemetry interval (STRAND_TELEMETRY_INTERVAL_MS) over the last hour at most, as this gateway heard it since it started (an in-memory cache: another gateway's history may start later); the turns that failed lately (with tokens, only the caller's sessions'); the processes that sent telemetry in the last three intervals. The running turns are `GET /api/turns`.",
  tags: ['operator'],
  request: { query: operatorOverviewQuerySchema },
  responses: { 200: jsonReply(operatorOverviewSchema, 'The overview.') },
  ...errors(E.UNAVAILABLE),
});

/** `GET /api/operator`: the data of the operator view besides the jobs (docs/observability.md, "The operator view's data"). */
export function operatorRoutes(deps: { operator?: OperatorDeps }): OpenAPIHono {
  const app = openApiApp();
  app.openapi(overview, async (c) => {
    const operator = deps.operator;
    if (!operator) throw new StrandError(E.UNAVAILABLE, 'this gateway gathers no telemetry');
    const { since } = c.req.valid('query');
    const all = operator.aggregator.overview(Date.now());
    const failures = (await operator.owners.visibleTo(all.failures, principalOf(c))).slice(0, FAILURES_ANSWERED);
    const series = since === undefined ? all.series : all.series.filter((p) => p.at > since);
    const reply: OperatorOverview = { ...all, series, failures, temporal_ui: operator.temporalUi };
    c.header('Cache-Control', 'no-store');
    return c.json(reply, 200);
  });
  return app;
}

import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from 'zod';
import { agentPhaseSchema, eventUsageSchema } from '../../../../contracts/agent-events';
import { ErrorCode } from '../../../../contracts/errors';
import { errorBodySchema } from '../../../../contracts/http-api';
import { chatStreamFrameSchema, httpEventDataSchema } from '../../../../contracts/http-events';
import { turnSchema, sessionViewSchema, usageTotalsSchema } from '../../../../contracts/http-replies';
import { sessionSettingsSchema } from '../../../../contracts/session-settings';
import { contentBlockSchema, messageSchema } from '../../../../contracts/session-store/messages';
import packageJson from '../../../../package.json';
import { HTTP_STATUS } from '../errors';
import { ERRORS_KEY } from './route-kit';
import { API_DESCRIPTION, ERROR_NOTES, TAGS } from './texts';

/**
 * The OpenAPI 3.1 document is the app's own route definitions (`createRoute`, collected by
 * @hono/zod-openapi as the routes are mounted), plus here, in one place, what a route definition
 * does not say: the bearer scheme, the error answers every route of a kind shares, each route's
 * error codes as responses, and which schemas are shared components.
 */

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown> & { operationId: string; responses: Record<string, unknown>; security?: unknown[]; requestBody?: unknown };

/**
 * Schemas several replies share: one component each instead of a copy in every reply (and the
 * recursive content blocks must be a component to be finite). Tagged where they are defined, so
 * every use of the same zod value becomes a `$ref`.
 */
const SHARED_SCHEMAS: ReadonlyArray<readonly [z.ZodType, string]> = [
  [errorBodySchema, 'ErrorBody'],
  [agentPhaseSchema, 'AgentPhase'],
  [contentBlockSchema, 'ContentBlock'],
  [messageSchema, 'Message'],
  [sessionViewSchema, 'SessionView'],
  [sessionSettingsSchema, 'SessionSettings'],
  [turnSchema, 'Turn'],
  [usageTotalsSchema, 'UsageTotals'],
  [eventUsageSchema, 'EventUsage'],
  [httpEventDataSchema, 'SessionEventData'],
  [chatStreamFrameSchema, 'ChatStreamFrame'],
];
for (const [schema, refId] of SHARED_SCHEMAS) zodToOpenAPIRegistry.add(schema, { ...zodToOpenAPIRegistry.get(schema), _internal: { refId } });

/** Codes every route of a kind can answer: the auth and rate-limit middleware, the body limit, the error handler. */
function commonErrors(op: Operation): ErrorCode[] {
  if (op.security?.length === 0) return [];
  const codes: ErrorCode[] = [ErrorCode.UNAUTHORIZED, ErrorCode.RATE_LIMITED, ErrorCode.INTERNAL];
  if (op.requestBody) codes.push(ErrorCode.INVALID_REQUEST, ErrorCode.PAYLOAD_TOO_LARGE);
  return codes;
}

const pascal = (code: string) => code.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _s, ch: string) => ch.toUpperCase());

/**
 * Error responses, one component per status and set of codes (`SessionNotFound`,
 * `InvalidRequestOrUnknownModel`, …): each body's `code` is restricted to the codes a route answers
 * with that status, and routes answering the same set share one component.
 */
class ErrorResponses {
  readonly components: Record<string, unknown> = {};

  /** Status → `$ref` to its response, for the given codes. */
  refs(codes: ErrorCode[]): Record<string, unknown> {
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of Object.values(ErrorCode)) {
      if (!codes.includes(code)) continue;
      const status = HTTP_STATUS[code];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const out: Record<string, unknown> = {};
    for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
      const name = group.map(pascal).join('Or');
      this.components[name] ??= this.response(group);
      out[String(status)] = { $ref: `#/components/responses/${name}` };
    }
    return out;
  }

  private response(group: ErrorCode[]): unknown {
    const headers: Record<string, unknown> = {};
    if (group.includes(ErrorCode.RATE_LIMITED) || group.includes(ErrorCode.UNAVAILABLE)) {
      headers['Retry-After'] = { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 1 } };
    }
    if (group.includes(ErrorCode.UNAUTHORIZED)) headers['WWW-Authenticate'] = { description: '`Bearer`.', schema: { type: 'string' } };
    // The error body with its code narrowed to this group (inline, so viewers show the right code).
    const { $schema: _dialect, ...schema } = z.toJSONSchema(z.object({ error: errorBodySchema.shape.error.extend({ code: z.enum(group) }) }), { target: 'draft-2020-12', io: 'output' });
    return {
      description: group.map((c) => `\`${c}\`: ${ERROR_NOTES[c]}`).join('\n\n'),
      ...(Object.keys(headers).length ? { headers } : {}),
      content: { 'application/json': { schema } },
    };
  }
}

/** Each operation's own error codes (ERRORS_KEY) and its kind's common ones, as responses. */
function addErrorResponses(paths: OpenApiDocument['paths'], errors: ErrorResponses): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const own = (op[ERRORS_KEY] ?? []) as ErrorCode[];
      delete op[ERRORS_KEY];
      for (const [status, response] of Object.entries(errors.refs([...new Set([...commonErrors(op), ...own])]))) {
        if (op.responses[status]) throw new Error(`${method} ${path}: status ${status} is both a reply and an error`);
        op.responses[status] = response;
      }
    }
  }
}

/**
 * The document of `app` once every route is mounted. Built once when the gateway starts: a route
 * the generator cannot describe stops the gateway there, not a reader later.
 */
export function buildOpenApiDocument(app: OpenAPIHono): OpenApiDocument {
  const generated = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'strand HTTP API', version: packageJson.version, description: API_DESCRIPTION },
    tags: TAGS,
    security: [{ bearer: [] }],
  });
  const paths = generated.paths as OpenApiDocument['paths'];
  const errors = new ErrorResponses();
  addErrorResponses(paths, errors);
  const schemas = generated.components?.schemas ?? {};
  const { webhooks: _none, ...rest } = generated;
  return {
    ...rest,
    // OpenAPI 3.1's SPDX `identifier`, which the generator's 3.0-era types lack.
    info: { ...generated.info, license: { name: 'MIT', identifier: 'MIT' } },
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
      responses: errors.components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Required on every route but `/healthz`, `/livez`, `/api/openapi.json` and `/api/docs` (with its assets) when the gateway has tokens (STRAND_TOKENS or STRAND_TOKENS_FILE). Without tokens the gateway binds loopback only and needs none.',
        },
      },
    },
  };
}

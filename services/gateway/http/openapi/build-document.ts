import { z } from 'zod';
import { agentPhaseSchema, eventUsageSchema } from '../../../../contracts/agent-events';
import { ErrorCode } from '../../../../contracts/errors';
import { errorBodySchema } from '../../../../contracts/http-api';
import { chatStreamFrameSchema, httpEventDataSchema } from '../../../../contracts/http-events';
import { jobSchema, sessionViewSchema, usageTotalsSchema } from '../../../../contracts/http-replies';
import { sessionSettingsSchema } from '../../../../contracts/session-settings';
import { contentBlockSchema, messageSchema } from '../../../../contracts/session-store/messages';
import packageJson from '../../../../package.json';
import { HTTP_STATUS } from '../errors';
import { inlineSchema, SchemaComponents, type JsonSchema } from './json-schemas';
import { openApiPath, pathParams, type ReplyContent, type RouteDoc } from './route-doc';
import { agentRouteDocs } from './routes-agent';
import { serviceRouteDocs } from './routes-service';
import { sessionRouteDocs } from './routes-sessions';
import { API_DESCRIPTION, ERROR_NOTES, TAGS } from './texts';

/** Every route the HTTP app registers, as the document describes it. */
export const ROUTE_DOCS: readonly RouteDoc[] = [...serviceRouteDocs, ...sessionRouteDocs, ...agentRouteDocs];

/** Schemas several replies share: one component each instead of a copy in every reply. */
const SHARED_SCHEMAS: ReadonlyArray<readonly [z.ZodType, string]> = [
  [errorBodySchema, 'ErrorBody'],
  [agentPhaseSchema, 'AgentPhase'],
  [contentBlockSchema, 'ContentBlock'],
  [messageSchema, 'Message'],
  [sessionViewSchema, 'SessionView'],
  [sessionSettingsSchema, 'SessionSettings'],
  [jobSchema, 'Job'],
  [usageTotalsSchema, 'UsageTotals'],
  [eventUsageSchema, 'EventUsage'],
  [httpEventDataSchema, 'SessionEventData'],
  [chatStreamFrameSchema, 'ChatStreamFrame'],
];

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
type Operation = Record<string, unknown> & { operationId: string; responses: Record<string, unknown> };

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Codes every route of a kind can answer: the auth and rate-limit middleware, the body limit, the error handler. */
function commonErrors(route: RouteDoc): ErrorCode[] {
  if (route.public) return [];
  const codes: ErrorCode[] = [ErrorCode.UNAUTHORIZED, ErrorCode.RATE_LIMITED, ErrorCode.INTERNAL];
  if (route.body) codes.push(ErrorCode.INVALID_REQUEST, ErrorCode.PAYLOAD_TOO_LARGE);
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
    return {
      description: group.map((c) => `\`${c}\`: ${ERROR_NOTES[c]}`).join('\n\n'),
      ...(Object.keys(headers).length ? { headers } : {}),
      // The error body with its code narrowed to this group (inline, so viewers show the right code).
      content: { 'application/json': { schema: inlineSchema(z.object({ error: errorBodySchema.shape.error.extend({ code: z.enum(group) }) }), 'output') } },
    };
  }
}

function mediaType(content: ReplyContent, name: string, components: SchemaComponents): Record<string, unknown> {
  if (content === 'text') return { schema: { type: 'string' } };
  if (content === 'binary') return {};
  return { schema: components.ref(content, name, 'output') };
}

function parameters(route: RouteDoc): unknown[] {
  const out: unknown[] = [];
  for (const name of pathParams(route.path)) {
    const description = route.params?.[name];
    if (!description) throw new Error(`${route.method} ${route.path}: path parameter ${name} has no description`);
    const schema = route.paramSchemas?.[name];
    out.push({ name, in: 'path', required: true, description, schema: schema ? inlineSchema(schema, 'input') : { type: 'string' } });
  }
  if (route.query) {
    const object = inlineSchema(route.query, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(object.properties ?? {})) {
      const { description, ...schema } = property;
      out.push({ name, in: 'query', required: object.required?.includes(name) ?? false, ...(description ? { description } : {}), schema });
    }
  }
  for (const header of route.headers ?? []) {
    const { description: _own, ...schema } = inlineSchema(header.schema, 'input');
    out.push({ name: header.name, in: 'header', required: false, description: header.description, schema });
  }
  return out;
}

function operation(route: RouteDoc, components: SchemaComponents, errors: ErrorResponses): Operation {
  const name = capitalized(route.operationId);
  const responses: Record<string, unknown> = {};
  for (const [status, reply] of Object.entries(route.replies)) {
    const content = reply.content && Object.fromEntries(Object.entries(reply.content).map(([type, c]) => [type, mediaType(c, `${name}Reply${status}`, components)]));
    const headers = reply.headers && Object.fromEntries(Object.entries(reply.headers).map(([h, description]) => [h, { description, schema: { type: 'string' } }]));
    responses[status] = { description: reply.description, ...(headers ? { headers } : {}), ...(content ? { content } : {}) };
  }
  for (const [status, response] of Object.entries(errors.refs([...new Set([...commonErrors(route), ...route.errors])]))) {
    if (responses[status]) throw new Error(`${route.method} ${route.path}: status ${status} is both a reply and an error`);
    responses[status] = response;
  }
  const params = parameters(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            // Handlers read an empty body as `{}`: the body is optional when `{}` is valid.
            required: !route.body.safeParse({}).success,
            content: { 'application/json': { schema: components.ref(route.body, `${name}Body`, 'input') } },
          },
        }
      : {}),
    responses,
    ...(route.public ? { security: [] } : {}),
  };
}

/**
 * The OpenAPI 3.1 document of the HTTP API, from the route table and the zod schemas the handlers
 * validate with. Built once when the gateway starts; the conformance test checks that it lists
 * exactly the routes the app registers and that every real answer matches it.
 */
export function buildOpenApiDocument(routes: readonly RouteDoc[] = ROUTE_DOCS): OpenApiDocument {
  const components = new SchemaComponents(SHARED_SCHEMAS);
  const errors = new ErrorResponses();
  const paths: Record<string, Record<string, Operation>> = {};
  const ids = new Set<string>();
  for (const route of routes) {
    if (ids.has(route.operationId)) throw new Error(`operationId ${route.operationId} is used twice`);
    ids.add(route.operationId);
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method]) throw new Error(`${route.method} ${route.path} is described twice`);
    item[route.method] = operation(route, components, errors);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'strand HTTP API', version: packageJson.version, description: API_DESCRIPTION, license: { name: 'MIT', identifier: 'MIT' } },
    tags: TAGS,
    security: [{ bearer: [] }],
    paths,
    components: {
      schemas: components.render(),
      responses: errors.components,
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Required on every route but `/healthz`, `/api/openapi.json` and `/api/docs` (with its assets) when the gateway has tokens (STRAND_TOKENS or STRAND_TOKENS_FILE). Without tokens the gateway binds loopback only and needs none.',
        },
      },
    },
  };
}

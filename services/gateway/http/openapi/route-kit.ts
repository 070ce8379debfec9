import { createRoute, OpenAPIHono, type Hook, type RouteConfig, type RouteHandler } from '@hono/zod-openapi';
import type { Context, Env, MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { strictRequest } from '../../../../contracts/strict-request';
import type { SessionService } from '../../sessions/session-service';
import { principalOf } from '../auth-middleware';
import { toStrandError } from '../errors';

/**
 * What every route file of the HTTP app uses to declare its routes once, with `createRoute`: the
 * definition validates the request before the handler runs and is the route's part of the OpenAPI
 * document (build-document.ts).
 */

/** A request that does not fit its route's schemas answers the contract's 400 INVALID_REQUEST, never the library's own body. */
const invalidRequestHook: Hook<unknown, Env, string, undefined> = (result) => {
  if (!result.success) throw toStrandError(result.error);
};

/** A sub-app whose routes are declared with `createRoute` and served by `app.openapi(route, handler)`. */
export function openApiApp(): OpenAPIHono {
  return new OpenAPIHono({ defaultHook: invalidRequestHook });
}

type Verb = 'get' | 'post' | 'put' | 'patch' | 'delete';
const VERBS: readonly Verb[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * One row of a route table: its method as the key of its path (`post: '/{id}/approve'`), its
 * operationId as `id`, and the rest as `createRoute` takes it.
 */
export type RouteRow = { [V in Verb]?: string } & { id: string; summary: string } & Omit<RouteConfig, 'method' | 'path' | 'operationId' | 'tags'>;
type Declared<R> = Omit<R, Verb | 'id'> & { method: Verb; path: string; operationId: string; tags: string[] };

/** A file's routes, each row made a `createRoute` definition with the file's tags. */
export function routeTable<T extends Record<string, RouteRow>>(tags: string[], rows: T): { [K in keyof T]: Declared<T[K]> } {
  const routes: Record<string, RouteConfig> = {};
  for (const [name, { id, summary, description, ...row }] of Object.entries(rows)) {
    const methods = VERBS.filter((v) => row[v] !== undefined);
    if (methods.length !== 1) throw new Error(`route ${name}: one method with its path, not ${methods.length}`);
    const [method] = methods as [Verb];
    const { [method]: path, ...rest } = row;
    // The document lists an operation's keys in this order.
    routes[name] = createRoute({ method, path: path!, operationId: id, summary, ...(description === undefined ? {} : { description }), tags, ...rest });
  }
  return routes as { [K in keyof T]: Declared<T[K]> };
}

/**
 * A sub-app serving `routes` (a route table) with one typed handler each, registered in the table's
 * order (which is the routing order and the document's).
 */
export function serveRoutes<T extends Record<string, RouteConfig>>(routes: T, handlers: { [K in keyof T]: RouteHandler<T[K]> }, app = openApiApp()): OpenAPIHono {
  for (const name of Object.keys(routes)) app.openapi(routes[name]!, handlers[name] as never);
  return app;
}

/** Error codes a route answers beyond the ones every route of its kind can (auth, rate limit, body, internal); build-document.ts turns them into responses. */
export const ERRORS_KEY = 'x-strand-errors';
export const errors = (...codes: ErrorCode[]) => ({ [ERRORS_KEY]: codes }) as { 'x-strand-errors': ErrorCode[] };

/** The routes anyone may call, token or not: no bearer scheme, no auth or rate-limit error answers. */
export const PUBLIC = { security: [] as Array<Record<string, string[]>> };

/** What every route that reads a session can fail with beyond the request itself. */
export const SESSION_READ = [ErrorCode.SESSION_NOT_FOUND, ErrorCode.UNAVAILABLE];

export const sessionIdParams = z.object({
  id: z.string().describe("The session's id. Another principal's session answers exactly as an unknown one (404 SESSION_NOT_FOUND)."),
});

/**
 * What a route on one session (`/{id}/…`) that answers 200 with `reply` declares besides its own words:
 * the id parameter, the reply, and the errors of every session read, then its own (`extra`).
 */
export const sessionReply = <S extends z.ZodType>(reply: S, description: string, ...extra: ErrorCode[]) => ({
  request: { params: sessionIdParams },
  responses: { 200: jsonReply(reply, description) },
  ...errors(...SESSION_READ, ...extra),
});

/** The session a `/{id}/…` route names, opened for the caller (another principal's answers as an unknown one). */
export const sessionOf = <E extends Env, P extends string, I extends SessionInput>(sessions: SessionService, c: Context<E, P, I>) =>
  sessions.open((c.req.valid('param') as { id: string }).id, principalOf(c));
type SessionInput = { in?: object; out: { param: { id: string } } };

/**
 * The same for a route on one session that takes a JSON body (`body`), read by readJsonBody: a
 * command, which a job's session refuses (409 JOB_SESSION, docs/jobs.md).
 */
export const sessionChange = <B extends z.ZodType, S extends z.ZodType>(body: B, reply: S, description: string, ...extra: ErrorCode[]) => ({
  middleware: readJsonBody,
  request: { params: sessionIdParams, body: jsonBody(body) },
  responses: { 200: jsonReply(reply, description) },
  ...errors(...SESSION_READ, ErrorCode.JOB_SESSION, ...extra),
});

/**
 * A parameter the handler reads itself (its own rules: which source wins, blank meaning absent), so it
 * is described here and not validated by the library before the handler.
 */
export function readByHandler(where: 'query' | 'header', name: string, schema: z.ZodType, description: string) {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' });
  // Plain JSON Schema: typed as the empty object every schema type of the generator accepts.
  return { name, in: where, required: false, description, schema: json as Record<never, never> };
}

/** A JSON reply of `schema`. */
export const jsonReply = <S extends z.ZodType>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });

/**
 * A JSON request body; optional when `{}` is valid, since an empty body is read as `{}`. Strict at
 * every depth (contracts/strict-request.ts): here, so that every route's body is, and the document
 * says so (`additionalProperties: false`) from the very schema that validates.
 */
export const jsonBody = <S extends z.ZodType>(schema: S) => {
  const strict = strictRequest(schema);
  return { content: { 'application/json': { schema: strict } }, required: !strict.safeParse({}).success };
};

/**
 * Before a route with a JSON body validates it, the body is read as the gateway always has: whatever
 * its content type (curl's `-d` says form-urlencoded), empty meaning `{}`, and a body that is not
 * JSON answering 400 INVALID_REQUEST, where the library would answer 415 or read nothing. The request
 * handed on carries the body's own text as `application/json`: never a re-serialization of the parsed
 * value, which throws (a 500) on JSON nested deeper than the stack, such as 60,000 `[`s that
 * `JSON.parse` reads without trouble.
 */
export const readJsonBody: MiddlewareHandler = async (c, next) => {
  const received = await c.req.raw.text();
  const text = received.trim() === '' ? '{}' : received;
  try {
    JSON.parse(text);
  } catch {
    throw new StrandError(ErrorCode.INVALID_REQUEST, 'request body is not valid JSON');
  }
  const url = firstValuesUrl(c.req.raw.url);
  if (url === c.req.raw.url && c.req.header('Content-Type')?.trim().toLowerCase() === 'application/json') {
    // The common case (a JSON client, no repeated query key): the request is already what the
    // validator reads; the text goes on in Hono's body cache, which its `json()` reads, with no new Request.
    // (The cache holds the promise of the body's text, though its type names the text itself.)
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
  } else {
    const headers = new Headers(c.req.raw.headers);
    headers.set('Content-Type', 'application/json');
    headers.delete('Content-Length');
    c.req.raw = new Request(url, { method: c.req.raw.method, headers, body: text, signal: c.req.raw.signal });
  }
  await next();
};

/**
 * A query key given twice was always read by its first value; the library's validator would see a
 * list and refuse it. Routes with a query drop the repeats first (nothing is rebuilt without them).
 */
export const firstQueryValues: MiddlewareHandler = async (c, next) => {
  const url = firstValuesUrl(c.req.raw.url);
  if (url !== c.req.raw.url) c.req.raw = new Request(url, { method: c.req.raw.method, headers: c.req.raw.headers, signal: c.req.raw.signal });
  await next();
};

function firstValuesUrl(raw: string): string {
  // No second query key, no repeat: the URL is not parsed (every request with a body comes here).
  const query = raw.indexOf('?');
  if (query < 0 || raw.indexOf('&', query) < 0) return raw;
  const url = new URL(raw);
  const keys = [...url.searchParams.keys()];
  if (new Set(keys).size === keys.length) return raw;
  const first = new URLSearchParams();
  for (const key of new Set(keys)) first.set(key, url.searchParams.get(key)!);
  url.search = first.toString();
  return url.toString();
}

import type { z } from 'zod';
import type { ErrorCode } from '../../../../contracts/errors';

export type HttpMethod = 'get' | 'post' | 'patch' | 'delete';

/**
 * One media type of a reply: a zod schema (JSON, or the `data:` of each SSE frame), or `text` for a
 * body that is plain text in that type (markdown, org, CSS, JavaScript), or `binary`.
 */
export type ReplyContent = z.ZodType | 'text' | 'binary';

export interface ReplyDoc {
  description: string;
  /** Media type → what the body holds; absent for a reply without a body (304). */
  content?: Record<string, ReplyContent>;
  /** Response headers worth knowing (name → description). */
  headers?: Record<string, string>;
}

/**
 * What the OpenAPI document says about one route the Hono app registers. `path` is spelled as Hono
 * spells it (`/api/sessions/:id`), so the conformance test can compare the document with the app's
 * own route list. Error answers are listed by code: the builder adds the codes every route of its
 * kind can answer (auth, rate limit, body limit, internal) and groups them by status.
 */
export interface RouteDoc {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** True for the routes anyone may call, token or not (they are also outside the rate limit). */
  public?: boolean;
  /** Path parameter → description. */
  params?: Record<string, string>;
  /** Path parameter → its schema, where it is more than a string. */
  paramSchemas?: Record<string, z.ZodType>;
  /** The zod object the handler validates its query with. */
  query?: z.ZodObject;
  /** Request headers the route reads. */
  headers?: Array<{ name: string; schema: z.ZodType; description: string }>;
  /** The zod schema the handler validates its JSON body with. */
  body?: z.ZodType;
  /** Success (and other non-error) replies by status. */
  replies: Record<number, ReplyDoc>;
  /** Error codes this route answers beyond the ones every route of its kind can answer. */
  errors: ErrorCode[];
}

/** `/api/sessions/:id` → `/api/sessions/{id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The path parameters of a Hono path, in order. */
export function pathParams(honoPath: string): string[] {
  return [...honoPath.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
}

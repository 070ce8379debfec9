/**
 * The REST half of the HTTP protocol (docs/http.md) as every client of strand speaks it: one base URL
 * and bearer token, JSON in and out, and one error for every answer that is not a success. The
 * terminal chat and the web page build their route tables on this (clients/terminal/gateway-client.ts,
 * clients/web/src/api.ts); the event stream is event-follower.ts. Zod-free like the rest of
 * clients/core: the page's bundle carries no schema library, so replies are typed, not validated.
 */

/**
 * Answers that asking again unchanged will not turn into a success: a bad request, no or a refused
 * token, a session that is not there (or another's). The event follower stops on these instead of
 * reconnecting.
 */
export const FATAL_STATUSES: ReadonlySet<number> = new Set([400, 401, 403, 404]);

/** The gateway's error body (`{error: {code, message, details}}`), as far as a reply carries it. */
interface ErrorBody {
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/**
 * An answer of the gateway that is not a success: its HTTP status and the error body's `code`,
 * `message` and `details` (a revert conflict's `paths`). Without a readable error body the code is
 * `HTTP_<status>`; a success whose body is not JSON is `INVALID_REPLY`.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The gateway did not answer at all (refused, reset, timed out, no network): status 0, code `UNREACHABLE`. */
export class ApiUnreachable extends ApiError {
  override readonly name: string = 'ApiUnreachable';
  constructor(message: string) {
    super(0, 'UNREACHABLE', message);
  }
}

export interface ApiClientOptions {
  /** The gateway's URL without a trailing slash (`http://127.0.0.1:9420`); '' for the origin a page was loaded from. */
  baseUrl: string;
  /** The bearer token, read at every request (a page's token may be given at any time); none when it returns undefined. */
  token?: () => string | undefined;
  /** Each request's deadline unless the call names its own; without one a request waits as long as fetch does. */
  timeoutMs?: number;
  /** Called on every 401 (the token is missing or refused), before the ApiError is thrown: a page asks for one. */
  onUnauthorized?: () => void;
  /** Said after "the gateway did not answer" (the terminal's "is the stack running?"). */
  unreachableHint?: string;
}

export interface CallOptions {
  /** This call's deadline, instead of the client's (a compaction waits for a model call). */
  timeoutMs?: number;
}

/** Why fetch failed, in a few words: Node's error code (ECONNREFUSED), a deadline, or the error's own message. */
function failureOf(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  if (typeof cause === 'string') return cause;
  if ((err as { name?: unknown }).name === 'TimeoutError') return 'no answer in time';
  return err instanceof Error ? err.message : String(err);
}

/** The ApiError for a status that is not a success and the body that came with it. */
function apiErrorOf(status: number, text: string, what: string): ApiError {
  let body: ErrorBody | undefined;
  try {
    body = text ? (JSON.parse(text) as ErrorBody) : undefined;
  } catch {
    body = undefined;
  }
  const error = typeof body === 'object' && body !== null ? body.error : undefined;
  const code = typeof error?.code === 'string' ? error.code : `HTTP_${status}`;
  const message = typeof error?.message === 'string' ? error.message : text.trim() ? text.slice(0, 300) : `${what} answered ${status}`;
  const details = typeof error?.details === 'object' && error.details !== null && !Array.isArray(error.details) ? (error.details as Record<string, unknown>) : undefined;
  return new ApiError(status, code, message, details);
}

export class ApiClient {
  constructor(readonly options: ApiClientOptions) {}

  get baseUrl(): string {
    return this.options.baseUrl;
  }

  /** A route of the gateway (`/api/sessions`) as a URL to fetch. */
  url(route: string): string {
    return `${this.options.baseUrl}${route}`;
  }

  /** The request headers: the token when there is one, and `extra`. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const token = this.options.token?.();
    return { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...extra };
  }

  /** A JSON request (a body when `body` is given) whose JSON reply is returned as `T`; `{}` for an empty one. */
  async call<T>(method: string, route: string, body?: unknown, options: CallOptions = {}): Promise<T> {
    const { status, text } = await this.send(method, route, body, options);
    if (!text) return {} as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ApiError(status, 'INVALID_REPLY', `${method} ${route} answered ${status} without JSON: ${text.slice(0, 200)}`);
    }
  }

  /** A GET whose reply is text (a rendered transcript). */
  async text(route: string, options: CallOptions = {}): Promise<string> {
    return (await this.send('GET', route, undefined, options)).text;
  }

  /** Sends the request and reads the whole reply; throws ApiUnreachable or, for a status that is not 2xx, ApiError. */
  private async send(method: string, route: string, body: unknown, options: CallOptions): Promise<{ status: number; text: string }> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url(route), {
        method,
        headers: this.headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(timeoutMs !== undefined ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
      });
      text = await res.text();
    } catch (err) {
      const at = this.options.baseUrl ? ` at ${this.options.baseUrl}` : '';
      const hint = this.options.unreachableHint ? `; ${this.options.unreachableHint}` : '';
      throw new ApiUnreachable(`the gateway${at} did not answer (${failureOf(err)})${hint}`);
    }
    if (res.status === 401) this.options.onUnauthorized?.();
    if (!res.ok) throw apiErrorOf(res.status, text, `${method} ${route}`);
    return { status: res.status, text };
  }
}

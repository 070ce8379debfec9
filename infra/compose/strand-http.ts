import type { z } from 'zod';
import { openSse, type SseConnection } from '../../test/harness/sse-client';

/** A client of the gateway's REST API with a bearer token; replies are checked against contract schemas. */
export interface StrandHttp {
  /** Sends a request; a status other than `expect` is an error with the reply's body. */
  call<T extends z.ZodType>(method: string, route: string, expect: number, schema: T, body?: unknown): Promise<z.infer<T>>;
  /** The status a request gets with `token` (default: the client's; '' sends none): the checks that auth is on. */
  status(method: string, route: string, token?: string): Promise<number>;
  events(sessionId: string, after?: number): Promise<SseConnection>;
}

export function strandHttp(base: string, token: string): StrandHttp {
  const headers = (t: string | undefined) => ({ 'content-type': 'application/json', ...(t ? { authorization: `Bearer ${t}` } : {}) });
  return {
    async call(method, route, expect, schema, body) {
      const res = await fetch(`${base}${route}`, { method, headers: headers(token), ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await res.text();
      if (res.status !== expect) throw new Error(`${method} ${route} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
      const parsed = schema.safeParse(text ? JSON.parse(text) : undefined);
      if (!parsed.success) throw new Error(`${method} ${route}: the reply does not match its contract: ${parsed.error.message}; body ${text.slice(0, 500)}`);
      return parsed.data;
    },
    async status(method, route, t = token) {
      const res = await fetch(`${base}${route}`, { method, headers: headers(t) });
      await res.arrayBuffer();
      return res.status;
    },
    events(sessionId, after) {
      const query = after === undefined ? '' : `?after=${after}`;
      return openSse(`${base}/api/sessions/${encodeURIComponent(sessionId)}/events${query}`, { headers: { authorization: `Bearer ${token}` } });
    },
  };
}

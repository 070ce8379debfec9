/** What the handler needs of @hono/node-server's bindings: whether the request has arrived in full. */
type FetchHandler = (req: Request, env: { incoming?: { complete: boolean } }) => Response | Promise<Response>;

/**
 * Closes the connection after an answer given before the request's body was read (401 from auth,
 * 413 from the body limit, 404, …). @hono/node-server with Hono's body limit starts reading a body
 * as soon as anything looks at it, and then neither Node nor the adapter reads the rest: the next
 * request on that keep-alive connection is taken for body bytes and never answered, and the adapter
 * destroys the socket half a second later (found by the fuzz test: about one request in 200 failed
 * that way). Saying `Connection: close` on such an answer makes the client open a new connection for
 * its next request instead. A body that has arrived in full leaves the connection open, as before.
 */
export function closeAfterUnreadBody(handler: FetchHandler): FetchHandler {
  return async (req, env) => {
    const res = await handler(req, env);
    const incoming = env?.incoming;
    if (!incoming || incoming.complete || req.method === 'GET' || req.method === 'HEAD') return res;
    try {
      res.headers.set('Connection', 'close');
      return res;
    } catch {
      // A response with immutable headers: the same answer, with the header.
      const headers = new Headers(res.headers);
      headers.set('Connection', 'close');
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
  };
}

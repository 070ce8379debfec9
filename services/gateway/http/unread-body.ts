import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';

type NodeRequest = IncomingMessage | Http2ServerRequest;

/** What the handler needs of @hono/node-server's bindings: the Node request behind the fetch Request. */
type FetchHandler = (req: Request, env: { incoming?: NodeRequest }) => Response | Promise<Response>;

export interface UnreadBodyLimits {
  /** The most body bytes read and thrown away after an early answer before giving up on the connection. */
  maxDrainBytes: number;
  /** How long the rest of a body may take to arrive before giving up on the connection. */
  maxDrainMs: number;
}

/**
 * Keeps a keep-alive connection usable after an answer given before the request's body was read
 * (413 from the body limit, 401 from auth, 404, …): @hono/node-server reads no further than the
 * handler did, so the next request on that connection would be taken for body bytes and never
 * answered (found by the fuzz test). The rest of the body is read and dropped before the answer goes
 * out — the spec wants the connection to stay usable after a 413 — unless it is larger than
 * `maxDrainBytes` or slower than `maxDrainMs`; then the answer says `Connection: close` and the
 * client opens a new connection for its next request.
 */
export function drainUnreadBody(handler: FetchHandler, limits: UnreadBodyLimits): FetchHandler {
  return async (req, env) => {
    const res = await handler(req, env);
    const incoming = env?.incoming;
    if (!incoming || incoming.complete || req.method === 'GET' || req.method === 'HEAD') return res;
    if (await drain(req, incoming, limits)) return res;
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

/**
 * Reads the rest of a request body and drops it; false when it is too large or too slow. Once
 * anything has looked at the fetch Request's body, @hono/node-server has tied the Node request to a
 * web stream that pauses it whenever nobody reads that stream: the rest must then be read through
 * that stream (reading the Node request directly stalls, measured: every early answer then waited
 * `maxDrainMs`). A body whose stream a handler has locked can only be given up on.
 */
async function drain(req: Request, incoming: NodeRequest, limits: UnreadBodyLimits): Promise<boolean> {
  const declared = Number(incoming.headers['content-length']);
  if (Number.isFinite(declared) && declared > limits.maxDrainBytes) return false;
  const body = req.body;
  if (body && body.locked) return false;
  if (body) return drainStream(body, limits);
  return drainNode(incoming, limits);
}

async function drainStream(body: ReadableStream<Uint8Array>, limits: UnreadBodyLimits): Promise<boolean> {
  const reader = body.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), limits.maxDrainMs);
  let read = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return true;
      read += value.length;
      if (read > limits.maxDrainBytes) {
        await reader.cancel().catch(() => undefined);
        return false;
      }
    }
  } catch {
    return false; // cancelled after maxDrainMs, or the client went away
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
}

function drainNode(incoming: NodeRequest, limits: UnreadBodyLimits): Promise<boolean> {
  return new Promise((resolve) => {
    let read = 0;
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
      if (!ok) incoming.pause();
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > limits.maxDrainBytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    const timer = setTimeout(() => finish(false), limits.maxDrainMs);
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
    if (incoming.complete) finish(true);
    else incoming.resume();
  });
}

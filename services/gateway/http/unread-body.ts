import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { discardBody, dropIfLingering, lingerThenClose, type BodyDiscard, type LingeringCloseLimits } from './lingering-close';

type NodeRequest = IncomingMessage | Http2ServerRequest;

/** What the handler needs of @hono/node-server's bindings: the Node request behind the fetch Request. */
type FetchHandler = (req: Request, env: { incoming?: NodeRequest }) => Response | Promise<Response>;

export interface UnreadBodyLimits {
  /** The most body bytes read and thrown away before an early answer, to keep its connection open. */
  maxDrainBytes: number;
  /** How long the rest of a body may take to arrive before the answer goes out with `Connection: close`. */
  maxDrainMs: number;
  /** After an answer with `Connection: close`: how long and how much more is read before the close. */
  linger: LingeringCloseLimits;
}

/**
 * Keeps a keep-alive connection usable after an answer given before the request's body was read
 * (413 from the body limit, 401 from auth, 404, …): @hono/node-server reads no further than the
 * handler did, so the next request on that connection would be taken for body bytes and never
 * answered (found by the fuzz test). The rest of the body is read and dropped before the answer goes
 * out — the spec wants the connection to stay usable after a 413 — unless it is declared larger than
 * `maxDrainBytes`, turns out larger, or is slower than `maxDrainMs`. Then the answer says
 * `Connection: close` and is followed by a lingering close (lingering-close.ts), so that a client
 * still sending reads it in full instead of losing it to a reset.
 */
export function drainUnreadBody(handler: FetchHandler, limits: UnreadBodyLimits): FetchHandler {
  return async (req, env) => {
    const incoming = env?.incoming;
    if (incoming && isHttp1(incoming) && dropIfLingering(incoming)) return notServed(incoming);
    const res = await handler(req, env);
    if (!incoming || !isHttp1(incoming) || incoming.complete || req.method === 'GET' || req.method === 'HEAD') return res;
    const discard = discardBody(incoming);
    const declared = Number(incoming.headers['content-length']);
    const tooLargeToWait = Number.isFinite(declared) && declared > limits.maxDrainBytes;
    if (!tooLargeToWait && (await drainedWithin(discard, limits))) return res;
    lingerThenClose(incoming, discard, limits.linger);
    return withConnectionClose(res);
  };
}

function isHttp1(incoming: NodeRequest): incoming is IncomingMessage {
  return incoming.httpVersionMajor < 2;
}

/** True once the whole body has been dropped; false past `maxDrainBytes` or `maxDrainMs`, or if the client went away. */
function drainedWithin(discard: BodyDiscard, limits: UnreadBodyLimits): Promise<boolean> {
  return new Promise((resolve) => {
    const finish = (drained: boolean) => {
      clearTimeout(timer);
      stop();
      resolve(drained);
    };
    const timer = setTimeout(() => finish(false), limits.maxDrainMs);
    const stop = discard.onChunk(() => {
      if (discard.bytes > limits.maxDrainBytes) finish(false);
    });
    void discard.ended.then(finish);
  });
}

function withConnectionClose(res: Response): Response {
  try {
    res.headers.set('Connection', 'close');
    return res;
  } catch {
    // A response with immutable headers: the same answer, with the header.
    const headers = new Headers(res.headers);
    headers.set('Connection', 'close');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/** The answer to a request that is not served: it is never written, as the connection closes first. */
function notServed(incoming: IncomingMessage): Promise<Response> {
  return new Promise((resolve) => {
    const done = () => resolve(new Response(null, { status: 400, headers: { Connection: 'close' } }));
    if (!incoming.socket || incoming.socket.destroyed) done();
    else incoming.socket.once('close', done);
  });
}

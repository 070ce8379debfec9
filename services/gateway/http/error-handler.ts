import type { Context, ErrorHandler } from 'hono';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import type { Logger } from '../../common/logger';
import { errorResponse, toStrandError } from './errors';

/** The errors a request's own stream fails with when its client goes away mid-upload. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);
const CLIENT_GONE_MESSAGES = new Set(['aborted', 'Client connection prematurely closed.']);

/**
 * True when `err` is the request's client going away, not a failure of the gateway: an error of the
 * kind a request body stream fails with when its connection drops (Node's `aborted` / ECONNRESET,
 * @hono/node-server's premature close), on a request whose signal says its client is gone. Both must
 * hold: a backend connection reset while the client is still there stays a real error.
 */
function isClientGone(err: unknown, signal: AbortSignal | undefined): boolean {
  // Not `instanceof Error`: errors from Node's own streams may come from another realm (a test's VM context).
  if (!signal?.aborted || typeof err !== 'object' || err === null) return false;
  const { code, message, name } = err as { code?: unknown; message?: unknown; name?: unknown };
  return (typeof code === 'string' && CLIENT_GONE_CODES.has(code)) || (typeof message === 'string' && CLIENT_GONE_MESSAGES.has(message)) || name === 'AbortError';
}

/**
 * The HTTP app's one error handler: known errors keep their code and message, unknown ones answer
 * INTERNAL without their text. Logged at error level: INTERNAL (unforeseen) and TRANSCRIPT_ERROR (the
 * gateway could not produce or write a transcript), with their cause; UNAVAILABLE at warn level, with
 * the reason the client was given. A client that went away
 * mid-request is not a server error: debug only (it will not read the answer anyway).
 */
export function httpErrorHandler(log: Logger): ErrorHandler {
  return (err: Error, c: Context) => {
    if (isClientGone(err, c.req.raw.signal)) {
      log.debug({ path: c.req.path, method: c.req.method, reason: err.message }, 'the client went away before its request was read');
      return errorResponse(c, new StrandError(ErrorCode.INVALID_REQUEST, 'the request was not received in full: the client went away'));
    }
    const mapped = toStrandError(err);
    if (mapped.code === ErrorCode.INTERNAL) log.error({ err, path: c.req.path }, 'unhandled error');
    else if (mapped.code === ErrorCode.TRANSCRIPT_ERROR) log.error({ err: mapped, path: c.req.path }, 'a transcript could not be produced or written');
    // An infrastructure fault answered 503: the operator reads here what the client was told, and why.
    else if (mapped.code === ErrorCode.UNAVAILABLE) log.warn({ path: c.req.path, method: c.req.method, reason: mapped.message }, 'answered 503 UNAVAILABLE');
    return errorResponse(c, mapped);
  };
}

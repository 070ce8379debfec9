import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { ErrorCode, StrandError } from '../../../contracts/errors';
import { StoreError } from '../../../contracts/session-store/errors';
import { describeRequestIssues } from '../../../contracts/strict-request';

/** HTTP status of each error code (docs/http.md, "Errors"). */
export const HTTP_STATUS: Record<ErrorCode, ContentfulStatusCode> = {
  INVALID_REQUEST: 400,
  UNKNOWN_MODEL: 400,
  IMAGES_NOT_SUPPORTED: 400,
  JOB_NOT_FOUND: 404,
  JOB_EXISTS: 409,
  JOB_NOT_FINISHED: 409,
  JOB_ESCALATION_ANSWERED: 409,
  JOB_NOT_WAITING: 409,
  JOB_SESSION: 409,
  TURN_NOT_FOUND: 404,
  HOOK_NOT_FOUND: 404,
  HOOK_DELIVERY_REJECTED: 422,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  PERMISSION_DENIED: 403,
  SESSION_NOT_FOUND: 404,
  INVALID_TOOL_CALL: 404,
  SESSION_BUSY: 409,
  REVERT_CONFLICT: 409,
  NOTHING_TO_REDO: 409,
  CHECKPOINT_NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  TRANSCRIPT_ERROR: 500,
  LLM_API_ERROR: 502,
  UNAVAILABLE: 503,
};

/** Store error codes as the HTTP contract spells them. */
function fromStoreError(err: StoreError): StrandError {
  switch (err.code) {
    case 'session/not_found':
      return new StrandError(ErrorCode.SESSION_NOT_FOUND, err.message);
    case 'session/storage':
      return new StrandError(ErrorCode.UNAVAILABLE, `session store: ${err.message}`);
    default:
      return new StrandError(ErrorCode.INVALID_REQUEST, err.message, { store_code: err.code });
  }
}

/** Turns any thrown value into a StrandError; unknown errors become INTERNAL without their text. */
export function toStrandError(err: unknown): StrandError {
  if (err instanceof StrandError) return err;
  if (err instanceof StoreError) return fromStoreError(err);
  if (err instanceof z.ZodError) {
    return new StrandError(ErrorCode.INVALID_REQUEST, describeRequestIssues(err));
  }
  return new StrandError(ErrorCode.INTERNAL, 'internal error (see the gateway log)');
}

/** Writes `{error:{code,message,details}}` with the code's status (and Retry-After on 503). */
export function errorResponse(c: Context, err: StrandError): Response {
  if (err.code === ErrorCode.UNAVAILABLE) c.header('Retry-After', '2');
  return c.json({ error: { code: err.code, message: err.message, details: err.details ?? {} } }, HTTP_STATUS[err.code]);
}

import { ErrorCode, StrandError } from '../../../../contracts/errors';
import { StoreError, StoreErrorCode } from '../../../../contracts/session-store/errors';
import type { Logger } from '../../../common/logger';
import { EdnErrorCode, EdnOpError } from '../protocol';

/**
 * The one place SessionService errors become EDN error codes. A StrandError keeps its message (it is
 * meant for clients); anything else is logged and answered `runtime/failed` without its message.
 */
const codes: Partial<Record<ErrorCode, EdnErrorCode>> = {
  [ErrorCode.SESSION_NOT_FOUND]: EdnErrorCode.notFound,
  [ErrorCode.JOB_NOT_FOUND]: EdnErrorCode.notFound,
  [ErrorCode.TURN_NOT_FOUND]: EdnErrorCode.notFound,
  [ErrorCode.SESSION_BUSY]: EdnErrorCode.sessionNotIdle,
  [ErrorCode.UNKNOWN_MODEL]: EdnErrorCode.unknownModel,
  [ErrorCode.INVALID_REQUEST]: EdnErrorCode.invalidParams,
  [ErrorCode.PAYLOAD_TOO_LARGE]: EdnErrorCode.invalidParams,
  // Only answering an approval raises it: the dialog it answered is not (or no longer) waiting.
  [ErrorCode.INVALID_TOOL_CALL]: EdnErrorCode.noActiveDialog,
  [ErrorCode.UNAUTHORIZED]: EdnErrorCode.unauthorized,
  // The gateway's user may not read or enter the project directory (the connection's cwd): not a
  // token problem (transport/unauthorized means that), a failure the client cannot fix by retrying.
  [ErrorCode.PERMISSION_DENIED]: EdnErrorCode.failed,
  // A transcript could not be rendered or written (export_html).
  [ErrorCode.TRANSCRIPT_ERROR]: EdnErrorCode.failed,
};

/** Failures of the gateway itself, not of the request: logged (with their cause) as well as answered. */
const serverSide = new Set<ErrorCode>([ErrorCode.TRANSCRIPT_ERROR]);

/** Failures worth retrying as they are: the backend was briefly away or busy. */
const retryable = new Set<ErrorCode>([ErrorCode.UNAVAILABLE, ErrorCode.RATE_LIMITED, ErrorCode.SESSION_BUSY]);

export function toEdnError(err: unknown, log: Logger, context: { op: string; session?: string }): EdnOpError {
  if (err instanceof EdnOpError) return err;
  if (err instanceof StrandError) {
    if (serverSide.has(err.code)) log.error({ err, op: context.op, session: context.session }, 'an EDN request failed');
    return new EdnOpError(codes[err.code] ?? EdnErrorCode.failed, err.message, { 'strand-code': err.code }, retryable.has(err.code) || undefined);
  }
  // The store's answers that name a client mistake (an unknown entry to fork at, a bad cursor).
  if (err instanceof StoreError) {
    if (err.code === StoreErrorCode.NOT_FOUND || err.code === StoreErrorCode.ENTRY_NOT_FOUND) return new EdnOpError(EdnErrorCode.notFound, err.message);
    if (err.code === StoreErrorCode.INVALID_CURSOR || err.code === StoreErrorCode.INVALID_REQUEST) return new EdnOpError(EdnErrorCode.invalidParams, err.message);
    if (err.code === StoreErrorCode.STORAGE) return new EdnOpError(EdnErrorCode.failed, 'the session store is unavailable', undefined, true);
  }
  log.error({ err, op: context.op, session: context.session }, 'an EDN request failed');
  return new EdnOpError(EdnErrorCode.failed, 'internal error (see the gateway log)');
}

/**
 * For reads (get_state, get_messages, get_session_stats): an unknown session stays `request/not-found`,
 * a failing read becomes `runtime/query-failed`.
 */
export function toQueryError(err: unknown, log: Logger, context: { op: string; session?: string }): EdnOpError {
  const mapped = toEdnError(err, log, context);
  if (mapped.code === EdnErrorCode.failed) return new EdnOpError(EdnErrorCode.queryFailed, mapped.message, mapped.data, mapped.retryable);
  return mapped;
}

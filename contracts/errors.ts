/**
 * The error codes every strand transport speaks. Each gateway adapter maps a code to its own spelling
 * (HTTP status + `{error:{code,message,details}}`, WS `error`, EDN `request/...`); services raise
 * `StrandError` with one of these so the mapping lives in one place per transport.
 */
export const ErrorCode = {
  INVALID_REQUEST: 'INVALID_REQUEST',
  UNKNOWN_MODEL: 'UNKNOWN_MODEL',
  /** A prompt with images for a session whose model the catalog says takes none (refused before any turn starts). */
  IMAGES_NOT_SUPPORTED: 'IMAGES_NOT_SUPPORTED',
  JOB_NOT_FOUND: 'JOB_NOT_FOUND',
  /** A job id already taken by a job with another spec (or another principal's job). */
  JOB_EXISTS: 'JOB_EXISTS',
  /** A job's report was asked for while the job still runs. */
  JOB_NOT_FINISHED: 'JOB_NOT_FINISHED',
  /** An answer to a job's escalated call that was decided already (by a person, its timeout or the job). */
  JOB_ESCALATION_ANSWERED: 'JOB_ESCALATION_ANSWERED',
  /** A resume of a job that is not waiting for a person (it runs on, or it ended). */
  JOB_NOT_WAITING: 'JOB_NOT_WAITING',
  /** A prompt or another command into a job's session (`job-<id>`): the job runs its turns and owns its settings; steer or cancel the job instead. */
  JOB_SESSION: 'JOB_SESSION',
  /** No such turn (`session:<id>:turn:<n>`), or another principal's. */
  TURN_NOT_FOUND: 'TURN_NOT_FOUND',
  /** No hook of that name is defined (docs/jobs.md, "Triggers"). */
  HOOK_NOT_FOUND: 'HOOK_NOT_FOUND',
  /** A signed hook delivery whose body cannot fill the hook's template, or whose filled spec is no job spec; `details` says which. */
  HOOK_DELIVERY_REJECTED: 'HOOK_DELIVERY_REJECTED',
  /** HTTP only: no route answers this method and path (a typo in a URL, not a missing session or job). */
  NOT_FOUND: 'NOT_FOUND',
  UNAUTHORIZED: 'UNAUTHORIZED',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  INVALID_TOOL_CALL: 'INVALID_TOOL_CALL',
  SESSION_BUSY: 'SESSION_BUSY',
  /** A revert (or redo) would overwrite files someone else changed since the agent did (docs/undo.md); `details.paths` names them. */
  REVERT_CONFLICT: 'REVERT_CONFLICT',
  /** A redo with no revert to redo (none yet, already redone, or a new entry since dropped it). */
  NOTHING_TO_REDO: 'NOTHING_TO_REDO',
  /** A revert names a turn or tool call the session has no checkpoint (and no turn) for. */
  CHECKPOINT_NOT_FOUND: 'CHECKPOINT_NOT_FOUND',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  RATE_LIMITED: 'RATE_LIMITED',
  PERMISSION_DENIED: 'PERMISSION_DENIED',
  LLM_API_ERROR: 'LLM_API_ERROR',
  TRANSCRIPT_ERROR: 'TRANSCRIPT_ERROR',
  INTERNAL: 'INTERNAL',
  UNAVAILABLE: 'UNAVAILABLE',
} as const;

/** One of the codes above; the only error vocabulary that crosses a process boundary to clients. */
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * An error a service raises on purpose, to be shown to the client as-is (code + message + details).
 * Anything that is not a StrandError is reported as INTERNAL without its message or stack.
 */
export class StrandError extends Error {
  override readonly name = 'StrandError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

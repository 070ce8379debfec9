/**
 * `ApplicationFailure` types that cross Temporal: raised by activities and workflows, matched by the
 * turn's retry decision and by the gateway. Activities fail fast with one of these (their own retry
 * policies do not retry provider steps); the workflow decides what happens next.
 */
export const FailureType = {
  /** A prompt (or command) the session cannot take now. */
  SESSION_BUSY: 'SESSION_BUSY',
  INVALID_COMMAND: 'INVALID_COMMAND',
  /** An approval for a tool call that is not waiting for one. */
  UNKNOWN_TOOL_CALL: 'UNKNOWN_TOOL_CALL',
  /** The session is not in the store (deleted, or never created). */
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  /** A command into a job's session that only the job may give (a prompt). */
  JOB_SESSION: 'JOB_SESSION',
  /** A run started without its session's access facts cannot check a `checkedPrompt`: the gateway reads the store first. */
  ACCESS_UNKNOWN: 'ACCESS_UNKNOWN',
  /** The store rejected a request as malformed or conflicting: retrying cannot help. */
  STORE_INVALID: 'store.invalid',
  /** The store did not answer or could not write: worth retrying. */
  STORE_UNAVAILABLE: 'store.unavailable',
  /**
   * NATS (events, ledger) or another piece of strand's own infrastructure was unreachable for longer than
   * an activity waits it out. Never the model's fault, never final: the turn tries the step again.
   */
  INFRA_UNAVAILABLE: 'infra.unavailable',
} as const;

/**
 * Failure types that mean strand's own infrastructure failed (not the model, not the request): a turn
 * retries the step with its own budget and reports them as `UNAVAILABLE`, never as `LLM_API_ERROR`.
 */
/**
 * The type Temporal's worker records for an activity that rethrew the cancellation its worker's
 * shutdown sent (retryable). strand's activities leave with `infra.unavailable` instead; this one is
 * what any other path (a cancellation rethrown from deep inside) produces, and it is a polite stop of
 * strand's own worker: infrastructure, never the model's fault.
 */
export const WORKER_SHUTDOWN_FAILURE_TYPE = 'WorkerShutdown';

export const INFRA_FAILURE_TYPES: readonly string[] = [FailureType.STORE_UNAVAILABLE, FailureType.INFRA_UNAVAILABLE];

/** Provider failure classes (`provider.<kind>`), as activities raise them. */
export const providerFailureKinds = ['rate_limited', 'overloaded', 'transient', 'auth', 'context_overflow', 'permanent'] as const;
export type ProviderFailureKind = (typeof providerFailureKinds)[number];

export function providerFailureType(kind: ProviderFailureKind): string {
  return `provider.${kind}`;
}

/** The kind of a `provider.<kind>` failure type, or undefined for any other type. */
export function providerKindOf(type: string | undefined | null): ProviderFailureKind | undefined {
  if (!type?.startsWith('provider.')) return undefined;
  const kind = type.slice('provider.'.length);
  return (providerFailureKinds as readonly string[]).includes(kind) ? (kind as ProviderFailureKind) : undefined;
}

/**
 * Details every provider failure carries (ApplicationFailure `details[0]`), so the workflow can honour
 * the provider's requested wait and name who failed.
 */
export interface ProviderFailureDetails {
  provider?: string;
  status?: number;
  retry_after_ms?: number;
  /**
   * The step sent nothing: its provider key's shared backoff window is open (another session was
   * refused). The turn waits `retry_after_ms` without spending a retry attempt on it.
   */
  shared_backoff?: boolean;
}

/** Store failure types never worth a retry (the activities' retry policies list these). */
export const NON_RETRYABLE_STORE_FAILURES = [FailureType.SESSION_NOT_FOUND, FailureType.STORE_INVALID];

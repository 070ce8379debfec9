import * as wf from '@temporalio/workflow';
import { INFRA_FAILURE_TYPES, WORKER_SHUTDOWN_FAILURE_TYPE, providerKindOf, type ProviderFailureDetails, type ProviderFailureKind } from '../../contracts/failures';

/**
 * What failed a model step: the provider (one of its classes), or `infrastructure` — strand's own
 * parts (NATS, the store, Temporal, a worker that died). Infrastructure faults are never reported as
 * the model's and never final while the turn's infrastructure budget lasts.
 */
export type StepFailureKind = ProviderFailureKind | 'infrastructure';

/** A failed model step as the turn's retry decision sees it. */
export interface StepFailure {
  kind: StepFailureKind;
  message: string;
  retryAfterMs?: number;
  provider?: string;
  status?: number;
  /** A wait the provider key's shared backoff imposed (nothing was sent): not one of the turn's attempts. */
  sharedBackoff?: boolean;
}

/**
 * Reads a model step's failure. Provider failures arrive typed (`provider.<kind>` with details); the
 * store or NATS unreachable arrive as `store.unavailable` / `infra.unavailable`; a heartbeat timeout
 * means the worker running the step died (or its stream stalled on our side): infrastructure, so the
 * step runs again at once on any worker. Temporal's own `WorkerShutdown` (a worker stopped politely
 * while the step ran) is infrastructure too, when `shutdownIsInfra` says so: the workflow passes a
 * patch check, so a history recorded before this rule (where it ended the turn) replays unchanged.
 * Anything else is a bug in our code: permanent, with its message.
 */
export function stepFailureOf(err: unknown, shutdownIsInfra: () => boolean = () => true): StepFailure {
  const cause = err instanceof wf.ActivityFailure ? err.cause : err;
  if (cause instanceof wf.ApplicationFailure) {
    if (cause.type && INFRA_FAILURE_TYPES.includes(cause.type)) return { kind: 'infrastructure', message: cause.message };
    if (cause.type === WORKER_SHUTDOWN_FAILURE_TYPE && shutdownIsInfra()) {
      return { kind: 'infrastructure', message: 'the worker running the model step was stopped (a restart or a deploy)' };
    }
    const kind = providerKindOf(cause.type);
    const details = (cause.details?.[0] ?? {}) as ProviderFailureDetails;
    return {
      kind: kind ?? 'permanent',
      message: cause.message,
      ...(details.retry_after_ms !== undefined ? { retryAfterMs: details.retry_after_ms } : {}),
      ...(details.provider ? { provider: details.provider } : {}),
      ...(details.status !== undefined ? { status: details.status } : {}),
      ...(details.shared_backoff ? { sharedBackoff: true } : {}),
    };
  }
  if (cause instanceof wf.TimeoutFailure) {
    if (cause.timeoutType === 'HEARTBEAT') return { kind: 'infrastructure', message: 'the worker running the model step stopped answering (no heartbeat)' };
    return { kind: 'transient', message: 'the model step took too long' };
  }
  return { kind: 'permanent', message: cause instanceof Error ? cause.message : String(cause) };
}

/** The error code a turn given up on reports: strand's own parts failing is never the model's fault. */
export function errorCodeOf(failure: Pick<StepFailure, 'kind'>): 'UNAVAILABLE' | 'LLM_API_ERROR' {
  return failure.kind === 'infrastructure' ? 'UNAVAILABLE' : 'LLM_API_ERROR';
}

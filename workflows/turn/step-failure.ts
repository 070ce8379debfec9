import * as wf from '@temporalio/workflow';
import { providerKindOf, type ProviderFailureDetails, type ProviderFailureKind } from '../../contracts/failures';

/** A failed model step as the turn's retry decision sees it. */
export interface StepFailure {
  kind: ProviderFailureKind;
  message: string;
  retryAfterMs?: number;
  provider?: string;
  status?: number;
}

/**
 * Reads a model step's failure. Provider failures arrive typed (`provider.<kind>` with details); a
 * heartbeat or start-to-close timeout means the stream stalled or its worker died: transient, so the
 * step runs again (on any worker). Anything else is a bug in our code: permanent, with its message.
 */
export function stepFailureOf(err: unknown): StepFailure {
  const cause = err instanceof wf.ActivityFailure ? err.cause : err;
  if (cause instanceof wf.ApplicationFailure) {
    const kind = providerKindOf(cause.type);
    const details = (cause.details?.[0] ?? {}) as ProviderFailureDetails;
    return {
      kind: kind ?? 'permanent',
      message: cause.message,
      ...(details.retry_after_ms !== undefined ? { retryAfterMs: details.retry_after_ms } : {}),
      ...(details.provider ? { provider: details.provider } : {}),
      ...(details.status !== undefined ? { status: details.status } : {}),
    };
  }
  if (cause instanceof wf.TimeoutFailure) {
    return { kind: 'transient', message: `the model step timed out (${cause.timeoutType === 'HEARTBEAT' ? 'no heartbeat: the stream stalled or its worker stopped' : 'took too long'})` };
  }
  return { kind: 'permanent', message: cause instanceof Error ? cause.message : String(cause) };
}

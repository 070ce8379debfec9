import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';

/**
 * Whether an activity's cancellation is its worker shutting down (SIGTERM, Ctrl-C, `npm stop`, a
 * deploy) rather than a person's abort or Temporal's cancel. The SDK cancels every running activity
 * once the worker's grace time is over, with `cancellationDetails.workerShutdown` set (the reason's
 * message is `WORKER_SHUTDOWN` in the SDKs that predate the details).
 */
export function isWorkerShutdown(ctx: Pick<Context, 'cancellationSignal' | 'cancellationDetails'>): boolean {
  if (!ctx.cancellationSignal.aborted) return false;
  if (ctx.cancellationDetails?.workerShutdown === true) return true;
  const reason: unknown = ctx.cancellationSignal.reason;
  return reason instanceof Error && reason.message === 'WORKER_SHUTDOWN';
}

/**
 * What an activity cut by its worker's shutdown leaves with: strand's infrastructure, retryable, so
 * the turn runs the step again at once on another worker (or on this one once it is back) and the
 * retry goes on from what was already published. Never a cancellation: Temporal would record
 * Core's own `WorkerShutdown` failure, and never the model's fault.
 */
export function workerShutdownFailure(what: string): ApplicationFailure {
  return ApplicationFailure.create({
    message: `the worker running ${what} was stopped (a restart or a deploy); another worker goes on from where it was`,
    type: FailureType.INFRA_UNAVAILABLE,
    nonRetryable: false,
  });
}

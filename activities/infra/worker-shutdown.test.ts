import { CancelledFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { isWorkerShutdown, workerShutdownFailure } from './worker-shutdown';

function ctxWith(reason: unknown, details?: { workerShutdown: boolean }) {
  const controller = new AbortController();
  if (reason !== undefined) controller.abort(reason);
  return { cancellationSignal: controller.signal, cancellationDetails: details as never };
}

describe('isWorkerShutdown', () => {
  test("the worker's shutdown is told apart from a person's abort and from Temporal's cancel", () => {
    expect(isWorkerShutdown(ctxWith(new CancelledFailure('WORKER_SHUTDOWN'), { workerShutdown: true }))).toBe(true);
    // Without the details (older SDKs): the reason's message says it.
    expect(isWorkerShutdown(ctxWith(new CancelledFailure('WORKER_SHUTDOWN')))).toBe(true);
    expect(isWorkerShutdown(ctxWith(new CancelledFailure('CANCELLED'), { workerShutdown: false }))).toBe(false);
    expect(isWorkerShutdown(ctxWith(new CancelledFailure('the user aborted the turn')))).toBe(false);
    expect(isWorkerShutdown(ctxWith(undefined, { workerShutdown: true }))).toBe(false);
  });

  test('the failure it leaves with is retryable infrastructure, worded for people', () => {
    const failure = workerShutdownFailure('model step 0 of t1');
    expect(failure.type).toBe(FailureType.INFRA_UNAVAILABLE);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toMatch(/^the worker running model step 0 of t1 was stopped \(a restart or a deploy\)/);
  });
});

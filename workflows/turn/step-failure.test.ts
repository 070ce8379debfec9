import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { FailureType } from '../../contracts/failures';
import { errorCodeOf, stepFailureOf } from './step-failure';

const viaActivity = (cause: Error) => new ActivityFailure('activity failed', 'streamModelStep', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'worker', cause);

describe('stepFailureOf', () => {
  test("strand's own parts unreachable are infrastructure, reported as UNAVAILABLE", () => {
    for (const type of [FailureType.STORE_UNAVAILABLE, FailureType.INFRA_UNAVAILABLE]) {
      const failure = stepFailureOf(viaActivity(ApplicationFailure.create({ message: 'NATS unreachable', type })));
      expect(failure).toEqual({ kind: 'infrastructure', message: 'NATS unreachable' });
      expect(errorCodeOf(failure)).toBe('UNAVAILABLE');
    }
  });

  test('a missing heartbeat is a dead worker (infrastructure); a step that ran too long is transient', () => {
    expect(stepFailureOf(viaActivity(new TimeoutFailure(undefined, undefined, 'HEARTBEAT' as never))).kind).toBe('infrastructure');
    expect(stepFailureOf(viaActivity(new TimeoutFailure(undefined, undefined, 'START_TO_CLOSE' as never))).kind).toBe('transient');
  });

  test("provider failures keep their class and details, and are the model's (LLM_API_ERROR)", () => {
    const failure = stepFailureOf(viaActivity(ApplicationFailure.create({ message: 'slow down', type: 'provider.rate_limited', details: [{ provider: 'openai', status: 429, retry_after_ms: 2000 }] })));
    expect(failure).toEqual({ kind: 'rate_limited', message: 'slow down', provider: 'openai', status: 429, retryAfterMs: 2000 });
    expect(errorCodeOf(failure)).toBe('LLM_API_ERROR');
  });

  test('a wait the shared backoff imposed is read as such (not one of the attempts)', () => {
    const failure = stepFailureOf(viaActivity(ApplicationFailure.create({ message: 'shared backoff', type: 'provider.rate_limited', details: [{ provider: 'openai', retry_after_ms: 5000, shared_backoff: true }] })));
    expect(failure).toEqual({ kind: 'rate_limited', message: 'shared backoff', provider: 'openai', retryAfterMs: 5000, sharedBackoff: true });
  });

  test("a worker stopped politely (Temporal's WorkerShutdown) is infrastructure, UNAVAILABLE; a history from before the rule keeps it permanent", () => {
    const shutdown = () => viaActivity(ApplicationFailure.create({ message: 'Worker is shutting down and this activity did not complete in time', type: 'WorkerShutdown' }));
    const failure = stepFailureOf(shutdown());
    expect(failure.kind).toBe('infrastructure');
    expect(errorCodeOf(failure)).toBe('UNAVAILABLE');
    expect(stepFailureOf(shutdown(), () => false).kind).toBe('permanent');
  });
});

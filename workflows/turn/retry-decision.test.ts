import { DEFAULT_RETRY_OPTIONS, SHARED_BACKOFF_MAX_WAITS, decideRetry, maxAttemptsOf } from './retry-decision';

const opts = { ...DEFAULT_RETRY_OPTIONS, autoRetry: true };

describe('decideRetry', () => {
  test('transient failures back off exponentially up to the cap', () => {
    const delays = [1, 2, 3, 4, 5].map((a) => decideRetry({ kind: 'transient' }, a, { ...opts, maxDelayMs: 10_000 }));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 10_000].map((delayMs) => ({ action: 'retry', delayMs })));
  });

  test('attempts are capped', () => {
    expect(decideRetry({ kind: 'overloaded' }, 6, opts)).toEqual({ action: 'fail', reason: 'gave up after 6 attempts' });
  });

  test('retry-after is honoured, and a wait beyond the cap fails with a clear reason', () => {
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 7_000 }, 1, opts)).toEqual({ action: 'retry', delayMs: 7_000 });
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 0 }, 3, opts)).toEqual({ action: 'retry', delayMs: 1_000 });
    const long = decideRetry({ kind: 'rate_limited', retryAfterMs: 120_000 }, 1, opts);
    expect(long).toEqual({ action: 'fail', reason: 'the provider asked to wait 120 s, more than the 60 s this session waits' });
  });

  test('auto-retry off ends the turn; auth and permanent never retry; overflow compacts', () => {
    expect(decideRetry({ kind: 'transient' }, 1, { ...opts, autoRetry: false })).toMatchObject({ action: 'fail' });
    expect(decideRetry({ kind: 'auth' }, 1, opts)).toMatchObject({ action: 'fail' });
    expect(decideRetry({ kind: 'permanent' }, 1, opts)).toMatchObject({ action: 'fail' });
    expect(decideRetry({ kind: 'context_overflow' }, 1, opts)).toEqual({ action: 'compact' });
  });

  test('infrastructure faults retry at once, then back off, whatever auto-retry says, on their own budget', () => {
    const off = { ...opts, autoRetry: false };
    expect([1, 2, 3, 10].map((a) => decideRetry({ kind: 'infrastructure' }, a, off))).toEqual([0, 500, 1_000, 10_000].map((delayMs) => ({ action: 'retry', delayMs })));
    expect(decideRetry({ kind: 'infrastructure' }, 61, opts)).toMatchObject({ action: 'fail' });
  });

  test('a shared-backoff wait lasts exactly the window and spends none of the attempts, on a budget of its own', () => {
    // Far beyond the attempts a refused request has: the wait is still taken, to the millisecond.
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 42_345, sharedBackoff: true }, 7, opts)).toEqual({ action: 'retry', delayMs: 42_345 });
    expect(decideRetry({ kind: 'overloaded', retryAfterMs: 250, sharedBackoff: true }, 1, opts)).toEqual({ action: 'retry', delayMs: 250 });
    // A real refusal at the same count is given up on.
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 42_345 }, 7, opts)).toMatchObject({ action: 'fail' });
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 1_000, sharedBackoff: true }, SHARED_BACKOFF_MAX_WAITS + 1, opts)).toMatchObject({ action: 'fail' });
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 90_000, sharedBackoff: true }, 1, opts)).toEqual({ action: 'fail', reason: 'the provider asked to wait 90 s, more than the 60 s this session waits' });
    expect(decideRetry({ kind: 'rate_limited', retryAfterMs: 1_000, sharedBackoff: true }, 1, { ...opts, autoRetry: false })).toMatchObject({ action: 'fail' });
  });

  test('retry.scheduled names the budget each kind of failure is counted against', () => {
    expect(maxAttemptsOf({ kind: 'rate_limited' })).toBe(DEFAULT_RETRY_OPTIONS.maxRetries + 1);
    expect(maxAttemptsOf({ kind: 'rate_limited', sharedBackoff: true })).toBe(SHARED_BACKOFF_MAX_WAITS);
    expect(maxAttemptsOf({ kind: 'infrastructure' })).toBe(61);
  });
});

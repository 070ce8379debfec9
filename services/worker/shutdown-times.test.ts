import { shutdownTimesFromEnv } from './shutdown-times';

describe('shutdownTimesFromEnv', () => {
  test('defaults fit inside the stack runner kill timer for workers (4 s)', () => {
    const t = shutdownTimesFromEnv({});
    expect(t.graceMs).toBeGreaterThan(0);
    expect(t.forceMs).toBeGreaterThan(t.graceMs);
    expect(t.forceMs).toBeLessThan(4_000);
  });

  test('a longer grace time moves the force time with it; bad values are refused with their name', () => {
    expect(shutdownTimesFromEnv({ STRAND_WORKER_SHUTDOWN_GRACE_MS: '5000' })).toEqual({ graceMs: 5_000, forceMs: 6_500 });
    expect(() => shutdownTimesFromEnv({ STRAND_WORKER_SHUTDOWN_GRACE_MS: '1.5s' })).toThrow(/STRAND_WORKER_SHUTDOWN_GRACE_MS/);
    expect(() => shutdownTimesFromEnv({ STRAND_WORKER_SHUTDOWN_GRACE_MS: '2000', STRAND_WORKER_SHUTDOWN_FORCE_MS: '1000' })).toThrow(/must be longer/);
  });
});

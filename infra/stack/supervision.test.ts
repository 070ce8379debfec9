import { createSupervisor } from './supervision';

const crash = (uptimeMs = 100) => ({ code: null, signal: 'SIGKILL' as const, intended: false, uptimeMs });

describe('supervision', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup() {
    const restarts: string[] = [];
    const lines: string[] = [];
    const sup = createSupervisor(
      async (name) => {
        restarts.push(name);
      },
      (name, line) => lines.push(`[${name}] ${line}`),
    );
    return { sup, restarts, lines };
  }

  test('a crash is logged and restarted after the backoff, which grows with each crash', async () => {
    const { sup, restarts, lines } = setup();
    sup.exited('worker', crash());
    expect(lines).toEqual(['[worker] exited unexpectedly (killed by SIGKILL); restarting in 0.5 s (restart 1)']);
    await jest.advanceTimersByTimeAsync(499);
    expect(restarts).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(restarts).toEqual(['worker']);
    expect(lines).toContain('[worker] restarted (restart 1)');
    sup.exited('worker', { code: 1, signal: null, intended: false, uptimeMs: 100 });
    expect(lines).toContain('[worker] exited unexpectedly (exit code 1); restarting in 1 s (restart 2)');
    await jest.advanceTimersByTimeAsync(1_000);
    expect(restarts).toEqual(['worker', 'worker']);
  });

  test('an exit asked for is not restarted', async () => {
    const { sup, restarts, lines } = setup();
    sup.exited('gateway', { ...crash(), intended: true });
    await jest.advanceTimersByTimeAsync(60_000);
    expect(restarts).toEqual([]);
    expect(lines).toEqual([]);
  });

  test('closing (the stack stops) cancels pending restarts and ignores later crashes', async () => {
    const { sup, restarts } = setup();
    sup.exited('store', crash());
    sup.close();
    sup.exited('nats', crash());
    await jest.advanceTimersByTimeAsync(60_000);
    expect(restarts).toEqual([]);
  });

  test('a restart by hand cancels the pending one', async () => {
    const { sup, restarts } = setup();
    sup.exited('store', crash());
    sup.cancel('store');
    await jest.advanceTimersByTimeAsync(60_000);
    expect(restarts).toEqual([]);
  });

  test('settled() waits for a pending restart to come up, and through a restart that dies before it is up', async () => {
    const restarts: string[] = [];
    let failNext = true;
    const sup = createSupervisor(
      async (name) => {
        restarts.push(name);
        if (failNext) {
          failNext = false;
          // The new process died before it was ready: the stack reports that exit, then the start fails.
          sup.exited(name, crash());
          throw new Error('gateway exited before it was ready');
        }
      },
      () => undefined,
    );
    let settled = false;
    await sup.settled();
    sup.exited('gateway', crash());
    void sup.settled().then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(500);
    expect(restarts).toEqual(['gateway']);
    expect(settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(restarts).toEqual(['gateway', 'gateway']);
    expect(settled).toBe(true);
  });

  test('settled() resolves once the stack stops, restarts still pending', async () => {
    const { sup } = setup();
    sup.exited('worker', crash());
    let settled = false;
    void sup.settled().then(() => (settled = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    sup.close();
    await jest.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
  });
});

import { RestartBackoff } from './restart-policy';

describe('restart backoff', () => {
  test('doubles from 0.5 s and stops growing at 30 s', () => {
    const b = new RestartBackoff();
    const delays = Array.from({ length: 9 }, () => b.next(100).delayMs);
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]);
  });

  test('starts over once the process stayed up a minute', () => {
    const b = new RestartBackoff();
    b.next(100);
    b.next(100);
    expect(b.next(100)).toEqual({ delayMs: 2_000, attempt: 3 });
    expect(b.next(60_000)).toEqual({ delayMs: 500, attempt: 1 });
    expect(b.next(59_999).delayMs).toBe(1_000);
  });
});

import { everyAlignedInterval } from './telemetry-clock';

afterEach(() => jest.useRealTimers());

test('fires at the aligned instants of the wall clock, whenever it was started, until stopped', () => {
  jest.useFakeTimers({ now: 10_200 });
  const fired: number[] = [];
  const stop = everyAlignedInterval(1_000, 500, () => fired.push(Date.now()));
  jest.advanceTimersByTime(3_000);
  expect(fired).toEqual([10_500, 11_500, 12_500]);
  stop();
  jest.advanceTimersByTime(3_000);
  expect(fired).toHaveLength(3);
});

test('an instant missed while the event loop was busy is skipped, not caught up', () => {
  jest.useFakeTimers({ now: 0 });
  const fired: number[] = [];
  const stop = everyAlignedInterval(1_000, 0, () => {
    fired.push(Date.now());
    if (fired.length === 1) jest.setSystemTime(Date.now() + 2_500); // a long pause inside the callback
  });
  jest.advanceTimersByTime(2_000);
  stop();
  expect(fired).toEqual([1_000, 4_000]);
});

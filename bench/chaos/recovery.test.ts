import { recoveryTimes } from './recovery';

test('the silence spans the last delta before the fault and the first after it', () => {
  expect(recoveryTimes([100, 150, 200, 5_200, 5_250], 210, 6_000)).toEqual({ silence: 5_000, faultToResume: 4_990, faultToFinished: 5_790 });
});

test('a delta in flight when the fault hit does not end the silence', () => {
  expect(recoveryTimes([100, 150, 200, 212, 3_212, 3_262], 210, 4_000)).toEqual({ silence: 3_000, faultToResume: 3_002, faultToFinished: 3_790 });
});

test('nothing after the fault: no silence and no resume', () => {
  expect(recoveryTimes([100, 150], 210, undefined)).toEqual({ silence: undefined, faultToResume: undefined, faultToFinished: undefined });
});

test('gaps that start after the deltas in flight are the pace of the stream, not the fault', () => {
  expect(recoveryTimes([100, 150, 200, 250, 300, 350, 400, 450, 500, 2_000], 210, 3_000)).toEqual({ silence: 50, faultToResume: 40, faultToFinished: 2_790 });
});

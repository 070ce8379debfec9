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

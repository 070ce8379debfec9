import { recoveryTimes } from './recovery';

test('the silence spans the last delta before the fault and the first after it', () => {
  expect(recoveryTimes([100, 150, 200, 5_200, 5_250], 210, 6_000)).toEqual({ silence: 5_000, faultToFirstDelta: 4_990, faultToFinished: 5_790 });
});

test('nothing after the fault: no silence and no first delta', () => {
  expect(recoveryTimes([100, 150], 210, undefined)).toEqual({ silence: undefined, faultToFirstDelta: undefined, faultToFinished: undefined });
});

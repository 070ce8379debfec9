import { stoppedLine } from './running-turns';

test('the stop line names the running turns, or only the time when none ran or Temporal did not say', () => {
  expect(stoppedLine(2.71, [])).toBe('[strand] stopped in 2.7 s');
  expect(stoppedLine(2.71, undefined)).toBe('[strand] stopped in 2.7 s');
  expect(stoppedLine(1, ['s1 t3'])).toBe('[strand] stopped in 1.0 s; a turn was running (s1 t3): it goes on where it stopped when strand starts again');
  expect(stoppedLine(1, ['a t1', 'b t2', 'c t1', 'd t4', 'e t9'])).toBe('[strand] stopped in 1.0 s; 5 turns were running (a t1, b t2, c t1 and 2 more): they go on where they stopped when strand starts again');
});
